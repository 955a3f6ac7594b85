import { createHash } from 'node:crypto';
import type { Chunk } from '../chunkers/types.js';
import type { Document } from '../document/types.js';
import type { Block } from '../store/types.js';

/** Stable hash of a chunking configuration: strategy, resolved options and tokenizer. */
export function configHash(config: { strategy: string; options: Record<string, unknown>; tokenizer: string }): string {
  const canonical = JSON.stringify(config, (_key, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

const NON_SPACE = /\S/;

/**
 * The chunks worth storing: a strategy may return chunks of nothing but whitespace (the `chisel` and
 * `qwen` compatibility strategies do, as their originals do for blank input); the library keeps no
 * such block. A chunk is blank when its text, or the source span it covers, holds only whitespace
 * (Qwen's chunk of an empty text is just its `[page: 0]` marker).
 */
export function storableChunks(source: string, chunks: readonly Chunk[]): Chunk[] {
  return chunks.filter((c) => NON_SPACE.test(c.text) && NON_SPACE.test(source.slice(c.start, c.end)));
}

/**
 * Turns chunks into blocks: ids from document + config + ordinal, boxes from the elements covered.
 * `first`: the ordinal of the first chunk (a document's chunks converted piece by piece).
 */
export function chunksToBlocks(doc: Document, chunks: readonly Chunk[], hash: string, first = 0): Block[] {
  return chunks.map((c, i) => ({
    id: createHash('sha256').update(`${doc.id}:${hash}:${first + i}`).digest('hex').slice(0, 32),
    docId: doc.id,
    ordinal: first + i,
    kind: c.kind,
    text: c.text,
    headingPath: c.headingPath,
    pageStart: c.pageStart ?? null,
    pageEnd: c.pageEnd ?? null,
    bboxes: chunkBoxes(doc, c),
    start: c.start,
    end: c.end,
    chars: c.chars,
    tokens: c.tokens,
    table: c.table ?? null,
    speaker: c.speaker ?? null,
    time: c.startTime !== undefined ? [c.startTime, c.endTime ?? c.startTime] : null,
    strategy: c.strategy,
    configHash: hash,
  }));
}

/** The boxes of the elements a chunk covers (each piece's, with its page), as its block stores them; null when none has one. */
export function chunkBoxes(doc: Document, c: Pick<Chunk, 'start' | 'end'>): Block['bboxes'] {
  const els = doc.elements;
  // Elements are in canonical order: binary-search the first one ending after the chunk starts.
  let lo = 0;
  let hi = els.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (els[mid]!.end <= c.start) lo = mid + 1;
    else hi = mid;
  }
  const boxes: NonNullable<Block['bboxes']> = [];
  for (let i = lo; i < els.length && els[i]!.start < c.end; i++) {
    const e = els[i]!;
    if (e.bboxes) boxes.push(...e.bboxes.map((b) => ({ ...b })));
    else if (e.bbox) boxes.push(e.page !== undefined ? { page: e.page, ...e.bbox } : { ...e.bbox });
  }
  return boxes.length > 0 ? boxes : null;
}

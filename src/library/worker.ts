import { chunk } from '../chunk.js';
import type { Chunk } from '../chunkers/types.js';
import type { Document } from '../document/types.js';
import { GroundworkError, isGroundworkError, type LimitInfo } from '../errors.js';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DEFAULT_MAX_BYTES, parse } from '../parse.js';
import { blockIndexText } from '../search/analyze.js';
import { storableChunks } from './blocks.js';
import type { ParseOptions } from '../parsers/types.js';
import type { ChunkOptions } from '../chunk.js';

/**
 * One unit of ingest work, done in a worker process (src/library/ingest-process.ts) or, with
 * `workers: 0`, in the Library's own: parse (unless cached), then chunk and analyse for search.
 */
export interface IngestTask {
  id: number;
  /** Where the bytes are read from. */
  path: string;
  /** The file they are, when `path` is a copy (Library.addCopies): parsed and named as this one. */
  recordAs?: { path: string; mtimeMs: number };
  cached?: Document;
  parseOptions: ParseOptions;
  chunkOptions: ChunkOptions;
}

/**
 * Chunk text (UTF-16 code units) of a document up to which its blocks' search analysis is made
 * by the worker and sent with its result; a bigger document's blocks are analysed by the store,
 * one at a time, as it writes them.
 */
export const INDEX_TEXT_CHARS = 8 << 20;

export type IngestResult =
  | { id: number; ok: true; document: Document; chunks: Chunk[][]; indexTexts: string[][]; parsed: boolean; parseBlob?: Uint8Array }
  | { id: number; ok: false; code: string; reason: string; limit?: LimitInfo };

/** A document and its descendants (attachments, archive entries), parent first, depth first. */
export function documentTree(doc: Document): Document[] {
  const out: Document[] = [doc];
  for (const child of doc.children ?? []) out.push(...documentTree(child));
  return out;
}

/**
 * A copy's bytes parsed as the file they are: detection, messages and attachments' names use the
 * recorded path, and the document's source is that file's (as `parse(path)` would record it).
 */
async function parseCopy(from: string, as: { path: string; mtimeMs: number }, options: ParseOptions): Promise<Document> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const info = await stat(from).catch((cause: Error) => {
    throw new GroundworkError('IO', `cannot read: ${cause.message}`, { file: as.path, cause });
  });
  // The limit before reading, as parse(path) checks it.
  if (info.size > maxBytes) {
    throw new GroundworkError('TOO_LARGE', `${info.size} bytes exceeds the limit of ${maxBytes} bytes (maxBytes; raise it with --max-bytes)`, { file: as.path, limit: { name: 'maxBytes', value: maxBytes, flag: '--max-bytes' } });
  }
  const bytes = await readFile(from).catch((cause: Error) => {
    throw new GroundworkError('IO', `cannot read: ${cause.message}`, { file: as.path, cause });
  });
  const document = await parse(bytes, { ...options, name: as.path });
  document.source = { ...document.source, name: basename(as.path), path: as.path, mtime: new Date(as.mtimeMs).toISOString() };
  return document;
}

export async function runTask(task: IngestTask): Promise<IngestResult> {
  try {
    const document = task.cached ?? (task.recordAs ? await parseCopy(task.path, task.recordAs, task.parseOptions) : await parse(task.path, task.parseOptions));
    // Chunk sets in documentTree order; a container with no text of its own gets none.
    const chunks = documentTree(document).map((d) => (d.canonical.trim() === '' ? [] : storableChunks(d.canonical, chunk(d, task.chunkOptions))));
    // Search analysis (jieba, stemming) is the slowest part of a write: do it here, not on the writer,
    // unless the texts are so big that holding their analysis too would double the memory: then the
    // store analyses each block as it writes it (see INDEX_TEXT_CHARS).
    let chars = 0;
    for (const set of chunks) for (const c of set) chars += c.text.length;
    const indexTexts = chars <= INDEX_TEXT_CHARS ? chunks.map((set) => set.map(blockIndexText)) : chunks.map(() => []);
    return { id: task.id, ok: true, document, chunks, indexTexts, parsed: !task.cached };
  } catch (error) {
    if (isGroundworkError(error)) return { id: task.id, ok: false, code: error.code, reason: error.message, ...(error.limit && { limit: error.limit }) };
    return { id: task.id, ok: false, code: 'CORRUPT', reason: `${task.path}: ${(error as Error).message}` };
  }
}

/**
 * How an ingest worker's result crosses to the Library's process (src/library/ingest-process.ts).
 *
 * The result of a big file is never one message: a structured-clone message is held whole by the
 * sender (serialized), and twice by the receiver (the bytes read, then concatenated) besides the
 * objects it becomes, so a 100 MB text made a message of four copies of it (canonical text,
 * element texts, chunk texts, index texts) and peaked at over 2 GB across the two processes.
 * Instead the worker sends pieces (`TaskContext.part`, each awaited until the Library has taken
 * it, so at most one piece is in flight), in this order:
 * - the parse-cache entry, encoded here (`encodeParse`), where the whole parse is at hand, in
 *   slices of `PART_CHARS` bytes;
 * - the head (`ResultHead`): the documents with no canonical text and elements only the fields the
 *   Library reads (kind, span, page, boxes), and how many chunks, of how many characters, each
 *   document has, so the Library can begin a document's write before its blocks arrive;
 * - the chunks, set by set (a set per document, in `documentTree` order), in pieces of at most
 *   `PART_CHARS` characters of text (chunk texts plus their index texts), each chunk with its text
 *   and no `prefix`;
 * and then the result message, which only counts the chunks. The Library writes a big document's
 * pieces away as they come (`LibraryStore.beginDocument`) instead of holding them all.
 * The index texts (search analysis, as big as the chunk texts) travel only for documents up to
 * `INDEX_TEXT_CHARS`; a bigger document's blocks are analysed by the store one at a time as it
 * writes them, so no process holds them all.
 */
export const PART_CHARS = 4 << 20;

/** What the Library knows of a result before its chunks (the second kind of piece). */
export interface ResultHead {
  /** The root document's skeleton (no texts; its children likewise). */
  document: Document;
  parsed: boolean;
  /** True when pieces before the head carry the parse-cache entry. */
  parseBlob: boolean;
  /** Per chunk set (`documentTree` order): how many chunks, and their text's length in UTF-16 code units. */
  sets: { chunks: number; chars: number }[];
}

/** A piece of a result. */
export type ResultPart =
  | { blob: Uint8Array }
  | { head: ResultHead }
  /** Consecutive chunks of set `set`, from its chunk `from`; `indexTexts` when they were made. */
  | { set: number; from: number; chunks: Chunk[]; indexTexts?: string[] };

/** A full collection where the process allows one (`--expose-gc`, as ingest workers run). */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export interface PackedIngestResult {
  id: number;
  ok: true;
  /** Chunks sent in the pieces, all sets together (a check that none was lost). */
  chunks: number;
}

export type WireIngestResult = PackedIngestResult | Extract<IngestResult, { ok: false }>;

/**
 * Sends a result's pieces with `part` and returns what goes in the result message. With `consume`
 * (the worker process, whose result is sent nowhere else) the result is emptied as it goes: the
 * parse (its canonical text and element texts) once the head is sent, each chunk once its piece is,
 * so the worker's memory falls while its pieces are written away instead of staying at its peak.
 */
export async function packResult(result: IngestResult, part: (value: ResultPart) => Promise<void>, options: { encodeParse?: (doc: Document) => Uint8Array; consume?: boolean } = {}): Promise<WireIngestResult> {
  if (!result.ok) return result;
  const parseBlob = Boolean(options.encodeParse && result.parsed);
  if (parseBlob) {
    const blob = options.encodeParse!(result.document);
    for (let at = 0; at < blob.length; at += PART_CHARS) await part({ blob: blob.subarray(at, at + PART_CHARS) });
  }
  let total = 0;
  const sets = result.chunks.map((set) => {
    let chars = 0;
    for (const c of set) chars += c.text.length;
    total += chars;
    return { chunks: set.length, chars };
  });
  const head: ResultHead = { document: skeleton(result.document), parsed: result.parsed, parseBlob, sets };
  if (options.consume) (result as { document: Document | null }).document = null;
  await part({ head });
  // The parse is garbage now (unless chunk texts are slices of it): give a big one's memory back
  // before the chunks cross. Not for every document: a full collection per file cost the corpus
  // ingest ~15% of its time.
  if (options.consume && total >= 2 * PART_CHARS) collect();
  const withIndex = total <= INDEX_TEXT_CHARS;
  let count = 0;
  let pieces = 0;
  for (let s = 0; s < result.chunks.length; s++) {
    const set = result.chunks[s]!;
    const indexTexts = withIndex ? result.indexTexts[s] : undefined;
    let from = 0;
    let chunks: Chunk[] = [];
    let chars = 0;
    const flush = async () => {
      if (chunks.length === 0) return;
      await part({ set: s, from, chunks, ...(indexTexts && indexTexts.length > 0 && { indexTexts: indexTexts.slice(from, from + chunks.length) }) });
      from += chunks.length;
      chunks = [];
      chars = 0;
    };
    for (let i = 0; i < set.length; i++) {
      // `prefix` (a breadcrumb, a repeated header, the overlap) is in the text already, and no block keeps it.
      const { prefix: _prefix, ...c } = set[i]!;
      if (options.consume) (set as (Chunk | undefined)[])[i] = undefined;
      chunks.push(c);
      chars += c.text.length + (indexTexts?.[i]?.length ?? 0);
      count++;
      if (chars >= PART_CHARS) {
        await flush();
        // The chunks sent are garbage: every 8 pieces (32 M characters), give their memory back.
        if (options.consume && ++pieces % 8 === 0) collect();
      }
    }
    await flush();
    if (options.consume) {
      result.chunks[s] = [];
      if (indexTexts) result.indexTexts[s] = [];
    }
  }
  return { id: result.id, ok: true, chunks: count };
}

/**
 * Takes the pieces of one result as they come (`packResult`'s order): the parse-cache entry, the
 * head, then each set's chunks. `onChunks` hears each piece of chunks; what it does not keep is
 * gone. `result()` puts together what was kept: the chunks of the sets `keep` said yes to.
 */
export class ResultReceiver {
  private readonly blobs: Uint8Array[] = [];
  head: ResultHead | undefined;
  private chunks: Chunk[][] = [];
  private indexTexts: string[][] = [];
  private received = 0;

  constructor(
    private readonly options: {
      /** Called once the head arrives. */
      onHead?: (head: ResultHead, parseBlob: Uint8Array | undefined) => Promise<void> | void;
      /** Whether set `set`'s chunks are kept for `result()` (default: all). */
      keep?: (set: number) => boolean;
      /** Each piece of chunks, as it arrives. */
      onChunks?: (set: number, from: number, chunks: Chunk[], indexTexts: string[] | undefined) => Promise<void> | void;
    } = {},
  ) {}

  /** The parse-cache entry, once the head has arrived. */
  get parseBlob(): Uint8Array | undefined {
    if (!this.head?.parseBlob) return undefined;
    return this.blobs.length === 1 ? this.blobs[0]! : Buffer.concat(this.blobs);
  }

  async take(value: unknown): Promise<void> {
    const p = value as ResultPart;
    if ('blob' in p) {
      this.blobs.push(p.blob);
    } else if ('head' in p) {
      this.head = p.head;
      this.chunks = p.head.sets.map(() => []);
      this.indexTexts = p.head.sets.map(() => []);
      await this.options.onHead?.(p.head, this.parseBlob);
    } else {
      this.received += p.chunks.length;
      await this.options.onChunks?.(p.set, p.from, p.chunks, p.indexTexts);
      if (this.options.keep?.(p.set) ?? true) {
        const set = this.chunks[p.set]!;
        for (const c of p.chunks) set.push(c);
        if (p.indexTexts) this.indexTexts[p.set]!.push(...p.indexTexts);
      }
    }
  }

  /** The result with the kept chunks (sets not kept come back empty) and the cache entry. */
  result(wire: WireIngestResult): IngestResult & { parseBlob?: Uint8Array } {
    if (!wire.ok) return wire;
    const head = this.head;
    if (!head || this.received !== wire.chunks) {
      return { id: wire.id, ok: false, code: 'CRASHED', reason: `the worker's result arrived incomplete (${this.received} of ${wire.chunks} chunks)` };
    }
    const parseBlob = this.parseBlob;
    return {
      id: wire.id,
      ok: true,
      document: head.document,
      chunks: this.chunks,
      // Blocks with no index text are analysed by the store as it writes them.
      indexTexts: this.indexTexts,
      parsed: head.parsed,
      ...(parseBlob && { parseBlob }),
    };
  }
}

/** The Library's side of `packResult` when it keeps everything: the result with its chunks back, and the cache entry. */
export async function unpackResult(wire: WireIngestResult, parts: readonly unknown[]): Promise<IngestResult & { parseBlob?: Uint8Array }> {
  const receiver = new ResultReceiver();
  for (const p of parts) await receiver.take(p);
  return receiver.result(wire);
}

/** A document as the Library needs it once its chunks and cache entry are made: no texts, no table cells. */
function skeleton(doc: Document): Document {
  return {
    ...doc,
    canonical: '',
    elements: doc.elements.map((e) => ({
      kind: e.kind,
      index: e.index,
      start: e.start,
      end: e.end,
      text: '',
      ...(e.page !== undefined && { page: e.page }),
      ...(e.pageEnd !== undefined && { pageEnd: e.pageEnd }),
      ...(e.bbox && { bbox: e.bbox }),
      ...(e.bboxes && { bboxes: e.bboxes }),
    })),
    ...(doc.children && { children: doc.children.map(skeleton) }),
  };
}

import type { Block } from '../store/types.js';
import type { Candidate, HitScores } from './types.js';

/**
 * Clean results: hits of one document whose canonical spans overlap become one passage with the
 * union span; neighbours widen a hit by the blocks around it (small-to-big); passages with the same
 * text collapse into the best one, which lists where else the text is.
 */

/** Strategies whose block text ends with the block's canonical span (`text === prefix + canonical.slice(start, end)`). */
export const SPAN_TEXT_STRATEGIES: ReadonlySet<string> = new Set(['structure', 'sentence', 'token', 'recursive', 'chisel']);

/** Where else a collapsed passage's text was found. */
export interface DuplicateSource {
  docId: string;
  path: string | null;
  blockId: string;
  headingPath: string[];
  pageStart: number | null;
  pageEnd: number | null;
}

/** A cleaned hit: one passage of one document, made of one or more blocks. */
export interface Passage {
  docId: string;
  path: string | null;
  /** The best-ranked block that matched (its scores are the passage's). */
  block: Block;
  score: number;
  scores: HitScores;
  /** Every block of the passage in canonical order: matched and neighbours. */
  blocks: Block[];
  /** Ids of the blocks that matched the query (the others are neighbours). */
  matched: string[];
  /** The union span in the document's canonical text. */
  start: number;
  end: number;
  /** The passage text: the first block's text, then what each next block adds, overlaps said once. */
  text: string;
  /** The same text without the first block's prefix (breadcrumb, repeated header): what duplicates compare. */
  body: string;
  /** Other places with exactly this text. */
  duplicates: DuplicateSource[];
}

/** The block's canonical text, when its strategy keeps it at the end of `text`. */
export function blockBody(block: Pick<Block, 'text' | 'start' | 'end' | 'strategy'>): string | undefined {
  const length = block.end - block.start;
  if (!SPAN_TEXT_STRATEGIES.has(block.strategy) || length < 0 || block.text.length < length) return undefined;
  return block.text.slice(block.text.length - length);
}

/**
 * Text of blocks (sorted by start) laid end to end: each block adds only what lies past the end so
 * far. Between blocks that do not touch, the gap is one newline when it is one character (list items)
 * and a blank line otherwise (the canonical text's separators). Blocks whose strategy does not keep
 * the span text (qwen) cannot be cut at the overlap: their whole text follows on a new line.
 */
export function joinBlocks(blocks: readonly Block[]): { text: string; body: string } {
  const first = blocks[0]!;
  let text = first.text;
  let body = blockBody(first) ?? first.text;
  let end = first.end;
  for (let i = 1; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (b.end <= end) continue;
    const own = blockBody(b);
    let added: string;
    if (own === undefined) added = `\n${b.text}`;
    else if (b.start < end) added = own.slice(end - b.start);
    else added = (b.start === end ? '' : b.start - end === 1 ? '\n' : '\n\n') + own;
    text += added;
    body += added;
    end = b.end;
  }
  return { text, body };
}

function toPassage(candidate: Candidate, blocks: Block[]): Passage {
  const sorted = sortBlocks(blocks);
  const { text, body } = joinBlocks(sorted);
  return {
    docId: candidate.block.docId,
    path: candidate.path,
    block: candidate.block,
    score: candidate.score,
    scores: candidate.scores ?? {},
    blocks: sorted,
    matched: [candidate.block.id],
    start: sorted[0]!.start,
    end: Math.max(...sorted.map((b) => b.end)),
    text,
    body,
    duplicates: [],
  };
}

function sortBlocks(blocks: Block[]): Block[] {
  const unique = new Map<string, Block>();
  for (const b of blocks) unique.set(b.id, b);
  return [...unique.values()].sort((a, b) => a.start - b.start || a.end - b.end || a.ordinal - b.ordinal);
}

/** Merges `later` (ranked lower) into `kept`: union of blocks, the better-ranked block's scores. */
function absorb(kept: Passage, later: Passage): Passage {
  const blocks = sortBlocks([...kept.blocks, ...later.blocks]);
  const { text, body } = joinBlocks(blocks);
  return {
    ...kept,
    blocks,
    matched: [...kept.matched, ...later.matched.filter((id) => !kept.matched.includes(id))],
    start: Math.min(kept.start, later.start),
    end: Math.max(kept.end, later.end),
    text,
    body,
    duplicates: [...kept.duplicates, ...later.duplicates],
  };
}

function overlaps(a: { docId: string; start: number; end: number }, b: { docId: string; start: number; end: number }): boolean {
  return a.docId === b.docId && a.start < b.end && b.start < a.end;
}

/**
 * Passages from ranked candidates: each candidate with its context blocks (`windows`, default the
 * block alone), merged with every earlier passage of its document it overlaps. The result keeps the
 * rank order of each passage's best candidate; no two passages of a document overlap.
 */
export function mergeOverlapping(candidates: readonly Candidate[], windows?: ReadonlyMap<string, Block[]>): Passage[] {
  // Slots in rank order of each passage's best candidate; a slot merged into an earlier one empties.
  const slots: (Passage | undefined)[] = [];
  const live = new Map<string, number[]>();
  for (const candidate of candidates) {
    let current = toPassage(candidate, windows?.get(candidate.block.id) ?? [candidate.block]);
    const indexes = live.get(current.docId) ?? [];
    let slot: number | undefined;
    // A merge widens the passage, which may then reach another: repeat until it overlaps none.
    for (let i = nextOverlap(slots, indexes, current, slot); i !== undefined; i = nextOverlap(slots, indexes, current, slot)) {
      const other = slots[i]!;
      if (slot === undefined || i < slot) {
        current = absorb(other, current);
        if (slot !== undefined) drop(slots, indexes, slot);
        slot = i;
      } else {
        current = absorb(current, other);
        drop(slots, indexes, i);
      }
    }
    if (slot === undefined) {
      indexes.push(slots.length);
      slots.push(current);
    } else {
      slots[slot] = current;
    }
    live.set(current.docId, indexes);
  }
  return slots.filter((p): p is Passage => p !== undefined);
}

function nextOverlap(slots: readonly (Passage | undefined)[], indexes: readonly number[], current: Passage, own: number | undefined): number | undefined {
  return indexes.find((i) => i !== own && overlaps(slots[i]!, current));
}

function drop(slots: (Passage | undefined)[], indexes: number[], i: number): void {
  slots[i] = undefined;
  indexes.splice(indexes.indexOf(i), 1);
}

/**
 * What duplicates compare: the body without the canonical heading lines it opens with (the same
 * paragraph under `### （二）资金来源` in one document and `# 摘录` in another is the same text),
 * unless nothing else is left.
 */
export function duplicateKey(body: string): string {
  const rest = body.replace(/^(?:#{1,6} [^\n]*(?:\n\n|\n|$))+/u, '').trim();
  return rest === '' ? body.trim() : rest;
}

/**
 * Passages with the same text (`duplicateKey`) collapse into the first (best-ranked) one, which
 * lists the others as `duplicates`.
 */
export function collapseDuplicates(passages: readonly Passage[]): Passage[] {
  const first = new Map<string, Passage>();
  const out: Passage[] = [];
  for (const p of passages) {
    const key = duplicateKey(p.body);
    const kept = first.get(key);
    if (!kept) {
      const copy = { ...p, duplicates: [...p.duplicates] };
      first.set(key, copy);
      out.push(copy);
      continue;
    }
    kept.duplicates.push({
      docId: p.docId, path: p.path, blockId: p.block.id, headingPath: p.block.headingPath, pageStart: p.block.pageStart, pageEnd: p.block.pageEnd,
    }, ...p.duplicates);
  }
  return out;
}

/**
 * The ordinals to fetch for `neighbors` blocks on each side of each candidate, per document, as
 * ranges [from, to] (inclusive; overlapping ranges joined).
 */
export function neighborRanges(candidates: readonly Candidate[], neighbors: number): Map<string, [number, number][]> {
  const ranges = new Map<string, [number, number][]>();
  for (const c of candidates) {
    const list = ranges.get(c.block.docId) ?? [];
    list.push([Math.max(0, c.block.ordinal - neighbors), c.block.ordinal + neighbors]);
    ranges.set(c.block.docId, list);
  }
  for (const [docId, list] of ranges) {
    list.sort((a, b) => a[0] - b[0]);
    const joined: [number, number][] = [];
    for (const r of list) {
      const last = joined[joined.length - 1];
      if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
      else joined.push([r[0], r[1]]);
    }
    ranges.set(docId, joined);
  }
  return ranges;
}

/** Each candidate's window: the fetched blocks within `neighbors` ordinals of it (itself included). */
export function neighborWindows(candidates: readonly Candidate[], fetched: ReadonlyMap<string, readonly Block[]>, neighbors: number): Map<string, Block[]> {
  const windows = new Map<string, Block[]>();
  for (const c of candidates) {
    const blocks = fetched.get(c.block.docId) ?? [];
    const near = blocks.filter((b) => Math.abs(b.ordinal - c.block.ordinal) <= neighbors && b.id !== c.block.id);
    windows.set(c.block.id, [c.block, ...near]);
  }
  return windows;
}

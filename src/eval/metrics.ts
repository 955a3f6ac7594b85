/**
 * Retrieval metrics on character ranges, as ../shared/eval/README.md defines them (hit@k, partial
 * hit@k, hit_all@k, MRR@10, hit@budget, and Chroma's recall / precision / precision_Ω / IoU).
 * Pure functions over spans: no chunker, no index.
 */

/** A range of one document, end exclusive, in UTF-16 offsets. */
export interface DocRange {
  doc: string;
  start: number;
  end: number;
}

/** A retrieved chunk: its source range and its cl100k token count (what it costs in a prompt). */
export interface RankedChunk extends DocRange {
  tokens: number;
}

/** A question's evidence: its document and its spans (one for QA sets, 1-5 for chroma-general). */
export interface Evidence {
  doc: string;
  spans: readonly (readonly [number, number])[];
}

type Interval = [number, number];

/** Characters of `[s, e)` inside `chunk`, 0 for a chunk of another document. */
export function overlap(chunk: DocRange, doc: string, s: number, e: number): number {
  if (chunk.doc !== doc) return 0;
  return Math.max(0, Math.min(e, chunk.end) - Math.max(s, chunk.start));
}

export function contains(chunk: DocRange, doc: string, s: number, e: number): boolean {
  return chunk.doc === doc && chunk.start <= s && e <= chunk.end;
}

/** Covers at least half of the span (the partial rule). */
export function coversHalf(chunk: DocRange, doc: string, s: number, e: number): boolean {
  return chunk.doc === doc && overlap(chunk, doc, s, e) >= 0.5 * (e - s);
}

/** Some chunk fully contains some span. */
export function anyFullHit(chunks: readonly DocRange[], evidence: Evidence): boolean {
  return chunks.some((c) => evidence.spans.some(([s, e]) => contains(c, evidence.doc, s, e)));
}

/** Some chunk covers at least half of some span. */
export function anyPartialHit(chunks: readonly DocRange[], evidence: Evidence): boolean {
  return chunks.some((c) => evidence.spans.some(([s, e]) => coversHalf(c, evidence.doc, s, e)));
}

/** Every span is fully inside some chunk (not necessarily the same one). */
export function allSpansHit(chunks: readonly DocRange[], evidence: Evidence): boolean {
  return evidence.spans.every(([s, e]) => chunks.some((c) => contains(c, evidence.doc, s, e)));
}

/** 1/rank of the first of the first `cutoff` chunks that fully contains a span, else 0. */
export function reciprocalRank(ranked: readonly DocRange[], evidence: Evidence, cutoff = 10): number {
  const n = Math.min(cutoff, ranked.length);
  for (let i = 0; i < n; i++) {
    const c = ranked[i]!;
    if (evidence.spans.some(([s, e]) => contains(c, evidence.doc, s, e))) return 1 / (i + 1);
  }
  return 0;
}

/** The chunks a prompt of `budget` tokens takes, in rank order: while the sum fits, at least one. */
export function takeWithinBudget<T extends { tokens: number }>(ranked: readonly T[], budget: number): T[] {
  const taken: T[] = [];
  let used = 0;
  for (const chunk of ranked) {
    if (taken.length > 0 && used + chunk.tokens > budget) break;
    taken.push(chunk);
    used += chunk.tokens;
  }
  return taken;
}

/** Sorts and merges intervals; empty ones dropped. */
export function union(intervals: Interval[]): Interval[] {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: Interval[] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

function size(intervals: readonly Interval[]): number {
  let total = 0;
  for (const [a, b] of intervals) total += b - a;
  return total;
}

/** Characters of `[s, e)` inside a merged interval list. */
function coveredBy(merged: readonly Interval[], s: number, e: number): number {
  let total = 0;
  for (const [a, b] of merged) {
    if (b <= s) continue;
    if (a >= e) break;
    total += Math.min(b, e) - Math.max(a, s);
  }
  return total;
}

export interface ChromaScores {
  recall: number;
  precision: number;
  iou: number;
}

/**
 * Chroma's token-level scores of one question's retrieved chunks (README, "Chroma token-level
 * metrics"): the numerator is the union of chunk ∩ excerpt overlaps (strictly positive ones);
 * precision divides by the plain sum of retrieved lengths (repeats and other documents count);
 * IoU adds the excerpt characters no retrieved chunk covers.
 */
export function chromaScores(retrieved: readonly DocRange[], evidence: Evidence): ChromaScores {
  const pieces: Interval[] = [];
  const sameDoc: Interval[] = [];
  let retrievedChars = 0;
  for (const c of retrieved) {
    retrievedChars += c.end - c.start;
    if (c.doc !== evidence.doc) continue;
    let touches = false;
    for (const [s, e] of evidence.spans) {
      const a = Math.max(s, c.start);
      const b = Math.min(e, c.end);
      if (b > a) {
        pieces.push([a, b]);
        touches = true;
      }
    }
    if (touches) sameDoc.push([c.start, c.end]);
  }
  const numerator = size(union(pieces));
  const chunkCover = union(sameDoc);
  let excerptChars = 0;
  let missed = 0;
  for (const [s, e] of evidence.spans) {
    excerptChars += e - s;
    missed += e - s - coveredBy(chunkCover, s, e);
  }
  return {
    recall: excerptChars > 0 ? numerator / excerptChars : 0,
    precision: retrievedChars > 0 ? numerator / retrievedChars : 0,
    iou: retrievedChars + missed > 0 ? numerator / (retrievedChars + missed) : 0,
  };
}

/**
 * Chroma's precision_Ω of one question: with every chunk of its document that overlaps an excerpt
 * (perfect retrieval), the excerpt characters inside them over the union of those chunks and the
 * excerpt characters they miss. Overlapping chunks are unioned here, not summed.
 */
export function precisionOmega(docChunks: readonly DocRange[], evidence: Evidence): number {
  const chunkRanges: Interval[] = [];
  for (const c of docChunks) {
    if (c.doc !== evidence.doc) continue;
    if (evidence.spans.some(([s, e]) => Math.min(e, c.end) > Math.max(s, c.start))) chunkRanges.push([c.start, c.end]);
  }
  const excerpts = union(evidence.spans.map(([s, e]) => [s, e] as Interval));
  const chunkCover = union(chunkRanges);
  let inside = 0;
  for (const [s, e] of excerpts) inside += coveredBy(chunkCover, s, e);
  const denominator = size(union([...chunkRanges, ...excerpts]));
  return denominator > 0 ? inside / denominator : 0;
}

/** Mean of a list (0 for an empty one). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let total = 0;
  for (const v of values) total += v;
  return total / values.length;
}

/** Nearest-rank percentile (p in 0-100) of unsorted values; 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

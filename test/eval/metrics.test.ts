import { describe, expect, test } from 'vitest';
import {
  allSpansHit,
  anyFullHit,
  anyPartialHit,
  chromaScores,
  percentile,
  precisionOmega,
  reciprocalRank,
  takeWithinBudget,
  union,
  type DocRange,
  type Evidence,
} from '../../src/eval/metrics.js';

/** Hand-made cases with answers worked out on paper. */

const at = (start: number, end: number, doc = 'a.md'): DocRange => ({ doc, start, end });
const one: Evidence = { doc: 'a.md', spans: [[10, 20]] };
const two: Evidence = { doc: 'a.md', spans: [[10, 20], [50, 70]] };

describe('a perfect chunker (each chunk is exactly the evidence)', () => {
  test('full and partial hits, MRR 1, recall = precision = IoU = precision_Ω = 1', () => {
    const retrieved = [at(10, 20)];
    expect(anyFullHit(retrieved, one)).toBe(true);
    expect(anyPartialHit(retrieved, one)).toBe(true);
    expect(reciprocalRank(retrieved, one)).toBe(1);
    expect(chromaScores(retrieved, one)).toEqual({ recall: 1, precision: 1, iou: 1 });
    expect(precisionOmega([at(0, 10), at(10, 20), at(20, 40)], one)).toBe(1);
  });

  test('two spans, two exact chunks: hit_all and every score at 1', () => {
    const retrieved = [at(50, 70), at(10, 20)];
    expect(allSpansHit(retrieved, two)).toBe(true);
    expect(chromaScores(retrieved, two)).toEqual({ recall: 1, precision: 1, iou: 1 });
  });
});

describe('a chunker that splits every answer', () => {
  // The span [10, 20) is cut at 14: pieces hold 4 and 6 of its 10 characters.
  const pieces = [at(0, 14), at(14, 30)];

  test('no full hit, MRR 0; the 6-character piece is a partial hit (>= 50%)', () => {
    expect(anyFullHit(pieces, one)).toBe(false);
    expect(reciprocalRank(pieces, one)).toBe(0);
    expect(anyPartialHit(pieces, one)).toBe(true);
    expect(anyPartialHit([at(0, 14)], one)).toBe(false);
  });

  test('both pieces retrieved: recall 1 (the union), precision 10/30, IoU 10/30', () => {
    const s = chromaScores(pieces, one);
    expect(s.recall).toBe(1);
    expect(s.precision).toBeCloseTo(10 / 30, 12);
    expect(s.iou).toBeCloseTo(10 / 30, 12);
  });

  test('one piece retrieved: the missed characters join the IoU denominator', () => {
    const s = chromaScores([at(0, 14)], one);
    expect(s.recall).toBeCloseTo(4 / 10, 12);
    expect(s.precision).toBeCloseTo(4 / 14, 12);
    expect(s.iou).toBeCloseTo(4 / (14 + 6), 12);
  });

  test('exactly half a span is a partial hit', () => {
    expect(anyPartialHit([at(15, 40)], one)).toBe(true);
    expect(anyPartialHit([at(16, 40)], one)).toBe(false);
  });
});

describe('IoU of nested and disjoint ranges', () => {
  test('a span nested in a chunk: IoU = |span| / |chunk|', () => {
    expect(chromaScores([at(0, 100)], one)).toEqual({ recall: 1, precision: 0.1, iou: 0.1 });
  });

  test('disjoint: 0, with the chunk and the whole span in the denominator', () => {
    expect(chromaScores([at(50, 60)], one)).toEqual({ recall: 0, precision: 0, iou: 0 });
  });

  test('the same range in another document counts in full in the denominators, never in the numerator', () => {
    const s = chromaScores([at(0, 100), at(10, 20, 'b.md')], one);
    expect(s.recall).toBe(1);
    expect(s.precision).toBeCloseTo(10 / 110, 12);
    expect(s.iou).toBeCloseTo(10 / 110, 12);
  });

  test('overlapping retrieved chunks: relevant characters count once, retrieved ones repeatedly', () => {
    const s = chromaScores([at(0, 20), at(5, 25)], one);
    expect(s.recall).toBe(1);
    expect(s.precision).toBeCloseTo(10 / 40, 12);
  });

  test('a chunk that only touches a span (end == start) adds nothing to precision_Ω', () => {
    // Upstream counts a zero-length intersection; the README asks for strictly positive overlap.
    expect(precisionOmega([at(0, 10), at(10, 20)], one)).toBe(1);
    expect(precisionOmega([at(0, 50), at(40, 100)], { doc: 'a.md', spans: [[45, 55]] })).toBeCloseTo(10 / 100, 12);
  });

  test('precision_Ω charges excerpt characters no chunk covers', () => {
    // Chunks cover [0, 15) only; the span [10, 20) has 5 characters outside: 5 / (15 + 5).
    expect(precisionOmega([at(0, 15)], one)).toBeCloseTo(5 / 20, 12);
  });
});

describe('ranks, budgets, hit_all', () => {
  test('MRR is 1/rank of the first full hit within the cutoff', () => {
    const ranked = [at(30, 40), at(12, 18), at(0, 30)];
    expect(reciprocalRank(ranked, one)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRank(ranked, one, 2)).toBe(0);
  });

  test('the budget takes chunks while their tokens fit, and always the first', () => {
    const ranked = [
      { ...at(0, 5), tokens: 400 },
      { ...at(5, 9), tokens: 500 },
      { ...at(9, 30), tokens: 200 },
    ];
    expect(takeWithinBudget(ranked, 1000).length).toBe(2);
    expect(takeWithinBudget(ranked, 1100).length).toBe(3);
    expect(takeWithinBudget(ranked, 100).length).toBe(1);
  });

  test('hit_all needs every span inside some chunk; hit needs one', () => {
    expect(allSpansHit([at(0, 30)], two)).toBe(false);
    expect(anyFullHit([at(0, 30)], two)).toBe(true);
    expect(allSpansHit([at(0, 30), at(45, 80)], two)).toBe(true);
  });

  test('union and percentile', () => {
    expect(union([[5, 8], [0, 3], [2, 4], [8, 9], [7, 7]])).toEqual([[0, 4], [5, 9]]);
    expect(percentile([5, 1, 4, 2, 3, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([], 50)).toBe(0);
  });
});

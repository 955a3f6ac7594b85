import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/store/types.js';
import { fusionRetriever, rankedScores, reciprocalRankFusion, RRF_K, type RankedList } from '../../src/retrieval/fusion.js';
import type { Candidate, Retriever } from '../../src/retrieval/types.js';

function block(id: string): Block {
  return {
    id, docId: `doc-${id.length}`, ordinal: 0, kind: 'text', text: id, headingPath: [], pageStart: null, pageEnd: null, bboxes: null,
    start: 0, end: id.length, chars: id.length, tokens: 1, table: null, speaker: null, time: null, strategy: 'structure', configHash: 'h',
  };
}
const candidate = (id: string, score = 1): Candidate => ({ block: block(id), path: null, score });

/** Up to four lists over a small id space (so lists share hits), each without duplicates, with weights. */
const listsArb = fc.array(
  fc.record({
    ids: fc.uniqueArray(fc.constantFrom(...'abcdefghijklmnop'.split('')), { maxLength: 12 }),
    weight: fc.oneof(fc.constant(1), fc.constant(0), fc.double({ min: 0, max: 5, noNaN: true })),
  }),
  { maxLength: 4 },
).map((lists) => lists.map((l, i): RankedList => ({ name: `r${i}`, weight: l.weight, items: l.ids.map((id, rank) => candidate(id, 100 - rank)) })));

describe('reciprocal rank fusion', () => {
  it('is well formed: every hit once, sorted by fused score, scores explained', () => {
    fc.assert(fc.property(listsArb, (lists) => {
      const fused = reciprocalRankFusion(lists);
      const ids = fused.map((c) => c.block.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (let i = 1; i < fused.length; i++) expect(fused[i - 1]!.score).toBeGreaterThanOrEqual(fused[i]!.score);
      const expected = new Set(lists.filter((l) => (l.weight ?? 1) > 0).flatMap((l) => l.items.map((c) => c.block.id)));
      expect(new Set(ids)).toEqual(expected);
      for (const hit of fused) {
        let sum = 0;
        for (const list of lists) {
          const rank = list.items.findIndex((c) => c.block.id === hit.block.id) + 1;
          if (rank === 0 || list.weight === 0) {
            expect(hit.scores![`${list.name}Rank`]).toBeUndefined();
            continue;
          }
          expect(hit.scores![`${list.name}Rank`]).toBe(rank);
          expect(hit.scores![list.name]).toBe(list.items[rank - 1]!.score);
          sum += (list.weight ?? 1) / (RRF_K + rank);
        }
        expect(hit.score).toBeCloseTo(sum, 12);
        expect(hit.scores!.fused).toBe(hit.score);
      }
    }));
  });

  it('is deterministic and does not depend on the order of the lists', () => {
    fc.assert(fc.property(listsArb, fc.func(fc.integer()), (lists, key) => {
      const shuffled = [...lists].sort((a, b) => key(a.name) - key(b.name) || (a.name < b.name ? -1 : 1));
      const ids = (ls: RankedList[]) => reciprocalRankFusion(ls).map((c) => [c.block.id, c.score]);
      expect(ids(shuffled)).toEqual(ids(lists));
      expect(ids(lists)).toEqual(ids(lists));
    }));
  });

  it('breaks ties by the best rank, then by block id', () => {
    // a is 1st in r0, b is 1st in r1: equal scores, equal best ranks -> by id. c and d tie at rank 2.
    const fused = reciprocalRankFusion([
      { name: 'r0', items: [candidate('b'), candidate('d')] },
      { name: 'r1', items: [candidate('a'), candidate('c')] },
    ]);
    expect(fused.map((c) => c.block.id)).toEqual(['a', 'b', 'c', 'd']);
    // e: ranks 1 and 3 (1/61 + 1/63 = 0.032266); f: rank 2 twice (2/62 = 0.032258): e, by a little.
    const fused2 = reciprocalRankFusion([
      { name: 'r0', items: [candidate('e'), candidate('f')] },
      { name: 'r1', items: [candidate('x'), candidate('f'), candidate('e')] },
    ]);
    expect(fused2.map((c) => c.block.id)).toEqual(['e', 'f', 'x']);
    expect(fused2[0]!.score).toBeCloseTo(1 / 61 + 1 / 63, 15);
  });

  it('puts a hit that is first in every list first', () => {
    fc.assert(fc.property(listsArb.filter((ls) => ls.some((l) => (l.weight ?? 1) > 0)), (lists) => {
      const withTop = lists.map((l) => ({ ...l, items: [candidate('TOP'), ...l.items] }));
      expect(reciprocalRankFusion(withTop)[0]!.block.id).toBe('TOP');
    }));
  });

  it('drops a list of weight 0, as if it were not given', () => {
    fc.assert(fc.property(listsArb, (lists) => {
      const without = lists.filter((l) => l.weight !== 0);
      expect(reciprocalRankFusion(lists)).toEqual(reciprocalRankFusion(without));
    }));
  });

  it('counts a block listed twice at its first rank', () => {
    const fused = reciprocalRankFusion([{ name: 'bm25', items: [candidate('a'), candidate('b'), candidate('a')] }]);
    expect(fused.map((c) => [c.block.id, c.scores!.bm25Rank])).toEqual([['a', 1], ['b', 2]]);
  });

  it('refuses negative or infinite weights and k', () => {
    expect(() => reciprocalRankFusion([{ name: 'x', weight: -1, items: [] }])).toThrow(RangeError);
    expect(() => reciprocalRankFusion([{ name: 'x', weight: Infinity, items: [] }])).toThrow(RangeError);
    expect(() => reciprocalRankFusion([], { k: Number.NaN })).toThrow(RangeError);
  });

  it('names single-list scores the same way', () => {
    expect(rankedScores('bm25', [candidate('a', 7), candidate('b', 3)]).map((c) => c.scores)).toEqual([{ bm25: 7, bm25Rank: 1 }, { bm25: 3, bm25Rank: 2 }]);
  });
});

describe('fusion retriever', () => {
  it('passes the filter and depth down, fuses with weights, returns k, and can itself be fused', async () => {
    const calls: { name: string; k: number; filter: unknown }[] = [];
    const fixed = (name: string, ids: string[]): Retriever => ({
      name,
      async search(_q, k, filter) {
        calls.push({ name, k, filter });
        return ids.slice(0, k).map((id, i) => candidate(id, 10 - i));
      },
    });
    const hybrid = fusionRetriever([fixed('bm25', ['a', 'b', 'c']), fixed('vector', ['c', 'b', 'd']), fixed('off', ['z'])], { weights: { vector: 2, off: 0 } });
    const hits = await hybrid.search('q', 2, { docId: 'x' });
    expect(hits.map((h) => h.block.id)).toEqual(['c', 'b']);
    expect(hits[0]!.scores).toMatchObject({ bm25: 8, bm25Rank: 3, vector: 10, vectorRank: 1 });
    expect(calls.map((c) => c.name)).toEqual(['bm25', 'vector']);
    expect(calls.every((c) => c.k === 50 && JSON.stringify(c.filter) === '{"docId":"x"}')).toBe(true);
    const nested = await fusionRetriever([hybrid, fixed('other', ['a'])]).search('q', 3, {});
    expect(nested.map((h) => h.block.id)).toEqual(['a', 'c', 'b']);
    expect(nested[0]!.scores).toMatchObject({ hybridRank: 4, otherRank: 1 }); // d (2/63 from vector) is ahead of a (1/61) inside
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/store/types.js';
import { blockBody, collapseDuplicates, duplicateKey, joinBlocks, mergeOverlapping, neighborRanges, neighborWindows, type Passage } from '../../src/retrieval/clean.js';
import type { Candidate } from '../../src/retrieval/types.js';
import { corpus, hasShared } from '../helpers.js';
import { blocksOf, PARK_REPORT, parsedDoc } from './helpers.js';

const TEXT = 'Alpha beta gamma. 第一段落的文字。\n\nDelta epsilon zeta eta theta.\nIota kappa 第二段。\n\nLambda mu nu xi omicron pi rho sigma tau.';

function spanBlock(docId: string, ordinal: number, start: number, end: number, prefix = ''): Block {
  const text = prefix + TEXT.slice(start, end);
  return {
    id: `${docId}:${ordinal}:${start}-${end}`, docId, ordinal, kind: 'text', text, headingPath: [], pageStart: 1, pageEnd: 1, bboxes: null,
    start, end, chars: text.length, tokens: 1, table: null, speaker: null, time: null, strategy: 'structure', configHash: 'h',
  };
}

const spanArb = fc.tuple(fc.nat(TEXT.length - 1), fc.integer({ min: 1, max: 40 })).map(([s, len]) => [s, Math.min(TEXT.length, s + len)] as const);
const candidatesArb = fc.array(fc.record({ doc: fc.constantFrom('d1', 'd2'), span: spanArb, prefix: fc.constantFrom('', '# H\n\n') }), { minLength: 1, maxLength: 20 })
  .map((items) => items.map((it, i): Candidate => ({ block: spanBlock(it.doc, i, it.span[0], it.span[1], it.prefix), path: null, score: 100 - i, scores: { bm25Rank: i + 1 } })));

/** Does the passage's body contain every block's canonical text, laid out in span order? */
function coversBlocks(p: Passage): boolean {
  return p.blocks.every((b) => p.body.includes(TEXT.slice(b.start, b.end)));
}

describe('merging overlapping hits', () => {
  it('never leaves two passages of a document overlapping, loses no block, keeps rank order', () => {
    fc.assert(fc.property(candidatesArb, (candidates) => {
      const passages = mergeOverlapping(candidates);
      expect(passages.length).toBeLessThanOrEqual(candidates.length);
      for (const a of passages) for (const b of passages) if (a !== b && a.docId === b.docId) expect(a.start < b.end && b.start < a.end).toBe(false);
      // Every candidate is in exactly one passage, which covers its text.
      for (const c of candidates) {
        const holders = passages.filter((p) => p.blocks.some((b) => b.id === c.block.id));
        expect(holders).toHaveLength(1);
        expect(holders[0]!.matched).toContain(c.block.id);
        expect(holders[0]!.start).toBeLessThanOrEqual(c.block.start);
        expect(holders[0]!.end).toBeGreaterThanOrEqual(c.block.end);
      }
      const rankOf = (id: string) => candidates.findIndex((c) => c.block.id === id);
      for (const p of passages) {
        expect(coversBlocks(p)).toBe(true);
        // The passage speaks for its best-ranked block, with that block's scores.
        expect(rankOf(p.block.id)).toBe(Math.min(...p.matched.map(rankOf)));
        expect(p.scores).toEqual(candidates[rankOf(p.block.id)]!.scores);
        expect(p.text.startsWith(p.blocks[0]!.text)).toBe(true);
      }
      for (let i = 1; i < passages.length; i++) expect(rankOf(passages[i - 1]!.block.id)).toBeLessThan(rankOf(passages[i]!.block.id));
    }));
  });

  it('rebuilds the text without repeating the overlap: a chain of overlapping spans is the canonical slice', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 5, max: 30 }), { minLength: 2, maxLength: 6 }), fc.integer({ min: 1, max: 4 }), (lengths, overlap) => {
      const blocks: Block[] = [];
      let start = 0;
      for (const [i, len] of lengths.entries()) {
        const end = Math.min(TEXT.length, start + len);
        if (end <= start) break;
        blocks.push(spanBlock('d', i, start, end, i === 0 ? '# Title\n\n' : ''));
        start = Math.max(start + 1, end - overlap);
      }
      const candidates = [...blocks].reverse().map((block, i) => ({ block, path: null, score: i }));
      const [passage, ...rest] = mergeOverlapping(candidates);
      expect(rest).toEqual([]);
      expect(passage!.body).toBe(TEXT.slice(passage!.start, passage!.end));
      expect(passage!.text).toBe(`# Title\n\n${TEXT.slice(passage!.start, passage!.end)}`);
    }));
  });

  it('keeps neighbouring hits that only touch apart, and joins their text with the separator when widened', () => {
    const a = spanBlock('d', 0, 0, 17);
    const b = spanBlock('d', 1, 19, 29);
    expect(mergeOverlapping([{ block: a, path: null, score: 2 }, { block: b, path: null, score: 1 }])).toHaveLength(2);
    expect(joinBlocks([a, b]).body).toBe(`${TEXT.slice(0, 17)}\n\n${TEXT.slice(19, 29)}`);
  });

  it('falls back to whole texts for strategies whose text is not the span (qwen)', () => {
    const qwen = { ...spanBlock('d', 1, 10, 30), text: '[page: 1]\nsomething else', strategy: 'qwen' };
    expect(blockBody(qwen)).toBeUndefined();
    const { text } = joinBlocks([spanBlock('d', 0, 0, 20), qwen]);
    expect(text).toBe(`${TEXT.slice(0, 20)}\n[page: 1]\nsomething else`);
  });

  it.skipIf(!hasShared)('merges real overlapping chunks (recursive, 100 characters of overlap) back into the canonical text', async () => {
    const doc = await parsedDoc(corpus('pdf', 'tracemonkey.pdf'));
    const blocks = blocksOf(doc, { strategy: 'recursive', chunkSize: 500, chunkOverlap: 100 });
    const overlapping = blocks.filter((b, i) => i > 0 && b.start < blocks[i - 1]!.end).length;
    expect(overlapping).toBeGreaterThan(50);
    // Hits on blocks 10..29 in a shuffled rank order: every overlapping run becomes one passage.
    const window = blocks.slice(10, 30);
    const order = [...window].sort((x, y) => ((x.ordinal * 7919) % 31) - ((y.ordinal * 7919) % 31));
    const passages = mergeOverlapping(order.map((block, i) => ({ block, path: null, score: -i })));
    expect(passages.length).toBeLessThan(window.length);
    for (const p of passages) {
      const contiguous = p.blocks.every((b, i) => i === 0 || b.start <= p.blocks[i - 1]!.end);
      if (contiguous) expect(p.body).toBe(doc.canonical.slice(p.start, p.end));
      for (const b of p.blocks) expect(p.body).toContain(doc.canonical.slice(b.start, b.end));
    }
    for (const a of passages) for (const b of passages) if (a !== b) expect(a.start < b.end && b.start < a.end).toBe(false);
  }, 60_000);
});

describe('neighbours (small-to-big)', () => {
  it('widens each hit by the blocks around it and merges windows that share a block', async () => {
    const doc = await parsedDoc(PARK_REPORT);
    const blocks = blocksOf(doc, { chunkSize: 60 });
    const hits = [blocks[6]!, blocks[8]!, blocks[20]!].map((block, i) => ({ block, path: null, score: 3 - i }));
    const ranges = neighborRanges(hits, 1);
    expect(ranges.get(doc.id)).toEqual([[5, 9], [19, 21]]);
    const fetched = new Map([[doc.id, blocks.filter((b) => b.ordinal <= 9 || (b.ordinal >= 19 && b.ordinal <= 21))]]);
    const windows = neighborWindows(hits, fetched, 1);
    const passages = mergeOverlapping(hits, windows);
    expect(passages.map((p) => p.blocks.map((b) => b.ordinal))).toEqual([[5, 6, 7, 8, 9], [19, 20, 21]]);
    expect(passages[0]!.matched).toEqual([blocks[6]!.id, blocks[8]!.id]);
    expect(passages[0]!.body).toBe(doc.canonical.slice(blocks[5]!.start, blocks[9]!.end));
  });
});

describe('duplicates', () => {
  it('collapse into the best-ranked passage, which lists the others', () => {
    fc.assert(fc.property(candidatesArb, (candidates) => {
      const passages = mergeOverlapping(candidates);
      const collapsed = collapseDuplicates(passages);
      const keys = collapsed.map((p) => duplicateKey(p.body));
      expect(new Set(keys).size).toBe(keys.length);
      expect(collapsed.length + collapsed.reduce((n, p) => n + p.duplicates.length, 0)).toBe(passages.length);
      for (const p of collapsed) for (const d of p.duplicates) expect(duplicateKey(passages.find((q) => q.block.id === d.blockId)!.body)).toBe(duplicateKey(p.body));
    }));
  });

  it('compare bodies without the headings they open with', () => {
    expect(duplicateKey('### （二）资金来源\n\n资金来源为……')).toBe('资金来源为……');
    expect(duplicateKey('# 摘录\n\n资金来源为……')).toBe('资金来源为……');
    expect(duplicateKey('# A\n\n## B\n\ntext\n\n## C\n\nmore')).toBe('text\n\n## C\n\nmore');
    expect(duplicateKey('## Only a heading')).toBe('## Only a heading');
  });

  it('collapse the same paragraph stored in two documents, whatever their breadcrumbs', () => {
    const a = spanBlock('d1', 0, 0, 17, '# Report A\n\n');
    const b = spanBlock('d2', 0, 0, 17, '# Report B\n\n');
    const [only, ...rest] = collapseDuplicates(mergeOverlapping([{ block: a, path: '/a.md', score: 2 }, { block: b, path: '/b.md', score: 1 }]));
    expect(rest).toEqual([]);
    expect(only!.docId).toBe('d1');
    expect(only!.duplicates).toEqual([{ docId: 'd2', path: '/b.md', blockId: b.id, headingPath: [], pageStart: 1, pageEnd: 1 }]);
  });
});

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { chunk, parse } from '../../src/index.js';
import { GroundworkError } from '../../src/errors.js';
import { blockMatches, type RetrievalFilter } from '../../src/retrieval/filter.js';
import { MemoryIndex } from '../../src/retrieval/memory.js';
import { RetrievalOptionsSchema } from '../../src/retrieval/options.js';
import { retrieve, type RetrievalSources } from '../../src/retrieval/pipeline.js';
import type { Candidate, PassageReranker, Retriever } from '../../src/retrieval/types.js';
import { createReranker } from '../../src/embed/index.js';
import { fixtureRerankScore, startRerankServer } from '../embed/fixtures.js';
import { corpus, hasShared } from '../helpers.js';
import { PARK_REPORT, parsedDoc } from './helpers.js';

const REPORT = '滨江智慧园区建设项目可行性研究报告';
let index: MemoryIndex;
let sources: RetrievalSources;
let reportId: string;
let manualId: string | undefined;
let paperId: string | undefined;

beforeAll(async () => {
  index = new MemoryIndex();
  const report = await parsedDoc(PARK_REPORT);
  reportId = report.id;
  index.addDocument(report, chunk(report, { chunkSize: 60 }), { path: '/docs/park-report-zh.md' });
  if (hasShared) {
    const manual = await parsedDoc(corpus('zh-generated', 'warehouse-manual-zh.docx'));
    manualId = manual.id;
    index.addDocument(manual, chunk(manual, { chunkSize: 120 }), { path: '/docs/manual/warehouse-manual-zh.docx' });
    const paper = await parsedDoc(corpus('pdf', 'tracemonkey.pdf'));
    paperId = paper.id;
    index.addDocument(paper, chunk(paper, { chunkSize: 200 }), { path: '/docs/papers/tracemonkey.pdf' });
  }
  sources = { retrievers: [index.retriever()], fetcher: index };
}, 120_000);

const last = (path: string[]) => path[path.length - 1];

describe('section references in a search', () => {
  it('第二章第二节提到的三项前提条件: plain BM25 prefers part 二 section （三）; the reference lands in （二）', async () => {
    // The failure the issue reports, reproduced on a library of just this report: BM25 on the whole
    // query ranks part 二's third section first (it says 第二 and 前提条件 again and again).
    const alone = new MemoryIndex();
    const report = await parsedDoc(PARK_REPORT);
    alone.addDocument(report, chunk(report, { chunkSize: 60 }));
    const aloneSources = { retrievers: [alone.retriever()], fetcher: alone };
    const plain = await retrieve('第二章第二节提到的三项前提条件', { k: 5, sectionReferences: false }, aloneSources);
    expect(last(plain.hits[0]!.headingPath)).toBe('（三）建设进度');
    expect(plain.hits.filter((h) => last(h.headingPath) === '（三）建设进度').length).toBeGreaterThanOrEqual(2);
    const fixed = await retrieve('第二章第二节提到的三项前提条件', { k: 5 }, aloneSources);
    expect(fixed.hits.length).toBeGreaterThan(0);
    expect(fixed.hits.every((h) => last(h.headingPath) === '（二）建设规模')).toBe(true);

    // And in a library of several documents: the manual has a 第二章 with a 2.2 too, so the
    // reference is ambiguous; hits inside either section come first, the report's (the keywords) on top.
    const result = await retrieve('第二章第二节提到的三项前提条件', { k: 5, explain: true }, sources);
    expect(result.keywords).toBe('提到的三项前提条件');
    const expectedSections = [[REPORT, '二、建设内容与规模', '（二）建设规模'], ...(manualId ? [['智能仓储系统安装与运维手册', '第二章 安装', '2.2 安装步骤']] : [])];
    expect(result.section).toMatchObject({ source: 'query', status: manualId ? 'ambiguous' : 'unique', action: manualId ? 'boost' : 'restrict' });
    expect(result.section!.sections.map((s) => s.headingPath).sort()).toEqual(expectedSections.sort());
    const top = result.hits[0]!;
    expect(top.headingPath.slice(0, 3)).toEqual([REPORT, '二、建设内容与规模', '（二）建设规模']);
    expect(top.section).toEqual({ headingPath: [REPORT, '二、建设内容与规模', '（二）建设规模'], title: '（二）建设规模', label: '（二）' });
    expect(top.text).toContain('三项前提条件');
    expect(top.snippet).toMatch(/«[^»]*前提[^»]*»/);
    const inside = result.hits.map((h) => h.section !== undefined);
    expect(inside.slice(0, inside.lastIndexOf(true) + 1).every(Boolean)).toBe(true);
    expect(result.explanation!.runs.map((r) => r.purpose)).toEqual(manualId ? ['discover', 'inside', 'outside'] : ['discover', 'inside']);
    expect(result.explanation!.runs[1]!.filter.sections).toContainEqual(expect.objectContaining({ docId: reportId, headingPath: [REPORT, '二、建设内容与规模', '（二）建设规模'] }));

    // Naming the document makes it unique again: only that section.
    const named = await retrieve('第二章第二节提到的三项前提条件', { k: 5, filter: { docId: reportId } }, sources);
    expect(named.section).toMatchObject({ status: 'unique', action: 'restrict' });
    expect(named.hits.every((h) => last(h.headingPath) === '（二）建设规模')).toBe(true);
  });

  it('lands in a section the chunker packed with its neighbours: by span, not by heading path', async () => {
    const packed = new MemoryIndex();
    const report = await parsedDoc(PARK_REPORT);
    const chunks = chunk(report, { chunkSize: 2000 });
    packed.addDocument(report, chunks);
    expect(chunks.length).toBeLessThan(10);
    const result = await retrieve('第二章第二节提到的三项前提条件', { k: 3 }, { retrievers: [packed.retriever()], fetcher: packed });
    expect(result.section).toMatchObject({ status: 'unique', action: 'restrict' });
    const [hit, ...rest] = result.hits;
    expect(rest).toEqual([]);
    expect(hit!.text).toContain('本项目的实施需要满足三项前提条件');
    expect(hit!.headingPath).toEqual([REPORT, '二、建设内容与规模', '（二）建设规模']);
    expect(hit!.block.headingPath).not.toEqual(hit!.headingPath);
    expect(hit!.text).toContain('（一）建设内容');
  });

  it('第四部分的资金来源 lands in part 四; the fourth part (no keywords) lists part 四 in order', async () => {
    const funding = await retrieve('第四部分的资金来源', { k: 3 }, sources);
    expect(funding.hits.every((h) => h.headingPath[1] === '四、投资估算与资金筹措')).toBe(true);
    expect(last(funding.hits[0]!.headingPath)).toBe('（二）资金来源');

    const fourth = await retrieve('the fourth part', { k: 20, filter: { docId: reportId } }, sources);
    expect(fourth.keywords).toBe('');
    expect(fourth.section).toMatchObject({ status: 'unique', action: 'restrict', listed: true });
    expect(fourth.hits.length).toBeGreaterThan(2);
    expect(fourth.hits.every((h) => h.headingPath[1] === '四、投资估算与资金筹措')).toBe(true);
    const starts = fourth.hits.map((h) => h.start);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });

  it('（二） alone is ambiguous: hits inside any （二） come first, then the rest', async () => {
    const result = await retrieve('（二）资金', { k: 8 }, sources);
    expect(result.section).toMatchObject({ status: 'ambiguous', action: 'boost' });
    expect(result.section!.sections.filter((s) => s.docId === reportId)).toHaveLength(5);
    const inside = result.hits.map((h) => h.section !== undefined);
    expect(inside[0]).toBe(true);
    expect(inside.indexOf(false)).toBeGreaterThan(0);
    expect(inside.slice(inside.indexOf(false)).every((x) => !x)).toBe(true);
    expect(last(result.hits[0]!.headingPath)).toBe('（二）资金来源');
  });

  it('an explicit selector restricts to the section it names; one that names nothing is NOT_FOUND', async () => {
    const result = await retrieve('条件', { k: 5, section: '二、建设内容 > （二）', filter: { docId: reportId } }, sources);
    expect(result.section).toMatchObject({ source: 'selector', status: 'unique', action: 'restrict' });
    expect(result.hits.every((h) => last(h.headingPath) === '（二）建设规模')).toBe(true);
    await expect(retrieve('条件', { section: '九、不存在', filter: { docId: reportId } }, sources)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('an unresolved reference searches the query as written', async () => {
    const result = await retrieve('第九章 资金', { k: 3, filter: { docId: reportId } }, sources);
    expect(result.section).toMatchObject({ status: 'unresolved', action: 'none', unresolved: ['第九章'] });
    expect(result.keywords).toBe('第九章 资金');
    expect(result.hits.length).toBeGreaterThan(0);
  });

  it.skipIf(!hasShared)('on corpus documents: the warehouse manual 第二章第二节, the paper\'s Section 3.2', async () => {
    const steps = await retrieve('第二章第二节的安装步骤', { k: 5 }, sources);
    expect(steps.hits.length).toBeGreaterThan(0);
    expect(steps.hits.every((h) => h.docId === manualId && last(h.headingPath) === '2.2 安装步骤')).toBe(true);
    const trees = await retrieve('Section 3.2 trace trees', { k: 5 }, sources);
    expect(trees.hits.length).toBe(5);
    expect(trees.hits.every((h) => h.docId === paperId && last(h.headingPath) === '3.2 Trace Trees')).toBe(true);
    // Without the reference, other sections of the paper take the top places.
    const plain = await retrieve('Section 3.2 trace trees', { k: 5, sectionReferences: false }, sources);
    expect(plain.hits.some((h) => last(h.headingPath) !== '3.2 Trace Trees')).toBe(true);
  });
});

describe('filters are applied before ranking', () => {
  it('k results are the best k of the filter, whatever the filter', async () => {
    const all = index.search('项目 资金 建设 条件 trace tree 安装', 10_000);
    const docs = new Map<string, { format: string; paths: string[]; metadata: Record<string, unknown> }>();
    for (const id of new Set(all.map((c) => c.block.docId))) docs.set(id, { format: id === reportId ? 'markdown' : id === paperId ? 'pdf' : 'docx', paths: [(await index.documentPath(id))!], metadata: {} });
    const filterArb: fc.Arbitrary<RetrievalFilter> = fc.record({
      docId: fc.constantFrom(undefined, reportId, [reportId, ...(paperId ? [paperId] : [])]),
      format: fc.constantFrom(undefined, 'pdf', ['markdown', 'docx']),
      path: fc.constantFrom(undefined, '**/papers/*', '/docs/*.md'),
      pageFrom: fc.constantFrom(undefined, 2, 5),
      headingPrefix: fc.constantFrom(undefined, [REPORT, '四、投资估算与资金筹措'], ['Trace-based Just-in-Time Type Specialization for Dynamic Languages']),
    }, { requiredKeys: [] }).map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as RetrievalFilter);
    await fc.assert(fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 12 }), async (filter, k) => {
      const expected = all.filter((c) => blockMatches(c.block, docs.get(c.block.docId)!, filter)).slice(0, k);
      const result = await retrieve('项目 资金 建设 条件 trace tree 安装', { k, filter, merge: false, dedupe: false, sectionReferences: false }, sources);
      expect(result.hits.map((h) => h.block.id)).toEqual(expected.map((c) => c.block.id));
    }), { numRuns: 60 });
  });
});

describe('clean results', () => {
  it('never returns more than k hits, and no two overlap, with or without neighbours', async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 15 }), fc.integer({ min: 0, max: 3 }), fc.constantFrom('资金 建设', '项目', 'trace', '第二章第二节 条件'), async (k, neighbors, query) => {
      const result = await retrieve(query, { k, neighbors }, sources);
      expect(result.hits.length).toBeLessThanOrEqual(k);
      for (const a of result.hits) for (const b of result.hits) if (a !== b && a.docId === b.docId) expect(a.start < b.end && b.start < a.end).toBe(false);
      for (const hit of result.hits) {
        expect(hit.blockIds).toEqual(expect.arrayContaining(hit.matched));
        expect(hit.text).toContain(hit.block.text.slice(hit.block.text.length - (hit.block.end - hit.block.start)));
      }
    }), { numRuns: 25 });
  });

  it('neighbours widen a hit to the blocks around it (small-to-big), in document order', async () => {
    const doc = await parsedDoc(PARK_REPORT);
    const plain = await retrieve('专户存储', { k: 1, filter: { docId: reportId } }, sources);
    const wide = await retrieve('专户存储', { k: 1, neighbors: 1, filter: { docId: reportId } }, sources);
    expect(wide.hits[0]!.block.id).toBe(plain.hits[0]!.block.id);
    expect(wide.hits[0]!.blockIds).toHaveLength(3);
    expect(wide.hits[0]!.matched).toEqual([plain.hits[0]!.block.id]);
    expect(wide.hits[0]!.start).toBeLessThan(plain.hits[0]!.start);
    expect(wide.hits[0]!.text).toContain(doc.canonical.slice(plain.hits[0]!.start, plain.hits[0]!.end));
    expect(wide.hits[0]!.text.endsWith(doc.canonical.slice(wide.hits[0]!.end - 20, wide.hits[0]!.end))).toBe(true);
  });

  it('merges overlapping chunks of one passage into one hit (recursive chunks with overlap)', async () => {
    const text = (await parsedDoc(PARK_REPORT)).canonical;
    const overlapIndex = new MemoryIndex();
    const doc = await parsedDoc(PARK_REPORT);
    overlapIndex.addDocument(doc, chunk(doc, { strategy: 'recursive', chunkSize: 80, chunkOverlap: 40 }));
    const src = { retrievers: [overlapIndex.retriever()], fetcher: overlapIndex };
    const raw = await retrieve('资金来源 财政', { k: 10, merge: false, sectionReferences: false }, src);
    const overlappingRaw = raw.hits.some((a) => raw.hits.some((b) => a !== b && a.start < b.end && b.start < a.end));
    expect(overlappingRaw).toBe(true);
    const merged = await retrieve('资金来源 财政', { k: 10, sectionReferences: false, explain: true }, src);
    for (const a of merged.hits) for (const b of merged.hits) if (a !== b) expect(a.start < b.end && b.start < a.end).toBe(false);
    const joined = merged.hits.find((h) => h.matched.length > 1)!;
    expect(joined).toBeDefined();
    expect(joined.text).toBe(text.slice(joined.start, joined.end));
    expect(merged.explanation!.clean.mergedBlocks).toBeGreaterThan(0);
  });

  it('collapses the same text in two documents into one hit that lists the other', async () => {
    const paragraph = '资金来源为市级财政专项资金四千万元、新区财政配套资金三千万元，其余五千万元由建设单位申请政策性银行贷款解决。';
    const copy = await parse(new TextEncoder().encode(`# 另一份报告\n\n## 资金\n\n${paragraph}\n`), { name: 'copy.md' });
    const twoIndex = new MemoryIndex();
    const report = await parsedDoc(PARK_REPORT);
    twoIndex.addDocument(report, chunk(report, { chunkSize: 60 }), { path: '/a/report.md' });
    twoIndex.addDocument(copy, chunk(copy, { chunkSize: 60 }), { path: '/b/copy.md' });
    const src = { retrievers: [twoIndex.retriever()], fetcher: twoIndex };
    const result = await retrieve('政策性银行贷款', { k: 5 }, src);
    const withCopies = result.hits.filter((h) => h.duplicates.length > 0);
    expect(withCopies).toHaveLength(1);
    const other = withCopies[0]!.duplicates[0]!;
    expect(new Set([withCopies[0]!.docId, other.docId])).toEqual(new Set([report.id, copy.id]));
    expect(result.hits.filter((h) => h.text.includes('政策性银行贷款'))).toHaveLength(1);
    const kept = await retrieve('政策性银行贷款', { k: 5, dedupe: false }, src);
    expect(kept.hits.filter((h) => h.text.includes('政策性银行贷款'))).toHaveLength(2);
  });
});

/** A test double for an embedding model (none can exist here): hashed character bigrams, cosine. */
function bigramVectorRetriever(idx: MemoryIndex, docIds: string[]): Retriever {
  const embed = (text: string) => {
    const v = new Float64Array(512);
    const chars = [...text];
    for (let i = 0; i + 1 < chars.length; i++) {
      let h = 2166136261;
      for (const ch of chars[i]! + chars[i + 1]!) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
      v[(h >>> 0) % 512]! += 1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  return {
    name: 'vector',
    async search(query, k, filter) {
      const q = embed(query);
      const scored: Candidate[] = [];
      for (const id of docIds) {
        for (const block of await idx.blocks(id)) {
          if (!blockMatches(block, { format: 'markdown', paths: [], metadata: {} }, { ...filter, format: undefined, path: undefined })) continue;
          const v = embed(block.text);
          scored.push({ block, path: null, score: v.reduce((s, x, i) => s + x * q[i]!, 0) });
        }
      }
      return scored.sort((a, b) => b.score - a.score || (a.block.id < b.block.id ? -1 : 1)).slice(0, k);
    },
  };
}

describe('modes, fusion, rerank and explain', () => {
  it('hybrid fuses bm25 and vector by RRF, every hit explained; weights 0 leave one out', async () => {
    const hybrid = { retrievers: [index.retriever(), bigramVectorRetriever(index, [reportId])], fetcher: index };
    const result = await retrieve('资金来源', { k: 5, filter: { docId: reportId }, explain: true }, hybrid);
    expect(result.mode).toBe('hybrid');
    expect(result.explanation!.fusion).toEqual({ method: 'rrf', k: 60, weights: { bm25: 1, vector: 1 } });
    const top = result.hits[0]!;
    expect(Object.keys(top.scores).sort()).toEqual(['bm25', 'bm25Rank', 'fused', 'vector', 'vectorRank']);
    expect(top.score).toBe(top.scores.fused);
    expect(top.scores.fused).toBeCloseTo(1 / (60 + top.scores.bm25Rank!) + 1 / (60 + top.scores.vectorRank!), 12);
    const bm25Only = await retrieve('资金来源', { k: 5, filter: { docId: reportId }, weights: { vector: 0 } }, hybrid);
    const bm25 = await retrieve('资金来源', { k: 5, filter: { docId: reportId }, mode: 'bm25' }, hybrid);
    expect(bm25Only.hits.map((h) => h.block.id)).toEqual(bm25.hits.map((h) => h.block.id));
    const vector = await retrieve('资金来源', { k: 3, filter: { docId: reportId }, mode: 'vector' }, hybrid);
    expect(Object.keys(vector.hits[0]!.scores).sort()).toEqual(['vector', 'vectorRank']);
  });

  it('section references work in every mode', async () => {
    const hybrid = { retrievers: [index.retriever(), bigramVectorRetriever(index, [reportId])], fetcher: index };
    for (const mode of ['bm25', 'vector', 'hybrid'] as const) {
      const result = await retrieve('第二章第二节提到的三项前提条件', { k: 3, mode, filter: { docId: reportId } }, hybrid);
      expect(result.hits.length, mode).toBeGreaterThan(0);
      expect(result.hits.every((h) => last(h.headingPath) === '（二）建设规模'), mode).toBe(true);
    }
  });

  it('reranks the fused candidates with the reranker, its score added', async () => {
    // A double of a /rerank endpoint: longer passages first.
    const reranker: PassageReranker = { name: 'length', async rerank(_q, passages) { return passages.map((p) => p.length); } };
    const result = await retrieve('资金', { k: 4, rerank: true, filter: { docId: reportId }, explain: true, dedupe: false, merge: false }, { ...sources, reranker });
    const lengths = result.hits.map((h) => h.block.text.length);
    expect([...lengths].sort((a, b) => b - a)).toEqual(lengths);
    expect(result.hits.every((h) => h.scores.rerank === h.block.text.length && h.score === h.scores.rerank && h.scores.bm25Rank !== undefined)).toBe(true);
    expect(result.explanation!.rerank).toMatchObject({ name: 'length' });
  });

  it('reranks through a real /rerank client (TEI shape) on loopback', async () => {
    const server = await startRerankServer({ api: 'tei' });
    try {
      const reranker: PassageReranker = createReranker({ url: server.url });
      const result = await retrieve('资金 来源 财政', { k: 4, rerank: true, filter: { docId: reportId }, explain: true }, { ...sources, reranker });
      expect(result.hits.length).toBeGreaterThan(1);
      for (const hit of result.hits) expect(hit.scores.rerank).toBe(fixtureRerankScore('资金 来源 财政', hit.block.text));
      const scores = result.hits.map((h) => h.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(result.explanation!.rerank!.reranked).toBeGreaterThanOrEqual(result.hits.length);
    } finally {
      await server.close();
    }
  });

  it('refuses what it cannot do, with INVALID_OPTIONS', async () => {
    const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: GroundworkError) => e.code);
    expect(await codeOf(retrieve('x', { mode: 'vector' }, sources))).toBe('INVALID_OPTIONS');
    expect(await codeOf(retrieve('x', { rerank: true }, sources))).toBe('INVALID_OPTIONS');
    expect(await codeOf(retrieve('x', { weights: { bm25: 0 } }, sources))).toBe('INVALID_OPTIONS');
    expect(await codeOf(retrieve('x', { weights: { nope: 1 } }, sources))).toBe('INVALID_OPTIONS');
    expect(await codeOf(retrieve('x', { k: 0 }, sources))).toBe('INVALID_OPTIONS');
    expect(await codeOf(retrieve('x', { kk: 3 } as never, sources))).toBe('INVALID_OPTIONS');
    expect(await codeOf(retrieve('x', { filter: { pageFrom: 5, pageTo: 2 } }, sources))).toBe('INVALID_OPTIONS');
    await expect(retrieve('x', { k: 1.5 }, sources)).rejects.toThrow(/k/);
  });

  it('the options schema turns into a JSON schema for the HTTP API and MCP', () => {
    const schema = z.toJSONSchema(RetrievalOptionsSchema, { io: 'input' }) as { properties: Record<string, { description?: string }>; additionalProperties: boolean };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['mode', 'k', 'filter', 'section', 'neighbors', 'rerank', 'weights', 'explain']));
    expect(schema.properties.section!.description).toContain('3.2');
    expect(schema.additionalProperties).toBe(false);
  });

  it('an empty query with no section returns nothing', async () => {
    expect((await retrieve('   ', {}, sources)).hits).toEqual([]);
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Library } from '../../src/library/library.js';
import { blockMatches, type RetrievalFilter } from '../../src/retrieval/filter.js';
import { librarySources } from '../../src/retrieval/library-source.js';
import { retrieve, type RetrievalSources } from '../../src/retrieval/pipeline.js';
import { corpus, hasShared } from '../helpers.js';
import { PARK_REPORT } from './helpers.js';

const REPORT = '滨江智慧园区建设项目可行性研究报告';
let dir: string;
let library: Library;
let sources: RetrievalSources;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-retrieval-'));
  const docs = join(dir, 'docs');
  mkdirSync(join(docs, 'papers'), { recursive: true });
  copyFileSync(PARK_REPORT, join(docs, 'park-report-zh.md'));
  if (hasShared) {
    copyFileSync(corpus('zh-generated', 'warehouse-manual-zh.docx'), join(docs, 'warehouse-manual-zh.docx'));
    copyFileSync(corpus('pdf', 'tracemonkey.pdf'), join(docs, 'papers', 'tracemonkey.pdf'));
  }
  library = await Library.open(join(dir, 'lib'));
  const report = await library.addFiles(docs, { workers: 1, chunkOptions: { chunkSize: 120 } });
  expect(report.rejected).toEqual([]);
  sources = librarySources(library);
}, 180_000);

afterAll(async () => {
  await library?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const last = (path: string[]) => path[path.length - 1];

describe('retrieval over a real library (SQLite, BM25)', () => {
  it('lands 第二章第二节 in part 二 section （二） of the report', async () => {
    const reportDoc = (await library.documents()).find((d) => d.paths[0]!.endsWith('park-report-zh.md'))!;
    const result = await retrieve('第二章第二节提到的三项前提条件', { k: 5, filter: { docId: reportDoc.id } }, sources);
    expect(result.section).toMatchObject({ status: 'unique', action: 'restrict' });
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.hits.every((h) => last(h.headingPath) === '（二）建设规模')).toBe(true);
    expect(result.hits[0]!.path).toBe(reportDoc.paths[0]);
    expect(result.hits[0]!.text).toContain('三项前提条件');
  });

  it('without a document filter, finds the section among the library\'s documents', async () => {
    const result = await retrieve('第四部分的资金来源', { k: 3 }, sources);
    expect(result.hits[0]!.headingPath.slice(0, 2)).toEqual([REPORT, '四、投资估算与资金筹措']);
    expect(last(result.hits[0]!.headingPath)).toBe('（二）资金来源');
  });

  it.skipIf(!hasShared)('k hits are k hits of a heading-path, section or metadata filter the store does not know', async () => {
    const everything = await library.searchText('the trace tree loop 项目 资金 安装 配置', { k: 100_000 });
    const docs = new Map((await library.documents()).map((d) => [d.id, d]));
    const paper = (await library.documents()).find((d) => d.format === 'pdf')!;
    const filterArb: fc.Arbitrary<RetrievalFilter> = fc.constantFrom<RetrievalFilter>(
      { headingPrefix: ['Trace-based Just-in-Time Type Specialization for Dynamic Languages', '6. Implementation'] },
      { headingPrefix: [REPORT, '四、投资估算与资金筹措'] },
      { sections: [{ docId: paper.id, headingPath: ['Trace-based Just-in-Time Type Specialization for Dynamic Languages', '3. Trace Trees'] }] },
      { metadata: { producer: 'pdfeTeX-1.21a' } },
      { metadata: { language: 'zh-CN' }, pageFrom: 1 },
      { headingPrefix: ['智能仓储系统安装与运维手册'], format: 'docx' },
      { path: '**/papers/*', headingPrefix: ['nothing'] },
    );
    await fc.assert(fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 30 }), async (filter, k) => {
      const expected = everything.filter((h) => blockMatches(h.block, docs.get(h.docId)!, filter)).slice(0, k).map((h) => h.block.id);
      const got = await sources.retrievers[0]!.search('the trace tree loop 项目 资金 安装 配置', k, filter);
      expect(got.map((c) => c.block.id)).toEqual(expected);
    }), { numRuns: 40 });
  });

  it.skipIf(!hasShared)('neighbours come from the library\'s blocks, and a section alone lists its blocks', async () => {
    const paper = (await library.documents()).find((d) => d.format === 'pdf')!;
    const blocks = await library.blocks(paper.id);
    const result = await retrieve('Section 3.2', { k: 50, filter: { docId: paper.id } }, sources);
    expect(result.section).toMatchObject({ status: 'unique', listed: true });
    const inSection = blocks.filter((b) => last(b.headingPath) === '3.2 Trace Trees');
    expect(result.hits.map((h) => h.block.id)).toEqual(inSection.map((b) => b.id));
    const wide = await retrieve('blacklisting', { k: 2, neighbors: 2, filter: { docId: paper.id } }, sources);
    for (const hit of wide.hits) {
      const ordinals = hit.blockIds.map((id) => blocks.find((b) => b.id === id)!.ordinal);
      expect(ordinals).toEqual([...ordinals].sort((a, b) => a - b));
      expect(ordinals.length).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('outlines kept by librarySources', () => {
  it('are rebuilt when the document is chunked again with another configuration', async () => {
    const own = mkdtempSync(join(tmpdir(), 'gw-retrieval-outline-'));
    try {
      copyFileSync(PARK_REPORT, join(own, 'park-report-zh.md'));
      const lib = await Library.open(join(own, 'lib'));
      await lib.addFiles(join(own, 'park-report-zh.md'), { workers: 1, chunkOptions: { chunkSize: 60 } });
      const src = librarySources(lib);
      const [doc] = await lib.documents();
      const first = await src.fetcher.outline!(doc!.id);
      expect(await src.fetcher.outline!(doc!.id)).toBe(first);
      const section = (o: typeof first) => o!.roots[0]!.children[1]!.children[1]!;
      expect(section(first).title).toBe('（二）建设规模');
      const report = await lib.addFiles(join(own, 'park-report-zh.md'), { workers: 1, chunkOptions: { chunkSize: 2000 } });
      expect(report.docsUpdated).toBe(1);
      const second = await src.fetcher.outline!(doc!.id);
      expect(second).not.toBe(first);
      expect(section(second).lastOrdinal).toBeLessThan(section(first).lastOrdinal!);
      expect(section(second).firstOrdinal).toBe((await lib.blocks(doc!.id)).find((b) => b.start < section(second).end! && b.end > section(second).bodyStart!)!.ordinal);
      await lib.close();
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);
});

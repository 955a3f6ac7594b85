/**
 * The store contract: one suite over the whole `LibraryStore` interface, run by every backend's
 * test file with a factory of fresh, empty stores (hono's router `common.case.test.ts`). It speaks
 * only the interface, so a new backend passes it unchanged or is not done.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import type { Document, Format } from '../../src/document/types.js';
import { isGroundworkError } from '../../src/errors.js';
import { Serial } from '../../src/library/serial.js';
import { blockIndexText } from '../../src/search/analyze.js';
import { resolveCheckOptions } from '../../src/store/check.js';
import { openStore } from '../../src/store/registry.js';
import { blockMatches, type RetrievalFilter } from '../../src/retrieval/filter.js';
import { outlineFromBlocks, outlineNodes } from '../../src/retrieval/outline.js';
import type { Block, BlockWithPath, DocumentWrite, JobRecord, LibraryStore, SearchFilter, StoreStats, VectorFilter, VectorSpace } from '../../src/store/types.js';

export interface StoreContractOptions {
  /** Shown in the suite's name. */
  name: string;
  /** A new, empty store; each call a different one. The suite closes what it opens. */
  newStore: () => Promise<LibraryStore>;
}

interface WriteOptions {
  format?: Format;
  configHash?: string;
  /** The document's path; null for none. Default `/docs/NAME.md`. */
  path?: string | null;
  /** Page of each block (null: none); default none. */
  pages?: (number | [number, number] | null)[];
  parseCacheKey?: string | null;
  original?: string | null;
  /** Extra elements, so the document's table and image counts are not zero. */
  tables?: number;
  images?: number;
}

/** A document named `name` (id `doc-NAME`) with one block per text, as one ingest would write it. */
export function contractWrite(name: string, texts: readonly string[], options: WriteOptions = {}): DocumentWrite {
  const canonical = texts.join('\n\n');
  const elements: Document['elements'] = [];
  for (let i = 0; i < (options.tables ?? 0); i++) elements.push({ index: elements.length, kind: 'table', start: 0, end: 0, table: { rows: [[{ text: 'x' }]], headerRows: 0 } } as Document['elements'][number]);
  for (let i = 0; i < (options.images ?? 0); i++) elements.push({ index: elements.length, kind: 'image', start: 0, end: 0 } as Document['elements'][number]);
  const document: Document = {
    id: `doc-${name}`,
    source: { name: `${name}.md`, bytes: Buffer.byteLength(canonical) },
    format: options.format ?? 'markdown',
    mime: options.format === 'pdf' ? 'application/pdf' : 'text/markdown',
    title: `Title of ${name}`,
    language: 'en',
    pageCount: options.pages ? Math.max(0, ...options.pages.flat().filter((p): p is number => p !== null)) : undefined,
    metadata: { author: 'Ana', tags: ['a', 'b'] },
    elements,
    warnings: [`a warning about ${name}`],
    canonical,
  } as Document;
  const configHash = options.configHash ?? 'config-1';
  let offset = 0;
  const blocks: Block[] = texts.map((text, ordinal) => {
    const page = options.pages?.[ordinal] ?? null;
    const [pageStart, pageEnd] = page === null ? [null, null] : Array.isArray(page) ? page : [page, page];
    const block: Block = {
      id: `${name}-${configHash}-${ordinal}`,
      docId: document.id,
      ordinal,
      kind: 'text',
      text,
      headingPath: ordinal === 0 ? ['Intro'] : [`Part ${ordinal}`],
      pageStart,
      pageEnd,
      bboxes: pageStart === null ? null : [{ x0: 1, y0: 2, x1: 3, y1: 4, page: pageStart }],
      start: offset,
      end: offset + text.length,
      chars: text.length,
      tokens: text.split(' ').length,
      table: null,
      speaker: ordinal === 1 ? 'Bo' : null,
      time: ordinal === 1 ? [1.5, 3] : null,
      strategy: 'structure',
      configHash,
    };
    offset += text.length + 2;
    return block;
  });
  const path = options.path === undefined ? `/docs/${name}.md` : options.path;
  return {
    document,
    blocks,
    path: path === null ? null : { path, docId: document.id, size: canonical.length, mtimeMs: 1_700_000_000_000 },
    strategy: 'structure',
    configHash,
    original: options.original ?? null,
    parseCacheKey: options.parseCacheKey === undefined ? `parse-${name}` : options.parseCacheKey,
  };
}

/** A queued job as a server queues one, created at `at` (ISO). */
export function contractJob(id: string, at: string, input: Record<string, unknown> = { files: [{ name: `${id}.md` }] }): JobRecord {
  return { id, kind: 'ingest', state: 'queued', input, progress: null, result: null, error: null, attempts: 0, createdAt: at, updatedAt: at, startedAt: null, finishedAt: null };
}

/** `write` with its block `at` made to fail when the store reads it: a write that breaks part-way. */
function faulty(write: DocumentWrite, at = write.blocks.length - 1): DocumentWrite {
  const blocks = write.blocks.map((b) => ({ ...b }));
  for (const field of ['text', 'headingPath', 'id'] as const) {
    Object.defineProperty(blocks[at]!, field, {
      enumerable: true,
      get() {
        throw new Error('injected fault: this block cannot be written');
      },
    });
  }
  return { ...write, blocks };
}

/** Equal scores, up to float rounding between two ways of computing them. */
function sameScores(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) <= 1e-9 * Math.max(Math.abs(x), Math.abs(b[i]!)));
}

async function collect(iterable: AsyncIterable<BlockWithPath>): Promise<BlockWithPath[]> {
  const out: BlockWithPath[] = [];
  for await (const block of iterable) out.push(block);
  return out;
}

/** A library where one document's 300 strong matches push another's weak ones far down the ranking. */
async function crowded(store: LibraryStore): Promise<void> {
  const crowd = Array.from({ length: 300 }, (_, i) => `needle needle needle haystack ${i}`);
  await store.writeDocument(contractWrite('crowd', crowd, { path: '/docs/crowd.md' }));
  const sparse = [
    'a needle in a very long paragraph about hay, straw, barns, fields, fences and farms',
    'another needle lost among the many bales of hay in a wide barn near the river',
    'nothing to find on this page at all',
    'the last needle hides under the tractor in a field of wheat and barley and oats',
    'a final needle in the farmhouse kitchen drawer beside the spoons, forks and knives',
  ];
  await store.writeDocument(contractWrite('sparse', sparse, { format: 'pdf', path: '/archive/2024/sparse.pdf', pages: [1, 2, [2, 3], 4, 5] }));
}

export function runStoreContract({ name, newStore }: StoreContractOptions): void {
  describe(`store contract: ${name}`, () => {
    const open: LibraryStore[] = [];
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
    });
    const fresh = async (): Promise<LibraryStore> => {
      const store = await newStore();
      open.push(store);
      return store;
    };

    test('describes itself: a location, capability flags, a spec that opens the same store', async () => {
      const store = await fresh();
      expect(typeof store.location).toBe('string');
      expect(typeof store.capabilities.concurrentWriters).toBe('boolean');
      await store.writeDocument(contractWrite('a', ['alpha bravo']));
      if (store.spec === null) return;
      // A plain object: what a worker thread or process receives.
      const spec = JSON.parse(JSON.stringify(store.spec));
      const again = await openStore(spec);
      open.push(again);
      expect((await again.getDocument('doc-a'))?.blocks).toBe(1);
      expect((await again.searchText('alpha', 5)).map((c) => c.block.id)).toEqual(['a-config-1-0']);
    });

    test('settings: absent, set, overwritten', async () => {
      const store = await fresh();
      expect(await store.getSetting('strategy')).toBeUndefined();
      await store.setSetting('strategy', 'recursive');
      await store.setSetting('tokenizer', 'o200k_base');
      await store.setSetting('strategy', 'sentence');
      expect(await store.getSetting('strategy')).toBe('sentence');
      expect(await store.getSetting('tokenizer')).toBe('o200k_base');
    });

    test('a written document: its fields, blocks in order, path record and parse cache', async () => {
      const store = await fresh();
      const write = contractWrite('a', ['alpha bravo', 'charlie delta', 'echo foxtrot'], { pages: [1, [1, 2], null], original: 'files/do/doc-a', tables: 2, images: 1 });
      expect(await store.writeDocument(write)).toEqual({ replacedDocId: null, written: true });

      expect(await store.documentInfo('doc-a')).toEqual({ configHash: 'config-1' });
      expect(await store.documentInfo('doc-none')).toBeUndefined();
      expect(await store.pathRecord('/docs/a.md')).toEqual({ path: '/docs/a.md', docId: 'doc-a', size: write.path!.size, mtimeMs: write.path!.mtimeMs });
      expect(await store.pathRecord('/docs/none.md')).toBeUndefined();

      const doc = (await store.getDocument('doc-a'))!;
      expect(doc).toMatchObject({
        id: 'doc-a', format: 'markdown', mime: 'text/markdown', title: 'Title of a', language: 'en', pageCount: 2,
        bytes: write.document.source.bytes, metadata: { author: 'Ana', tags: ['a', 'b'] }, warnings: ['a warning about a'],
        paths: ['/docs/a.md'], strategy: 'structure', configHash: 'config-1', blocks: 3, tables: 2, images: 1, original: 'files/do/doc-a',
      });
      expect(Number.isNaN(Date.parse(doc.addedAt))).toBe(false);

      expect(await store.blocksOf('doc-a')).toEqual(write.blocks);
      expect(await store.blocksOf('doc-none')).toEqual([]);
      expect(await store.cachedParse('parse-a')).toEqual(write.document);
      expect(await store.cachedParse('parse-none')).toBeUndefined();
    });

    test('a document written without a path or parse-cache key has neither', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('child', ['kilo lima'], { path: null, parseCacheKey: null }));
      expect((await store.getDocument('doc-child'))!.paths).toEqual([]);
      expect((await store.stats()).parseCacheEntries).toBe(0);
      expect((await store.searchText('kilo', 5))[0]).toMatchObject({ path: null });
      expect((await collect(store.iterateBlocks()))[0]!.path).toBeNull();
    });

    test('the same content at two paths is one document with both paths', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('a', ['alpha bravo'], { path: '/docs/z-copy.md' }));
      expect(await store.recordPath({ path: '/docs/a-first.md', docId: 'doc-a', size: 5, mtimeMs: 7 })).toEqual({ replacedDocId: null });
      expect((await store.getDocument('doc-a'))!.paths).toEqual(['/docs/a-first.md', '/docs/z-copy.md']);
      expect(await store.pathRecord('/docs/a-first.md')).toEqual({ path: '/docs/a-first.md', docId: 'doc-a', size: 5, mtimeMs: 7 });
      // Either path finds it; hits and iteration name the first path.
      expect((await store.getDocument('/docs/z-copy.md'))!.id).toBe('doc-a');
      expect((await store.searchText('alpha', 5))[0]!.path).toBe('/docs/a-first.md');
      expect((await collect(store.iterateBlocks()))[0]!.path).toBe('/docs/a-first.md');
      const stats = await store.stats();
      expect([stats.documents, stats.blocks, stats.paths]).toEqual([1, 1, 2]);
    });

    test('a changed file replaces its old content: the old document, blocks and terms are gone', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('old', ['the compiler guide', 'more compiler notes'], { path: '/docs/guide.md' }));
      await store.writeDocument(contractWrite('other', ['an unrelated note about gardens']));
      const replaced = await store.writeDocument(contractWrite('new', ['use the installer'], { path: '/docs/guide.md' }));
      expect(replaced).toEqual({ replacedDocId: 'doc-old', written: true });
      expect(await store.documentInfo('doc-old')).toBeUndefined();
      expect(await store.getDocument('doc-old')).toBeUndefined();
      expect(await store.blocksOf('doc-old')).toEqual([]);
      expect(await store.searchText('compiler', 5)).toEqual([]);
      expect((await store.pathRecord('/docs/guide.md'))!.docId).toBe('doc-new');
      expect((await store.searchText('installer', 5)).map((c) => c.path)).toEqual(['/docs/guide.md']);

      // Pointing the path at other stored content (a file reverted to bytes stored elsewhere) does the same.
      expect(await store.recordPath({ path: '/docs/guide.md', docId: 'doc-other', size: 1, mtimeMs: 2 })).toEqual({ replacedDocId: 'doc-new' });
      expect(await store.getDocument('doc-new')).toBeUndefined();
      // A document that keeps another path survives losing one.
      await store.recordPath({ path: '/docs/second.md', docId: 'doc-other', size: 1, mtimeMs: 2 });
      await store.writeDocument(contractWrite('third', ['third text'], { path: '/docs/guide.md' }));
      expect((await store.getDocument('doc-other'))!.paths).toEqual(['/docs/other.md', '/docs/second.md']);
      const stats = await store.stats();
      expect([stats.documents, stats.blocks, stats.paths]).toEqual([2, 2, 3]);
    });

    test('re-chunking with another configuration replaces the blocks and keeps the paths', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('a', ['running rivers', 'the river runs north', 'mountains only'], { configHash: 'config-1' }));
      await store.recordPath({ path: '/docs/a-copy.md', docId: 'doc-a', size: 1, mtimeMs: 0 });
      const rechunked = contractWrite('a', ['glaciers and rivers'], { configHash: 'config-2' });
      expect(await store.writeDocument(rechunked)).toEqual({ replacedDocId: null, written: true });
      expect(await store.documentInfo('doc-a')).toEqual({ configHash: 'config-2' });
      expect(await store.blocksOf('doc-a')).toEqual(rechunked.blocks);
      expect((await store.getDocument('doc-a'))!.paths).toEqual(['/docs/a-copy.md', '/docs/a.md']);
      expect(await store.searchText('mountains', 5)).toEqual([]);
      expect((await store.searchText('glacier', 5)).map((c) => c.block.id)).toEqual(['a-config-2-0']);
      expect((await store.stats()).blocks).toBe(1);
    });

    test('writing content already stored with the same configuration records the path only (written: false)', async () => {
      // What two processes that parsed the same bytes at once send: the second write must not
      // duplicate or replace anything, and the path it carries is recorded once.
      const store = await fresh();
      const first = contractWrite('a', ['alpha bravo', 'charlie delta'], { path: '/docs/a.md', original: null });
      await store.writeDocument(first);
      const before = { blocks: await store.blocksOf('doc-a'), ranking: await store.searchText('alpha charlie', 5), stats: await store.stats() };
      const twin = contractWrite('a', ['alpha bravo', 'charlie delta'], { path: '/docs/copy-of-a.md', original: 'files/do/doc-a' });
      expect(await store.writeDocument(twin)).toEqual({ replacedDocId: null, written: false });
      expect(await store.writeDocument(contractWrite('a', ['alpha bravo', 'charlie delta'], { path: '/docs/a.md' }))).toEqual({ replacedDocId: null, written: false });
      expect(await store.blocksOf('doc-a')).toEqual(before.blocks);
      expect(await store.searchText('alpha charlie', 5)).toEqual(before.ranking);
      const doc = (await store.getDocument('doc-a'))!;
      expect(doc.paths).toEqual(['/docs/a.md', '/docs/copy-of-a.md']);
      // A kept original the first write did not have is recorded; one it had is never overwritten.
      expect(doc.original).toBe('files/do/doc-a');
      await store.writeDocument(contractWrite('a', ['alpha bravo', 'charlie delta'], { original: 'files/other' }));
      expect((await store.getDocument('doc-a'))!.original).toBe('files/do/doc-a');
      expect(await store.stats()).toEqual({ ...before.stats, paths: 2 });
    });

    test('recording a path for content that is not stored is NOT_FOUND and changes nothing', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('a', ['alpha bravo'], { path: '/docs/a.md' }));
      const error = await store.recordPath({ path: '/docs/a.md', docId: 'doc-gone', size: 1, mtimeMs: 1 }).then(() => undefined, (e: unknown) => e);
      expect(isGroundworkError(error) && error.code).toBe('NOT_FOUND');
      expect((await store.pathRecord('/docs/a.md'))!.docId).toBe('doc-a');
      expect((await store.stats()).documents).toBe(1);
    });

    test('setOriginal sets and clears the kept original; false for a document not stored', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('a', ['alpha bravo'], { original: 'files/do/doc-a' }));
      expect(await store.setOriginal('doc-a', null)).toBe(true);
      expect((await store.getDocument('doc-a'))!.original).toBeNull();
      expect(await store.setOriginal('doc-a', 'files/do/doc-a')).toBe(true);
      expect((await store.getDocument('doc-a'))!.original).toBe('files/do/doc-a');
      expect(await store.setOriginal('doc-none', null)).toBe(false);
    });

    test('check: a store kept by its own methods is consistent, quick and full; repair then does nothing', async () => {
      const store = await fresh();
      const empty = await store.check(resolveCheckOptions({}));
      expect(empty).toMatchObject({ ok: true, repair: false, full: false, found: [], repairs: [], remaining: [] });
      await crowded(store);
      await store.writeDocument(contractWrite('zh', ['长江是中国最长的河流', '黄河流经九个省份']));
      await store.writeDocument(contractWrite('a', ['running rivers'], { configHash: 'config-1' }));
      await store.writeDocument(contractWrite('a', ['glaciers and rivers', 'a second block'], { configHash: 'config-2' }));
      await store.writeDocument(contractWrite('gone', ['to be removed']));
      await store.removeDocument('doc-gone');
      // Two documents with the same block text: each block's index row is found under its own id.
      await store.writeDocument(contractWrite('twin-1', ['identical words in two documents']));
      await store.writeDocument(contractWrite('twin-2', ['identical words in two documents']));
      await store.recordPath({ path: '/docs/crowd.md', docId: 'doc-zh', size: 1, mtimeMs: 0 });
      for (const full of [false, true]) {
        const report = await store.check(resolveCheckOptions({ full }));
        expect(report.found).toEqual([]);
        expect(report).toMatchObject({ ok: true, full, remaining: [] });
        expect(report.checked.length).toBeGreaterThan(0);
        for (const scope of report.checked) expect(['full', 'sampled']).toContain(scope.scope);
      }
      const repaired = await store.check(resolveCheckOptions({ repair: true }));
      expect(repaired).toMatchObject({ ok: true, repair: true, found: [], repairs: [], remaining: [] });
    });

    test('remove: the document, its blocks, paths, index rows and parse cache; false when absent', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('a', ['alpha bravo', 'alpha charlie']));
      await store.writeDocument(contractWrite('b', ['bravo delta']));
      expect(await store.removeDocument('doc-a')).toBe(true);
      expect(await store.removeDocument('doc-a')).toBe(false);
      expect(await store.getDocument('doc-a')).toBeUndefined();
      expect(await store.pathRecord('/docs/a.md')).toBeUndefined();
      expect(await store.blocksOf('doc-a')).toEqual([]);
      expect(await store.cachedParse('parse-a')).toBeUndefined();
      expect(await store.searchText('alpha', 5)).toEqual([]);
      expect((await store.searchText('bravo', 5)).map((c) => c.block.docId)).toEqual(['doc-b']);
      expect(await store.stats()).toMatchObject({ documents: 1, blocks: 1, paths: 1, parseCacheEntries: 1 });
    });

    test('documentTokens sums each document\'s block tokens; 0 for one without blocks or unknown', async () => {
      const store = await fresh();
      expect(await store.documentTokens([])).toEqual(new Map());
      await store.writeDocument(contractWrite('t1', ['one two three', 'four five']));
      await store.writeDocument(contractWrite('t2', ['six']));
      const sums = await store.documentTokens(['doc-t1', 'doc-t2', 'doc-none', 'doc-t1']);
      expect(sums).toEqual(new Map([['doc-t1', 5], ['doc-t2', 1], ['doc-none', 0]]));
      // summed over the stored blocks: a re-chunk that replaces them changes the sum
      await store.writeDocument(contractWrite('t2', ['seven eight nine ten'], { configHash: 'config-2' }));
      expect((await store.documentTokens(['doc-t2'])).get('doc-t2')).toBe(4);
    });

    test('listing in the order added, lookup by id, unique id prefix and path', async () => {
      const store = await fresh();
      expect(await store.listDocuments()).toEqual([]);
      for (const name of ['x1', 'x2', 'y1']) {
        await store.writeDocument(contractWrite(name, [`text of ${name}`]));
        // addedAt has millisecond resolution: keep the order observable.
        await new Promise((r) => setTimeout(r, 5));
      }
      const listed = await store.listDocuments();
      expect(listed.map((d) => d.id)).toEqual(['doc-x1', 'doc-x2', 'doc-y1']);
      expect(listed[0]).toEqual(await store.getDocument('doc-x1'));
      expect((await store.getDocument('doc-y'))!.id).toBe('doc-y1');
      expect((await store.getDocument('doc-x2'))!.id).toBe('doc-x2');
      expect((await store.getDocument('/docs/x1.md'))!.id).toBe('doc-x1');
      expect(await store.getDocument('doc-z')).toBeUndefined();
      expect(await store.getDocument('/docs/none.md')).toBeUndefined();
      const ambiguous = await store.getDocument('doc-x').then(() => undefined, (error: unknown) => error);
      expect(isGroundworkError(ambiguous) && ambiguous.code).toBe('INVALID_OPTIONS');
    });

    test('BM25: best first, scores descending and positive, analysis shared by index and query', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('en', [
        'the river runs past the old mill',
        'running water and a river bank with a river boat on the river',
        'mountains and valleys',
      ]));
      await store.writeDocument(contractWrite('zh', ['长江是中国最长的河流', '黄河流经九个省份']));
      const river = await store.searchText('rivers', 10);
      expect(river.map((c) => c.block.id)).toEqual(['en-config-1-1', 'en-config-1-0']);
      expect(river[0]!.score).toBeGreaterThan(river[1]!.score);
      expect(river[1]!.score).toBeGreaterThan(0);
      expect(river[0]).toMatchObject({ path: '/docs/en.md', block: { docId: 'doc-en', ordinal: 1, text: 'running water and a river bank with a river boat on the river' } });
      // Stemming: "run" finds "runs" and "running"; Chinese is segmented.
      expect((await store.searchText('run', 10)).length).toBe(2);
      expect((await store.searchText('长江', 10)).map((c) => c.block.id)).toEqual(['zh-config-1-0']);
      // The heading path is searchable too.
      expect((await store.searchText('intro', 10)).map((c) => c.block.ordinal)).toEqual([0, 0]);
      expect(await store.searchText('the of', 10)).toEqual([]);
      for (const hostile of ['"', 'AND', 'NOT river', 'river*', 'NEAR(a b)', "'; DROP TABLE blocks; --", '(((']) {
        expect(Array.isArray(await store.searchText(hostile, 5))).toBe(true);
      }
      expect(await store.searchText('river', 1)).toHaveLength(1);
    });

    test('rankText is the ranking of searchText without the blocks', async () => {
      const store = await fresh();
      await crowded(store);
      for (const query of ['needle haystack 7', 'needle', 'hay barn river', 'nothing']) {
        const full = await store.searchText(query, 40);
        const ranked = await store.rankText(query, 40);
        expect(ranked).toEqual(full.map((c) => ({ docId: c.block.docId, ordinal: c.block.ordinal, score: c.score })));
      }
      expect(await store.rankText('the', 5)).toEqual([]);
    });

    test('every filter is applied in the store: k results of the filter, in the unfiltered order', async () => {
      const store = await fresh();
      await crowded(store);
      const all = await store.searchText('needle', 400);
      expect(all).toHaveLength(304);
      const sparseOrder = all.filter((c) => c.block.docId === 'doc-sparse').map((c) => c.block.id);
      expect(sparseOrder).toHaveLength(4);
      const cases: [SearchFilter, (c: { block: Block; path: string | null }) => boolean][] = [
        [{ docId: 'doc-sparse' }, (c) => c.block.docId === 'doc-sparse'],
        [{ docId: ['doc-sparse', 'doc-none'] }, (c) => c.block.docId === 'doc-sparse'],
        [{ format: 'pdf' }, (c) => c.block.docId === 'doc-sparse'],
        [{ format: ['pdf', 'html'] }, (c) => c.block.docId === 'doc-sparse'],
        [{ path: '**/2024/*.pdf' }, (c) => c.path === '/archive/2024/sparse.pdf'],
        [{ path: '/archive/**' }, (c) => c.path === '/archive/2024/sparse.pdf'],
        [{ pageFrom: 3 }, (c) => c.block.pageEnd !== null && c.block.pageEnd >= 3],
        [{ pageTo: 2 }, (c) => c.block.pageStart !== null && c.block.pageStart <= 2],
        [{ pageFrom: 3, pageTo: 4 }, (c) => c.block.pageEnd! >= 3 && c.block.pageStart! <= 4],
        [{ format: 'pdf', pageFrom: 2, pageTo: 2 }, (c) => c.block.pageEnd! >= 2 && c.block.pageStart! <= 2],
        [{ docId: 'doc-crowd' }, (c) => c.block.docId === 'doc-crowd'],
      ];
      for (const [filter, passes] of cases) {
        const label = JSON.stringify(filter);
        const expected = all.filter(passes);
        expect(expected.length, label).toBeGreaterThan(0);
        const k = 3;
        const got = await store.searchText('needle', k, filter);
        expect(got.length, label).toBe(Math.min(k, expected.length));
        expect(got.every(passes), label).toBe(true);
        // The best k of the filter: the scores of the unfiltered list's first k that pass (blocks of
        // equal score may come in either order).
        expect(sameScores(got.map((c) => c.score), expected.slice(0, k).map((c) => c.score)), label).toBe(true);
        const scoreOf = new Map(all.map((c) => [c.block.id, c.score]));
        expect(got.every((c) => sameScores([c.score], [scoreOf.get(c.block.id)!])), label).toBe(true);
      }
      // Blocks without pages never pass a page bound; a glob matching no path finds nothing.
      expect((await store.searchText('needle', 10, { pageFrom: 1 })).every((c) => c.block.docId === 'doc-sparse')).toBe(true);
      expect(await store.searchText('needle', 3, { path: '/nowhere/**' })).toEqual([]);
      expect(await store.searchText('needle', 3, { docId: 'doc-none' })).toEqual([]);
      expect(await store.searchText('needle', 3, { format: 'docx' })).toEqual([]);
    });

    test('stats count documents, blocks, paths, tokens, bytes, formats and parse-cache entries', async () => {
      const store = await fresh();
      const empty: StoreStats = { documents: 0, blocks: 0, paths: 0, tokens: 0, bytes: 0, byFormat: {}, parseCacheEntries: 0 };
      expect(await store.stats()).toEqual(empty);
      const a = contractWrite('a', ['one two three', 'four five']);
      const b = contractWrite('b', ['six'], { format: 'pdf', parseCacheKey: null });
      const c = contractWrite('c', ['seven eight'], { format: 'pdf' });
      for (const write of [a, b, c]) await store.writeDocument(write);
      await store.recordPath({ path: '/docs/c-again.md', docId: 'doc-c', size: 1, mtimeMs: 0 });
      expect(await store.stats()).toEqual({
        documents: 3,
        blocks: 4,
        paths: 4,
        tokens: [a, b, c].flatMap((w) => w.blocks).reduce((s, x) => s + x.tokens, 0),
        bytes: [a, b, c].reduce((s, w) => s + w.document.source.bytes, 0),
        byFormat: { markdown: 1, pdf: 2 },
        parseCacheEntries: 2,
      });
    });

    test('block iteration: every block in pages, by document then ordinal, with its first path', async () => {
      const store = await fresh();
      // More blocks than any sensible page, in documents written out of id order.
      const sizes: [string, number][] = [['m', 700], ['c', 3], ['x', 650], ['a', 1]];
      for (const [name, n] of sizes) await store.writeDocument(contractWrite(name, Array.from({ length: n }, (_, i) => `block ${i} of ${name}`)));
      const blocks = await collect(store.iterateBlocks());
      expect(blocks).toHaveLength(1354);
      const expectedOrder = [...sizes].sort((p, q) => (`doc-${p[0]}` < `doc-${q[0]}` ? -1 : 1)).flatMap(([name, n]) => Array.from({ length: n }, (_, i) => `${name}-config-1-${i}`));
      expect(blocks.map((b) => b.id)).toEqual(expectedOrder);
      expect(blocks[0]).toEqual({ ...(await store.blocksOf('doc-a'))[0], path: '/docs/a.md' });

      // Stopping early is allowed and leaves the store usable; writes during an iteration do not break it.
      let seen = 0;
      for await (const block of store.iterateBlocks()) {
        if (seen === 0) await store.writeDocument(contractWrite('b', ['written during the iteration']));
        if (++seen === 600) break;
        expect(block.id).toBeTruthy();
      }
      expect(seen).toBe(600);
      expect((await store.stats()).blocks).toBe(1355);
      expect(await collect(store.iterateBlocks())).toHaveLength(1355);
    });

    test('a block by id, and a range of a document\'s blocks by ordinal', async () => {
      const store = await fresh();
      const write = contractWrite('a', ['zero', 'one', 'two', 'three', 'four'], { pages: [1, 1, 2, null, [3, 4]] });
      await store.writeDocument(write);
      await store.writeDocument(contractWrite('b', ['other zero', 'other one']));
      expect(await store.getBlock('a-config-1-3')).toEqual(write.blocks[3]);
      expect(await store.getBlock('a-config-1-9')).toBeUndefined();
      expect(await store.blockRange('doc-a', 1, 3)).toEqual(write.blocks.slice(1, 4));
      expect(await store.blockRange('doc-a', -5, 0)).toEqual(write.blocks.slice(0, 1));
      expect(await store.blockRange('doc-a', 3, 99)).toEqual(write.blocks.slice(3));
      expect(await store.blockRange('doc-a', 7, 9)).toEqual([]);
      expect(await store.blockRange('doc-none', 0, 9)).toEqual([]);
      // Re-chunked: the old ids are gone, the new ones found.
      await store.writeDocument(contractWrite('a', ['only block'], { configHash: 'config-2' }));
      expect(await store.getBlock('a-config-1-3')).toBeUndefined();
      expect((await store.getBlock('a-config-2-0'))?.text).toBe('only block');
    });

    test('outline blocks: every block\'s span, page, heading path and strategy; the text only where it holds "# "; the same outline as from the blocks', async () => {
      const store = await fresh();
      const texts = [
        '# Intro',
        'plain text with a #hashtag and no heading line',
        '## 第二章 安装\n\nbody of the section',
        'text with a NUL \u0000 and the escape \uE001 character, then\n\n### 2.1 Deeper',
        'C# is a language (the "# " is there, no heading line)',
        'closing words',
      ];
      const write = contractWrite('a', texts, { pages: [1, 1, 2, null, [3, 4], 5] });
      await store.writeDocument(write);
      await store.writeDocument(contractWrite('b', ['# other document']));
      const lean = await store.outlineBlocks('doc-a');
      expect(lean).toEqual(write.blocks.map((b) => ({
        ordinal: b.ordinal, start: b.start, end: b.end, pageStart: b.pageStart, headingPath: b.headingPath, strategy: b.strategy,
        text: b.text.includes('# ') ? b.text : null,
      })));
      expect(lean.filter((b) => b.text !== null).map((b) => b.ordinal)).toEqual([0, 2, 3, 4]);
      const outline = outlineFromBlocks('doc-a', lean);
      expect(outline).toEqual(outlineFromBlocks('doc-a', await store.blocksOf('doc-a')));
      expect(outlineNodes(outline).map((n) => n.path)).toEqual([['Intro'], ['Intro', '第二章 安装'], ['Intro', '第二章 安装', '2.1 Deeper']]);
      expect(await store.outlineBlocks('doc-none')).toEqual([]);
    });

    test('jobs: created, read, listed newest first by state, updated; a taken id is refused', async () => {
      const store = await fresh();
      expect(await store.getJob('j1')).toBeUndefined();
      expect(await store.listJobs()).toEqual([]);
      const first = contractJob('j1', '2026-01-01T00:00:00.000Z', { files: [{ name: '合同.pdf', bytes: 12 }], strategy: 'structure' });
      await store.createJob(first);
      await store.createJob(contractJob('j2', '2026-01-01T00:00:01.000Z'));
      await store.createJob(contractJob('j3', '2026-01-01T00:00:02.000Z'));
      expect(await store.getJob('j1')).toEqual(first);
      const taken = await store.createJob(contractJob('j1', '2026-01-02T00:00:00.000Z')).then(() => undefined, (e: unknown) => e);
      expect(isGroundworkError(taken) && taken.code).toBe('INVALID_OPTIONS');
      expect((await store.getJob('j1'))!.createdAt).toBe(first.createdAt);

      const running = await store.updateJob('j1', { state: 'running', attempts: 1, startedAt: '2026-01-01T00:00:05.000Z', progress: { filesDone: 0, filesTotal: 1 } });
      expect(running).toMatchObject({ id: 'j1', state: 'running', attempts: 1, startedAt: '2026-01-01T00:00:05.000Z', progress: { filesDone: 0, filesTotal: 1 }, input: first.input });
      expect(running!.updatedAt >= first.updatedAt).toBe(true);
      const done = await store.updateJob('j1', { state: 'done', result: { docsAdded: 1, documents: [{ docId: 'doc-a' }] }, finishedAt: '2026-01-01T00:00:09.000Z' });
      expect(done).toMatchObject({ state: 'done', result: { docsAdded: 1, documents: [{ docId: 'doc-a' }] }, error: null, progress: { filesDone: 0, filesTotal: 1 } });
      await store.updateJob('j2', { state: 'failed', error: { code: 'CORRUPT', message: 'x.pdf: damaged' } });
      expect((await store.getJob('j2'))!.error).toEqual({ code: 'CORRUPT', message: 'x.pdf: damaged' });
      // A patch may clear a field again.
      await store.updateJob('j2', { error: null, state: 'queued' });
      expect((await store.getJob('j2'))!.error).toBeNull();

      expect((await store.listJobs()).map((j) => j.id)).toEqual(['j3', 'j2', 'j1']);
      expect((await store.listJobs({ states: ['queued'] })).map((j) => j.id)).toEqual(['j3', 'j2']);
      expect((await store.listJobs({ states: ['done', 'failed'] })).map((j) => j.id)).toEqual(['j1']);
      expect((await store.listJobs({ limit: 1 })).map((j) => j.id)).toEqual(['j3']);
      expect(await store.updateJob('j-none', { state: 'running' })).toBeUndefined();
    });

    test('updateJob with ifState is a compare-and-set: of two claims of one queued job, one wins', async () => {
      const store = await fresh();
      await store.createJob(contractJob('j1', '2026-01-01T00:00:00.000Z'));
      const serial = store.capabilities.concurrentWriters ? undefined : new Serial();
      const claim = () => {
        const task = () => store.updateJob('j1', { state: 'running', attempts: 1 }, { ifState: ['queued'] });
        return serial ? serial.run(task) : task();
      };
      const results = await Promise.all([claim(), claim(), claim()]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      expect(await store.updateJob('j1', { state: 'cancelled' }, { ifState: ['queued'] })).toBeUndefined();
      expect((await store.getJob('j1'))!.state).toBe('running');
      expect((await store.updateJob('j1', { state: 'cancelled' }, { ifState: ['queued', 'running'] }))!.state).toBe('cancelled');
    });

    test('a write that fails part-way leaves nothing of the document', async () => {
      const store = await fresh();
      await store.writeDocument(contractWrite('keep', ['a sturdy bridge over the river']));
      const before = { stats: await store.stats(), ranking: await store.searchText('river bridge', 5) };

      const broken = faulty(contractWrite('lost', ['river stones', 'river sand', 'a third block'], { parseCacheKey: 'parse-lost' }));
      await expect(store.writeDocument(broken)).rejects.toThrow(/injected fault/);
      expect(await store.documentInfo('doc-lost')).toBeUndefined();
      expect(await store.getDocument('doc-lost')).toBeUndefined();
      expect(await store.pathRecord('/docs/lost.md')).toBeUndefined();
      expect(await store.blocksOf('doc-lost')).toEqual([]);
      expect(await store.cachedParse('parse-lost')).toBeUndefined();
      expect(await store.searchText('stones sand', 5)).toEqual([]);
      // The index statistics did not keep the failed blocks: the same scores as before.
      expect(await store.stats()).toEqual(before.stats);
      expect(await store.searchText('river bridge', 5)).toEqual(before.ranking);

      // The same write, repaired, goes through.
      await store.writeDocument(contractWrite('lost', ['river stones', 'river sand', 'a third block']));
      expect((await store.getDocument('doc-lost'))!.blocks).toBe(3);
    });

    test('a failed re-chunk or replacement keeps the stored version whole', async () => {
      const store = await fresh();
      const original = contractWrite('a', ['orchard meadow', 'harbour lantern'], { path: '/docs/a.md' });
      await store.writeDocument(original);
      await expect(store.writeDocument(faulty(contractWrite('a', ['glacier one', 'glacier two'], { configHash: 'config-2' })))).rejects.toThrow();
      await expect(store.writeDocument(faulty(contractWrite('b', ['canyon one', 'canyon two'], { path: '/docs/a.md' }), 0))).rejects.toThrow();
      expect(await store.documentInfo('doc-a')).toEqual({ configHash: 'config-1' });
      expect(await store.blocksOf('doc-a')).toEqual(original.blocks);
      expect((await store.pathRecord('/docs/a.md'))!.docId).toBe('doc-a');
      expect(await store.getDocument('doc-b')).toBeUndefined();
      expect((await store.searchText('orchard', 5)).map((c) => c.block.id)).toEqual(['a-config-1-0']);
      expect(await store.searchText('glacier canyon', 5)).toEqual([]);
    });

    describe('streamed writes (beginDocument)', () => {
      /** The head of a write: all but its blocks. */
      const headOf = ({ blocks: _blocks, indexTexts: _indexTexts, ...head }: DocumentWrite) => head;
      const riverTexts = ['the river bends north of the mill', 'a heron waits by the river', 'stones and sand and river weed', 'a bridge of old oak', 'the mill wheel turns', 'river river river'];

      test('nothing is visible before commit, to this handle or another; everything after, as writeDocument writes it', async () => {
        const store = await fresh();
        await store.writeDocument(contractWrite('keep', ['a sturdy bridge over the river']));
        const other = store.spec ? await openStore(JSON.parse(JSON.stringify(store.spec))) : undefined;
        if (other) open.push(other);
        const before = await store.stats();
        const write = contractWrite('big', riverTexts, { pages: [1, 1, 2, 2, 3, 3], tables: 1 });
        const writer = await store.beginDocument(headOf(write));
        const unseen = async () => {
          for (const reader of other ? [store, other] : [store]) {
            expect(await reader.documentInfo('doc-big')).toBeUndefined();
            expect(await reader.getDocument('doc-big')).toBeUndefined();
            expect(await reader.pathRecord('/docs/big.md')).toBeUndefined();
            expect(await reader.blocksOf('doc-big')).toEqual([]);
            expect(await reader.cachedParse('parse-big')).toBeUndefined();
            expect((await reader.searchText('heron mill', 5)).map((c) => c.block.docId)).not.toContain('doc-big');
            expect((await reader.searchText('river', 10)).map((c) => c.block.id)).toEqual(['keep-config-1-0']);
            expect(await reader.stats()).toEqual(before);
          }
        };
        await unseen();
        // In pieces, some with their index texts made elsewhere, some analysed by the store.
        await writer.addBlocks(write.blocks.slice(0, 2), write.blocks.slice(0, 2).map(blockIndexText));
        await unseen();
        // Other writes go on while the blocks arrive (the store's write lock is not held meanwhile).
        const writerOfOther = other ?? store;
        await writerOfOther.writeDocument(contractWrite('meanwhile', ['written while big was streaming']));
        expect((await store.getDocument('doc-meanwhile'))?.blocks).toBe(1);
        const beforeCommit = await store.stats();
        await writer.addBlocks(write.blocks.slice(2, 5));
        await writer.addBlocks([]);
        await writer.addBlocks(write.blocks.slice(5));
        expect(await store.stats()).toEqual(beforeCommit);
        expect(await store.getDocument('doc-big')).toBeUndefined();
        expect(await writer.commit()).toEqual({ replacedDocId: null, written: true });
        await expect(writer.addBlocks(write.blocks.slice(0, 1))).rejects.toThrow(/already committed or aborted/);

        // The same three documents written whole, in the same order, into another store: the same state.
        const whole = await fresh();
        await whole.writeDocument(contractWrite('keep', ['a sturdy bridge over the river']));
        await whole.writeDocument(contractWrite('meanwhile', ['written while big was streaming']));
        await whole.writeDocument(write);
        for (const reader of other ? [store, other] : [store]) {
          expect(await reader.blocksOf('doc-big')).toEqual(write.blocks);
          const { addedAt: _a, ...doc } = (await reader.getDocument('doc-big'))!;
          const { addedAt: _b, ...expected } = (await whole.getDocument('doc-big'))!;
          expect(doc).toEqual(expected);
          expect(await reader.cachedParse('parse-big')).toEqual(write.document);
          expect(await reader.stats()).toEqual(await whole.stats());
          // The index and its statistics (document frequencies, lengths) right after commit: the same ranking and scores.
          for (const query of ['river', 'heron mill', 'bridge oak river', 'sturdy']) {
            const got = await reader.searchText(query, 10);
            const want = await whole.searchText(query, 10);
            expect(got.map((c) => c.block.id)).toEqual(want.map((c) => c.block.id));
            expect(sameScores(got.map((c) => c.score), want.map((c) => c.score))).toBe(true);
          }
        }
        expect((await store.searchText('heron', 5)).map((c) => c.block.id)).toEqual(['big-config-1-1']);
        const report = await store.check(resolveCheckOptions({ full: true }));
        expect(report.found).toEqual([]);
        expect(report.ok).toBe(true);
      });

      test('abort leaves nothing, check finds nothing; the same document streamed again commits', async () => {
        const store = await fresh();
        await store.writeDocument(contractWrite('keep', ['a sturdy bridge over the river']));
        const before = { stats: await store.stats(), ranking: await store.searchText('river bridge', 5) };
        const write = contractWrite('big', riverTexts);
        const writer = await store.beginDocument(headOf(write));
        await writer.addBlocks(write.blocks.slice(0, 3));
        await writer.addBlocks(write.blocks.slice(3));
        await writer.abort();
        await writer.abort();
        await expect(writer.commit()).rejects.toThrow(/already committed or aborted/);
        expect(await store.documentInfo('doc-big')).toBeUndefined();
        expect(await store.pathRecord('/docs/big.md')).toBeUndefined();
        expect(await store.blocksOf('doc-big')).toEqual([]);
        expect(await store.cachedParse('parse-big')).toBeUndefined();
        expect(await store.stats()).toEqual(before.stats);
        expect(await store.searchText('river bridge', 5)).toEqual(before.ranking);
        for (const full of [false, true]) {
          const report = await store.check(resolveCheckOptions({ full }));
          expect(report.found).toEqual([]);
          expect(report.ok).toBe(true);
        }
        // A write that fails part-way (a block the store cannot read) leaves nothing either.
        const broken = await store.beginDocument(headOf(write));
        await broken.addBlocks(write.blocks.slice(0, 2));
        await expect((async () => {
          await broken.addBlocks(faulty(write, 3).blocks.slice(2));
          await broken.commit();
        })()).rejects.toThrow(/injected fault/);
        await broken.abort();
        expect(await store.documentInfo('doc-big')).toBeUndefined();
        expect(await store.stats()).toEqual(before.stats);

        const again = await store.beginDocument(headOf(write));
        await again.addBlocks(write.blocks);
        expect((await again.commit()).written).toBe(true);
        expect(await store.blocksOf('doc-big')).toEqual(write.blocks);
        expect((await store.check(resolveCheckOptions({ full: true }))).found).toEqual([]);
      });

      test('content stored with the same configuration records the path only; another configuration replaces the blocks', async () => {
        const store = await fresh();
        const first = contractWrite('a', ['alpha bravo', 'charlie delta'], { path: '/docs/a.md' });
        await store.writeDocument(first);
        const before = await store.stats();
        const copy = contractWrite('a', ['alpha bravo', 'charlie delta'], { path: '/docs/a-copy.md', original: 'files/aa/doc-a' });
        const same = await store.beginDocument(headOf(copy));
        await same.addBlocks(copy.blocks);
        expect(await same.commit()).toEqual({ replacedDocId: null, written: false });
        expect((await store.getDocument('doc-a'))!.paths).toEqual(['/docs/a-copy.md', '/docs/a.md']);
        expect((await store.getDocument('doc-a'))!.original).toBe('files/aa/doc-a');
        expect(await store.blocksOf('doc-a')).toEqual(first.blocks);
        expect({ ...(await store.stats()), paths: before.paths }).toEqual(before);

        const rechunked = contractWrite('a', ['glacier one', 'glacier two', 'glacier three'], { configHash: 'config-2' });
        const other = await store.beginDocument(headOf(rechunked));
        await other.addBlocks(rechunked.blocks);
        expect((await other.commit()).written).toBe(true);
        expect(await store.blocksOf('doc-a')).toEqual(rechunked.blocks);
        expect(await store.searchText('alpha', 5)).toEqual([]);
        expect((await store.searchText('glacier', 5))).toHaveLength(3);
        expect((await store.getDocument('doc-a'))!.paths).toEqual(['/docs/a-copy.md', '/docs/a.md']);
        expect((await store.check(resolveCheckOptions({ full: true }))).found).toEqual([]);
      });
    });

    test('writes issued as the capability flag allows all land', async () => {
      const store = await fresh();
      const serial = store.capabilities.concurrentWriters ? undefined : new Serial();
      const write = (w: DocumentWrite) => (serial ? serial.run(() => store.writeDocument(w)) : store.writeDocument(w));
      await Promise.all(Array.from({ length: 12 }, (_, i) => write(contractWrite(`w${i}`, [`parallel ${i} text`, 'shared words']))));
      expect((await store.stats()).documents).toBe(12);
      expect(await store.searchText('shared', 20)).toHaveLength(12);
    });

    describe('vectors', () => {
      const space: VectorSpace = { model: 'test:fixture:4', dimensions: 4 };
      const v = (...xs: number[]) => new Float32Array(xs);

      test('identical texts are stored once; blocks link to them; stats count both', async () => {
        const store = await fresh();
        await store.writeDocument(contractWrite('a', ['one', 'two', 'one again']));
        await store.writeDocument(contractWrite('b', ['three']));
        const put = await store.putVectors(space, [
          { blockId: 'a-config-1-0', hash: 'h1', vector: v(1, 0, 0, 0) },
          { blockId: 'a-config-1-1', hash: 'h2', vector: v(0, 1, 0, 0) },
          { blockId: 'a-config-1-2', hash: 'h1' },
          { blockId: 'b-config-1-0', hash: 'h1', vector: v(1, 0, 0, 0) },
        ]);
        expect(put).toEqual({ stored: 2, linked: 4 });
        expect([...(await store.knownVectors(space, ['h1', 'h2', 'h3']))].sort()).toEqual(['h1', 'h2']);
        expect(await store.knownVectors({ model: 'other:model:4', dimensions: 4 }, ['h1'])).toEqual(new Set());
        expect(await store.vectorStats()).toEqual([{ model: space.model, dimensions: 4, quantization: 'none', vectors: 2, blocks: 4 }]);
        const near = await store.vectorCandidates(space, v(1, 0.1, 0, 0), 4);
        expect(near.slice(0, 3).map((c) => c.block.id).sort()).toEqual(['a-config-1-0', 'a-config-1-2', 'b-config-1-0']);
        expect(near[3]!.block.id).toBe('a-config-1-1');
        expect(near[0]!.score).toBeCloseTo(1 / Math.sqrt(1.01), 5);
        expect(near[0]!.score).toBe(near[2]!.score);
        expect(near.find((c) => c.block.docId === 'doc-b')!.path).toBe('/docs/b.md');
      });

      test('a link to an unknown text, a wrong length or another length for the model is refused, and nothing is written', async () => {
        const store = await fresh();
        await store.writeDocument(contractWrite('a', ['one', 'two']));
        const refused = async (p: Promise<unknown>) => {
          const error = await p.then(() => undefined, (e: unknown) => e);
          expect(isGroundworkError(error) && error.code).toBe('INVALID_OPTIONS');
        };
        await refused(store.putVectors(space, [{ blockId: 'a-config-1-0', hash: 'h1', vector: v(1, 0, 0, 0) }, { blockId: 'a-config-1-1', hash: 'nope' }]));
        await refused(store.putVectors(space, [{ blockId: 'a-config-1-0', hash: 'h1', vector: v(1, 0, 0) }]));
        expect(await store.knownVectors(space, ['h1'])).toEqual(new Set());
        await store.putVectors(space, [{ blockId: 'a-config-1-0', hash: 'h1', vector: v(1, 0, 0, 0) }]);
        await refused(store.putVectors({ model: space.model, dimensions: 8 }, [{ blockId: 'a-config-1-1', hash: 'h2', vector: new Float32Array(8) }]));
        await refused(store.vectorCandidates(space, v(1, 0), 3));
        // A block that no longer exists is skipped, not an error.
        expect(await store.putVectors(space, [{ blockId: 'gone', hash: 'h1' }])).toEqual({ stored: 0, linked: 0 });
      });

      test('missing vectors page by document and ordinal; re-chunking unlinks, pruning and dropping delete', async () => {
        const store = await fresh();
        await store.writeDocument(contractWrite('a', ['one', 'two', 'three']));
        await store.writeDocument(contractWrite('b', ['four']));
        expect((await store.missingVectors(space, 10)).map((b) => b.id)).toEqual(['a-config-1-0', 'a-config-1-1', 'a-config-1-2', 'b-config-1-0']);
        const page = await store.missingVectors(space, 2);
        expect(page.map((b) => b.id)).toEqual(['a-config-1-0', 'a-config-1-1']);
        expect(page[0]!.path).toBe('/docs/a.md');
        expect((await store.missingVectors(space, 2, { docId: page[1]!.docId, ordinal: page[1]!.ordinal })).map((b) => b.id)).toEqual(['a-config-1-2', 'b-config-1-0']);
        await store.putVectors(space, [
          { blockId: 'a-config-1-0', hash: 'h-one', vector: v(1, 0, 0, 0) },
          { blockId: 'a-config-1-1', hash: 'h-two', vector: v(0, 1, 0, 0) },
        ]);
        expect((await store.missingVectors(space, 10)).map((b) => b.id)).toEqual(['a-config-1-2', 'b-config-1-0']);
        // Re-chunked: new blocks have no vectors yet; the old texts' vectors stay until pruned (a new block with an old text reuses it).
        await store.writeDocument(contractWrite('a', ['one', 'five'], { configHash: 'config-2' }));
        expect((await store.missingVectors(space, 10)).map((b) => b.id)).toEqual(['a-config-2-0', 'a-config-2-1', 'b-config-1-0']);
        expect([...(await store.knownVectors(space, ['h-one', 'h-two']))].sort()).toEqual(['h-one', 'h-two']);
        await store.putVectors(space, [{ blockId: 'a-config-2-0', hash: 'h-one' }]);
        expect(await store.pruneVectors(space)).toBe(1);
        expect(await store.vectorStats()).toMatchObject([{ vectors: 1, blocks: 1 }]);
        expect((await store.vectorCandidates(space, v(0, 1, 0, 0), 5)).map((c) => c.block.id)).toEqual(['a-config-2-0']);
        await store.removeDocument('doc-a');
        expect(await store.vectorCandidates(space, v(0, 1, 0, 0), 5)).toEqual([]);
        await store.putVectors(space, [{ blockId: 'b-config-1-0', hash: 'h-four', vector: v(0, 0, 1, 0) }]);
        expect(await store.dropVectors(space.model)).toBe(2);
        expect(await store.vectorStats()).toEqual([]);
        expect(await store.vectorCandidates(space, v(0, 0, 1, 0), 5)).toEqual([]);
        expect((await store.missingVectors(space, 10)).map((b) => b.id)).toEqual(['b-config-1-0']);
      });

      test('quantized indexes (int8, binary) rescore exactly: the same best results on separated vectors', async () => {
        const store = await fresh();
        const d = 16;
        const qspace = { model: 'test:quantized:16', dimensions: d };
        const texts = Array.from({ length: 60 }, (_, i) => `text ${i}`);
        await store.writeDocument(contractWrite('q', texts));
        const vectorOf = (i: number) => Float32Array.from({ length: d }, (_, j) => Math.sin((i + 1) * (j + 1) * 0.7) + (j === i % d ? 2 : 0));
        await store.putVectors(qspace, texts.map((_, i) => ({ blockId: `q-config-1-${i}`, hash: `h${i}`, vector: vectorOf(i) })));
        const exact = await store.vectorCandidates(qspace, vectorOf(7), 5);
        expect(exact[0]!.block.ordinal).toBe(7);
        for (const q of ['int8', 'binary', 'none'] as const) {
          await store.setQuantization(qspace, q);
          expect((await store.vectorStats())[0]!.quantization).toBe(q);
          const got = await store.vectorCandidates(qspace, vectorOf(7), 5);
          expect(got[0]!.block.ordinal).toBe(7);
          // Rescored: the scores are the exact cosine similarities.
          expect(got[0]!.score).toBeCloseTo(exact[0]!.score, 5);
          // New vectors land in the quantized index too.
          if (q !== 'none') {
            await store.writeDocument(contractWrite(`extra-${q}`, ['extra']));
            await store.putVectors(qspace, [{ blockId: `extra-${q}-config-1-0`, hash: `extra-${q}`, vector: vectorOf(q === 'int8' ? 1000 : 2000) }]);
            expect((await store.vectorCandidates(qspace, vectorOf(q === 'int8' ? 1000 : 2000), 1))[0]!.block.id).toBe(`extra-${q}-config-1-0`);
          }
        }
      });

      test('filters apply before ranking: k results of the filter whenever k blocks match (property)', async () => {
        const store = await fresh();
        const fspace: VectorSpace = { model: 'test:filter:8', dimensions: 8 };
        const v8 = (...xs: number[]) => Float32Array.from({ length: 8 }, (_, i) => xs[i] ?? 0);
        // 3 documents x 40 blocks, vectors spread so that one document's blocks crowd the top.
        const docs = [
          { name: 'm1', format: 'markdown' as Format, path: '/docs/m1.md', metadata: { team: 'red', year: 2024 } },
          { name: 'p1', format: 'pdf' as Format, path: '/archive/p1.pdf', metadata: { team: 'blue', year: 2023 } },
          { name: 'p2', format: 'pdf' as Format, path: '/archive/old/p2.pdf', metadata: { team: 'red', year: 2023 } },
        ];
        const written = new Map<string, { format: string; paths: string[]; metadata: Record<string, unknown> }>();
        const all: Block[] = [];
        for (const [n, doc] of docs.entries()) {
          const texts = Array.from({ length: 40 }, (_, i) => `${doc.name} block ${i}`);
          const write = contractWrite(doc.name, texts, { format: doc.format, path: doc.path, pages: texts.map((_, i) => 1 + (i % 7)) });
          write.document.metadata = doc.metadata;
          write.blocks.forEach((b, i) => (b.headingPath = [`Part ${i % 3}`, ...(i % 2 ? ['Sub'] : [])]));
          await store.writeDocument(write);
          written.set(write.document.id, { format: doc.format, paths: [doc.path], metadata: doc.metadata });
          all.push(...write.blocks);
          await store.putVectors(fspace, write.blocks.map((b, i) => ({
            blockId: b.id, hash: `${doc.name}-${i}`, vector: v8(n === 0 ? 5 : 1, Math.cos(i), Math.sin(i), n),
          })));
        }
        const filterArb: fc.Arbitrary<VectorFilter> = fc.record({
          docId: fc.constantFrom('doc-m1', 'doc-p1', 'doc-p2', ['doc-p1', 'doc-p2']),
          format: fc.constantFrom<Format | Format[]>('pdf', 'markdown', ['pdf', 'markdown']),
          path: fc.constantFrom('/archive/**', '**/*.md', '**/old/*.pdf'),
          pageFrom: fc.integer({ min: 1, max: 7 }),
          pageTo: fc.integer({ min: 4, max: 9 }),
          headingPrefix: fc.constantFrom(['Part 1'], ['Part 2', 'Sub'], ['Nothing']),
          metadata: fc.constantFrom<Record<string, string | number>>({ team: 'red' }, { year: 2023 }, { team: 'blue', year: 2023 }),
        }, { requiredKeys: [] });
        await fc.assert(fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 12 }), fc.constantFrom(...(['none', 'binary'] as const)), async (filter, k, quantization) => {
          await store.setQuantization(fspace, quantization);
          const got = await store.vectorCandidates(fspace, v8(1, 0.5, 0.5, 0), k, filter);
          const matching = all.filter((b) => blockMatches(b, written.get(b.docId)!, filter as RetrievalFilter));
          expect(got.length).toBe(Math.min(k, matching.length));
          for (const c of got) expect(blockMatches(c.block, written.get(c.block.docId)!, filter as RetrievalFilter)).toBe(true);
          for (let i = 1; i < got.length; i++) expect(got[i - 1]!.score).toBeGreaterThanOrEqual(got[i]!.score - 1e-6);
        }), { numRuns: 40 });
        await store.setQuantization(fspace, 'none');
        // Sections (any-of, by span or heading path) and a filter nothing passes.
        const section = await store.vectorCandidates(fspace, v8(1, 0, 0, 0), 50, { sections: [{ docId: 'doc-p1', headingPath: ['Part 0'] }] });
        expect(section.length).toBe(all.filter((b) => b.docId === 'doc-p1' && b.headingPath[0] === 'Part 0').length);
        expect(await store.vectorCandidates(fspace, v8(1, 0, 0, 0), 5, { path: '**/none/*' })).toEqual([]);
      });
    });
  });
}

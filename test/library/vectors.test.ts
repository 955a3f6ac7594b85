import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { isGroundworkError } from '../../src/errors.js';
import { Library } from '../../src/library/library.js';
import { blockMatches, type RetrievalFilter } from '../../src/retrieval/filter.js';
import type { StoredDocument } from '../../src/store/types.js';
import { startEmbeddingServer, type FixtureServer } from '../embed/fixtures.js';

let server: FixtureServer;
beforeAll(async () => {
  server = await startEmbeddingServer({ dimensions: 8 });
});
afterAll(async () => {
  await server.close();
});

const dirs: string[] = [];
const libraries: Library[] = [];
afterEach(async () => {
  for (const lib of libraries.splice(0)) await lib.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  server.always(undefined);
  server.reset();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-vectors-'));
  dirs.push(dir);
  return dir;
}

/** Files of a small corpus: paragraphs under headings, one paragraph shared by two files. */
function corpus(dir: string, files: Record<string, string>): string {
  const root = join(dir, 'docs');
  mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

const SHARED = 'The shared paragraph appears in two files word for word.';
const FILES = {
  'guide.md': `# Install\n\nRun the installer and accept the licence.\n\n# Configure\n\nEdit the settings file to choose a port.\n\n# Shared\n\n${SHARED}\n`,
  'notes.md': `# Budget\n\nThe quarterly budget was approved by the board.\n\n# Shared\n\n${SHARED}\n`,
  'rivers.md': `# 长江\n\n长江是中国最长的河流，流经十一个省份。\n\n# Danube\n\nThe Danube flows through ten countries.\n`,
};

/** Small blocks: one per section. */
const SMALL = { workers: 0, chunkOptions: { chunkSize: 16 } };
const flags = (model = 'fixture') => ({ url: server.url, model, dimensions: 8, maxRetries: 0, batchSize: 4 });
const inputsSent = () => server.requests.reduce((n, r) => n + (r.body.input as string[]).length, 0);

async function open(dir: string): Promise<Library> {
  const lib = await Library.open(join(dir, 'lib'));
  libraries.push(lib);
  return lib;
}

function refused(error: unknown, code: string): string {
  expect(isGroundworkError(error) && error.code).toBe(code);
  return (error as Error).message;
}

describe('vectors in the library', () => {
  test('ingest embeds as it goes; identical blocks are embedded once; re-ingest and re-chunk embed only new text', async () => {
    const dir = tempDir();
    const docs = corpus(dir, FILES);
    const lib = await open(dir);
    expect(await lib.useEmbedder({ flags: flags(), env: {} })).toBeDefined();
    const report = await lib.addFiles(docs, SMALL);
    expect(report.embedding).toMatchObject({ model: 'openai:fixture:8', blocks: report.blocksAdded, failed: [] });
    const stats = await lib.vectorStats();
    expect(stats.model).toBe('openai:fixture:8');
    // The shared paragraph is two blocks (two documents) but one vector, embedded once.
    const blocks = (await Promise.all((await lib.documents()).map((d) => lib.blocks(d.id)))).flat();
    const sharedBlocks = blocks.filter((b) => b.text.includes(SHARED));
    expect(sharedBlocks.length).toBe(2);
    expect(sharedBlocks[0]!.text).toBe(sharedBlocks[1]!.text);
    expect(stats.models[0]).toMatchObject({ blocks: blocks.length, vectors: blocks.length - 1 });
    expect(inputsSent()).toBe(blocks.length - 1);
    expect(report.embedding).toMatchObject({ embedded: blocks.length - 1, reused: 1 });

    // Unchanged re-ingest: nothing sent.
    server.reset();
    await lib.addFiles(docs, SMALL);
    expect(inputsSent()).toBe(0);

    // One file edited: only its new paragraph is embedded.
    writeFileSync(join(docs, 'notes.md'), `${FILES['notes.md']}\n# Risks\n\nA brand new paragraph about risks.\n`);
    server.reset();
    const edited = await lib.addFiles(docs, SMALL);
    expect(edited.docsUpdated).toBe(1);
    const sentTexts = server.requests.flatMap((r) => r.body.input as string[]);
    expect(sentTexts.length).toBeGreaterThan(0);
    expect(sentTexts.every((t) => t.includes('risks') || t.includes('Risks'))).toBe(true);

    // Re-chunked with another strategy: texts that stay the same are reused, the rest embedded.
    server.reset();
    const before = (await lib.vectorStats()).models[0]!.vectors;
    const rechunked = await lib.addFiles(docs, { workers: 0, chunkOptions: { chunkSize: 24 } });
    expect(rechunked.docsUpdated).toBe(3);
    expect(rechunked.embedding!.blocks).toBe(rechunked.blocksAdded);
    expect(inputsSent()).toBe(rechunked.embedding!.embedded);
    // Some blocks came out as before (their vectors reused), the merged ones are new texts.
    expect(rechunked.embedding!.reused).toBeGreaterThan(0);
    expect(rechunked.embedding!.embedded).toBeGreaterThan(0);
    expect(rechunked.embedding!.embedded).toBeLessThan(rechunked.blocksAdded);
    // Vectors of texts no block has any more were pruned.
    expect((await lib.vectorStats()).models[0]!.vectors).toBeLessThan(before + rechunked.embedding!.embedded);
    expect((await lib.vectorStats()).models[0]!.blocks).toBe((await lib.stats()).blocks);
  });

  test('mixing models is refused; embed --model re-embeds for a new one, old vectors kept or dropped', async () => {
    const dir = tempDir();
    const docs = corpus(dir, FILES);
    let lib = await open(dir);
    await lib.useEmbedder({ flags: flags(), env: {} });
    await lib.addFiles(docs, { workers: 0 });
    const blocks = (await lib.stats()).blocks;
    await lib.close();

    lib = await open(dir);
    const message = refused(await lib.useEmbedder({ flags: flags('other'), env: {} }).catch((e: unknown) => e), 'INVALID_OPTIONS');
    expect(message).toContain('openai:fixture:8');
    expect(message).toContain('openai:other:8');
    expect(message).toContain('groundwork embed --model');
    // The stored settings (no flags) open the library's own embedder again.
    expect((await lib.useEmbedder({ env: {} }))?.id).toBe('openai:fixture:8');

    await lib.useEmbedder({ flags: flags('other'), env: {}, switchModel: true });
    server.reset();
    const run = await lib.embed();
    expect(run).toMatchObject({ model: 'openai:other:8', blocks });
    expect(inputsSent()).toBe(run.embedded);
    let stats = await lib.vectorStats();
    expect(stats.model).toBe('openai:other:8');
    expect(stats.models.map((m) => [m.model, m.blocks])).toEqual([['openai:fixture:8', blocks], ['openai:other:8', blocks]]);
    // Nothing left to do: a second run sends nothing.
    server.reset();
    expect((await lib.embed()).blocks).toBe(0);
    expect(inputsSent()).toBe(0);

    // Back to the first model, dropping the other: its vectors were kept, nothing to embed.
    await lib.useEmbedder({ flags: flags(), env: {}, switchModel: true, dropOld: true });
    expect((await lib.embed()).blocks).toBe(0);
    stats = await lib.vectorStats();
    expect(stats.models.map((m) => m.model)).toEqual(['openai:fixture:8']);
  });

  test('search: hybrid by default once vectors exist, scores of both retrievers, vector mode, and the errors', async () => {
    const dir = tempDir();
    const docs = corpus(dir, FILES);
    const lib = await open(dir);
    await lib.addFiles(docs, { workers: 0 });
    // No vectors yet: bm25, and vector mode says what to do.
    expect((await lib.search('budget')).mode).toBe('bm25');
    expect(refused(await lib.search('budget', { mode: 'vector' }).catch((e: unknown) => e), 'INVALID_OPTIONS')).toContain('groundwork embed');

    await lib.useEmbedder({ flags: flags(), env: {} });
    await lib.embed();
    const hybrid = await lib.search('quarterly budget', { explain: true });
    expect(hybrid.mode).toBe('hybrid');
    const top = hybrid.hits[0]!;
    expect(top.text).toContain('quarterly budget');
    expect(top.scores).toMatchObject({ bm25: expect.any(Number), bm25Rank: 1, vector: expect.any(Number), vectorRank: expect.any(Number), fused: expect.any(Number) });
    expect(hybrid.explanation).toBeDefined();

    // The fixture's vectors are a hash of the text: the query's own contextual text is its nearest.
    const block = (await lib.blocks((await lib.documents()).find((d) => d.paths[0]!.endsWith('notes.md'))!.id))[0]!;
    const exact = `Budget\n${block.text}`;
    const vector = await lib.search(exact, { mode: 'vector', k: 3, sectionReferences: false });
    expect(vector.mode).toBe('vector');
    expect(vector.hits[0]!.scores.vector).toBeLessThanOrEqual(1 + 1e-6);
    expect(vector.hits.every((h) => h.scores.bm25 === undefined)).toBe(true);
    // Weights: bm25 left out of the fusion gives the vector ranking.
    const weighted = await lib.search('quarterly budget', { weights: { bm25: 0, vector: 1 }, k: 3, merge: false, dedupe: false });
    const vectorOnly = await lib.search('quarterly budget', { mode: 'vector', k: 3, merge: false, dedupe: false });
    expect(weighted.hits.map((h) => h.block.id)).toEqual(vectorOnly.hits.map((h) => h.block.id));
    // Bad options are the schema's INVALID_OPTIONS.
    refused(await lib.search('x', { k: 0 }).catch((e: unknown) => e), 'INVALID_OPTIONS');
  });

  test('filters apply before ranking in every mode: k hits all match whenever k blocks match (property)', async () => {
    const dir = tempDir();
    const files: Record<string, string> = {};
    for (let f = 0; f < 4; f++) {
      files[`${f % 2 ? 'a' : 'b'}/doc${f}.md`] = Array.from({ length: 6 }, (_, s) => `# Part ${s % 3}\n\n## Sub ${s}\n\nCommon words in section ${s} of file ${f}: lantern ${f * 10 + s}.\n`).join('\n');
    }
    files['c/plain.txt'] = Array.from({ length: 10 }, (_, i) => `Common words again, plain paragraph ${i}.`).join('\n\n');
    const docs = corpus(dir, files);
    const lib = await open(dir);
    await lib.useEmbedder({ flags: flags(), env: {} });
    await lib.addFiles(docs, { workers: 0, strategy: 'structure', chunkOptions: { chunkSize: 40 } });
    const documents = await lib.documents();
    const byId = new Map<string, StoredDocument>(documents.map((d) => [d.id, d]));
    const blocks = (await Promise.all(documents.map((d) => lib.blocks(d.id)))).flat();
    expect(blocks.length).toBeGreaterThan(20);
    const filterArb: fc.Arbitrary<RetrievalFilter> = fc.record({
      docId: fc.constantFrom(...documents.map((d) => d.id)),
      format: fc.constantFrom('markdown', 'text'),
      path: fc.constantFrom('**/a/*.md', '**/b/**', '**/*.txt'),
      headingPrefix: fc.constantFrom(['Part 1'], ['Part 0'], ['Part 2', 'Sub 5']),
    }, { requiredKeys: [] });
    await fc.assert(fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 8 }), fc.constantFrom('bm25', 'vector', 'hybrid' as const), async (filter, k, mode) => {
      const { hits } = await lib.search('common words', { mode, k, filter, merge: false, dedupe: false, sectionReferences: false });
      const matching = blocks.filter((b) => blockMatches(b, byId.get(b.docId)!, filter));
      for (const hit of hits) expect(blockMatches(hit.block, byId.get(hit.docId)!, filter)).toBe(true);
      // Every block says "common words": every matching block is a candidate in every mode.
      expect(hits.length).toBe(Math.min(k, matching.length));
    }), { numRuns: 30 });
  });

  test('an endpoint failing mid-ingest leaves a consistent library: whole documents with or without vectors; embed fills the gaps', async () => {
    const dir = tempDir();
    const files: Record<string, string> = {};
    for (let f = 0; f < 6; f++) files[`doc${f}.md`] = `# File ${f}\n\nFirst paragraph of file ${f}.\n\n# More\n\nSecond paragraph of file ${f}.\n`;
    const docs = corpus(dir, files);
    const lib = await open(dir);
    await lib.useEmbedder({ flags: flags(), env: {} });
    // The first request answers, every later one fails with a server error (no retries).
    server.next({ dimensions: 8 } as never);
    server.always({ status: 500, body: { error: { message: 'model crashed' } } });
    const report = await lib.addFiles(docs, { workers: 0, embedBatch: 2 });
    expect(report.docsAdded).toBe(6);
    expect(report.rejected).toEqual([]);
    const failed = report.embedding!.failed;
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(6);
    for (const f of failed) {
      expect(f.code).toBe('EMBEDDER');
      expect(f.reason).toContain('groundwork embed');
    }
    // Every document is stored whole; each has vectors for all its blocks or for none.
    const missing = new Set((await lib.blocksWithoutVectors()).map((b) => b.id));
    for (const doc of await lib.documents()) {
      const ids = (await lib.blocks(doc.id)).map((b) => b.id);
      expect(ids.length).toBeGreaterThan(0);
      const without = ids.filter((id) => missing.has(id)).length;
      expect(without === 0 || without === ids.length).toBe(true);
      expect(without === ids.length).toBe(failed.some((f) => f.path === doc.paths[0]));
    }
    // The endpoint is back: embed adds exactly what was missing.
    server.always(undefined);
    const run = await lib.embed();
    expect(run.blocks).toBe(missing.size);
    expect(await lib.blocksWithoutVectors()).toEqual([]);
  });
  test('whether vectors exist is counted once, not per search, and again after a write: removing every document makes vector mode say so', async () => {
    const dir = tempDir();
    const docs = corpus(dir, FILES);
    const lib = await open(dir);
    await lib.useEmbedder({ flags: flags(), env: {} });
    await lib.addFiles(docs, SMALL);
    for (let i = 0; i < 3; i++) expect((await lib.search('budget')).mode).toBe('hybrid');
    expect((await lib.search('budget', { mode: 'vector' })).hits.length).toBeGreaterThan(0);
    for (const doc of await lib.documents()) await lib.remove(doc.id);
    expect(refused(await lib.search('budget', { mode: 'vector' }).catch((e: unknown) => e), 'INVALID_OPTIONS')).toContain('groundwork embed');
    expect((await lib.search('budget')).mode).toBe('bm25');
    await lib.addFiles(docs, SMALL);
    expect((await lib.search('budget')).mode).toBe('hybrid');
  });
});

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk } from '../../src/chunk.js';
import { storableChunks } from '../../src/library/blocks.js';
import { parse } from '../../src/parse.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { json, post, startServer, type Running } from './helpers.js';

describe.skipIf(!hasShared)(`POST /v1/documents/{id}/chunk (${hasShared ? 'corpus' : sharedSkipReason})`, () => {
  let s: Running;
  let mdId: string;
  let pdfId: string;
  const md = corpus('md', 'wiki.md');
  const pdf = corpus('pdf', 'code_and_formula.pdf');
  beforeAll(async () => {
    s = await startServer();
    const report = await s.library.addFiles([md, pdf], { workers: 0 });
    expect(report.docsAdded).toBe(2);
    mdId = (await s.library.document(md))!.id;
    pdfId = (await s.library.document(pdf))!.id;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('with the library\'s own options gives back the stored blocks\' boundaries, from the parse cache', async () => {
    for (const id of [mdId, pdfId]) {
      const response = await post(`${s.url}/v1/documents/${id}/chunk`, {});
      expect(response.status).toBe(200);
      const body = await json(response);
      expect(body.from).toBe('cache');
      expect(body.strategy).toBe('structure');
      expect(body.tokenizer).toBe('cl100k_base');
      const blocks = await s.library.blocks(id);
      expect(body.chunks.map((c: any) => [c.start, c.end, c.tokens, c.text, c.bboxes])).toEqual(blocks.map((b) => [b.start, b.end, b.tokens, b.text, b.bboxes]));
      // A PDF's chunks carry their boxes, as its blocks do (the inspector's compare view draws them).
      if (id === pdfId) expect(body.chunks.filter((c: any) => c.bboxes !== null).length).toBeGreaterThan(0);
      expect(body.canonical).toBeUndefined();
    }
  });

  it('chunks with another strategy and options as chunk() does, stores nothing, and returns the canonical text on request', async () => {
    const before = await s.library.stats();
    const body = await json(await post(`${s.url}/v1/documents/${mdId}/chunk`, { strategy: 'recursive', chunkOptions: { chunkSize: 300, chunkOverlap: 0 }, canonical: true }));
    const doc = await parse(md);
    const direct = storableChunks(doc.canonical, chunk(doc, { strategy: 'recursive', chunkSize: 300, chunkOverlap: 0, tokenizer: 'cl100k_base' }));
    expect(body.strategy).toBe('recursive');
    expect(body.chunks.length).toBe(direct.length);
    expect(body.chunks.map((c: any) => [c.start, c.end, c.text])).toEqual(direct.map((c) => [c.start, c.end, c.text]));
    expect(body.canonical).toBe(doc.canonical);
    expect(body.canonicalLength).toBe(doc.canonical.length);
    expect(body.chunks.length).not.toBe((await s.library.blocks(mdId)).length);
    expect(await s.library.stats()).toEqual(before);
  });

  it('400 for options the strategy or the schema rejects, 404 for an unknown document', async () => {
    const bad = await post(`${s.url}/v1/documents/${mdId}/chunk`, { strategy: 'token', chunkOptions: { chunkSize: -5 } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('INVALID_OPTIONS');
    const unknownField = await post(`${s.url}/v1/documents/${mdId}/chunk`, { strategy: 'token', chunkSize: 5 });
    expect(unknownField.status).toBe(400);
    expect((await json(unknownField)).error.code).toBe('INVALID_OPTIONS');
    const unknownStrategy = await post(`${s.url}/v1/documents/${mdId}/chunk`, { strategy: 'nope' });
    expect(unknownStrategy.status).toBe(400);
    const missing = await post(`${s.url}/v1/documents/${'0'.repeat(64)}/chunk`, {});
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('NOT_FOUND');
    expect((await post(`${s.url}/v1/documents/..%2Fetc/chunk`, {})).status).toBe(404);
  });

  it('parses the kept original again when the parse is not cached with those parse options', async () => {
    const body = await json(await post(`${s.url}/v1/documents/${pdfId}/chunk`, { parseOptions: { ocr: 'off' }, strategy: 'token', chunkOptions: { chunkSize: 64 } }));
    expect(body.from).toBe('original');
    const direct = storableChunks((await parse(pdf, { ocr: 'off' })).canonical, chunk(await parse(pdf, { ocr: 'off' }), { strategy: 'token', chunkSize: 64, tokenizer: 'cl100k_base' }));
    expect(body.chunks.map((c: any) => c.text)).toEqual(direct.map((c) => c.text));
    // Without the original and without a cache entry there is nothing to chunk: NOT_FOUND saying so.
    const stored = (await s.library.document(pdfId))!;
    rmSync(join(s.library.dir, stored.original!));
    const gone = await post(`${s.url}/v1/documents/${pdfId}/chunk`, { parseOptions: { ocr: 'off' } });
    expect(gone.status).toBe(404);
    expect((await json(gone)).error.message).toMatch(/original/);
    // the cache still answers for the options it was made with
    expect((await post(`${s.url}/v1/documents/${pdfId}/chunk`, {})).status).toBe(200);
  });
});

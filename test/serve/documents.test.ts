import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { fileForm, followJob, form, json, post, startServer, type Running } from './helpers.js';

describe.skipIf(!hasShared)(`upload -> job -> SSE -> search, blocks, documents (${hasShared ? 'corpus' : sharedSkipReason})`, () => {
  let s: Running;
  let jobId: string;
  let docId: string;
  const file = corpus('md', 'wiki.md');

  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('takes a corpus file with 202 and a job, and the job reaches done over SSE', async () => {
    const response = await fetch(`${s.url}/v1/documents`, { method: 'POST', body: fileForm(file) });
    expect(response.status).toBe(202);
    const job = await json(response);
    expect(response.headers.get('location')).toBe(`/v1/jobs/${job.id}`);
    expect(job.state).toMatch(/queued|running/);
    expect(job.files).toEqual([expect.objectContaining({ name: 'wiki.md', bytes: readFileSync(file).length, outcome: 'pending' })]);
    jobId = job.id;
    docId = job.files[0].docId;

    const { events, last } = await followJob(s.url, jobId);
    expect(events.slice(0, -1).every((e) => e.event === 'progress')).toBe(true);
    expect(last.event).toBe('done');
    const done = last.data as any;
    expect(done.state).toBe('done');
    expect(done.files[0]).toMatchObject({ outcome: 'added', docId });
    expect(done.files[0].blocks).toBeGreaterThan(0);
    expect(done.progress).toMatchObject({ filesDone: 1, filesTotal: 1 });

    const again = await json(await fetch(`${s.url}/v1/jobs/${jobId}`));
    expect(again).toMatchObject({ id: jobId, state: 'done', attempts: 1 });
    // The upload itself is gone once ingested (the library keeps its copy under files/).
    const events2 = await followJob(s.url, jobId);
    expect(events2.events).toHaveLength(1);
    expect(events2.last.event).toBe('done');
  });

  it('searches it with the retrieval pipeline', async () => {
    const response = await post(`${s.url}/v1/search`, { query: 'IBM founded', k: 3 });
    expect(response.status).toBe(200);
    const result = await json(response);
    expect(result.mode).toBe('bm25');
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.hits[0].docId).toBe(docId);
    expect(result.hits[0].snippet).toContain('«');
    expect(result.hits[0].block.docId).toBe(docId);

    const filtered = await json(await post(`${s.url}/v1/search`, { query: 'IBM', filter: { format: ['pdf'] } }));
    expect(filtered.hits).toEqual([]);
    const explained = await json(await post(`${s.url}/v1/search`, { query: 'IBM', explain: true }));
    expect(explained.explanation).toBeTypeOf('object');
  });

  it('lists, shows (with outline), serves the original and the blocks with neighbours', async () => {
    const list = await json(await fetch(`${s.url}/v1/documents`));
    expect(list.total).toBe(1);
    expect(list.documents[0].id).toBe(docId);

    const stored = await s.library.blocks(docId);
    const tokens = stored.reduce((n, b) => n + b.tokens, 0);
    expect(tokens).toBeGreaterThan(0);
    expect(list.documents[0].tokens).toBe(tokens);

    const detail = await json(await fetch(`${s.url}/v1/documents/${docId}`));
    expect(detail.document).toMatchObject({ id: docId, format: 'markdown' });
    // the report: what ingest made of it
    expect(detail.report).toEqual({ blocks: stored.length, tokens, pages: detail.document.pageCount, tables: detail.document.tables, images: detail.document.images, strategy: 'structure', configHash: detail.document.configHash, warnings: detail.warnings.length });
    expect(detail.outline.length).toBeGreaterThan(0);
    expect(detail.outline[0].title).toBeTypeOf('string');
    expect(detail.original).toBe(`/v1/documents/${docId}/original`);
    // An id prefix works as in the CLI.
    expect((await json(await fetch(`${s.url}/v1/documents/${docId.slice(0, 12)}`))).document.id).toBe(docId);

    const original = await fetch(`${s.url}${detail.original}`);
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toContain('text/markdown');
    expect(Buffer.from(await original.arrayBuffer()).equals(readFileSync(file))).toBe(true);

    const blocks = await s.library.blocks(docId);
    expect(blocks.length).toBeGreaterThan(2);
    const middle = blocks[1]!;
    const one = await json(await fetch(`${s.url}/v1/blocks/${middle.id}?neighbors=1`));
    expect(one.block.id).toBe(middle.id);
    expect(one.before.map((b: any) => b.ordinal)).toEqual([middle.ordinal - 1]);
    expect(one.after.map((b: any) => b.ordinal)).toEqual([middle.ordinal + 1]);
    const alone = await json(await fetch(`${s.url}/v1/blocks/${middle.id}`));
    expect(alone.before).toEqual([]);

    const stats = await json(await fetch(`${s.url}/v1/stats`));
    expect(stats).toMatchObject({ documents: 1, blocks: blocks.length });
    expect(stats.jobs.done).toBe(1);
  });

  it('says 404 for what does not exist and deletes a document', async () => {
    for (const path of ['/v1/documents/abcdef0123', `/v1/jobs/nope`, `/v1/blocks/nope`, '/v1/nothing-here']) {
      const response = await fetch(`${s.url}${path}`);
      expect(response.status, path).toBe(404);
      expect((await json(response)).error.code).toBe('NOT_FOUND');
    }
    const removed = await fetch(`${s.url}/v1/documents/${docId}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await json(removed)).removed.id).toBe(docId);
    expect((await fetch(`${s.url}/v1/documents/${docId}`)).status).toBe(404);
    expect((await json(await post(`${s.url}/v1/search`, { query: 'IBM' }))).hits).toEqual([]);
  });

  it('ends a job of a file it cannot read as failed, with the code and the client\'s name', async () => {
    const bad = await json(await fetch(`${s.url}/v1/documents`, { method: 'POST', body: form([{ name: 'broken.pdf', bytes: '%PDF-1.7\n1 0 obj <<' }]) }));
    const { last } = await followJob(s.url, bad.id);
    expect(last.event).toBe('failed');
    const job = last.data as any;
    expect(job.error.code).toBe('CORRUPT');
    expect(job.files[0]).toMatchObject({ outcome: 'rejected', code: 'CORRUPT' });
    expect(job.files[0].reason).toContain('broken.pdf');
    expect(job.files[0].reason).not.toContain('uploads');
    // and what to do about it
    expect(job.files[0].hint).toMatch(/damaged or truncated/);
    expect(job.report.rejected).toEqual([{ name: 'broken.pdf', code: 'CORRUPT', reason: job.files[0].reason }]);
    expect((await json(await fetch(`${s.url}/v1/jobs/${bad.id}`))).files[0].hint).toBe(job.files[0].hint);
  });

  it('takes ingest options with the upload, and refuses bad ones before storing anything', async () => {
    const badStrategy = await fetch(`${s.url}/v1/documents`, { method: 'POST', body: form([{ name: 'a.txt', bytes: 'hello' }], { strategy: 'no-such' }) });
    expect(badStrategy.status).toBe(400);
    expect((await json(badStrategy)).error.code).toBe('INVALID_OPTIONS');
    const badJson = await fetch(`${s.url}/v1/documents`, { method: 'POST', body: form([{ name: 'a.txt', bytes: 'hello' }], { options: '{"parseOptions":{"ocr":"sometimes"}}' }) });
    expect(badJson.status).toBe(400);
    expect((await json(badJson)).error.issues[0].path).toEqual(['parseOptions', 'ocr']);

    const ok = await json(await fetch(`${s.url}/v1/documents`, {
      method: 'POST',
      body: form([{ name: 'notes.txt', bytes: 'Quarterly budget notes.\n\nThe zebra committee approved the budget.\n' }], { options: JSON.stringify({ strategy: 'sentence', chunkOptions: { chunkSize: 64 } }) }),
    }));
    const { last } = await followJob(s.url, ok.id);
    expect(last.event).toBe('done');
    const doc = await s.library.document((last.data as any).files[0].docId);
    expect(doc?.strategy).toBe('sentence');
  });
});

import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Library } from '../../src/library/library.js';
import type { JobRecord } from '../../src/store/types.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { buildServer } from '../../src/serve/index.js';
import { fileForm, followJob, form, json, post, readEvents, startServer } from './helpers.js';

/** A job as a previous server would have left it in the library. */
async function leftJob(library: Library, source: string, state: 'queued' | 'running', attempts: number): Promise<JobRecord> {
  mkdirSync(join(library.dir, 'uploads'), { recursive: true });
  const id = randomUUID();
  const rel = join('uploads', `${id}.md`);
  copyFileSync(source, join(library.dir, rel));
  const bytes = readFileSync(source);
  const at = new Date().toISOString();
  const job: JobRecord = {
    id, kind: 'ingest', state,
    input: { files: [{ name: 'left.md', path: rel, bytes: bytes.length, docId: createHash('sha256').update(bytes).digest('hex') }], options: {} },
    progress: { filesDone: 0, filesTotal: 1, bytesDone: 0, bytesTotal: bytes.length },
    result: null, error: null, attempts, createdAt: at, updatedAt: at, startedAt: state === 'running' ? at : null, finishedAt: null,
  };
  await library.createJob(job);
  return job;
}

describe.skipIf(!hasShared)(`jobs (${hasShared ? 'corpus' : sharedSkipReason})`, () => {
  it('a restart runs the queued jobs, resumes the interrupted one, and fails one interrupted too often', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-serve-'));
    const before = await Library.open(dir);
    const queued = await leftJob(before, corpus('md', 'wiki.md'), 'queued', 0);
    const interrupted = await leftJob(before, corpus('md', 'nested.md'), 'running', 1);
    const hopeless = await leftJob(before, corpus('md', 'codeblock.md'), 'running', 3);
    await before.close();

    const s = await startServer({}, dir);
    try {
      const a = await followJob(s.url, queued.id);
      expect(a.last.event).toBe('done');
      expect((a.last.data as any).attempts).toBe(1);
      const b = await followJob(s.url, interrupted.id);
      expect(b.last.event).toBe('done');
      // Started once by the stopped server, once now: visibly resumed.
      expect((b.last.data as any).attempts).toBe(2);
      const c = await json(await fetch(`${s.url}/v1/jobs/${hopeless.id}`));
      expect(c.state).toBe('failed');
      expect(c.error.message).toMatch(/interrupted 3 times/);
      expect((await s.library.documents()).map((d) => d.id).sort()).toEqual(
        [(queued.input as any).files[0].docId, (interrupted.input as any).files[0].docId].sort(),
      );
      expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
    } finally {
      await s.stop();
    }
  });

  it('reports progress file by file over SSE, from queued to done', async () => {
    // A queued job of three files in the library, and a server that has not started its runner:
    // the stream is open before the job runs, so every change of it is seen.
    const dir = mkdtempSync(join(tmpdir(), 'gw-serve-'));
    const library = await Library.open(dir);
    mkdirSync(join(dir, 'uploads'), { recursive: true });
    const sources = ['wiki.md', 'nested.md', 'codeblock.md'].map((n) => corpus('md', n));
    const files = sources.map((source, i) => {
      const rel = join('uploads', `${randomUUID()}.md`);
      copyFileSync(source, join(dir, rel));
      const bytes = readFileSync(source);
      return { name: `f${i}.md`, path: rel, bytes: bytes.length, docId: createHash('sha256').update(bytes).digest('hex') };
    });
    const at = new Date().toISOString();
    const bytesTotal = files.reduce((n, f) => n + f.bytes, 0);
    const id = randomUUID();
    await library.createJob({
      id, kind: 'ingest', state: 'queued', input: { files, options: {} }, progress: { filesDone: 0, filesTotal: 3, bytesDone: 0, bytesTotal },
      result: null, error: null, attempts: 0, createdAt: at, updatedAt: at, startedAt: null, finishedAt: null,
    });
    const built = await buildServer(library, { port: 0, workers: 1 });
    try {
      await built.app.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
      const stream = await fetch(`${url}/v1/jobs/${id}/events`);
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      let text = '';
      // the first event, the job as it is (queued), before the runner starts
      while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
      expect(text).toMatch(/^event: progress\n/);
      expect(text).toContain('"state":"queued"');
      await built.context.jobs.start();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const events = await readEvents(new Response(text));
      expect(events.at(-1)!.event).toBe('done');
      const progress = events.filter((e) => e.event === 'progress').map((e) => e.data as any);
      const done = progress.map((p) => p.progress.filesDone);
      // every file's completion is an event, in order; bytes follow the files
      for (const n of [0, 1, 2]) expect(done, JSON.stringify(done)).toContain(n);
      expect([...done].sort((a, b) => a - b)).toEqual(done);
      expect(progress.every((p) => p.progress.filesTotal === 3 && p.progress.bytesTotal === bytesTotal && p.progress.bytesDone <= bytesTotal)).toBe(true);
      expect(progress.some((p) => p.state === 'running')).toBe(true);
      expect((events.at(-1)!.data as any).progress).toEqual({ filesDone: 3, filesTotal: 3, bytesDone: bytesTotal, bytesTotal });
    } finally {
      await built.close();
      await library.close();
    }
  });

  it('cancels a job: what it would have added is not in the library', async () => {
    const s = await startServer();
    try {
      // A slow job first, so the second (other options: another batch) is still waiting or just started.
      const slow = await json(await fetch(`${s.url}/v1/documents`, { method: 'POST', body: fileForm(corpus('pdf', 'tracemonkey.pdf')) }));
      const victim = await json(await fetch(`${s.url}/v1/documents`, { method: 'POST', body: fileForm(corpus('md', 'wiki.md'), { strategy: 'token' }) }));
      const cancel = await fetch(`${s.url}/v1/jobs/${victim.id}`, { method: 'DELETE' });
      expect([200, 202]).toContain(cancel.status);
      const { last } = await followJob(s.url, victim.id);
      expect(last.event).toBe('cancelled');
      expect(await s.library.document(victim.files[0].docId)).toBeUndefined();
      expect((await followJob(s.url, slow.id)).last.event).toBe('done');
      // Cancelling a finished job changes nothing.
      const again = await fetch(`${s.url}/v1/jobs/${slow.id}`, { method: 'DELETE' });
      expect(again.status).toBe(200);
      expect((await json(again)).state).toBe('done');
      const listed = await json(await fetch(`${s.url}/v1/jobs?state=cancelled`));
      expect(listed.jobs.map((j: any) => j.id)).toEqual([victim.id]);
    } finally {
      await s.stop();
    }
  });

  it('20 concurrent uploads and searches against one library: nothing lost', async () => {
    const s = await startServer();
    try {
      const words = Array.from({ length: 20 }, (_, i) => `zqx${String.fromCharCode(97 + i)}token`);
      const uploads = words.map((w, i) => fetch(`${s.url}/v1/documents`, {
        method: 'POST',
        body: form([{ name: `note-${i}.txt`, bytes: `Note number ${i}.\n\nThis note is about ${w} and nothing else.\n` }]),
      }).then(json));
      const searches = words.map((w) => post(`${s.url}/v1/search`, { query: w }).then((r) => r.status));
      const [jobs, statuses] = await Promise.all([Promise.all(uploads), Promise.all(searches)]);
      expect(statuses.every((x) => x === 200)).toBe(true);
      expect(new Set(jobs.map((j) => j.id)).size).toBe(20);
      const ends = await Promise.all(jobs.map((j) => followJob(s.url, j.id)));
      expect(ends.map((e) => e.last.event)).toEqual(Array(20).fill('done'));
      const found = await Promise.all(words.map((w) => post(`${s.url}/v1/search`, { query: w }).then(json)));
      for (let i = 0; i < 20; i++) {
        expect(found[i].hits).toHaveLength(1);
        expect(found[i].hits[0].docId).toBe(jobs[i].files[0].docId);
      }
      expect((await s.library.stats()).documents).toBe(20);
      expect(existsSync(join(s.dir, 'uploads')) ? readdirSync(join(s.dir, 'uploads')) : []).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});

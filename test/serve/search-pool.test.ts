import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followJob, form, json, post, startServer, type Running } from './helpers.js';

/**
 * `groundwork serve` with its search pool (searchWorkers: 2) over real HTTP on loopback: searches
 * answered by worker threads reading the SQLite file read-only agree with `library.search` in the
 * server's process, go on while an upload's ingest job writes, and see its document (and its
 * deletion) on the next search.
 */
const CORPUS = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'corpus');
const WORD = 'quillbramblewick';
const QUERIES = ['IBM research facilities', 'nested list item', '体检套餐 心电图', 'Armonk New York company'];

let running: Running;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-serve-pool-'));
  const docs = join(dir, 'docs');
  mkdirSync(docs);
  for (const file of ['md/wiki.md', 'md/nested.md', 'md/markdown.sample.zh.md']) copyFileSync(join(CORPUS, file), join(docs, file.replace('/', '-')));
  running = await startServer({ searchWorkers: 2, rateLimit: false }, dir);
  await running.library.addFiles(docs, { workers: 0 });
}, 120_000);

afterAll(async () => {
  const dir = running?.dir;
  await running?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** POST /v1/search's hits, and `library.search`'s in this process as the route sends them (JSON). */
async function both(query: string, options: Record<string, unknown> = {}): Promise<{ http: any; direct: any }> {
  const response = await post(`${running.url}/v1/search`, { query, ...options });
  expect(response.status).toBe(200);
  const http = await json(response);
  const result = await running.library.search(query, options);
  return { http, direct: JSON.parse(JSON.stringify({ hits: result.hits, keywords: result.keywords, mode: result.mode })) };
}

describe('search through the pool over HTTP', () => {
  it('answers as library.search does in process', async () => {
    expect(running.server.searchWorkers).toBe(2);
    let found = 0;
    for (const query of QUERIES) {
      const { http, direct } = await both(query, { k: 5, neighbors: 1 });
      expect({ hits: http.hits, keywords: http.keywords, mode: http.mode }).toEqual(direct);
      if (http.hits.length > 0) found++;
    }
    expect(found).toBeGreaterThanOrEqual(3);
  });

  it('keeps answering while an ingest job writes, and sees its document once the job ends', async () => {
    expect((await both(WORD)).http.hits).toEqual([]);
    const upload = await fetch(`${running.url}/v1/documents`, { method: 'POST', body: form([{ name: 'arrival.md', bytes: `# Arrival\n\nThe ${WORD} arrived today, with ${'more words about the arrival. '.repeat(200)}\n` }]) });
    expect(upload.status).toBe(202);
    const job = await json(upload);
    let ended = false;
    const finished = followJob(running.url, job.id).finally(() => (ended = true));
    // Searches from 4 clients for as long as the job runs (at least one round each).
    const failures: string[] = [];
    let searches = 0;
    await Promise.all(Array.from({ length: 4 }, async (_, client) => {
      do {
        const response = await post(`${running.url}/v1/search`, { query: QUERIES[client]!, k: 5 });
        if (response.status !== 200) failures.push(`${response.status} ${await response.text()}`);
        else await response.arrayBuffer();
        searches++;
      } while (!ended);
    }));
    expect(failures).toEqual([]);
    expect(searches).toBeGreaterThanOrEqual(4);
    expect((await finished).last.event).toBe('done');

    const { http, direct } = await both(WORD);
    expect(http.hits).toHaveLength(1);
    expect(http.hits[0].text).toContain(WORD);
    expect({ hits: http.hits, keywords: http.keywords, mode: http.mode }).toEqual(direct);

    const removed = await fetch(`${running.url}/v1/documents/${http.hits[0].docId}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await both(WORD)).http.hits).toEqual([]);
  }, 60_000);

  it('answers Dify\'s /retrieval through the pool too', async () => {
    const response = await post(`${running.url}/retrieval`, { knowledge_id: basename(running.dir), query: 'IBM research facilities', retrieval_setting: { top_k: 3, score_threshold: 0 } });
    expect(response.status).toBe(200);
    const direct = await running.library.search('IBM research facilities', { k: 3 });
    expect((await json(response)).records.map((r: { content: string }) => r.content)).toEqual(direct.hits.map((h) => h.text));
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Library } from '../../src/library/library.js';
import { enqueueFiles } from '../../src/queue/enqueue.js';
import { queueStatus, retryFailed } from '../../src/queue/status.js';
import { runWorker } from '../../src/queue/worker.js';
import { UPLOAD_PART_BYTES } from '../../src/queue/uploads.js';
import { runCli } from '../cli/cli.js';
import { corpusFolder, freshLibrarySchema, query, SKIP_MESSAGE, TEST_DATABASE_URL } from './queue-fixtures.js';

const projectRoot = join(import.meta.dirname, '../..');
const SMALL = ['md/codeblock.md', 'md/nested.md', 'md/wiki.md', 'txt/candide-windows-1252.txt', 'txt/rashomon-shift-jis.txt', 'html/wiki_duck.html', 'csv/csv-comma.csv'];

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The command lines of every live process below `pid` (from /proc: the parsing processes and what they run). */
function descendantCommands(pid: number): string[][] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const commands: string[][] = [];
  const todo = [...(children.get(pid) ?? [])];
  while (todo.length > 0) {
    const next = todo.pop()!;
    try {
      commands.push(readFileSync(`/proc/${next}/cmdline`, 'utf8').split('\0').filter(Boolean));
    } catch {
      continue;
    }
    todo.push(...(children.get(next) ?? []));
  }
  return commands;
}

/** True when `command` is the tesseract CLI reading a page image (`tesseract stdin stdout ...`), not `--list-langs`. */
const isPageOcr = (command: string[]) => /(^|\/)tesseract$/.test(command[0] ?? '') && command[1] === 'stdin';

async function libraryOn(schema: string): Promise<Library> {
  return Library.open(undefined, { store: { kind: 'postgres', url: TEST_DATABASE_URL!, schema } });
}

describe.skipIf(!TEST_DATABASE_URL)('queue on Postgres', () => {
  it('queues each file once, a worker stores them, a refused file fails once with its reason', async () => {
    const schema = freshLibrarySchema();
    const queue = { url: TEST_DATABASE_URL!, schema };
    const { dir, good, broken } = corpusFolder(SMALL.slice(0, 4), { broken: true });

    const first = await enqueueFiles(dir, queue, { strategy: 'structure' });
    expect(first).toMatchObject({ queued: good.length + 1, alreadyQueued: 0, rejected: [] });
    // Queued twice, recorded once; other options are other jobs.
    expect(await enqueueFiles(dir, queue, { strategy: 'structure' })).toMatchObject({ queued: 0, alreadyQueued: good.length + 1 });

    const events: string[] = [];
    const handle = await runWorker(queue, { exitWhenIdle: true, pollIntervalMs: 100, onEvent: (e) => events.push(e.type) });
    const stats = await handle.done;
    expect(stats).toMatchObject({ jobsDone: good.length, jobsFailed: 1 });

    const status = await queueStatus(queue);
    expect(status.counts).toMatchObject({ created: 0, retry: 0, active: 0, completed: good.length, failed: 1 });
    expect(status.failures).toEqual([expect.objectContaining({ path: broken, code: 'CORRUPT', attempts: 1 })]);
    expect(status.workers).toEqual([expect.objectContaining({ id: stats.workerId, state: 'stopped', jobsDone: good.length, jobsFailed: 1 })]);

    // `groundwork jobs` shows the same: counts, the failed file with its code and reason, the worker's throughput.
    const jobsFlags = ['--postgres', TEST_DATABASE_URL!, '--postgres-schema', schema];
    const shown = await runCli(['jobs', ...jobsFlags, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const shownStatus = JSON.parse(shown.stdout);
    expect(shownStatus.counts).toEqual(status.counts);
    expect(shownStatus.failures).toEqual([expect.objectContaining({ path: broken, code: 'CORRUPT', reason: status.failures[0]!.reason })]);
    expect(shownStatus.workers).toEqual([expect.objectContaining({ id: stats.workerId, jobsDone: good.length })]);
    expect(shownStatus.workers[0].jobsPerSecond).toBeGreaterThan(0);
    const table = await runCli(['jobs', ...jobsFlags]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`\\| done +\\| +${good.length} \\|`));
    expect(table.stdout).toMatch(/\| failed +\| +1 \|/);
    expect(table.stdout).toContain('files/s');
    expect(table.stdout).toMatch(new RegExp(`\\| ${stats.workerId} +\\| stopped +\\| +0 \\| +${good.length} \\| +1 \\|`));
    expect(table.stdout).toContain('broken.docx [CORRUPT]');

    const library = await libraryOn(schema);
    try {
      const docs = await library.documents();
      expect(docs.map((d) => d.id).sort()).toEqual([...new Set(good.map(sha))].sort());
      expect((await library.stats()).paths).toBe(good.length);
    } finally {
      await library.close();
    }

    // A refused file is not retried by itself; --retry-failed puts it back once, and it fails again.
    expect(await retryFailed(queue)).toBe(1);
    const again = await runWorker(queue, { exitWhenIdle: true, pollIntervalMs: 100 });
    expect(await again.done).toMatchObject({ jobsDone: 0, jobsFailed: 1 });
    expect((await queueStatus(queue)).counts).toMatchObject({ failed: 1, completed: good.length });
  }, 180_000);

  it('--upload: the bytes travel with the jobs, a worker that cannot see the path ingests them, and they are deleted once stored', async () => {
    const schema = freshLibrarySchema();
    const queue = { url: TEST_DATABASE_URL!, schema };
    const { dir, good, broken } = corpusFolder(['md/wiki.md', 'txt/rashomon-shift-jis.txt', 'csv/csv-comma.csv'], { broken: true });
    // More than one part.
    const big = `${dir}/big.md`;
    writeFileSync(big, Array.from({ length: 16_000 }, (_, i) => `## Section ${i}\n\nParagraph ${i} of the long upload, about tide ${i % 97}.\n`).join('\n'));
    expect(statSync(big).size).toBeGreaterThan(UPLOAD_PART_BYTES);
    const files = [...good, big];
    const hashes = new Map(files.map((f) => [f, sha(f)]));
    const sizes = new Map(files.map((f) => [f, statSync(f).size]));

    // Over the upload limit: LIMIT_EXCEEDED naming the flag; the rest is queued with its bytes.
    const limited = await runCli(['ingest', dir, '--postgres', TEST_DATABASE_URL!, '--postgres-schema', schema, '--queue', '--upload', '--max-upload-size', '1MB', '--json']);
    expect(limited.code, limited.stderr).toBe(0);
    const limitedReport = JSON.parse(limited.stdout);
    expect(limitedReport.rejected).toEqual([expect.objectContaining({ path: big, code: 'LIMIT_EXCEEDED', limit: { name: 'maxUploadSize', value: UPLOAD_PART_BYTES, flag: '--max-upload-size' } })]);
    expect(limitedReport.rejected[0].reason).toContain('--max-upload-size');
    expect(limitedReport).toMatchObject({ queued: good.length + 1, bytesUploaded: limitedReport.bytesQueued });
    const text = await runCli(['ingest', big, '--postgres', TEST_DATABASE_URL!, '--postgres-schema', schema, '--queue', '--upload']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/bytes uploaded/);
    expect((await runCli(['ingest', big, '--postgres', TEST_DATABASE_URL!, '--postgres-schema', schema, '--upload'])).code).toBe(2);

    const s = `"${schema}_queue"`;
    const parts = await query<{ path: string; n: string; bytes: string }>(
      `SELECT j.data->>'path' AS path, count(p.part) AS n, sum(length(p.data)) AS bytes FROM ${s}.job j JOIN ${s}.gw_upload_parts p ON p.job_id = j.id GROUP BY 1`,
    );
    expect(new Map(parts.map((p) => [p.path, Number(p.bytes)]))).toEqual(new Map([...files, broken!].map((f) => [f, statSync(f).size])));
    expect(Number(parts.find((p) => p.path === big)!.n)).toBe(Math.ceil(sizes.get(big)! / UPLOAD_PART_BYTES));

    // The worker cannot see the files: they are gone from disk.
    rmSync(dir, { recursive: true, force: true });
    const handle = await runWorker(queue, { exitWhenIdle: true, pollIntervalMs: 100 });
    expect(await handle.done).toMatchObject({ jobsDone: files.length, jobsFailed: 1 });
    const status = await queueStatus(queue);
    expect(status.counts).toMatchObject({ completed: files.length, failed: 1, active: 0 });
    // The damaged file fails with the parser's reason under its own path, not the worker's copy.
    expect(status.failures).toEqual([expect.objectContaining({ path: broken, code: 'CORRUPT' })]);
    expect(status.failures[0]!.reason).toContain(broken);
    expect(status.failures[0]!.reason).not.toContain('gw-worker-');

    const library = await libraryOn(schema);
    try {
      const docs = await library.documents();
      expect(new Map(docs.map((d) => [d.paths[0], d.id]))).toEqual(hashes);
      expect(new Map(docs.map((d) => [d.paths[0], d.bytes]))).toEqual(sizes);
      const hit = (await library.searchText('tide 42'))[0]!;
      expect(hit.path).toBe(big);
      // The kept original is the uploaded file, byte for byte.
      const chunks: Buffer[] = [];
      for await (const c of await library.openOriginal(hashes.get(good[0]!)!)) chunks.push(c as Buffer);
      expect(createHash('sha256').update(Buffer.concat(chunks)).digest('hex')).toBe(hashes.get(good[0]!));
    } finally {
      await library.close();
    }
    // Stored jobs' bytes are deleted; the failed one keeps its bytes for --retry-failed.
    const left = await query<{ path: string }>(`SELECT DISTINCT j.data->>'path' AS path FROM ${s}.gw_upload_parts p JOIN ${s}.job j ON j.id = p.job_id`);
    expect(left.map((r) => r.path)).toEqual([broken]);
    expect((await query(`SELECT 1 FROM ${s}.gw_upload_parts p WHERE NOT EXISTS (SELECT 1 FROM ${s}.job j WHERE j.id = p.job_id)`))).toEqual([]);

    // Bytes that are gone (deleted by hand here) fail their job once, with the reason.
    await query(`DELETE FROM ${s}.gw_upload_parts`);
    expect(await retryFailed(queue)).toBe(1);
    const again = await runWorker(queue, { exitWhenIdle: true, pollIntervalMs: 100 });
    expect(await again.done).toMatchObject({ jobsDone: 0, jobsFailed: 1 });
    const [gone] = (await queueStatus(queue)).failures;
    expect(gone).toMatchObject({ path: broken, code: 'IO' });
    expect(gone!.reason).toContain('uploaded bytes');
  }, 240_000);

  it('three worker processes, one killed with SIGKILL mid-document: every file stored once, its job retried by another', async () => {
    const schema = freshLibrarySchema();
    const queue = { url: TEST_DATABASE_URL!, schema };
    // The scanned PDF needs OCR: seconds of work, long enough to kill a worker in the middle of it.
    const { dir, good, broken } = corpusFolder([...SMALL, 'pdf-scanned/loremipsum-flat.pdf'], { broken: true });
    const slow = good.at(-1)!;
    // Queued first, so a worker takes it at once.
    expect((await enqueueFiles(slow, queue, {})).queued).toBe(1);
    const queued = await enqueueFiles(dir, queue, {});
    expect(queued).toMatchObject({ queued: good.length, alreadyQueued: 1 });

    const flags = ['--postgres', TEST_DATABASE_URL!, '--postgres-schema', schema, '--exit-when-idle', '--batch', '1', '--poll', '0.2', '--heartbeat', '1', '--stale-after', '4'];
    const workers: ChildProcess[] = [];
    const logs: string[] = [];
    const exits: Promise<number | null>[] = [];
    for (let i = 0; i < 3; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'src/cli/main.ts'), 'worker', ...flags], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stderr!.on('data', (d: Buffer) => logs.push(`[worker ${i}] ${d.toString()}`));
      child.stdout!.resume();
      workers.push(child);
      exits.push(new Promise((resolve) => child.on('exit', (code) => resolve(code))));
    }

    // Wait until a worker holds the slow file's job and is in the middle of it (its parsing process is
    // running tesseract on a page of that PDF: the only file here that needs OCR), then kill that worker.
    const s = `"${schema}_queue"`;
    let victim: { worker_id: string; pid: number } | undefined;
    let midDocument = false;
    const deadline = Date.now() + 120_000;
    while (!midDocument && Date.now() < deadline) {
      if (!victim) {
        const rows = await query<{ worker_id: string; pid: number }>(
          `SELECT o.worker_id, w.pid FROM ${s}.gw_job_owners o JOIN ${s}.job j ON j.id = o.job_id JOIN ${s}.gw_workers w ON w.id = o.worker_id WHERE j.data->>'path' = $1`,
          [slow],
        );
        victim = rows[0];
      }
      if (victim) midDocument = descendantCommands(victim.pid).some(isPageOcr);
      if (!midDocument) await new Promise((r) => setTimeout(r, 50));
    }
    expect(victim, `a worker took the slow file; the workers said:\n${logs.join('')}`).toBeDefined();
    expect(midDocument, `the worker holding the slow file was seen OCRing it; the workers said:\n${logs.join('')}`).toBe(true);
    const killedChild = workers.find((w) => w.pid === victim!.pid)!;
    expect(killedChild).toBeDefined();
    killedChild.kill('SIGKILL');
    const killedAt = Date.now();
    const codes = await Promise.all(exits);
    expect(codes.filter((c) => c === 0), logs.join('')).toHaveLength(2);

    const status = await queueStatus(queue);
    expect(status.counts).toMatchObject({ created: 0, retry: 0, active: 0, completed: good.length, failed: 1 });
    expect(status.failures).toEqual([expect.objectContaining({ path: broken, code: 'CORRUPT', attempts: 1 })]);
    expect(status.workers.find((w) => w.id === victim!.worker_id)?.state).toBe('lost');

    // The killed job was retried by another worker, by the lost-worker rule of docs/scale-out.md: not
    // before the victim's last heartbeat was --stale-after (4 s) old, and within the 60 s target.
    // The documented bound (stale-after + heartbeat + poll = 5.2 s here) assumes a free worker and an
    // idle machine; on shared cores the timers slip, so the test asserts the rule, not 5.2 s.
    const [retried] = await query<{ retry_count: number; output: { worker: string }; started_on: Date }>(
      `SELECT retry_count, output, started_on FROM ${s}.job WHERE data->>'path' = $1`,
      [slow],
    );
    const [lost] = await query<{ heartbeat_at: Date; stopped_at: Date }>(`SELECT heartbeat_at, stopped_at FROM ${s}.gw_workers WHERE id = $1`, [victim!.worker_id]);
    expect(retried!.retry_count).toBeGreaterThanOrEqual(1);
    expect(retried!.output.worker).not.toBe(victim!.worker_id);
    // Marked lost at its last beat, and that beat came before the kill.
    expect(lost!.stopped_at.getTime()).toBe(lost!.heartbeat_at.getTime());
    expect(lost!.heartbeat_at.getTime()).toBeLessThanOrEqual(killedAt);
    expect(retried!.started_on.getTime() - lost!.heartbeat_at.getTime()).toBeGreaterThanOrEqual(4_000);
    expect(retried!.started_on.getTime() - killedAt).toBeLessThan(60_000);

    // Every file stored exactly once: one document per distinct content, one path per file.
    const library = await libraryOn(schema);
    try {
      const docs = await library.documents();
      expect(docs.map((d) => d.id).sort()).toEqual([...new Set(good.map(sha))].sort());
      const stats = await library.stats();
      expect(stats.paths).toBe(good.length);
      const blocks = await query<{ n: string; distinct: string }>(`SELECT count(*) AS n, count(DISTINCT (doc_id, ordinal)) AS distinct FROM "${schema}".blocks`);
      expect(blocks[0]!.n).toBe(blocks[0]!.distinct);
    } finally {
      await library.close();
    }
  }, 300_000);
});

if (!TEST_DATABASE_URL) describe('queue on Postgres', () => it.skip(SKIP_MESSAGE, () => undefined));

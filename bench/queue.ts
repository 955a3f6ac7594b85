/**
 * The distributed-ingestion benchmark (issue 14): the same files ingested
 *   - into SQLite by `Library.addFiles` in this process (the embedded default),
 *   - into Postgres by `Library.addFiles` in this process (one writer, no queue),
 *   - through the queue: `enqueueFiles`, then 1, 2 and 4 `groundwork worker --exit-when-idle`
 *     processes on one Postgres server, each into a fresh library schema,
 * with docs/s and MB/s from the first file taken to the last worker's exit (worker start-up included:
 * what a batch run costs). Needs GROUNDWORK_TEST_DATABASE_URL (or GROUNDWORK_DATABASE_URL); skips without.
 *
 * Environment:
 *   GW_BENCH_QUEUE_FILES  how many corpus files (default 120: the text family, replicated under new names
 *                         with a changed first line so every copy is new content)
 *   GW_BENCH_QUEUE_WORKERS  worker counts, comma-separated (default 1,2,4)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Library } from '../src/library/library.js';
import { enqueueFiles } from '../src/queue/enqueue.js';
import { queueStatus } from '../src/queue/status.js';
import { printTable } from './inputs.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = resolve(ROOT, '..', 'shared', 'corpus');
const FAMILY = new Set(['.md', '.txt', '.html', '.csv', '.json']);
const MB = 1024 * 1024;

function corpusFiles(): string[] {
  const out: string[] = [];
  for (const dir of ['md', 'txt', 'html', 'csv', 'json']) {
    for (const name of readdirSync(join(CORPUS, dir)).sort()) {
      if (FAMILY.has(extname(name)) && !name.includes('.expected.')) out.push(join(CORPUS, dir, name));
    }
  }
  return out;
}

/** `count` files of new content: corpus files copied under new names with a distinct first line. */
function makeInputs(count: number): { dir: string; bytes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-queue-'));
  const sources = corpusFiles();
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const from = sources[i % sources.length]!;
    const ext = extname(from);
    const body = readFileSync(from);
    // A copy must be new content (else it dedupes to nothing): a leading line for text formats; JSON and
    // CSV are copied as they are on the first pass and get a trailing newline run on later ones.
    const round = Math.floor(i / sources.length);
    const extra = round === 0 ? Buffer.alloc(0) : Buffer.from('\n'.repeat(round));
    const to = join(dir, `${String(i).padStart(4, '0')}-${from.split('/').pop()!.replace(ext, '')}${ext}`);
    writeFileSync(to, Buffer.concat([body, extra]));
    bytes += statSync(to).size;
  }
  return { dir, bytes };
}

async function dropSchemas(url: string, schemas: string[]): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs `n` workers until the queue is empty; the seconds until the slowest said it was waiting for jobs (its start-up). */
function runWorkers(url: string, schema: string, n: number): Promise<number> {
  const t0 = performance.now();
  let startup = 0;
  const exits = Array.from({ length: n }, () =>
    new Promise<void>((resolveExit, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'worker', '--postgres', url, '--postgres-schema', schema, '--exit-when-idle', '--quiet', '--poll', '0.2'], {
        cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      let started = false;
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (!started && err.includes('waiting for jobs')) {
          started = true;
          startup = Math.max(startup, (performance.now() - t0) / 1000);
        }
      });
      child.on('exit', (code) => (code === 0 ? resolveExit() : reject(new Error(`worker exited ${code}: ${err.slice(-500)}`))));
    }),
  );
  return Promise.all(exits).then(() => startup);
}

export async function main(): Promise<void> {
  const url = process.env.GROUNDWORK_TEST_DATABASE_URL ?? process.env.GROUNDWORK_DATABASE_URL;
  if (!url) {
    console.log('skipped: set GROUNDWORK_TEST_DATABASE_URL (or GROUNDWORK_DATABASE_URL) to a Postgres server (source .ci/postgres.sh)');
    return;
  }
  const count = Number(process.env.GW_BENCH_QUEUE_FILES ?? 120);
  const counts = (process.env.GW_BENCH_QUEUE_WORKERS ?? '1,2,4').split(',').map(Number).filter((n) => n > 0);
  const { dir, bytes } = makeInputs(count);
  const run = `gw_bench_q_${process.pid}`;
  const schemas: string[] = [];
  const rows: (string | number)[][] = [];
  const row = (label: string, seconds: number, docs: number, startup?: number) =>
    rows.push([label, docs, seconds.toFixed(1), (docs / seconds).toFixed(2), (bytes / MB / seconds).toFixed(2), startup === undefined ? '' : startup.toFixed(1)]);
  try {
    {
      const libDir = mkdtempSync(join(tmpdir(), 'gw-bench-queue-sqlite-'));
      const t0 = performance.now();
      const library = await Library.open(libDir);
      const report = await library.addFiles(dir, {});
      await library.close();
      row('SQLite, Library.addFiles (1 process)', (performance.now() - t0) / 1000, report.docsAdded);
      rmSync(libDir, { recursive: true, force: true });
    }
    {
      const schema = `${run}_direct`;
      schemas.push(schema);
      const t0 = performance.now();
      const library = await Library.open(undefined, { store: { kind: 'postgres', url, schema } });
      const report = await library.addFiles(dir, {});
      await library.close();
      row('Postgres, Library.addFiles (1 process)', (performance.now() - t0) / 1000, report.docsAdded);
    }
    for (const n of counts) {
      const schema = `${run}_w${n}`;
      schemas.push(schema, `${schema}_queue`);
      const q0 = performance.now();
      const queued = await enqueueFiles(dir, { url, schema }, {});
      const queueSeconds = (performance.now() - q0) / 1000;
      const t0 = performance.now();
      const startup = await runWorkers(url, schema, n);
      const seconds = (performance.now() - t0) / 1000;
      const status = await queueStatus({ url, schema });
      row(`Postgres, queue, ${n} worker${n > 1 ? 's' : ''} (enqueue ${queueSeconds.toFixed(1)} s apart)`, seconds, status.counts.completed, startup);
      if (status.counts.completed !== queued.queued) console.log(`  warning: ${queued.queued} queued, ${status.counts.completed} completed, ${status.counts.failed} failed`);
    }
  } finally {
    await dropSchemas(url, schemas).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `Ingest of ${count} text-family files (${(bytes / MB).toFixed(1)} MB), ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(1)} at the end`,
    ['ingest', 'docs', 's', 'docs/s', 'MB/s', 'start-up s'],
    rows,
  );
  console.log('Queue rows: from starting the workers to the last one exiting (start-up under tsx included), each worker with --concurrency 1; start-up: until the slowest worker was waiting for jobs.');
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

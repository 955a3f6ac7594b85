/**
 * The HTTP API's benchmark (`groundwork serve`, src/serve/), against the real CLI server in a child
 * process on loopback:
 *   1. search: POST /v1/search with 1 and 16 concurrent clients over a library of GW_BENCH_SERVE_BLOCKS
 *      blocks (default 100k; the search library of bench/library.ts, cached in the temp folder),
 *      the 200 fixed questions of bench/library.ts, GW_BENCH_SERVE_ROUNDS rounds (default 4) once
 *      the server is idle (its search workers' in-memory postings built) and after warm-up rounds: latency p50/p99/max per request and requests per second, against
 *      `library.search` in the bench's process on the same library, questions and clients; the server
 *      runs twice, with its search pool (GW_BENCH_SERVE_SEARCH_WORKERS threads, default one per core)
 *      and with --search-workers 0 (searches on the thread serving the requests). The requests are
 *      made with fetch; one more row sends them with node:http (keep-alive) to the pooled server, a
 *      client that costs less CPU per request; every HTTP row prints the bench process's CPU per
 *      request (the clients share the machine's cores with the server).
 *   2. ingest: the text-format corpus files uploaded over HTTP (one request per file, 4 at a time)
 *      until every job is done, against `groundwork ingest` of the same files (both spawned CLIs,
 *      fresh libraries): wall time and the ratio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Library } from '../src/library/library.js';
import { benchQueries, closedLoop, ensureSearchLibrary, latencyStats } from './library.js';
import { printTable } from './inputs.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = resolve(ROOT, '..', 'shared');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');
const BLOCKS = Number(process.env.GW_BENCH_SERVE_BLOCKS ?? 100_000);
const ROUNDS = Number(process.env.GW_BENCH_SERVE_ROUNDS ?? 4);
const CLIENTS = 16;
/** The server's search pool (default: one worker per core, as `groundwork serve` starts). */
const SEARCH_WORKERS = process.env.GW_BENCH_SERVE_SEARCH_WORKERS !== undefined ? Number(process.env.GW_BENCH_SERVE_SEARCH_WORKERS) : undefined;

/** `groundwork serve` in a child; resolves with its URL once it listens. */
function startServer(library: string, extra: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--library', library, '--port', '0', '--no-rate-limit', ...extra], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const match = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (match) resolveStart({ url: match[1]!, child });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((r) => {
    child.removeAllListeners('exit');
    child.on('exit', () => r());
    child.kill('SIGTERM');
  });
}

/** CPU milliseconds the process `pid` has used so far (all its threads; Linux /proc), or undefined. */
function processCpuMs(pid: number): number | undefined {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return undefined;
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Waits (at most 3 minutes) until the server, sent nothing, uses under 5% of a core for a second:
 * its search workers have then built their in-memory postings (a core each for tens of seconds at
 * 100k blocks, started when they open the library), so no measured request shares the CPU with a
 * build. Returns the seconds waited (undefined without /proc: the warm-up rounds alone then).
 */
async function idle(pid: number): Promise<number | undefined> {
  const t0 = performance.now();
  let last = processCpuMs(pid);
  if (last === undefined) return undefined;
  while (performance.now() - t0 < 180_000) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = processCpuMs(pid)!;
    if (now - last < 50) break;
    last = now;
  }
  return (performance.now() - t0) / 1000;
}

/**
 * `library.search` in this process and POST /v1/search against the server in its child, the same
 * questions, one client and then CLIENTS at a time (a synchronous store answers one search at a
 * time: with 16 clients a request waits for the ones before it, in process or over HTTP alike).
 * The ratio is HTTP over direct at the same number of clients.
 */
async function searchBench(): Promise<void> {
  const library = await ensureSearchLibrary(BLOCKS);
  const queries = benchQueries().map((q) => q.text);
  const work = Array.from({ length: ROUNDS }, () => queries).flat();
  const direct = await Library.open(library.dir);
  // The server as it starts by default (a search pool of one worker thread per core) and with
  // --search-workers 0 (every search on the thread that serves the requests), one after the other.
  const pooled = SEARCH_WORKERS ?? availableParallelism();
  const servers = [
    { label: `POST /v1/search (groundwork serve, ${pooled} search workers)`, args: ['--search-workers', String(pooled)] },
    { label: 'POST /v1/search (groundwork serve --search-workers 0)', args: ['--search-workers', '0'] },
  ];
  const rows: (string | number)[][] = [];
  const loads: string[] = [];
  const warmed: string[] = [];
  try {
    const inProcess = (query: string) => direct.search(query, { k: 10 });
    await closedLoop(queries, 1, inProcess);
    const measured = new Map<number, ReturnType<typeof latencyStats>>();
    for (const clients of [1, CLIENTS]) {
      const ours = await closedLoop(work, clients, inProcess);
      const a = latencyStats(ours.times);
      measured.set(clients, a);
      rows.push(['library.search (in process)', clients, ours.times.length, a.p50, a.p99, a.max, ours.perSecond.toFixed(0), '1.00 / 1.00', '']);
    }
    loads.push(`in process ${loadavg()[0]!.toFixed(1)}`);
    for (const server of servers) {
      const { url, child } = await startServer(library.dir, server.args);
      try {
        const viaHttp = async (query: string) => {
          const response = await fetch(`${url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, k: 10 }) });
          if (response.status !== 200) throw new Error(`search: ${response.status} ${await response.text()}`);
          await response.arrayBuffer();
        };
        // The same requests from node:http with keep-alive: a client that costs this process less
        // CPU per request than fetch (on 2 cores the clients share the server's cores).
        const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
        const viaNodeHttp = (query: string) => new Promise<void>((resolveCall, reject) => {
          const body = JSON.stringify({ query, k: 10 });
          const req = request(`${url}/v1/search`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => (res.statusCode === 200 ? resolveCall() : reject(new Error(`search: ${res.statusCode} ${Buffer.concat(chunks).toString()}`))));
            res.on('error', reject);
          });
          req.on('error', reject);
          req.end(body);
        });
        // The search workers build their in-memory postings in the background (FTS5 ranks
        // meanwhile): first wait until the server is idle, then warm-up rounds until one is no
        // faster than the one before (at most 8).
        const waited = await idle(child.pid!);
        let warmups = 0;
        for (let before = 0; warmups < 8; ) {
          const round = await closedLoop(queries, CLIENTS, viaHttp);
          warmups++;
          if (warmups > 1 && round.perSecond <= before * 1.1) break;
          before = round.perSecond;
        }
        warmed.push(`${server.args.join(' ')}: ${waited === undefined ? '' : `idle after ${waited.toFixed(0)} s, `}${warmups} rounds`);
        const runs: { label: string; clients: number; call: (query: string) => Promise<void> }[] = [
          { label: server.label, clients: 1, call: viaHttp },
          { label: server.label, clients: CLIENTS, call: viaHttp },
        ];
        if (server === servers[0]) runs.push({ label: `${server.label}, node:http client`, clients: CLIENTS, call: viaNodeHttp });
        for (const run of runs) {
          const cpu = process.cpuUsage();
          const http = await closedLoop(work, run.clients, run.call);
          const used = process.cpuUsage(cpu);
          const a = measured.get(run.clients)!;
          const b = latencyStats(http.times);
          const clientMs = ((used.user + used.system) / 1000 / http.times.length).toFixed(2);
          rows.push([run.label, run.clients, http.times.length, b.p50, b.p99, b.max, http.perSecond.toFixed(0), `${(b.p50 / a.p50).toFixed(2)} / ${(b.p99 / a.p99).toFixed(2)}`, clientMs]);
        }
        agent.destroy();
        loads.push(`${server.args.join(' ')} ${loadavg()[0]!.toFixed(1)}`);
      } finally {
        await stop(child);
      }
    }
  } finally {
    await direct.close();
  }
  console.log(`\nSearch over HTTP: ${BLOCKS} blocks (bench/library.ts's search library, ${library.sqliteMB.toFixed(0)} MB), ${work.length} requests per row (${queries.length} questions x ${ROUNDS} rounds, k = 10, default mode: bm25, this library has no vectors) after the server was idle and warm-up rounds (until one was no faster than the last: ${warmed.join('; ')}); the server is \`groundwork serve\` in its own process, \`library.search\` runs in the bench's; load average after each part: ${loads.join(', ')}; ${availableParallelism()} cores.`);
  printTable('Search latency (ms) and throughput: POST /v1/search against library.search, same questions, same run (target p99 <= 50 ms at 16 clients)', ['path', 'clients', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'requests/s', 'p50 / p99 vs library.search', 'client CPU ms/request'], rows);
}

/** The text families of the corpus (as bench/library.ts ingests), copied to one folder. */
function ingestFiles(dir: string): string[] {
  const families = ['md', 'txt', 'html', 'csv', 'json', 'rtf', 'eml', 'docx', 'odt'];
  const files: string[] = [];
  for (const family of families) {
    const from = join(SHARED, 'corpus', family);
    for (const f of readdirSync(from).sort()) {
      if (f.includes('.expected.') || !statSync(join(from, f)).isFile()) continue;
      const to = join(dir, `${family}-${f}`);
      copyFileSync(join(from, f), to);
      files.push(to);
    }
  }
  return files;
}

function runIngest(library: string, folder: string): Promise<number> {
  return new Promise((resolveRun, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'ingest', folder, '--library', library, '--workers', '1'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    child.on('exit', (code) => (code === 0 ? resolveRun((performance.now() - t0) / 1000) : reject(new Error(`ingest exited ${code}`))));
  });
}

async function ingestBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'groundwork-bench-serve-'));
  try {
    const folder = join(root, 'files');
    mkdirSync(folder);
    const files = ingestFiles(folder);
    const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
    const cliSeconds = await runIngest(join(root, 'cli-library'), folder);

    const { url, child } = await startServer(join(root, 'http-library'));
    let httpSeconds: number;
    let done = 0;
    try {
      const t0 = performance.now();
      let next = 0;
      const jobs: string[] = [];
      await Promise.all(Array.from({ length: 4 }, async () => {
        while (next < files.length) {
          const file = files[next++]!;
          const body = new FormData();
          body.append('file', new Blob([readFileSync(file)]), basename(file));
          const response = await fetch(`${url}/v1/documents`, { method: 'POST', body });
          jobs.push(((await response.json()) as { id: string }).id);
        }
      }));
      for (const id of jobs) {
        const events = await (await fetch(`${url}/v1/jobs/${id}/events`)).text();
        if (/event: (done|failed)/.test(events)) done++;
      }
      httpSeconds = (performance.now() - t0) / 1000;
    } finally {
      await stop(child);
    }
    console.log(`\nIngest of ${files.length} corpus files (${(bytes / 1024 / 1024).toFixed(1)} MB; md, txt, html, csv, json, rtf, eml, docx, odt): \`groundwork ingest\` (one worker) against uploads to \`groundwork serve\`, 4 at a time, until every job ended (${done} of ${files.length} jobs ended done or failed).`);
    printTable('Upload-and-ingest over HTTP vs CLI ingest', ['path', 'seconds', 'ratio (HTTP / CLI)'], [
      ['groundwork ingest', cliSeconds.toFixed(1), '1.00'],
      ['POST /v1/documents + jobs', httpSeconds.toFixed(1), (httpSeconds / cliSeconds).toFixed(2)],
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  await searchBench();
  // GW_BENCH_SERVE_INGEST=0: the search part alone.
  if (process.env.GW_BENCH_SERVE_INGEST !== '0') await ingestBench();
}

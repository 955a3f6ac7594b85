/**
 * Where a search request's CPU goes in `groundwork serve` (the search bench's server, bench/serve.ts):
 * starts the CLI server of a checkout (default this one) on the bench's 100k-block library with 2
 * search workers, waits until it is idle (its workers have built their in-memory postings), warms
 * it up (3 rounds of the 200 questions at 16 clients), then sends the questions GW_BENCH_SERVE_ROUNDS times (default
 * 4) with 1 client and again with 16 (fetch), and prints latency, requests per second and the CPU
 * time per request of each of the server's threads (from /proc: the main thread, the two search
 * workers, V8's helper threads) and of this process (the clients).
 *
 *   node --import tsx bench/children/serve-cpu.ts [CHECKOUT] [CPU_PROFILE_DIR]
 *
 * With CPU_PROFILE_DIR the server runs under `node --cpu-prof` (every thread writes a profile there
 * when it exits; the profiles cover the warm-up and the postings' build too).
 * Linux only (/proc). The library is built by bench/library.ts (`ensureSearchLibrary`) if missing.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchQueries, closedLoop, ensureSearchLibrary, latencyStats } from '../library.js';

const ROOT = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..'));
const PROFILES = process.argv[3];
const ROUNDS = Number(process.env.GW_BENCH_SERVE_ROUNDS ?? 4);
const CLIENTS = 16;

/** CPU milliseconds so far of each thread of process `pid`, by thread id. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15 of stat), in clock ticks of 10 ms.
    out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return out;
}

async function main(): Promise<void> {
  const library = await ensureSearchLibrary(100_000);
  const queries = benchQueries().map((q) => q.text);
  const args = [...(PROFILES ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES}`] : []), '--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'serve', '--library', library.dir, '--port', '0', '--no-rate-limit', '--search-workers', '2'];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const match = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (match) resolveUrl(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  const call = async (query: string) => {
    const response = await fetch(`${url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, k: 10 }) });
    if (response.status !== 200) throw new Error(`search: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const load = (work: readonly string[], clients: number) => closedLoop(work, clients, call);
  try {
    // Until the server, sent nothing, is idle: its workers have built their postings.
    const t0 = performance.now();
    for (let last = -1; performance.now() - t0 < 180_000; ) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = [...threadCpu(child.pid!).values()].reduce((a, b) => a + b, 0);
      if (last >= 0 && now - last < 50) break;
      last = now;
    }
    console.log(`idle after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    for (let i = 0; i < 3; i++) console.log(`warm-up round ${i + 1}: ${(await load(queries, CLIENTS)).perSecond.toFixed(0)} requests/s`);
    const work = Array.from({ length: ROUNDS }, () => queries).flat();
    const before = threadCpu(child.pid!);
    const cpu = process.cpuUsage();
    for (const clients of [1, CLIENTS]) {
      const run = await load(work, clients);
      const s = latencyStats(run.times);
      console.log(`${clients} client(s): p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(1)} ms, ${run.perSecond.toFixed(0)} requests/s`);
    }
    const used = process.cpuUsage(cpu);
    const after = threadCpu(child.pid!);
    const requests = work.length * 2;
    const rows = [...after].map(([tid, ms]) => ({ tid, ms: (ms - (before.get(tid) ?? 0)) / requests })).sort((a, b) => b.ms - a.ms);
    console.log(`CPU ms per request over both runs (${requests} requests; threads by CPU, those above 0.02 ms):`);
    for (const row of rows) if (row.ms > 0.02) console.log(`  server thread ${row.tid}${row.tid === String(child.pid) ? ' (main)' : ''}: ${row.ms.toFixed(2)}`);
    console.log(`  server, all threads: ${rows.reduce((sum, r) => sum + r.ms, 0).toFixed(2)}`);
    console.log(`  this process (the clients): ${((used.user + used.system) / 1000 / requests).toFixed(2)}`);
  } finally {
    await new Promise<void>((r) => {
      child.removeAllListeners('exit');
      child.on('exit', () => r());
      child.kill('SIGTERM');
    });
  }
}

await main();

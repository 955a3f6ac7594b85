/**
 * The soak: many mixed files through `groundwork ingest`, as a user's long batch, with the memory
 * of the whole process tree sampled every second and the library checked after every fault.
 *
 *   npm run soak                                   10,000 files (the corpus replicated and mutated)
 *   npm run soak -- --files 1000 --kills 5 --seed 7 --workers 2 --keep
 *
 * 1. Generate FILES files into a temp folder from the seed files (test/fuzz/seeds.ts: the shared
 *    corpus, the samples, generated ODF/text files): exact copies (duplicates by content), text
 *    files made unique by one appended line, and mutated ones (test/fuzz/mutate.ts: bit flips,
 *    truncation, splices, a ZIP entry or PDF stream damaged and re-packed), in folders of 100.
 * 2. Run A: ingest them all into library A (a child process, `--json`), RSS of the ingest process
 *    and every process under it summed each second. Every file must be accounted for: the path of
 *    a stored document, or rejected with an error code.
 * 3. Run A again: nothing may be added or updated, the same files rejected.
 * 4. Library B: KILLS ingests of the same folder, each `kill -9`ed at a random moment (when B holds a
 *    random share of A's documents, counted by kept originals; the ingest process: anything under
 *    it still alive 3 s after it is reported and killed), each followed by
 *    `groundwork check --json`; then one ingest to the end, a check, and a run that adds nothing.
 *    B must then hold exactly A's documents (ids, paths and block counts).
 * 5. Print RSS over time (a compact table) and the verdicts; exit 1 when one fails.
 *
 * `groundwork check` comes from the `concurrency` work (NOTES.md: CHECK LANDED); until the CLI has
 * it, the soak says so and compares B with A without it. Per-file limits (LIMITS LANDED: files
 * parsed in killable child processes, --file-timeout, --file-memory) are what keeps RSS flat; the
 * soak passes --file-timeout when the ingest command knows it.
 *
 * `npm run bench` runs a small soak (GW_BENCH_SOAK_FILES, default 300 files, 2 kills).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ERROR_CODES } from '../src/errors.js';
import { byteMutation, isZip, mutatePdfStream, mutateZipEntry, splice, truncate, type Mutation } from '../test/fuzz/mutate.js';
import { Prng } from '../test/fuzz/prng.js';
import { loadSeeds, type Seed } from '../test/fuzz/seeds.js';
import { printTable } from './inputs.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_CLI = join(ROOT, 'src', 'cli', 'main.ts');

/** The command line that starts `groundwork`: sources through tsx, a built main.js directly. */
function cliCommand(cli: string): string[] {
  return cli.endsWith('.ts') ? ['--import', 'tsx', cli] : [cli];
}
const MB = 1024 * 1024;
const PAGE = 4096;

export interface SoakOptions {
  files: number;
  kills: number;
  seed: number;
  /** The CLI entry to soak (default: this checkout's src/cli/main.ts; a dist/cli/main.js runs as is). */
  cli?: string;
  /** Ingest workers (`--workers`); undefined: the CLI's default. */
  workers?: number;
  ocr: 'auto' | 'off';
  /** Seeds larger than this are not replicated. */
  maxSeedBytes: number;
  rssLimitMb: number;
  /** Keep the temp folder (files and libraries) for a look afterwards. */
  keep: boolean;
  /** Progress lines on stderr. */
  log: (line: string) => void;
}

// ---------------------------------------------------------------------------------------------
// The files

/** Formats whose bytes are text: a unique variant is the file plus one line. */
const TEXT_FORMATS = new Set(['text', 'markdown', 'csv', 'tsv', 'html', 'vtt', 'jsonl']);

export interface GeneratedSet {
  dir: string;
  paths: string[];
  bytes: number;
  kinds: Record<string, number>;
}

function variant(seed: Seed, i: number): Uint8Array | undefined {
  if (!TEXT_FORMATS.has(seed.format)) return undefined;
  const line = seed.format === 'jsonl' ? `{"text":"soak variant ${i}"}\n` : seed.format === 'html' ? `<p>soak variant ${i}</p>\n` : `\nsoak variant ${i}\n`;
  const tail = new TextEncoder().encode(line);
  const out = new Uint8Array(seed.bytes.length + tail.length);
  out.set(seed.bytes);
  out.set(tail, seed.bytes.length);
  return out;
}

function mutated(seed: Seed, all: readonly Seed[], rng: Prng): Mutation {
  const kind = rng.weighted<string>([['bytes', 4], ['truncate', 2], ['splice', 1], ['inner', isZip(seed.bytes) || seed.format === 'pdf' ? 3 : 0]]);
  if (kind === 'truncate') return truncate(seed.bytes, rng.range(1, 15));
  if (kind === 'splice') {
    const donor = rng.pick(all);
    return splice(seed.bytes, donor.bytes, rng, donor.origin);
  }
  if (kind === 'inner') return (isZip(seed.bytes) ? mutateZipEntry(seed.bytes, rng) : mutatePdfStream(seed.bytes, rng)) ?? byteMutation(seed.bytes, rng);
  return byteMutation(seed.bytes, rng);
}

/** `count` files under `dir`/NNN/, a pure function of (seed files, count, seed). */
export function generateFiles(dir: string, count: number, seed: number, maxSeedBytes: number): GeneratedSet {
  const seeds = loadSeeds().filter((s) => s.bytes.length > 0 && s.bytes.length <= maxSeedBytes);
  if (seeds.length === 0) throw new Error('soak: no seed files');
  const paths: string[] = [];
  const kinds: Record<string, number> = {};
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const rng = Prng.forCase(seed, i);
    const s = rng.pick(seeds);
    let kind = rng.weighted<string>([['copy', 5], ['variant', 2], ['mutated', 3]]);
    let data: Uint8Array | undefined = kind === 'variant' ? variant(s, i) : kind === 'mutated' ? mutated(s, seeds, rng).bytes : s.bytes;
    if (!data) {
      kind = 'copy';
      data = s.bytes;
    }
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    const folder = join(dir, String(Math.floor(i / 100)).padStart(3, '0'));
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    const path = join(folder, `${String(i).padStart(5, '0')}-${kind}-${s.name.replace(/[^\w.-]+/g, '_')}`);
    writeFileSync(path, data);
    paths.push(path);
    bytes += data.length;
  }
  return { dir, paths, bytes, kinds };
}

// ---------------------------------------------------------------------------------------------
// The process tree and its memory

/** pid -> parent pid of every process now. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(name), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  return map;
}

/** `root` and every process under it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) {
    let list = children.get(ppid);
    if (!list) children.set(ppid, (list = []));
    list.push(pid);
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop()!;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

function rssBytes(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]) * PAGE;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface RssSample {
  /** Seconds since the soak started. */
  t: number;
  phase: string;
  mb: number;
  processes: number;
}

/** Kept originals under a library's files/ (temporary copies of a write in progress left out). */
function countOriginals(lib: string): number {
  let n = 0;
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (!e.name.endsWith('.tmp')) n++;
    }
  };
  walk(join(lib, 'files'));
  return n;
}

// ---------------------------------------------------------------------------------------------
// Running the CLI

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Processes under the ingest still alive after it was killed (then killed by the soak). */
  orphans: number;
  peakMb: number;
}

class Soak {
  readonly samples: RssSample[] = [];
  private readonly t0 = performance.now();

  constructor(readonly options: SoakOptions) {}

  elapsed(): number {
    return (performance.now() - this.t0) / 1000;
  }

  /**
   * Runs `groundwork ARGS`, sampling its tree each second; with `kill`, kill -9 it as soon as
   * `kill.progress()` reaches `kill.at` (checked each second).
   */
  run(args: readonly string[], phase: string, kill?: { progress: () => number; at: number }): Promise<CliRun> {
    const started = performance.now();
    const child: ChildProcess = spawn(process.execPath, [...cliCommand(this.options.cli ?? DEFAULT_CLI), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
    let peak = 0;
    let lastTree: number[] = [];
    let killedTree: number[] = [];
    const sample = () => {
      if (child.pid === undefined || child.exitCode !== null) return;
      if (kill && !killedTree.length && kill.progress() >= kill.at) {
        killedTree = processTree(child.pid).filter((p) => p !== child.pid);
        child.kill('SIGKILL');
        return;
      }
      lastTree = processTree(child.pid);
      const mb = lastTree.reduce((sum, pid) => sum + rssBytes(pid), 0) / MB;
      peak = Math.max(peak, mb);
      this.samples.push({ t: this.elapsed(), phase, mb, processes: lastTree.length });
    };
    const timer = setInterval(sample, 1000);
    return new Promise((done, fail) => {
      child.on('error', fail);
      child.on('close', async (code, signal) => {
        clearInterval(timer);
        let orphans = 0;
        if (killedTree.length) {
          // Workers must not outlive a killed ingest for long: give them a moment to notice.
          await new Promise((r) => setTimeout(r, 3000));
          for (const pid of killedTree.filter(alive)) {
            orphans++;
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // exited meanwhile
            }
          }
        }
        done({ code, signal, stdout, stderr, ms: performance.now() - started, orphans, peakMb: peak });
      });
    });
  }
}

interface IngestJson {
  docsAdded: number;
  docsSkipped: number;
  docsUpdated: number;
  blocksAdded: number;
  parsed: number;
  rejected: { path: string; code: string; reason: string }[];
  durationMs: number;
}

interface DocJson {
  id: string;
  paths: string[];
  blocks: number;
}

function json<T>(run: CliRun, what: string): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`soak: ${what} printed no JSON (exit ${run.code}, signal ${run.signal}): ${run.stderr.slice(-2000)}`);
  }
}

/** Ingest flags the command knows (limits' --file-timeout only once it has landed). */
function ingestFlags(options: SoakOptions): string[] {
  const help = spawnSync(process.execPath, [...cliCommand(options.cli ?? DEFAULT_CLI), 'ingest', '--help'], { cwd: ROOT, encoding: 'utf8' }).stdout;
  return [
    '--json',
    '--ocr',
    options.ocr,
    ...(options.workers !== undefined ? ['--workers', String(options.workers)] : []),
    ...(help.includes('--file-timeout') ? ['--file-timeout', '120'] : []),
  ];
}

function hasCheck(options: SoakOptions): boolean {
  const r = spawnSync(process.execPath, [...cliCommand(options.cli ?? DEFAULT_CLI), 'check', '--help'], { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0;
}

// ---------------------------------------------------------------------------------------------
// The soak

export interface Verdict {
  name: string;
  ok: boolean | undefined;
  detail: string;
}

export interface SoakResult {
  files: number;
  bytes: number;
  kinds: Record<string, number>;
  samples: RssSample[];
  verdicts: Verdict[];
  runs: { phase: string; seconds: number; added: number; updated: number; unchanged: number; rejected: number; killed: boolean; peakMb: number }[];
  seconds: number;
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log;
  const base = mkdtempSync(join(tmpdir(), 'groundwork-soak-'));
  const soak = new Soak(options);
  const verdicts: Verdict[] = [];
  const runs: SoakResult['runs'] = [];
  const verdict = (name: string, ok: boolean | undefined, detail: string) => {
    verdicts.push({ name, ok, detail });
    log(`${ok === undefined ? 'n/a ' : ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
  };
  try {
    const set = generateFiles(join(base, 'files'), options.files, options.seed, options.maxSeedBytes);
    log(`soak: ${set.paths.length} files (${(set.bytes / MB).toFixed(1)} MB; ${Object.entries(set.kinds).map(([k, n]) => `${n} ${k}`).join(', ')}) in ${set.dir}`);
    const flags = ingestFlags(options);
    const check = hasCheck(options);
    const libA = join(base, 'library-a');
    const libB = join(base, 'library-b');
    const ingest = async (lib: string, phase: string, kill?: { progress: () => number; at: number }) => {
      const r = await soak.run(['ingest', set.dir, '--library', lib, ...flags], phase, kill);
      const killed = r.signal === 'SIGKILL';
      const report = killed ? undefined : json<IngestJson>(r, `ingest (${phase})`);
      runs.push({
        phase,
        seconds: r.ms / 1000,
        added: report?.docsAdded ?? NaN,
        updated: report?.docsUpdated ?? NaN,
        unchanged: report?.docsSkipped ?? NaN,
        rejected: report?.rejected.length ?? NaN,
        killed,
        peakMb: r.peakMb,
      });
      log(`${phase}: ${killed ? `killed after ${(r.ms / 1000).toFixed(1)} s${r.orphans ? `, ${r.orphans} process(es) under it still alive 3 s later (killed)` : ''}` : `${report!.docsAdded} added, ${report!.docsUpdated} updated, ${report!.docsSkipped} unchanged, ${report!.rejected.length} rejected in ${(r.ms / 1000).toFixed(1)} s`}; peak RSS ${r.peakMb.toFixed(0)} MB`);
      return { run: r, report, killed };
    };
    const docs = async (lib: string): Promise<DocJson[]> => json<DocJson[]>(await soak.run(['ls', '--json', '--library', lib], 'ls'), 'ls');
    const runCheck = async (lib: string, phase: string): Promise<{ ok: boolean; detail: string } | undefined> => {
      if (!check) return undefined;
      const r = await soak.run(['check', '--json', '--library', lib], phase);
      const report = json<{ ok: boolean; remaining?: { check: string; severity: string; count: number }[] }>(r, 'check');
      const errors = (report.remaining ?? []).filter((f) => f.severity === 'error');
      return { ok: report.ok === true && r.code === 0, detail: report.ok ? `ok${report.remaining?.length ? ` (leftovers: ${report.remaining.map((f) => `${f.check} ${f.count}`).join(', ')})` : ''}` : errors.map((f) => `${f.check} x${f.count}`).join(', ') };
    };

    // 2. Run A.
    const first = await ingest(libA, 'A: first run');
    const a = first.report!;
    const docsA = await docs(libA);
    const stored = new Set(docsA.flatMap((d) => d.paths.map((p) => resolve(p))));
    const rejected = new Map(a.rejected.map((r) => [resolve(r.path), r.code]));
    const lost = set.paths.filter((p) => !stored.has(p) && !rejected.has(p));
    const badCodes = a.rejected.filter((r) => !(ERROR_CODES as readonly string[]).includes(r.code));
    const byCode = [...rejected.values()].reduce<Record<string, number>>((m, c) => ((m[c] = (m[c] ?? 0) + 1), m), {});
    verdict('every file accounted for', lost.length === 0 && badCodes.length === 0, `${set.paths.length - lost.length} of ${set.paths.length}: ${stored.size} stored paths (${docsA.length} documents), ${rejected.size} rejected (${Object.entries(byCode).map(([c, n]) => `${c} ${n}`).join(', ') || 'none'})${lost.length ? `; not accounted for: ${lost.slice(0, 5).join(', ')}` : ''}${badCodes.length ? `; without a known code: ${badCodes.slice(0, 3).map((r) => r.path).join(', ')}` : ''}`);

    // 3. Run A again.
    const again = (await ingest(libA, 'A: second run')).report!;
    verdict('a second run adds nothing', again.docsAdded === 0 && again.docsUpdated === 0 && again.rejected.length === a.rejected.length, `${again.docsAdded} added, ${again.docsUpdated} updated, ${again.docsSkipped} unchanged, ${again.rejected.length} rejected (first run ${a.rejected.length})`);
    const checkA = await runCheck(libA, 'A: check');
    if (checkA) verdict('check after the runs', checkA.ok, checkA.detail);

    // 4. Library B: kill -9 at random moments, re-runs.
    // Kill while documents are being stored: when B's kept originals (files/, one per stored
    // document, counted each second) reach a random share of A's, the shares rising from kill to
    // kill, so every kill lands mid-run with work left whatever the machine's speed.
    const rng = new Prng(options.seed ^ 0x50a4);
    const total = countOriginals(libA);
    const shares = Array.from({ length: options.kills }, () => 0.05 + 0.9 * rng.float()).sort((x, y) => x - y);
    const checks: string[] = [];
    let orphans = 0;
    let killed = 0;
    for (let k = 0; k < options.kills; k++) {
      const at = Math.max(countOriginals(libB) + 1, Math.ceil(shares[k]! * total));
      const r = await ingest(libB, `B: kill ${k + 1} at ${at} of ${total} originals`, { progress: () => countOriginals(libB), at });
      orphans += r.run.orphans;
      if (r.killed) killed++;
      const c = await runCheck(libB, `B: check ${k + 1}`);
      if (c) checks.push(`${c.ok ? 'ok' : `FAIL (${c.detail})`}`);
    }
    verdict(`${options.kills} kill -9 at random moments`, killed > 0 ? orphans === 0 : undefined, `${killed} killed mid-run (${options.kills - killed} had finished first), ${orphans} process(es) under a killed ingest outlived it by 3 s`);
    if (check && checks.length) verdict('check after each kill', checks.every((c) => c === 'ok'), checks.join('; '));
    const finish = (await ingest(libB, 'B: run to the end')).report!;
    const settle = (await ingest(libB, 'B: second run')).report!;
    verdict('B: a run after the kills adds nothing more', settle.docsAdded === 0 && settle.docsUpdated === 0, `${settle.docsAdded} added, ${settle.docsUpdated} updated, ${settle.docsSkipped} unchanged (the run before it: ${finish.docsAdded} added, ${finish.docsUpdated} updated)`);
    const checkB = await runCheck(libB, 'B: final check');
    if (checkB) verdict('B: final check', checkB.ok, checkB.detail);
    else verdict('groundwork check', undefined, 'not in this build of the CLI (waits for CHECK LANDED); B compared with A instead');
    const key = (d: DocJson) => `${d.id} ${d.blocks} ${[...d.paths].map((p) => resolve(p)).sort().join('|')}`;
    const docsB = await docs(libB);
    const onlyA = docsA.map(key).filter((x) => !new Set(docsB.map(key)).has(x));
    const onlyB = docsB.map(key).filter((x) => !new Set(docsA.map(key)).has(x));
    verdict(`B (killed ${options.kills} times, re-run) equals A (one clean run)`, onlyA.length === 0 && onlyB.length === 0, `${docsA.length} vs ${docsB.length} documents, ${docsA.reduce((n, d) => n + d.blocks, 0)} vs ${docsB.reduce((n, d) => n + d.blocks, 0)} blocks${onlyA.length ? `; only in A: ${onlyA.slice(0, 3).join('; ')}` : ''}${onlyB.length ? `; only in B: ${onlyB.slice(0, 3).join('; ')}` : ''}`);

    // RSS.
    const ingestSamples = soak.samples.filter((s) => s.phase.startsWith('A:') || s.phase.startsWith('B:'));
    const peak = Math.max(0, ...ingestSamples.map((s) => s.mb));
    const firstRun = soak.samples.filter((s) => s.phase === 'A: first run');
    const quarter = Math.max(1, Math.floor(firstRun.length / 4));
    const early = Math.max(0, ...firstRun.slice(0, quarter).map((s) => s.mb));
    const late = Math.max(0, ...firstRun.slice(-quarter).map((s) => s.mb));
    verdict(`RSS under ${options.rssLimitMb} MB`, peak < options.rssLimitMb, `peak ${peak.toFixed(0)} MB over ${ingestSamples.length} one-second samples of the ingest process tree; first run: first-quarter peak ${early.toFixed(0)} MB, last-quarter peak ${late.toFixed(0)} MB`);
    return { files: set.paths.length, bytes: set.bytes, kinds: set.kinds, samples: soak.samples, verdicts, runs, seconds: soak.elapsed() };
  } finally {
    if (options.keep) log(`soak: kept ${base}`);
    else rmSync(base, { recursive: true, force: true });
  }
}

/** RSS over time, at most `rows` rows: each the peak of its time slice, with the phase it was in. */
export function rssTable(samples: readonly RssSample[], rows = 20): (string | number)[][] {
  const ingest = samples.filter((s) => s.phase !== 'ls' && !s.phase.includes('check'));
  if (ingest.length === 0) return [];
  const per = Math.ceil(ingest.length / rows);
  const out: (string | number)[][] = [];
  for (let i = 0; i < ingest.length; i += per) {
    const slice = ingest.slice(i, i + per);
    const top = slice.reduce((a, b) => (b.mb > a.mb ? b : a));
    out.push([`${slice[0]!.t.toFixed(0)}-${slice[slice.length - 1]!.t.toFixed(0)}`, top.phase, String(Math.round(top.mb)), String(Math.max(...slice.map((s) => s.processes)))]);
  }
  return out;
}

export function printSoak(result: SoakResult, options: SoakOptions): void {
  console.log(`\n${result.files} files (${(result.bytes / MB).toFixed(1)} MB: ${Object.entries(result.kinds).map(([k, n]) => `${n} ${k}`).join(', ')}), seed ${options.seed}, ${options.kills} kill(s), OCR ${options.ocr}; ${result.seconds.toFixed(0)} s in all`);
  printTable('Soak: ingest runs', ['run', 'seconds', 'added', 'updated', 'unchanged', 'rejected', 'peak RSS (MB)'], result.runs.map((r) => [r.phase, r.seconds, ...(r.killed ? ['killed', '', '', ''] : [r.added, r.updated, r.unchanged, r.rejected].map(String)), String(Math.round(r.peakMb))]));
  printTable('Soak: RSS of the ingest process tree over time (peak of each slice, sampled every second)', ['seconds', 'phase', 'RSS (MB)', 'processes'], rssTable(result.samples));
  printTable('Soak: verdicts', ['check', 'result', 'detail'], result.verdicts.map((v) => [v.name, v.ok === undefined ? 'n/a' : v.ok ? 'ok' : 'FAIL', v.detail.replace(/\|/g, '/')]));
}

/** The small soak of `npm run bench`. */
export async function main(): Promise<void> {
  const options: SoakOptions = { files: Number(process.env.GW_BENCH_SOAK_FILES ?? 300), kills: 2, seed: 20261202, ocr: 'off', maxSeedBytes: 4 * MB, rssLimitMb: 512, keep: false, log: (l) => console.error(l) };
  printSoak(await runSoak(options), options);
}

const HELP = `usage: npm run soak -- [--files N] [--kills N] [--seed S] [--workers N] [--ocr auto|off] [--max-seed-bytes N] [--rss-limit MB] [--cli PATH] [--keep]`;

async function cli(): Promise<number> {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '10000' },
      kills: { type: 'string', default: '5' },
      seed: { type: 'string', default: '20261202' },
      workers: { type: 'string' },
      ocr: { type: 'string', default: 'off' },
      'max-seed-bytes': { type: 'string', default: String(4 * MB) },
      'rss-limit': { type: 'string', default: '512' },
      keep: { type: 'boolean', default: false },
      cli: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const n = (name: string, v: string | undefined) => {
    const x = Number(v);
    if (!Number.isInteger(x) || x < 0) throw new Error(`soak: --${name} must be a non-negative integer, got ${v}\n${HELP}`);
    return x;
  };
  if (values.ocr !== 'auto' && values.ocr !== 'off') throw new Error(`soak: --ocr must be auto or off\n${HELP}`);
  const cli = resolve(values.cli ?? DEFAULT_CLI);
  if (!existsSync(cli)) throw new Error(`soak: ${cli} not found`);
  const options: SoakOptions = {
    cli,
    files: n('files', values.files),
    kills: n('kills', values.kills),
    seed: n('seed', values.seed),
    ...(values.workers !== undefined && { workers: n('workers', values.workers) }),
    ocr: values.ocr,
    maxSeedBytes: n('max-seed-bytes', values['max-seed-bytes']),
    rssLimitMb: n('rss-limit', values['rss-limit']),
    keep: values.keep,
    log: (l) => console.error(l),
  };
  const result = await runSoak(options);
  printSoak(result, options);
  return result.verdicts.some((v) => v.ok === false) ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await cli();

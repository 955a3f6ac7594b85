/**
 * PDF parsing speed: pages/s of `parse()` with full layout analysis (reading order, structure,
 * furniture, tables) beside poppler's `pdftotext` (spawned, when installed) and pdfjs-dist text
 * extraction, measured in the same run. Run: node --import tsx bench/pdf.ts
 *
 * Fair by construction: every tool opens and extracts the same file from bytes already read (the
 * file is in the page cache for pdftotext), every tool is warmed up first (page workers and their
 * JIT included), and the tools are timed in interleaved rounds so a change in machine load hits
 * all of them alike. Each figure is the median of its rounds. pdftotext's time is its process's
 * (start-up included) less what spawning a no-op process (`true`) costs this Node process.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './inputs.js';
import { pdfParser } from '../src/parsers/pdf.js';

const corpusDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpus', 'pdf');
const FILES = ['tracemonkey.pdf', 'federal-register-2020-17221.pdf', 'redp5110_sampled.pdf', 'normal_4pages.pdf'];
/**
 * Untimed runs of each tool before the rounds: at least this many, for at least this long. JIT
 * compilers (V8 for groundwork's threads and pdfjs-dist) keep optimising for dozens of runs of a
 * small file; the rounds measure the steady state, as pdftotext's native code has from its start.
 */
const WARM_UP_RUNS = 3;
const WARM_UP_S = 2;
const ROUNDS = 7;
/** pdftotext runs per CPU-time sample: /usr/bin/time reports 10 ms steps, too coarse for one run. */
const CHILD_LOOP = 10;

function hasPdftotext(): boolean {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function pdfjsText(bytes: Uint8Array): Promise<number> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: bytes.slice(), useSystemFonts: false, verbosity: 0 }).promise;
  let chars = 0;
  for (let p = 1; p <= doc.numPages; p++) {
    const page = await doc.getPage(p);
    const content = await page.getTextContent();
    for (const item of content.items) if ('str' in item) chars += item.str.length;
    page.cleanup();
  }
  await doc.destroy();
  return chars;
}

type Tool = () => unknown;

/** Median wall seconds per tool, from interleaved rounds after each tool's warm-up. */
async function interleaved(tools: Record<string, Tool>): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = {};
  for (const [name, run] of Object.entries(tools)) {
    const start = performance.now();
    for (let i = 0; i < WARM_UP_RUNS || performance.now() - start < WARM_UP_S * 1000; i++) await run();
    samples[name] = [];
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(tools)) {
      const t0 = performance.now();
      await run();
      samples[name]!.push((performance.now() - t0) / 1000);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, times]) => [name, median(times)]));
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1]!;
}

/** Median process CPU seconds (user + system) of one call, over `ROUNDS` calls (already warm). */
async function cpuSeconds(fn: Tool): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const before = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1e6);
  }
  return median(samples);
}

/** Median CPU seconds of one pdftotext run (process start included), from the children's rusage. */
function childCpuSeconds(path: string): number | undefined {
  if (!existsSync('/usr/bin/time')) return undefined;
  const loop = `for i in $(seq ${CHILD_LOOP}); do pdftotext -enc UTF-8 "$0" - >/dev/null; done`;
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const out = spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', loop, path], { encoding: 'utf8' });
    const [user, system] = out.stderr.trim().split(/\s+/).slice(-2).map(Number);
    if (user === undefined || system === undefined || Number.isNaN(user + system)) return undefined;
    samples.push((user + system) / CHILD_LOOP);
  }
  return median(samples);
}

function withWorkers(count: number, parse: () => Promise<unknown>): Tool {
  return async () => {
    process.env.GROUNDWORK_PDF_WORKERS = String(count);
    try {
      return await parse();
    } finally {
      delete process.env.GROUNDWORK_PDF_WORKERS;
    }
  };
}

export async function main(): Promise<void> {
  if (!existsSync(corpusDir)) {
    console.log(`bench/pdf: ${corpusDir} not found; skipped`);
    return;
  }
  const poppler = hasPdftotext();
  const cores = availableParallelism();
  const rows: (string | number)[][] = [];
  for (const file of FILES) {
    const path = join(corpusDir, file);
    const bytes = new Uint8Array(readFileSync(path));
    const draft = await pdfParser.parse({ bytes, name: file }, {});
    const pages = draft.pageCount ?? 1;
    const parse = (): Promise<unknown> => Promise.resolve(pdfParser.parse({ bytes, name: file }, {}));
    const single = withWorkers(0, parse);
    const tools: Record<string, Tool> = {
      single,
      parallel: withWorkers(Math.max(1, cores - 1), parse),
      pdfjs: () => pdfjsText(bytes),
      ...(poppler && {
        pdftotext: () => execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { maxBuffer: 1 << 28 }),
        spawn: () => execFileSync('true'),
      }),
    };
    const seconds = await interleaved(tools);
    const rate = (name: string): number => pages / seconds[name]!;
    const ours = Math.max(rate('single'), rate('parallel'));
    const popplerRate = poppler ? pages / Math.max(1e-4, seconds.pdftotext! - seconds.spawn!) : undefined;
    // CPU seconds per run, which a busy machine disturbs less than wall time.
    const oursCpu = await cpuSeconds(single);
    const popplerCpu = poppler ? childCpuSeconds(path) : undefined;
    rows.push([
      `${file} (${pages})`,
      rate('single'),
      rate('parallel'),
      popplerRate ?? 'n/a',
      rate('pdfjs'),
      popplerRate ? `${(ours / popplerRate).toFixed(2)}x` : 'n/a',
      popplerCpu ? `${(popplerCpu / oursCpu).toFixed(2)}x` : 'n/a',
      `${(ours / rate('pdfjs')).toFixed(2)}x`,
    ]);
  }
  printTable(
    `PDF: pages/s (median of ${ROUNDS} interleaved rounds after ${WARM_UP_S} s of warm-up each), groundwork parse() (full layout) vs pdftotext vs pdfjs-dist getTextContent (ratios use the faster groundwork column; load average ${loadavg()[0]!.toFixed(1)} on ${cores} cores)`,
    ['file (pages)', 'groundwork, 1 thread', `groundwork, ${cores} threads`, 'pdftotext (less spawn cost)', 'pdfjs-dist 5.6.205', 'vs pdftotext', 'vs pdftotext, CPU time (1 thread)', 'vs pdfjs'],
    rows,
  );
  if (!poppler) console.log('\npdftotext not installed (Debian poppler-utils): its column is n/a.');
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

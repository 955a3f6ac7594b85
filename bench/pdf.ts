/**
 * PDF parsing speed: pages/s of `parse()` with full layout analysis (reading order, structure,
 * furniture, tables) beside poppler's `pdftotext` (spawned, when installed) and pdfjs-dist text
 * extraction, measured in the same run, then the peak memory of a 1,000-page parse.
 * Run: node --import tsx bench/pdf.ts (GW_BENCH_SKIP=speed or memory runs only the other part)
 *
 * Fair by construction: every tool opens and extracts the same file from bytes already read (the
 * file is in the page cache for pdftotext), every tool is warmed up first (page workers and their
 * JIT included), and the tools are timed in interleaved rounds so a change in machine load hits
 * all of them alike. Each figure is the median of its rounds. pdftotext's time is its process's
 * (start-up included) less what spawning a no-op process (`true`) costs this Node process.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './inputs.js';
import { allocUtf8, loadEngine, openDocument } from '../src/pdf/engine.js';
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
  if (process.env.GW_BENCH_SKIP !== 'speed') await speed(poppler);
  if (process.env.GW_BENCH_SKIP !== 'memory') await memory(poppler);
}

/** Pages/s of parse() beside pdftotext and pdfjs-dist, in interleaved rounds. */
async function speed(poppler: boolean): Promise<void> {
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

/** Pages of the long document the memory measurement builds (the 1,000-page file). */
const LONG_PAGES = 1000;
const MIB = 1024 * 1024;

/**
 * A 1,000-page PDF made of tracemonkey.pdf's pages over and over, written once to the temp folder.
 * Imported by PDFium in one call, its fonts are shared as in a real book (1 MB); imported 14 pages
 * per call, every copy carries its own fonts (70 MB): a large file for the same pages.
 */
async function longPdf(sharedFonts: boolean): Promise<string> {
  const path = join(tmpdir(), `groundwork-bench-tracemonkey-${LONG_PAGES}${sharedFonts ? '' : '-unshared'}.pdf`);
  if (existsSync(path)) return path;
  const engine = await loadEngine();
  const raw = engine.raw;
  const source = openDocument(engine, new Uint8Array(readFileSync(join(corpusDir, 'tracemonkey.pdf'))), undefined);
  const ranges: string[] = [];
  for (let n = 0; n < LONG_PAGES; n += source.pageCount) ranges.push(`1-${Math.min(source.pageCount, LONG_PAGES - n)}`);
  const dest = raw.FPDF_CreateNewDocument!();
  const calls = sharedFonts ? [ranges.join(',')] : ranges;
  const range = allocUtf8(engine, calls.reduce((a, b) => (a.length > b.length ? a : b)));
  const writer = raw.PDFiumExt_OpenFileWriter!();
  try {
    for (const call of calls) {
      engine.heap().HEAPU8.set(Buffer.from(`${call}\0`, 'utf8'), range);
      if (!raw.FPDF_ImportPages!(dest, source.handle, range, raw.FPDF_GetPageCount!(dest))) throw new Error('PDFium could not build the long PDF');
    }
    if (!raw.PDFiumExt_SaveAsCopy!(dest, writer)) throw new Error('PDFium could not save the long PDF');
    const size = raw.PDFiumExt_GetFileWriterSize!(writer);
    const buffer = engine.malloc(size);
    raw.PDFiumExt_GetFileWriterData!(writer, buffer, size);
    writeFileSync(path, engine.heap().HEAPU8.slice(buffer, buffer + size));
    engine.free(buffer);
  } finally {
    raw.PDFiumExt_CloseFileWriter!(writer);
    engine.free(range);
    raw.FPDF_CloseDocument!(dest);
    source.close();
  }
  return path;
}

interface MemoryRun {
  pages: number;
  elements: number;
  seconds: number;
  rssBefore: number;
  rssPeak: number;
}

/** Peak RSS of `parse()` on a short and a 1,000-page PDF, each in a fresh process running the built package. */
async function memory(poppler: boolean): Promise<void> {
  const child = fileURLToPath(new URL('./children/pdf-memory.mjs', import.meta.url));
  if (!existsSync(new URL('../dist/index.js', import.meta.url))) {
    console.log('\nbench/pdf memory: the built package is missing (npm run build); skipped');
    return;
  }
  const files = [join(corpusDir, 'tracemonkey.pdf'), await longPdf(true), await longPdf(false)];
  const workers = Math.max(1, availableParallelism() - 1);
  const rows: (string | number)[][] = [];
  for (const file of files) {
    const run = (threads: number): MemoryRun => {
      const out = spawnSync(process.execPath, [child, file], { encoding: 'utf8', maxBuffer: 1 << 24, env: { ...process.env, GROUNDWORK_PDF_WORKERS: String(threads) } });
      if (out.status !== 0) throw new Error(`pdf-memory child failed: ${out.stderr}`);
      return JSON.parse(out.stdout) as MemoryRun;
    };
    const single = run(0);
    const shared = run(workers);
    const popplerPeak = poppler && existsSync('/usr/bin/time') ? spawnSync('/usr/bin/time', ['-f', '%M', 'pdftotext', '-enc', 'UTF-8', file, '/dev/null'], { encoding: 'utf8' }).stderr.trim().split(/\s+/).pop() : undefined;
    const label = file.endsWith('tracemonkey.pdf') ? 'tracemonkey.pdf' : `tracemonkey x ${(LONG_PAGES / 14).toFixed(1)}${file.includes('unshared') ? ', fonts per copy' : ''}`;
    rows.push([
      `${label} (${single.pages})`,
      (readFileSync(file).length / MIB).toFixed(1),
      single.elements,
      (single.pages / single.seconds).toFixed(0),
      (single.rssBefore / MIB).toFixed(0),
      (single.rssPeak / MIB).toFixed(0),
      (shared.pages / shared.seconds).toFixed(0),
      (shared.rssPeak / MIB).toFixed(0),
      popplerPeak ? (Number(popplerPeak) / 1024).toFixed(0) : 'n/a',
    ]);
  }
  printTable(
    `PDF memory: peak RSS of parse() (whole analysis) in a fresh process on the built package, one thread and with ${workers} page worker(s), a short file and ${LONG_PAGES}-page ones (fonts shared, and one copy of the fonts per 14 pages)`,
    ['file (pages)', 'MB', 'elements', 'pages/s, 1 thread', 'RSS before, MB', 'peak RSS, 1 thread, MB', `pages/s, ${workers + 1} threads`, `peak RSS, ${workers + 1} threads, MB`, 'pdftotext peak RSS, MB'],
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

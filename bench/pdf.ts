/**
 * PDF parsing speed: pages/s of `parse()` with full layout analysis (reading order, structure,
 * furniture, tables) beside poppler's `pdftotext` (spawned, when installed) and pdfjs-dist text
 * extraction, measured in the same run. Run: node --import tsx bench/pdf.ts
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable, timeItAsync, timeIt } from './inputs.js';
import { pdfParser } from '../src/parsers/pdf.js';

const corpusDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpus', 'pdf');
const FILES = ['tracemonkey.pdf', 'federal-register-2020-17221.pdf', 'redp5110_sampled.pdf', 'normal_4pages.pdf'];

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

/** Median process CPU seconds (user + system) of `runs` calls after a warm-up. */
async function cpuSeconds(fn: () => Promise<unknown>, runs: number): Promise<number> {
  await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1e6);
  }
  return samples.sort((a, b) => a - b)[runs >> 1]!;
}

/** Median CPU seconds of pdftotext on `path`, from the child's own rusage (via /usr/bin/time). */
function childCpuSeconds(path: string, runs: number): number | undefined {
  if (!existsSync('/usr/bin/time')) return undefined;
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = spawnSync('/usr/bin/time', ['-f', '%U %S', 'pdftotext', '-enc', 'UTF-8', path, '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const [user, system] = out.stderr.trim().split(/\s+/).slice(-2).map(Number);
    if (user === undefined || system === undefined || Number.isNaN(user + system)) return undefined;
    samples.push(user + system);
  }
  return samples.sort((a, b) => a - b)[runs >> 1]!;
}

export async function main(): Promise<void> {
  if (!existsSync(corpusDir)) {
    console.log(`bench/pdf: ${corpusDir} not found; skipped`);
    return;
  }
  const poppler = hasPdftotext();
  const rows: (string | number)[][] = [];
  for (const file of FILES) {
    const path = join(corpusDir, file);
    const bytes = new Uint8Array(readFileSync(path));
    const draft = await pdfParser.parse({ bytes, name: file }, {});
    const pages = draft.pageCount ?? 1;
    const parse = (): Promise<unknown> => Promise.resolve(pdfParser.parse({ bytes, name: file }, {}));
    process.env.GROUNDWORK_PDF_WORKERS = '0';
    const single = pages / (await timeItAsync(parse, 5));
    process.env.GROUNDWORK_PDF_WORKERS = String(Math.max(1, availableParallelism() - 1));
    const parallel = pages / (await timeItAsync(parse, 5));
    delete process.env.GROUNDWORK_PDF_WORKERS;
    const ours = Math.max(single, parallel);
    const pdfjs = pages / (await timeItAsync(() => pdfjsText(bytes), 3));
    const popplerRate = poppler ? pages / timeIt(() => execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { maxBuffer: 1 << 28 }), 5) : undefined;
    // CPU seconds per run, which a busy machine disturbs less than wall time.
    process.env.GROUNDWORK_PDF_WORKERS = '0';
    const oursCpu = await cpuSeconds(parse, 5);
    delete process.env.GROUNDWORK_PDF_WORKERS;
    const popplerCpu = poppler ? childCpuSeconds(path, 5) : undefined;
    rows.push([
      `${file} (${pages})`,
      single,
      parallel,
      popplerRate ?? 'n/a',
      pdfjs,
      popplerRate ? `${(ours / popplerRate).toFixed(2)}x` : 'n/a',
      popplerCpu ? `${(popplerCpu / oursCpu).toFixed(2)}x` : 'n/a',
      `${(ours / pdfjs).toFixed(2)}x`,
    ]);
  }
  printTable(
    `PDF: pages/s, groundwork parse() (full layout) vs pdftotext vs pdfjs-dist getTextContent (ratios use the faster groundwork column; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`,
    ['file (pages)', 'groundwork, 1 thread', `groundwork, ${availableParallelism()} threads`, 'pdftotext', 'pdfjs-dist 5.6.205', 'vs pdftotext', 'vs pdftotext, CPU time (1 thread)', 'vs pdfjs'],
    rows,
  );
  if (!poppler) console.log('\npdftotext not installed (Debian poppler-utils): its column is n/a.');
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

/**
 * Child process of bench/library.ts: ingests the given folders into a fresh library and prints one
 * JSON line with the report, the wall time and the peak RSS of this process and its worker
 * processes together (sampled from /proc: the workers are processes of their own since the
 * per-file limits). A fresh process per corpus size, so each peak is its own.
 *   node bench/children/library-ingest.mjs LIBRARY_DIR FOLDER...
 * Plain JavaScript on the built package, started without tsx: that is what `groundwork ingest`
 * runs, and tsx's loader (in the main thread, its hooks thread and every worker) would add about
 * 120 MB to the RSS being measured.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const built = new URL('../../dist/index.js', import.meta.url);
if (!existsSync(built)) throw new Error('bench/children/library-ingest.mjs measures the built package: run `npm run build` first');
const { Library } = await import(built.href);

const [libraryDir, ...folders] = process.argv.slice(2);
if (!libraryDir || folders.length === 0) throw new Error('usage: library-ingest.mjs LIBRARY_DIR FOLDER...');

/** Resident bytes of this process and its child processes (the ingest workers), from /proc on Linux. */
function treeRss() {
  const pids = [process.pid];
  try {
    for (const task of readdirSync(`/proc/${process.pid}/task`)) {
      const text = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'latin1').trim();
      if (text) pids.push(...text.split(' ').map(Number));
    }
  } catch {
    return process.memoryUsage.rss();
  }
  let pages = 0;
  for (const pid of pids) {
    try {
      pages += Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]);
    } catch {
      // exited meanwhile
    }
  }
  return pages * 4096;
}

// Sampled so the bench can tell a steady climb (a leak) from one spike, and to count the workers.
const samples = [];
const sampler = setInterval(() => samples.push(treeRss()), 250);
const library = await Library.open(libraryDir);
const t0 = performance.now();
const report = await library.addFiles(folders);
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
const stats = await library.stats();
await library.close();

const rejectedByCode = {};
for (const r of report.rejected) rejectedByCode[r.code] = (rejectedByCode[r.code] ?? 0) + 1;
const half = samples.slice(0, Math.ceil(samples.length / 2));
process.stdout.write(
  `${JSON.stringify({
    seconds,
    docsAdded: report.docsAdded,
    docsSkipped: report.docsSkipped,
    blocksAdded: report.blocksAdded,
    parsed: report.parsed,
    rejectedByCode,
    storedBlocks: stats.blocks,
    // This process's own peak, or the sampled peak of it and its workers together, whichever is higher.
    peakRssMB: Math.max(process.resourceUsage().maxRSS / 1024, samples.length ? Math.max(...samples) / 2 ** 20 : 0),
    // Peak over the first half of the run: equal to the whole run's peak when memory is flat.
    firstHalfPeakRssMB: half.length ? Math.max(...half) / 2 ** 20 : 0,
  })}\n`,
);

/**
 * Child process of bench/library.ts: ingests the given folders into a fresh library and prints one
 * JSON line with the report, the wall time and the process's peak RSS (main thread and workers:
 * worker threads share the process). A fresh process per corpus size, so each peak is its own.
 *   node --import tsx bench/children/library-ingest.ts LIBRARY_DIR FOLDER...
 */
import { existsSync } from 'node:fs';

// The built package when there is one (what users run: workers load plain JS, not tsx), else sources.
const built = new URL('../../dist/index.js', import.meta.url);
const { Library } = (existsSync(built) ? await import(built.href) : await import('../../src/library/library.js')) as typeof import('../../src/library/library.js');
process.stderr.write(`library-ingest: ${existsSync(built) ? 'dist/ (built)' : 'src/ via tsx'}\n`);

const [libraryDir, ...folders] = process.argv.slice(2);
if (!libraryDir || folders.length === 0) throw new Error('usage: library-ingest.ts LIBRARY_DIR FOLDER...');

// Sampled besides maxRSS so the bench can tell a steady climb (a leak) from one spike.
const samples: number[] = [];
const sampler = setInterval(() => samples.push(process.memoryUsage.rss()), 500);
const library = await Library.open(libraryDir);
const t0 = performance.now();
const report = await library.addFiles(folders);
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
const stats = library.stats();
library.close();

const rejectedByCode: Record<string, number> = {};
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
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    // Peak over the first half of the run: equal to the whole run's peak when memory is flat.
    firstHalfPeakRssMB: half.length ? Math.max(...half) / 2 ** 20 : 0,
  })}\n`,
);

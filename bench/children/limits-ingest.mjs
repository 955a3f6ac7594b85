/**
 * Child process of bench/limits.ts: ingests FOLDER into a fresh library with `workers` N (0: in
 * this process, no per-file limits; N > 0: N worker processes under the limits) and prints one JSON
 * line: wall time, files, documents, and the peak resident set of this process and its workers.
 *   node bench/children/limits-ingest.mjs LIBRARY_DIR WORKERS FOLDER
 * Plain JavaScript on the built package (`npm run build`), as `groundwork ingest` runs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const built = new URL('../../dist/index.js', import.meta.url);
if (!existsSync(built)) throw new Error('bench/children/limits-ingest.mjs measures the built package: run `npm run build` first');
const { Library } = await import(built.href);

const [libraryDir, workers, folder] = process.argv.slice(2);
if (!libraryDir || workers === undefined || !folder) throw new Error('usage: limits-ingest.mjs LIBRARY_DIR WORKERS FOLDER');

/** Resident MB of this process and its child processes (Linux /proc; 0 elsewhere). */
function treeRssMb() {
  const pids = [process.pid];
  try {
    for (const task of readdirSync(`/proc/${process.pid}/task`)) {
      const text = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'latin1').trim();
      if (text) pids.push(...text.split(' ').map(Number));
    }
  } catch {
    return 0;
  }
  let pages = 0;
  for (const pid of pids) {
    try {
      pages += Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]);
    } catch {
      // exited meanwhile
    }
  }
  return (pages * 4096) / 2 ** 20;
}

let peakTree = 0;
const sampler = setInterval(() => (peakTree = Math.max(peakTree, treeRssMb())), 200);
const library = await Library.open(libraryDir);
const t0 = performance.now();
let firstFileSeconds = 0;
const report = await library.addFiles([folder], {
  workers: Number(workers),
  // The first file's time holds the fixed part: starting and warming up the workers.
  onProgress: (p) => {
    if (p.filesDone === 1) firstFileSeconds = (performance.now() - t0) / 1000;
  },
});
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
await library.close();
const rejectedByCode = {};
for (const r of report.rejected) rejectedByCode[r.code] = (rejectedByCode[r.code] ?? 0) + 1;
process.stdout.write(
  `${JSON.stringify({
    seconds,
    firstFileSeconds,
    docsAdded: report.docsAdded,
    docsSkipped: report.docsSkipped,
    blocksAdded: report.blocksAdded,
    rejectedByCode,
    peakRssMB: Math.max(process.resourceUsage().maxRSS / 1024, peakTree),
  })}\n`,
);

/**
 * `npm run bench`: runs every benchmark module in bench/ (each exports `main()`), one after another
 * in this one process, so every table is measured on the same machine state and inputs.
 *   npm run bench                 all of them
 *   npm run bench -- tokens qwen  only modules whose file name contains one of the words
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
/** Shared helpers and this runner, not benchmarks. */
const NOT_BENCHMARKS = new Set(['inputs.ts', 'run.ts']);

function benchModules(filters: readonly string[]): string[] {
  return readdirSync(BENCH_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !NOT_BENCHMARKS.has(f))
    .filter((f) => filters.length === 0 || filters.some((word) => f.includes(word)))
    .sort();
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2);
  const modules = benchModules(filters);
  if (modules.length === 0) {
    console.error(`bench: no benchmark in ${BENCH_DIR} matches ${filters.join(', ') || '(any)'}`);
    process.exitCode = 1;
    return;
  }
  console.log(`# Groundwork benchmarks\n\nNode ${process.version}, ${process.platform}/${process.arch}; modules: ${modules.join(', ')}`);
  for (const file of modules) {
    const mod = (await import(pathToFileURL(`${BENCH_DIR}${file}`).href)) as { main?: unknown };
    if (typeof mod.main !== 'function') {
      console.error(`bench: ${file} does not export main(); skipped`);
      process.exitCode = 1;
      continue;
    }
    console.log(`\n## ${file.replace(/\.ts$/, '')}`);
    const t0 = performance.now();
    await (mod.main as () => Promise<void>)();
    // Collect between modules (npm run bench passes --expose-gc) so one module's garbage is not
    // charged to the next one's timings.
    (globalThis as { gc?: () => void }).gc?.();
    console.log(`\n(${file}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
}

await main();

/**
 * Child process of bench/pathological.ts: parses and chunks one file with the built package (default
 * strategy, as `groundwork ingest` does) and prints one JSON line: the CPU seconds of parse and
 * chunk (user + system: the machine may be shared, so wall time is not the measure), the wall
 * seconds, the RSS before the file and the process's peak RSS, and the sizes of the output.
 *   node bench/children/pathological-one.mjs FILE
 * Plain JavaScript on the built package, started without tsx (whose loader adds ~120 MB of RSS).
 */
import { existsSync } from 'node:fs';

const built = new URL('../../dist/index.js', import.meta.url);
if (!existsSync(built)) throw new Error('bench/children/pathological-one.mjs measures the built package: run `npm run build` first');
const { parse, chunk, GroundworkError } = await import(built.href);

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: pathological-one.mjs FILE');

// Load the tokenizer's vocabulary before measuring: its one-off cost is not the file's.
chunk(await parse(Buffer.from("Warm up. Text."), { name: "warm.txt" }));
globalThis.gc?.();
const before = process.memoryUsage.rss();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let result;
try {
  const doc = await parse(file);
  const chunks = chunk(doc);
  let chunkChars = 0;
  for (const c of chunks) chunkChars += c.text.length;
  result = { ok: true, canonicalChars: doc.canonical.length, elements: doc.elements.length, chunks: chunks.length, chunkChars };
} catch (error) {
  if (!(error instanceof GroundworkError)) throw error;
  result = { ok: false, code: error.code };
}
const cpu = process.cpuUsage(cpu0);
const seconds = (performance.now() - t0) / 1000;
const peak = Math.max(process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024);
process.stdout.write(`${JSON.stringify({ ...result, cpuSeconds: (cpu.user + cpu.system) / 1e6, seconds, rssBefore: before, rssPeak: peak })}\n`);

/**
 * Child process of bench/pdf.ts: parses one PDF with the built package, as `groundwork parse` does
 * (page workers by default), and prints one JSON line: pages, elements, wall seconds, the RSS
 * before the parse and the process's peak RSS (worker threads share the process).
 *   node bench/children/pdf-memory.mjs FILE.pdf
 * Plain JavaScript on the built package, started without tsx (whose loader adds ~120 MB of RSS).
 */
import { existsSync } from 'node:fs';

const built = new URL('../../dist/index.js', import.meta.url);
if (!existsSync(built)) throw new Error('bench/children/pdf-memory.mjs measures the built package: run `npm run build` first');
const { parse } = await import(built.href);

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: pdf-memory.mjs FILE.pdf');

const before = process.memoryUsage.rss();
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
const t0 = performance.now();
const doc = await parse(file, { ocr: 'off' });
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024);
process.stdout.write(`${JSON.stringify({ pages: doc.pageCount, elements: doc.elements.length, canonicalChars: doc.canonical.length, seconds, rssBefore: before, rssPeak: peak })}\n`);

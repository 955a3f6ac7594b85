import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Benchmark inputs: real English and Chinese prose from the shared eval corpora (SQuAD dev,
 * CMRC 2018 dev), concatenated to a target size. Every bench uses these so numbers compare.
 */
const evalDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'eval');

function corpusText(dataset: string): string {
  const dir = join(evalDir, dataset, 'corpus');
  if (!existsSync(dir)) throw new Error(`bench input ${dir} not found: the benchmarks need ../shared/eval`);
  return readdirSync(dir)
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n\n');
}

const cache = new Map<string, string>();

/** About `bytes` UTF-8 bytes of English ('en') or Chinese ('zh') text, repeated if the corpus is smaller. */
export function benchText(lang: 'en' | 'zh', bytes: number): string {
  const key = `${lang}:${bytes}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const base = corpusText(lang === 'en' ? 'squad-v1.1-dev' : 'cmrc2018-dev');
  let out = '';
  while (Buffer.byteLength(out) < bytes) out += (out ? '\n\n' : '') + base;
  // Cut on a paragraph boundary near the target so every size is real prose.
  const cut = Buffer.from(out).subarray(0, bytes).toString('utf8').replace(/\uFFFD$/, '');
  const text = cut.slice(0, Math.max(cut.lastIndexOf('\n\n'), cut.length / 2));
  cache.set(key, text);
  return text;
}

export function mb(text: string): number {
  return Buffer.byteLength(text) / (1024 * 1024);
}

/** Median seconds of `runs` calls of fn (after one warm-up call). */
export function timeIt(fn: () => unknown, runs = 3): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function timeItAsync(fn: () => Promise<unknown>, runs = 3): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Prints a Markdown table (so it can be pasted into the README as printed). */
export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  console.log(`\n### ${title}\n`);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => ' --- |').join('')}`);
  for (const row of rows) console.log(`| ${row.map((c) => (typeof c === 'number' ? fmt(c) : c)).join(' | ')} |`);
}

function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

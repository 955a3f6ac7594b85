/**
 * Linearity on pathological input: for each generator in test/fixtures/pathological.ts, parse +
 * chunk (default strategy) of its file at 1x, 4x and 16x its `benchBytes`, each in a fresh child
 * process (bench/children/pathological-one.mjs, the built package) so the peak RSS is that file's.
 * Prints CPU seconds per MB at each size, the peak RSS, and the ratio of s/MB at the largest size
 * to 1x: linear code stays near 1; above 2 is flagged superlinear.
 *
 * Environment:
 *   GW_BENCH_PATHOLOGICAL_SCALES  comma-separated multiples of benchBytes (default 1,4,16; e.g. 1,4 to be quick)
 *   GW_BENCH_PATHOLOGICAL_ONLY    comma-separated generator names (default: all)
 * Needs `npm run build` (the child measures dist/, started without tsx's loader).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATORS, type PathologicalGenerator } from '../test/fixtures/pathological.js';
import { printTable } from './inputs.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH_DIR, '..');
const CHILD = join(BENCH_DIR, 'children', 'pathological-one.mjs');
const MB = 1024 * 1024;
/** s/MB at the largest size over s/MB at 1x above which a row is flagged. */
export const SUPERLINEAR_RATIO = 2;
/** Below this many CPU seconds at 1x the ratio is mostly process noise: not flagged. */
const MIN_SECONDS_FOR_RATIO = 0.05;

interface Measurement {
  bytes: number;
  ok: boolean;
  code?: string;
  cpuSeconds: number;
  rssPeakMb: number;
  rssBeforeMb?: number;
  chunkChars?: number;
  canonicalChars?: number;
  error?: string;
}

function scales(): number[] {
  const raw = process.env.GW_BENCH_PATHOLOGICAL_SCALES ?? '1,4,16';
  const list = raw.split(',').map(Number).filter((n) => Number.isFinite(n) && n > 0);
  return list.length > 0 ? list : [1, 4, 16];
}

function selected(): readonly PathologicalGenerator[] {
  const only = process.env.GW_BENCH_PATHOLOGICAL_ONLY?.split(',').filter(Boolean);
  return only ? GENERATORS.filter((g) => only.includes(g.name)) : GENERATORS;
}

function measure(file: string, bytes: number): Promise<Measurement> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code, signal) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        done({ bytes, ok: false, cpuSeconds: NaN, rssPeakMb: NaN, error: `exit ${code ?? signal}: ${err.trim().split('\n').slice(-2).join(' / ').slice(0, 200)}` });
        return;
      }
      const json = JSON.parse(last) as Record<string, unknown>;
      done({
        bytes,
        ok: json.ok === true,
        ...(typeof json.code === 'string' && { code: json.code }),
        cpuSeconds: json.cpuSeconds as number,
        rssPeakMb: (json.rssPeak as number) / MB,
        rssBeforeMb: (json.rssBefore as number) / MB,
        ...(typeof json.chunkChars === 'number' && { chunkChars: json.chunkChars, canonicalChars: json.canonicalChars as number }),
      });
    });
  });
}

function cell(m: Measurement): string {
  if (m.error) return 'crash';
  const rate = (m.cpuSeconds / (m.bytes / MB)).toFixed(m.cpuSeconds / (m.bytes / MB) >= 10 ? 1 : 3);
  return m.ok ? rate : `${rate} (${m.code})`;
}

export async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('bench/pathological.ts measures the built package: run `npm run build` first');
  const factors = scales();
  const dir = mkdtempSync(join(tmpdir(), 'groundwork-pathological-'));
  const rows: (string | number)[][] = [];
  const flagged: string[] = [];
  const crashes: string[] = [];
  const baselines: number[] = [];
  try {
    for (const g of selected()) {
      const results: Measurement[] = [];
      for (const factor of factors) {
        const text = g.generate(Math.round(g.benchBytes * factor));
        const file = join(dir, `${factor}x-${g.fileName}`);
        writeFileSync(file, text);
        const bytes = Buffer.byteLength(text);
        const m = await measure(file, bytes);
        rmSync(file, { force: true });
        if (m.error) crashes.push(`${g.name} at ${factor}x: ${m.error}`);
        results.push(m);
        if (m.rssBeforeMb !== undefined) baselines.push(m.rssBeforeMb);
      }
      const first = results[0]!;
      const last = results[results.length - 1]!;
      const ratio = first.cpuSeconds > 0 ? last.cpuSeconds / last.bytes / (first.cpuSeconds / first.bytes) : NaN;
      const judged = first.cpuSeconds >= MIN_SECONDS_FOR_RATIO || last.cpuSeconds >= MIN_SECONDS_FOR_RATIO * factors[factors.length - 1]!;
      const superlinear = judged && ratio > SUPERLINEAR_RATIO;
      if (superlinear) flagged.push(g.name);
      const output = last.chunkChars !== undefined && last.canonicalChars ? (last.chunkChars / last.canonicalChars).toFixed(2) : '-';
      rows.push([
        g.name,
        ...results.map((m) => `${(m.bytes / MB).toFixed(m.bytes >= 10 * MB ? 0 : 2)}`),
        ...results.map(cell),
        ...results.map((m) => (Number.isNaN(m.rssPeakMb) ? '-' : m.rssPeakMb.toFixed(0))),
        Number.isNaN(ratio) ? '-' : ratio.toFixed(2),
        output,
        superlinear ? 'SUPERLINEAR' : judged ? 'linear' : 'too fast to judge',
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const sizes = factors.map((f) => `MB ${f}x`);
  printTable(
    'Pathological inputs: parse + chunk (default strategy), one child process per file',
    ['generator', ...sizes, ...factors.map((f) => `CPU s/MB ${f}x`), ...factors.map((f) => `peak RSS MB ${f}x`), `s/MB ${factors[factors.length - 1]}x / ${factors[0]}x`, `chunk chars / text ${factors[factors.length - 1]}x`, 'verdict'],
    rows,
  );
  console.log(`\nCPU seconds (user + system) of parse + chunk in the child; peak RSS is the child's whole process (${Math.min(...baselines).toFixed(0)}-${Math.max(...baselines).toFixed(0)} MB of it is Node, the package and the loaded vocabulary before the file). A ratio above ${SUPERLINEAR_RATIO} is flagged; rows under ${MIN_SECONDS_FOR_RATIO} s are too fast to judge.`);
  if (flagged.length > 0) console.log(`superlinear: ${flagged.join(', ')}`);
  if (crashes.length > 0) console.log(`crashed: ${crashes.join('; ')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

/**
 * The per-file limits benchmark: what running each file in a killable worker process costs.
 *
 * The text-family corpus (shared md/txt/html/csv/json) is copied once and ingested into a fresh
 * library three ways, each by a fresh child process on the built package (`npm run build`):
 * `workers: 0` (parse and chunk in the Library's process: no per-file limits), `workers: 1` (one
 * worker process under the limits, the default on 2 cores) and `workers: 2`. Printed: seconds, ms
 * per file, the ratio to in-process ingest, and the peak RSS of the process and its workers. The
 * first file's time is shown apart: for the worker rows it holds starting and warming up the
 * workers (once per batch); the per-file columns are over the files after it.
 *   npm run bench -- limits
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './inputs.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH_DIR, '..');
const CORPUS = resolve(ROOT, '..', 'shared', 'corpus');
const TEXT_FAMILY = ['md', 'txt', 'html', 'csv', 'json'];

interface Run {
  seconds: number;
  firstFileSeconds: number;
  docsAdded: number;
  docsSkipped: number;
  rejectedByCode: Record<string, number>;
  peakRssMB: number;
}

function runChild(libraryDir: string, workers: number, folder: string): Promise<Run | string> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(BENCH_DIR, 'children', 'limits-ingest.mjs'), libraryDir, String(workers), folder], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code, signal) => {
      const last = out.trim().split('\n').pop() ?? '';
      done(code === 0 && last.startsWith('{') ? (JSON.parse(last) as Run) : `exit ${code ?? signal}: ${err.trim().split('\n').slice(-2).join(' / ').slice(0, 200)}`);
    });
  });
}

export async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) {
    console.log('\nbench/limits.ts measures the built package: run `npm run build` first (skipped).');
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'gw-bench-limits-'));
  try {
    const folder = join(work, 'corpus');
    let files = 0;
    for (const family of TEXT_FAMILY) {
      cpSync(join(CORPUS, family), join(folder, family), { recursive: true, filter: (src) => !src.includes('.expected.') });
      files += readdirSync(join(folder, family)).length;
    }
    console.log(`\nPer-file overhead of the worker processes: ${files} text-family corpus files, a fresh library and process per row; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the start.`);
    const rows: (string | number)[][] = [];
    let base: { seconds: number; perFile: number } | undefined;
    for (const workers of [0, 1, 2]) {
      const result = await runChild(join(work, `library-${workers}`), workers, folder);
      if (typeof result === 'string') {
        rows.push([String(workers), 'failed', result, '', '', '', '', '']);
        continue;
      }
      const handled = result.docsAdded + result.docsSkipped + Object.values(result.rejectedByCode).reduce((a, b) => a + b, 0);
      const perFile = ((result.seconds - result.firstFileSeconds) * 1000) / Math.max(1, handled - 1);
      if (workers === 0) base = { seconds: result.seconds, perFile };
      rows.push([
        workers === 0 ? '0 (in process, no per-file limits)' : `${workers} process${workers > 1 ? 'es' : ''}`,
        String(handled),
        result.seconds.toFixed(1),
        base ? (result.seconds / base.seconds).toFixed(2) : '-',
        result.firstFileSeconds.toFixed(1),
        perFile.toFixed(0),
        base ? (perFile / base.perFile).toFixed(2) : '-',
        result.peakRssMB.toFixed(0),
      ]);
    }
    printTable('Ingest with and without worker processes (Library.addFiles, default options)', ['workers', 'files', 's', 's vs in process', 'first file s', 'ms/file after it', 'ms/file vs in process', 'peak RSS MB (all processes)'], rows);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

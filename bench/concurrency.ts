/**
 * Many writers on one library: `groundwork ingest` runs started at the same moment on one library,
 * against one run doing the same files alone.
 *
 * The corpus's primary files (no ground truth; pdf-scanned, images and audio left out: their OCR
 * would make the bench minutes longer without exercising the store any more) are copied into one
 * folder tree, split by folder into a set A (adversarial .. epub) and B (the rest). Then:
 *   sequential  one `groundwork ingest A B` into a fresh library
 *   concurrent  three `groundwork ingest` started together into one fresh library: A, B and A+B
 *               (the third overlaps the other two), plus one process searching in a loop
 * For each: wall time, files rejected by code (and how many of them for a lock), and whether the
 * concurrent library ends equal to the sequential one (documents, paths, blocks by id and text,
 * term statistics). The module runs unchanged on a tree without this branch's store (the numbers
 * before it: copy it into such a tree's bench/ and run `npm run bench -- concurrency` there).
 *
 * Environment: GW_BENCH_CONCURRENT_RUNS (default 3: A, B, A+B; 2: B, A+B).
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Library } from '../src/library/library.js';
import { printTable } from './inputs.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH_DIR, '..');
const CORPUS = resolve(ROOT, '..', 'shared', 'corpus');
const LEFT_OUT = new Set(['pdf-scanned', 'images', 'audio']);
const A_FOLDERS = new Set(['adversarial', 'csv', 'dialog', 'docx', 'eml', 'epub']);

interface RunResult {
  code: number | null;
  seconds: number;
  report?: { docsAdded: number; docsSkipped: number; docsUpdated: number; rejected: { path: string; code: string; reason: string }[] };
  stderr: string;
}

/** Copies the primary files into `root/<folder>/...`; returns the A and B folder lists and file counts. */
function layout(root: string): { a: string[]; b: string[]; aFiles: number; bFiles: number } {
  const a: string[] = [];
  const b: string[] = [];
  let aFiles = 0;
  let bFiles = 0;
  for (const folder of readdirSync(CORPUS, { withFileTypes: true })) {
    if (!folder.isDirectory() || LEFT_OUT.has(folder.name)) continue;
    const target = join(root, folder.name);
    mkdirSync(target, { recursive: true });
    let n = 0;
    for (const file of readdirSync(join(CORPUS, folder.name), { withFileTypes: true })) {
      if (!file.isFile() || file.name.includes('.expected.')) continue;
      copyFileSync(join(CORPUS, folder.name, file.name), join(target, file.name));
      n++;
    }
    if (A_FOLDERS.has(folder.name)) {
      a.push(target);
      aFiles += n;
    } else {
      b.push(target);
      bFiles += n;
    }
  }
  return { a, b, aFiles, bFiles };
}

/** `groundwork ingest ROOTS --library DIR --json` in a child process (the CLI from source). */
function ingest(library: string, roots: string[]): Promise<RunResult> {
  return new Promise((done) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'ingest', ...roots, '--library', library, '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      let report: RunResult['report'];
      try {
        report = JSON.parse(out);
      } catch {
        report = undefined;
      }
      done({ code, seconds, ...(report && { report }), stderr: err.trim().slice(-400) });
    });
  });
}

/** A process searching the library in a loop until stdin closes; prints `{ searches, errors }`. */
function searcher(library: string): { stop: () => Promise<{ searches: number; errors: string[] }> } {
  const script = `
    import { Library } from ${JSON.stringify(join(ROOT, 'src/index.ts'))};
    const library = await Library.open(${JSON.stringify(library)});
    let stop = false, searches = 0; const errors = [];
    process.stdin.on('data', () => {}); process.stdin.on('end', () => (stop = true));
    while (!stop) {
      try { await library.searchText('table contract 合同 report', { k: 10 }); searches++; } catch (e) { errors.push(String(e.message)); }
      await new Promise((r) => setTimeout(r, 10));
    }
    await library.close();
    process.stdout.write(JSON.stringify({ searches, errors: errors.slice(0, 5), errorCount: errors.length }) + '\\n');
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  return {
    stop: async () => {
      child.stdin.end();
      await exited;
      try {
        const parsed = JSON.parse(out.trim().split('\n').pop() ?? '');
        return { searches: parsed.searches, errors: parsed.errorCount > 0 ? parsed.errors : [] };
      } catch {
        return { searches: 0, errors: [`searcher printed no result: ${out.slice(-200)}`] };
      }
    },
  };
}

/** What a library holds, for comparing two: documents with paths, blocks by id and text, term statistics. */
function contents(library: string): string {
  const db = new Database(join(library, 'library.sqlite'), { readonly: true });
  try {
    const docs = db.prepare('SELECT id, format, config_hash FROM documents ORDER BY id').all();
    const paths = db.prepare('SELECT path, doc_id FROM paths ORDER BY path').all();
    const blocks = db.prepare('SELECT id, doc_id, ordinal, text FROM blocks ORDER BY id').all();
    const terms = db.prepare('SELECT term, df FROM term_df ORDER BY term').all();
    const stats = db.prepare("SELECT key, value FROM index_stats ORDER BY key").all();
    const lengths = db.prepare('SELECT col, blocks, terms FROM fts_lengths ORDER BY col').all();
    return JSON.stringify({ docs, paths, blocks, terms, stats, lengths });
  } finally {
    db.close();
  }
}

function rejectedSummary(results: RunResult[]): { total: number; locked: number; byCode: string } {
  const byCode = new Map<string, number>();
  let locked = 0;
  let total = 0;
  for (const r of results) {
    for (const f of r.report?.rejected ?? []) {
      total++;
      byCode.set(f.code, (byCode.get(f.code) ?? 0) + 1);
      if (/locked|SQLITE_BUSY/i.test(f.reason)) locked++;
    }
  }
  return { total, locked, byCode: [...byCode].map(([c, n]) => `${c} ${n}`).join(', ') || '-' };
}

export async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'gw-bench-concurrency-'));
  try {
    const { a, b, aFiles, bFiles } = layout(join(work, 'corpus'));
    const runs = Number(process.env.GW_BENCH_CONCURRENT_RUNS ?? 3);
    const sets: { name: string; roots: string[]; files: number }[] = [
      ...(runs >= 3 ? [{ name: 'A', roots: a, files: aFiles }] : []),
      { name: 'B', roots: b, files: bFiles },
      { name: 'A+B', roots: [...a, ...b], files: aFiles + bFiles },
    ];
    console.log(
      `\nCorpus: ${aFiles + bFiles} primary files of /work/shared/corpus (without pdf-scanned, images, audio); A = ${aFiles} files ` +
        `(${[...A_FOLDERS].join(', ')}), B = ${bFiles} (the other folders). Each run is \`groundwork ingest ... --json\` in its own process, default options.`,
    );

    const sequentialLib = join(work, 'sequential');
    const sequential = await ingest(sequentialLib, [...a, ...b]);
    const seqRejected = rejectedSummary([sequential]);

    const concurrentLib = join(work, 'concurrent');
    // The library exists before the runs start (created by this process), so the searcher opens it.
    await (await Library.open(concurrentLib)).close();
    const search = searcher(concurrentLib);
    const t0 = performance.now();
    const results = await Promise.all(sets.map((s) => ingest(concurrentLib, s.roots)));
    const wall = (performance.now() - t0) / 1000;
    const searched = await search.stop();
    const conRejected = rejectedSummary(results);
    const equal = contents(sequentialLib) === contents(concurrentLib);

    printTable(
      `${sets.length} concurrent ingests (${sets.map((s) => `${s.name}: ${s.files} files`).join(', ')}) vs one sequential ingest of A+B`,
      ['run', 'files offered', 'wall s', 'rejected', 'rejected for a lock', 'rejected by code', 'searches meanwhile (errors)', 'library equal to sequential'],
      [
        ['sequential A+B', String(aFiles + bFiles), sequential.seconds, String(seqRejected.total), String(seqRejected.locked), seqRejected.byCode, '-', '-'],
        [
          `concurrent ${sets.map((s) => s.name).join(', ')}`,
          String(sets.reduce((s, x) => s + x.files, 0)),
          wall,
          String(conRejected.total),
          String(conRejected.locked),
          conRejected.byCode,
          `${searched.searches} (${searched.errors.length})`,
          equal ? 'yes' : 'NO',
        ],
        ...sets.map((s, i) => {
          const own = rejectedSummary([results[i]!]);
          return [`  ${s.name}`, String(s.files), results[i]!.seconds, String(own.total), String(own.locked), own.byCode, '', ''];
        }),
      ],
    );
    for (const e of searched.errors) console.log(`search error: ${e}`);
    for (const r of results) if (!r.report) console.log(`a run printed no report (exit ${r.code}): ${r.stderr}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

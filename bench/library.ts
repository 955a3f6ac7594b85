/**
 * The library benchmark.
 *
 * 1. Ingest: `Library.addFiles` on the text-family corpus (eval corpora + shared md/txt/html/csv/json)
 *    replicated to growing sizes, each size ingested into a fresh library by a fresh child process:
 *    throughput (MB/s, docs/s) and peak RSS (target: <= 512 MB, flat as the corpus grows).
 * 2. Search: BM25 latency p50/p99 of `search(query, k=10)` at 1M blocks of real English and Chinese
 *    prose, beside MiniSearch on the same blocks and queries (targets: p50 <= 5 ms, p99 <= 50 ms).
 *
 * Environment:
 *   GW_BENCH_INGEST_MB   largest ingest corpus in MB (default 500; sizes are 1/10, 2/5 and all of it)
 *   GW_BENCH_BLOCKS      blocks in the search library (default 1000000)
 *   GW_BENCH_MINISEARCH_BLOCKS  blocks MiniSearch indexes (default: all of them with >= 16 GB of RAM, else none; 0 skips it)
 *   GW_BENCH_SKIP        'ingest' or 'search' to run only the other part
 * The search library is built once and cached under os.tmpdir() (keyed by a version string and
 * the block count); delete groundwork-bench-library-* there to rebuild it.
 */
import { mulberry32 } from '../test/fuzz/prng.js';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze, indexText } from '../src/search/analyze.js';
import { FtsIndexWriter } from '../src/store/sqlite/sqlite-fts.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { printTable } from './inputs.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH_DIR, '..');
const SHARED = resolve(ROOT, '..', 'shared');
const MB = 1024 * 1024;

/** Bump when the generated blocks or the analysis change, so a stale cached library is not reused. */
const BLOCKS_VERSION = 'v2';
export const EN_DATASETS = ['squad-v1.1-dev', 'chroma-general', 'xquad-en'];
export const ZH_DATASETS = ['cmrc2018-dev', 'drcd-dev', 'xquad-zh'];
const TEXT_FAMILY = ['md', 'txt', 'html', 'csv', 'json'];

// ---------------------------------------------------------------------------------------------
// Child processes

interface ChildResult {
  ok: boolean;
  json?: Record<string, any>;
  error?: string;
}

/** Runs a bench child script with tsx and parses the JSON line it prints last. */
function runChild(script: string, args: string[], nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<ChildResult> {
  return new Promise((resolveResult) => {
    // TypeScript children run through tsx; plain .mjs ones (the built package) without it.
    const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const child = spawn(process.execPath, [...nodeArgs, ...loader, join(BENCH_DIR, 'children', script), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code, signal) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) resolveResult({ ok: true, json: JSON.parse(last) });
      else resolveResult({ ok: false, error: `exit ${code ?? signal}: ${err.trim().split('\n').slice(-3).join(' / ').slice(0, 300)}` });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// 1. Ingest

interface CorpusFile {
  name: string;
  bytes: Buffer;
}

function corpusFiles(): CorpusFile[] {
  const files: CorpusFile[] = [];
  for (const dataset of readdirSync(join(SHARED, 'eval')).sort()) {
    const dir = join(SHARED, 'eval', dataset, 'corpus');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.md')) files.push({ name: `${dataset}/${f}`, bytes: readFileSync(join(dir, f)) });
  }
  for (const family of TEXT_FAMILY) {
    const dir = join(SHARED, 'corpus', family);
    for (const f of readdirSync(dir).sort()) {
      if (!f.includes('.expected.')) files.push({ name: `${family}/${f}`, bytes: readFileSync(join(dir, f)) });
    }
  }
  return files;
}

/**
 * A copy of `file` whose bytes differ from every other copy (dedupe is by content hash) while it
 * still parses the same way: a header line for prose formats, trailing whitespace for data formats,
 * written in the file's own encoding when it has a UTF-16 byte-order mark.
 */
function uniqueCopy(file: CorpusFile, copy: number): Buffer {
  const ext = extname(file.name).toLowerCase();
  const b = file.bytes;
  const utf16 = b[0] === 0xff && b[1] === 0xfe ? 'le' : b[0] === 0xfe && b[1] === 0xff ? 'be' : null;
  const encode = (s: string): Buffer => {
    if (!utf16) return Buffer.from(s, 'utf8');
    const le = Buffer.from(s, 'utf16le');
    return utf16 === 'le' ? le : le.swap16();
  };
  const bomLength = utf16 ? 2 : b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  if (ext === '.json' || ext === '.ndjson' || ext === '.csv' || ext === '.tsv') {
    return Buffer.concat([b, encode(`\n${' '.repeat(copy)}`)]);
  }
  const header = ext === '.html' ? `<!-- benchmark copy ${copy} -->\n` : `Benchmark copy ${copy}.\n\n`;
  return Buffer.concat([b.subarray(0, bomLength), encode(header), b.subarray(bomLength)]);
}

/** Writes copies 1..n of the corpus, one folder per copy; returns the folders and their sizes. */
function writeCopies(root: string, files: CorpusFile[], n: number): { dir: string; bytes: number; files: number }[] {
  const copies = [];
  for (let copy = 1; copy <= n; copy++) {
    const dir = join(root, `copy-${String(copy).padStart(4, '0')}`);
    let bytes = 0;
    for (const f of files) {
      const target = join(dir, f.name);
      mkdirSync(dirname(target), { recursive: true });
      const data = uniqueCopy(f, copy);
      writeFileSync(target, data);
      bytes += data.length;
    }
    copies.push({ dir, bytes, files: files.length });
  }
  return copies;
}

async function ingestBench(): Promise<void> {
  const largestMB = Number(process.env.GW_BENCH_INGEST_MB ?? 500);
  const files = corpusFiles();
  const baseBytes = files.reduce((s, f) => s + f.bytes.length, 0);
  const sizes = [...new Set([largestMB / 10, (largestMB * 2) / 5, largestMB].map((mb) => Math.max(1, Math.round((mb * MB) / baseBytes))))];
  const work = mkdtempSync(join(tmpdir(), 'gw-bench-ingest-'));
  const rows: (string | number)[][] = [];
  try {
    const t0 = performance.now();
    const copies = writeCopies(join(work, 'corpus'), files, sizes[sizes.length - 1]!);
    console.log(
      `\nIngest corpus: ${files.length} text-family files (${(baseBytes / MB).toFixed(1)} MB: eval corpora + shared md/txt/html/csv/json), ` +
        `replicated ${copies.length}x, each copy made unique (written in ${((performance.now() - t0) / 1000).toFixed(1)} s). ` +
        `Default options (structure strategy, copyFiles on, workers = cores - 1).`,
    );
    for (const n of sizes) {
      const chosen = copies.slice(0, n);
      const bytes = chosen.reduce((s, c) => s + c.bytes, 0);
      const docs = chosen.reduce((s, c) => s + c.files, 0);
      const libraryDir = join(work, `library-${n}`);
      const result = await runChild('library-ingest.mjs', [libraryDir, ...chosen.map((c) => c.dir)]);
      if (!result.ok) {
        rows.push([(bytes / MB).toFixed(0), docs, 'failed', result.error!, '', '', '', '', '']);
        continue;
      }
      const r = result.json!;
      const libraryMB = dirSize(libraryDir) / MB;
      rows.push([
        (bytes / MB).toFixed(0),
        docs,
        r.docsAdded,
        r.blocksAdded,
        Object.entries(r.rejectedByCode as Record<string, number>).map(([code, count]) => `${code} ${count}`).join(', ') || '-',
        r.seconds,
        bytes / MB / r.seconds,
        docs / r.seconds,
        r.peakRssMB,
        r.firstHalfPeakRssMB,
        libraryMB,
      ]);
      rmSync(libraryDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  printTable(
    'Ingest: Library.addFiles, a fresh process and library per size (target: peak RSS <= 512 MB)',
    ['corpus MB', 'files', 'docs added', 'blocks', 'rejected', 's', 'MB/s', 'docs/s', 'peak RSS MB', 'peak RSS MB, 1st half', 'library on disk MB'],
    rows,
  );
}

function dirSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirSize(path) : statSync(path).size;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// 2. Search at 1M blocks

export interface Sentence {
  text: string;
  /** analyze(text) joined by spaces: what indexText puts in the FTS column for it. */
  terms: string;
  words: number;
}

const SENTENCE_END_EN = /(?<=[.!?])\s+(?=[A-Z0-9"“(])/;
const SENTENCE_END_ZH = /(?<=[。！？；])/;
const HAN = /\p{Script=Han}/gu;

/** Sentences of the eval corpora of one language, each analyzed once. */
export function sentencePool(datasets: string[], lang: 'en' | 'zh'): Sentence[] {
  const pool: Sentence[] = [];
  for (const dataset of datasets) {
    const dir = join(SHARED, 'eval', dataset, 'corpus');
    for (const f of readdirSync(dir).sort()) {
      for (const para of readFileSync(join(dir, f), 'utf8').split(/\n\s*\n/)) {
        const line = para.replace(/\s+/g, ' ').trim();
        if (line === '' || line.startsWith('#')) continue;
        for (const raw of line.split(lang === 'en' ? SENTENCE_END_EN : SENTENCE_END_ZH)) {
          const text = raw.trim();
          if (text.length < 8) continue;
          const words = lang === 'en' ? text.split(' ').length : Math.ceil((text.match(HAN)?.length ?? 0) / 1.6) + (text.match(/[A-Za-z0-9]+/g)?.length ?? 0);
          pool.push({ text, terms: analyze(text).join(' '), words });
        }
      }
    }
  }
  return pool;
}

/** Deterministic PRNG (mulberry32): the same blocks on every machine. */
export const prng = mulberry32;

/**
 * Block n: consecutive sentences from a random place in one language's pool (half English, half
 * Chinese) until a random budget of 50-120 words. Sentences are joined by a space, which no
 * analyzed term spans, so the block's FTS text is exactly its sentences' terms joined.
 */
export function* generateBlocks(count: number, pools: { en: Sentence[]; zh: Sentence[] }): Generator<{ text: string; terms: string; lang: 'en' | 'zh' }> {
  const random = prng(20240601);
  for (let n = 0; n < count; n++) {
    const lang = random() < 0.5 ? 'en' : 'zh';
    const pool = pools[lang];
    const budget = 50 + Math.floor(random() * 71);
    let i = Math.floor(random() * pool.length);
    const texts: string[] = [];
    const terms: string[] = [];
    let words = 0;
    while (words < budget) {
      const s = pool[i++ % pool.length]!;
      texts.push(s.text);
      if (s.terms) terms.push(s.terms);
      words += s.words;
    }
    yield { text: texts.join(' '), terms: terms.join(' '), lang };
  }
}

export const BLOCKS_PER_DOC = 100;

/**
 * The cached search library: the store's own schema (SqliteStore runs the migrations), filled
 * directly in large transactions, because analysing 1M blocks one by one through writeDocument
 * takes most of an hour on this machine. The FTS text is produced by the same analyze() the store
 * uses (checked against indexText below), written through the store's own index writer (length
 * columns, document frequencies, length statistics). Also writes terms.sqlite, the same analyzed terms for
 * MiniSearch. Built into a temporary folder and renamed, so an interrupted build is never reused.
 */
export async function ensureSearchLibrary(blockCount: number): Promise<{ dir: string; buildSeconds: number | null; sqliteMB: number }> {
  const dir = join(tmpdir(), `groundwork-bench-library-${BLOCKS_VERSION}-${blockCount}`);
  if (existsSync(join(dir, 'done'))) {
    return { dir, buildSeconds: Number(readFileSync(join(dir, 'done'), 'utf8')), sqliteMB: statSync(join(dir, 'library.sqlite')).size / MB };
  }
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const t0 = performance.now();
  const pools = { en: sentencePool(EN_DATASETS, 'en'), zh: sentencePool(ZH_DATASETS, 'zh') };

  await new SqliteStore(join(building, 'library.sqlite')).close(); // schema and migrations
  const db = new Database(join(building, 'library.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const terms = new Database(join(building, 'terms.sqlite'));
  terms.pragma('journal_mode = OFF');
  terms.pragma('synchronous = OFF');
  terms.exec('CREATE TABLE terms (rowid INTEGER PRIMARY KEY, terms TEXT NOT NULL)');

  const insertDoc = db.prepare(
    `INSERT INTO documents(id, format, mime, title, language, page_count, bytes, metadata, warnings, strategy, config_hash, tables, images, original, added_at)
     VALUES (?, 'markdown', 'text/markdown', ?, ?, NULL, ?, '{}', '[]', 'structure', 'bench', 0, 0, NULL, ?)`,
  );
  const insertPath = db.prepare('INSERT INTO paths(path, doc_id, size, mtime_ms) VALUES (?, ?, ?, 0)');
  const insertBlock = db.prepare(
    `INSERT INTO blocks(rowid, id, doc_id, ordinal, kind, text, heading_path, page_start, page_end, bboxes, start, "end", chars, tokens, table_rows, speaker, time_start, time_end, strategy, config_hash)
     VALUES (?, ?, ?, ?, 'text', ?, '[]', NULL, NULL, NULL, ?, ?, ?, 0, NULL, NULL, NULL, NULL, 'structure', 'bench')`,
  );
  const index = new FtsIndexWriter(db);
  const insertTerms = terms.prepare('INSERT INTO terms(rowid, terms) VALUES (?, ?)');

  let pending: { rowid: number; text: string; terms: string; lang: string }[] = [];
  const flushDocument = db.transaction((docNo: number, blocks: typeof pending) => {
    const docId = createHash('sha256').update(`bench-doc-${docNo}`).digest('hex');
    const bytes = blocks.reduce((s, b) => s + Buffer.byteLength(b.text) + 1, 0);
    insertDoc.run(docId, `Bench document ${docNo}`, blocks[0]!.lang, bytes, new Date(0).toISOString());
    insertPath.run(`/bench/doc-${String(docNo).padStart(6, '0')}.md`, docId, bytes);
    let offset = 0;
    blocks.forEach((b, ordinal) => {
      insertBlock.run(b.rowid, `${docId.slice(0, 16)}${String(ordinal).padStart(16, '0')}`, docId, ordinal, b.text, offset, offset + b.text.length, b.text.length);
      offset += b.text.length + 1;
      index.add(b.rowid, b.terms);
    });
    index.flush();
  });
  const flushTerms = terms.transaction((blocks: typeof pending) => {
    for (const b of blocks) insertTerms.run(b.rowid, b.terms);
  });

  let rowid = 0;
  let checked = 0;
  let docNo = 0;
  for (const block of generateBlocks(blockCount, pools)) {
    // The store indexes `${headingPath.join(' ')}\n${text}`; these blocks have no heading path.
    if (checked < 500) {
      checked++;
      if (indexText(`\n${block.text}`) !== block.terms) throw new Error(`bench blocks: FTS text differs from indexText for block ${rowid + 1}`);
    }
    pending.push({ rowid: ++rowid, ...block });
    if (pending.length === BLOCKS_PER_DOC) {
      flushDocument(docNo++, pending);
      flushTerms(pending);
      pending = [];
      if (docNo % 1000 === 0) process.stdout.write(`\r  building the search library: ${rowid} blocks, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  }
  if (pending.length > 0) {
    flushDocument(docNo++, pending);
    flushTerms(pending);
  }
  // Merge the FTS b-trees as a long-lived library would after its ingests settle.
  db.exec("INSERT INTO blocks_fts(blocks_fts) VALUES ('optimize')");
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  terms.close();
  const buildSeconds = (performance.now() - t0) / 1000;
  process.stdout.write('\r' + ' '.repeat(70) + '\r');
  writeFileSync(join(building, 'done'), String(buildSeconds));
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  return { dir, buildSeconds, sqliteMB: statSync(join(dir, 'library.sqlite')).size / MB };
}

export interface Query {
  lang: 'en' | 'zh';
  text: string;
}

/** 200 fixed questions: 100 English, 100 Chinese, evenly spread over the eval question sets. */
export function benchQueries(): Query[] {
  const pick = (datasets: string[], lang: 'en' | 'zh', total: number): Query[] => {
    const out: Query[] = [];
    datasets.forEach((dataset, i) => {
      const want = Math.floor(total / datasets.length) + (i < total % datasets.length ? 1 : 0);
      const lines = readFileSync(join(SHARED, 'eval', dataset, 'questions.jsonl'), 'utf8').split('\n').filter(Boolean);
      const step = Math.max(1, Math.floor(lines.length / want));
      for (let j = 0; j < want && j * step < lines.length; j++) out.push({ lang, text: (JSON.parse(lines[j * step]!) as { question: string }).question });
    });
    return out;
  };
  return [...pick(EN_DATASETS, 'en', 100), ...pick(ZH_DATASETS, 'zh', 100)];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Latency (ms) of each call and the calls per second, `clients` in a closed loop (each sends its next call when its last is answered), until `work` is done. */
export async function closedLoop(work: readonly string[], clients: number, call: (query: string) => Promise<unknown>): Promise<{ times: number[]; perSecond: number }> {
  let next = 0;
  const times: number[] = [];
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < work.length) {
      const query = work[next++]!;
      const t = performance.now();
      await call(query);
      times.push(performance.now() - t);
    }
  }));
  return { times, perSecond: times.length / ((performance.now() - t0) / 1000) };
}

export function latencyStats(ms: number[]): { p50: number; p99: number; max: number; mean: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]!, mean: ms.reduce((s, x) => s + x, 0) / ms.length };
}

async function searchBench(): Promise<void> {
  const blockCount = Number(process.env.GW_BENCH_BLOCKS ?? 1_000_000);
  const library = await ensureSearchLibrary(blockCount);
  // A library cached by an older Groundwork is migrated (and its term statistics backfilled) here,
  // not inside a timed child.
  await new SqliteStore(join(library.dir, 'library.sqlite')).close();
  const queries = benchQueries();
  const queriesFile = join(library.dir, 'queries.json');
  writeFileSync(queriesFile, JSON.stringify(queries));
  console.log(
    `\nSearch library: ${blockCount} blocks (50-120 words each, half English sentences from ${EN_DATASETS.join(', ')}, half Chinese from ${ZH_DATASETS.join(', ')}), ` +
      `${(blockCount / BLOCKS_PER_DOC).toFixed(0)} documents, library.sqlite ${library.sqliteMB.toFixed(0)} MB; ` +
      `built in ${library.buildSeconds?.toFixed(0)} s (cached in ${library.dir}). ${queries.length} questions (100 en, 100 zh), k = 10, after one warm-up pass.`,
  );

  // MiniSearch holds the whole index in the JS heap: at 1M blocks it took ~10 GB and ~18 minutes
  // to build here, so it runs on all blocks only on machines with 16 GB or more.
  const miniSearchFits = totalmem() >= 16 * 1024 ** 3 || blockCount <= 200_000;
  const miniSearchBlocks = Number(process.env.GW_BENCH_MINISEARCH_BLOCKS ?? (miniSearchFits ? blockCount : 0));
  const engines: { name: string; engine: string; nodeArgs?: string[] }[] = [
    { name: 'groundwork `library.search` (SQLite store)', engine: 'store' },
    { name: 'FTS5 alone: top 10 rowids by bm25', engine: 'fts' },
  ];
  if (miniSearchBlocks > 0) {
    const label = miniSearchBlocks < blockCount ? ` on the first ${miniSearchBlocks} blocks` : '';
    engines.push({ name: `MiniSearch 7.2.0 (same analysis)${label}`, engine: 'minisearch', nodeArgs: ['--max-old-space-size=16384'] });
  } else {
    console.log(`(MiniSearch skipped: it needs ~10 GB at 1M blocks and this machine has less than 16 GB; set GW_BENCH_MINISEARCH_BLOCKS=N to run it on the first N blocks.)`);
  }
  const results: { name: string; r: ChildResult }[] = [];
  for (const e of engines) {
    const env = { GW_BENCH_MINISEARCH_BLOCKS: String(miniSearchBlocks) };
    results.push({ name: e.name, r: await runChild('library-search.ts', [e.engine, library.dir, queriesFile], e.nodeArgs, env) });
  }

  const ours = results[0]!.r.ok ? latencyStats((results[0]!.r.json!.timings as { ms: number }[]).map((t) => t.ms)) : undefined;
  const rows: (string | number)[][] = [];
  for (const { name, r } of results) {
    if (!r.ok) {
      rows.push([name, 'all', 'failed', r.error!, '', '', '', '', '']);
      continue;
    }
    const timings = r.json!.timings as { lang: string; ms: number; hits: number }[];
    for (const lang of ['all', 'en', 'zh']) {
      const subset = timings.filter((t) => lang === 'all' || t.lang === lang);
      const s = latencyStats(subset.map((t) => t.ms));
      rows.push([
        name,
        lang,
        s.p50,
        s.p99,
        s.max,
        s.mean,
        lang === 'all' && ours ? `${(s.p50 / ours.p50).toFixed(2)}x / ${(s.p99 / ours.p99).toFixed(2)}x` : '',
        lang === 'all' && r.json!.buildSeconds !== null ? (r.json!.buildSeconds as number) : lang === 'all' ? 'on disk' : '',
        lang === 'all' ? (r.json!.peakRssMB as number) : '',
      ]);
    }
  }
  printTable(
    `BM25 search latency at ${blockCount} blocks, ms (targets: p50 <= 5, p99 <= 50)`,
    ['engine', 'queries', 'p50', 'p99', 'max', 'mean', 'p50 / p99 vs library.search', 'index build s', 'peak RSS MB'],
    rows,
  );
}

// ---------------------------------------------------------------------------------------------

export async function main(): Promise<void> {
  console.log(
    `\nEnvironment: Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM; ` +
      `other processes may share the cores, so expect noise.`,
  );
  if (!existsSync(join(SHARED, 'eval'))) {
    console.log('\n(library bench skipped: ../shared/eval not found)');
    return;
  }
  const skip = process.env.GW_BENCH_SKIP;
  if (skip !== 'ingest') await ingestBench();
  if (skip !== 'search') await searchBench();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

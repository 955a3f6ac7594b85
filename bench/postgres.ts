/**
 * The Postgres store beside SQLite: BM25 search latency (p50/p99 over the 200 fixed questions of
 * bench/library.ts, on blocks generated from the same eval sentences) and ingest speed (documents
 * per second, the same files through Library.addFiles into each store).
 *
 * Both libraries are filled through the stores' own writeDocument (documents of 100 blocks), so
 * the index rows and statistics are what an ingest makes. The Postgres library is kept between
 * runs in schema `bench_<blocks>` (and the SQLite one in the temp folder), so tuning re-measures
 * without rebuilding; the build time is printed when it is built.
 *   GROUNDWORK_DATABASE_URL (or GROUNDWORK_TEST_DATABASE_URL)  the server; without it, skipped
 *   GW_BENCH_PG_BLOCKS   blocks in each search library (default 1000000)
 *   GW_BENCH_PG_FILES    files ingested into each store (default 200: copies of the samples)
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Document } from '../src/document/types.js';
import { Library } from '../src/library/library.js';
import { openStore } from '../src/store/registry.js';
import type { Block, LibraryStore, StoreSpec } from '../src/store/types.js';
import { BLOCKS_PER_DOC, benchQueries, EN_DATASETS, generateBlocks, latencyStats, sentencePool, ZH_DATASETS } from './library.js';
import { printTable } from './inputs.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SHARED = resolve(ROOT, '..', 'shared');

function syntheticDocument(docNo: number, texts: string[]): Document {
  const id = createHash('sha256').update(`bench-pg-doc-${docNo}`).digest('hex');
  return {
    id,
    source: { name: `/bench/doc-${String(docNo).padStart(6, '0')}.md`, bytes: texts.reduce((s, t) => s + Buffer.byteLength(t) + 1, 0) },
    format: 'markdown', mime: 'text/markdown', title: `Bench document ${docNo}`, metadata: {}, elements: [], warnings: [],
  } as unknown as Document;
}

function blocksOf(doc: Document, texts: string[]): Block[] {
  let offset = 0;
  return texts.map((text, ordinal) => {
    const block: Block = {
      id: `${doc.id.slice(0, 16)}${String(ordinal).padStart(16, '0')}`, docId: doc.id, ordinal, kind: 'text', text, headingPath: [], pageStart: null, pageEnd: null,
      bboxes: null, start: offset, end: offset + text.length, chars: text.length, tokens: 0, table: null, speaker: null, time: null, strategy: 'structure', configHash: 'bench',
    };
    offset += text.length + 1;
    return block;
  });
}

/** Fills `store` with `count` generated blocks unless it holds them; the seconds it took, or null when it was there. */
async function fill(store: LibraryStore, count: number, label: string): Promise<number | null> {
  const stats = await store.stats();
  if (stats.blocks === count) return null;
  if (stats.blocks !== 0) throw new Error(`${label}: holds ${stats.blocks} blocks, expected 0 or ${count}; drop it and run again`);
  const t0 = performance.now();
  const pools = { en: sentencePool(EN_DATASETS, 'en'), zh: sentencePool(ZH_DATASETS, 'zh') };
  let texts: string[] = [];
  let docNo = 0;
  let done = 0;
  const write = async () => {
    const doc = syntheticDocument(docNo++, texts);
    await store.writeDocument({ document: doc, blocks: blocksOf(doc, texts), path: { path: doc.source.name!, docId: doc.id, size: doc.source.bytes, mtimeMs: 0 }, strategy: 'structure', configHash: 'bench', original: null, parseCacheKey: null });
    done += texts.length;
    texts = [];
    if (docNo % 100 === 0) process.stdout.write(`\r  building ${label}: ${done} blocks, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  };
  for (const block of generateBlocks(count, pools)) {
    texts.push(block.text);
    if (texts.length === BLOCKS_PER_DOC) await write();
  }
  if (texts.length > 0) await write();
  process.stdout.write('\r' + ' '.repeat(70) + '\r');
  return (performance.now() - t0) / 1000;
}

async function searchLatency(store: LibraryStore): Promise<{ all: ReturnType<typeof latencyStats>; en: ReturnType<typeof latencyStats>; zh: ReturnType<typeof latencyStats> }> {
  const queries = benchQueries();
  // One warm-up pass (caches, plans), then the timed one.
  for (const q of queries.slice(0, 20)) await store.searchText(q.text, 10);
  const timings: { lang: string; ms: number }[] = [];
  for (const q of queries) {
    const t = performance.now();
    await store.searchText(q.text, 10);
    timings.push({ lang: q.lang, ms: performance.now() - t });
  }
  const of = (lang?: string) => latencyStats(timings.filter((t) => !lang || t.lang === lang).map((t) => t.ms));
  return { all: of(), en: of('en'), zh: of('zh') };
}

/** `n` files: the samples, each copy made unique by a last line. */
function writeFiles(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-pg-files-'));
  const samples = readdirSync(join(ROOT, 'samples')).filter((f) => /\.(md|txt|html)$/.test(f));
  for (let i = 0; i < n; i++) {
    const name = samples[i % samples.length]!;
    const bytes = readFileSync(join(ROOT, 'samples', name));
    const utf8 = !/utf16|gbk|1252/.test(name);
    writeFileSync(join(dir, `${i}-${name}`), utf8 ? Buffer.concat([bytes, Buffer.from(`\n\nCopy ${i}.\n`)]) : bytes);
  }
  return dir;
}

async function ingestRate(spec: StoreSpec, files: string, folder: string): Promise<{ docs: number; seconds: number }> {
  const library = await Library.open(folder, { store: spec });
  try {
    const report = await library.addFiles(files, { workers: 1 });
    return { docs: report.docsAdded, seconds: report.durationMs / 1000 };
  } finally {
    await library.close();
  }
}

export async function main(): Promise<void> {
  const url = process.env.GROUNDWORK_DATABASE_URL ?? process.env.GROUNDWORK_TEST_DATABASE_URL;
  if (!url) {
    console.log('\n(postgres bench skipped: set GROUNDWORK_DATABASE_URL to a PostgreSQL server, e.g. source .ci/postgres.sh)');
    return;
  }
  if (!existsSync(join(SHARED, 'eval'))) {
    console.log('\n(postgres bench skipped: ../shared/eval not found)');
    return;
  }
  const count = Number(process.env.GW_BENCH_PG_BLOCKS ?? 1_000_000);
  const nFiles = Number(process.env.GW_BENCH_PG_FILES ?? 200);

  const sqliteDir = join(tmpdir(), `groundwork-bench-pg-sqlite-${count}`);
  mkdirSync(sqliteDir, { recursive: true });
  const sqlite = await openStore({ kind: 'sqlite', file: join(sqliteDir, 'library.sqlite') });
  const postgres = await openStore({ kind: 'postgres', url, schema: `bench_${count}` });
  const rows: (string | number)[][] = [];
  try {
    const sqliteBuild = await fill(sqlite, count, 'SQLite');
    const pgBuild = await fill(postgres, count, 'Postgres');
    const a = await searchLatency(sqlite);
    const b = await searchLatency(postgres);
    for (const [name, r, build] of [['SQLite', a, sqliteBuild], ['Postgres', b, pgBuild]] as const) {
      for (const lang of ['all', 'en', 'zh'] as const) {
        const s = r[lang];
        rows.push([name, lang, s.p50.toFixed(2), s.p99.toFixed(2), s.mean.toFixed(2), lang === 'all' ? (name === 'Postgres' ? `${(b.all.p50 / a.all.p50).toFixed(2)}x` : '1x') : '', lang === 'all' ? (build === null ? 'kept' : build.toFixed(0)) : '']);
      }
    }
  } finally {
    await sqlite.close();
    await postgres.close();
  }
  printTable(`BM25 searchText(q, 10) at ${count} blocks, ms (target: Postgres p50 within 3x of SQLite)`, ['store', 'queries', 'p50', 'p99', 'mean', 'p50 vs SQLite', 'build s'], rows);

  const files = writeFiles(nFiles);
  const schema = `bench_ingest_${process.pid}`;
  const folder = mkdtempSync(join(tmpdir(), 'gw-bench-pg-lib-'));
  try {
    const onSqlite = await ingestRate({ kind: 'sqlite', file: join(folder, 'library.sqlite') }, files, folder);
    const onPostgres = await ingestRate({ kind: 'postgres', url, schema }, files, folder);
    printTable(
      `Ingest of ${nFiles} files (copies of the samples; 1 worker thread), Library.addFiles`,
      ['store', 'documents', 'seconds', 'docs/s'],
      [
        ['SQLite', onSqlite.docs, onSqlite.seconds.toFixed(1), (onSqlite.docs / onSqlite.seconds).toFixed(1)],
        ['Postgres', onPostgres.docs, onPostgres.seconds.toFixed(1), (onPostgres.docs / onPostgres.seconds).toFixed(1)],
      ],
    );
  } finally {
    rmSync(files, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
    const client = new pg.Client(url);
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

/**
 * The Postgres store beside SQLite: BM25 search latency (p50/p99 over the 200 fixed questions of
 * bench/library.ts, on blocks generated from the same eval sentences) and ingest speed (documents
 * per second, the same files through Library.addFiles into each store).
 *
 * The SQLite search library is bench/library.ts's (`ensureSearchLibrary`: generated blocks written
 * in large transactions through the store's own index writer, cached in the temp folder and shared
 * with that bench). The Postgres one is that library copied by `migrateLibrary` (the store's
 * importDocument: the same blocks, analysed and indexed by the store, 4 documents at once) with the
 * postings btree dropped during the copy and built once at the end, as a bulk load would; it is built
 * in schema `bench_<blocks>_building` and renamed to `bench_<blocks>` when whole, so an interrupted
 * build is never reused. Both are kept between runs; the build time is printed when built.
 *   GROUNDWORK_DATABASE_URL (or GROUNDWORK_TEST_DATABASE_URL)  the server; without it, skipped
 *   GW_BENCH_PG_BLOCKS   blocks in each search library (default 1000000)
 *   GW_BENCH_PG_FILES    files ingested into each store (default 200: copies of the samples; 0 skips)
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Library } from '../src/library/library.js';
import { openStore } from '../src/store/registry.js';
import type { LibraryStore, StoreSpec } from '../src/store/types.js';
import { benchQueries, ensureSearchLibrary, latencyStats } from './library.js';
import { migrateLibrary } from '../src/library/migrate.js';
import { printTable } from './inputs.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SHARED = resolve(ROOT, '..', 'shared');

/**
 * The Postgres copy of the SQLite search library in `schema` unless it is there whole; the seconds
 * it took, or null when it was there.
 */
async function fillPostgres(url: string, schema: string, sqliteDir: string, count: number): Promise<number | null> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount) return null;
    const building = `${schema}_building`;
    await client.query(`DROP SCHEMA IF EXISTS "${building}" CASCADE`);
    const t0 = performance.now();
    // The schema and its tables, then the postings btree out of the way of tens of millions of inserts.
    await (await openStore({ kind: 'postgres', url, schema: building })).close();
    const { rows } = await client.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.conname = 'postings_pkey'`,
      [`"${building}".postings`],
    );
    await client.query(`ALTER TABLE "${building}".postings DROP CONSTRAINT postings_pkey`);
    let last = 0;
    await migrateLibrary(sqliteDir, { kind: 'postgres', url, schema: building }, {
      concurrency: 4,
      onProgress: (p) => {
        if (p.blocks - last < 20_000 && p.blocks < p.blocksTotal) return;
        last = p.blocks;
        process.stdout.write(`\r  building Postgres: ${p.blocks}/${p.blocksTotal} blocks, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      },
    });
    process.stdout.write('\r' + ' '.repeat(70) + '\r');
    await client.query("SET maintenance_work_mem = '256MB'");
    await client.query(`ALTER TABLE "${building}".postings ADD CONSTRAINT postings_pkey ${rows[0]!.def}`);
    await client.query(`VACUUM (ANALYZE) "${building}".postings, "${building}".block_terms, "${building}".term_df, "${building}".blocks`);
    await client.query(`ALTER SCHEMA "${building}" RENAME TO "${schema}"`);
    const built = (performance.now() - t0) / 1000;
    const store = await openStore({ kind: 'postgres', url, schema });
    try {
      const blocks = (await store.stats()).blocks;
      if (blocks !== count) throw new Error(`Postgres bench library: ${blocks} blocks, expected ${count}`);
    } finally {
      await store.close();
    }
    return built;
  } finally {
    await client.end();
  }
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

  const library = await ensureSearchLibrary(count);
  const sqliteBuild = library.buildSeconds;
  const pgBuild = await fillPostgres(url, `bench_${count}`, library.dir, count);
  const sqlite = await openStore({ kind: 'sqlite', file: join(library.dir, 'library.sqlite') });
  const postgres = await openStore({ kind: 'postgres', url, schema: `bench_${count}` });
  const rows: (string | number)[][] = [];
  try {
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
  if (nFiles === 0) return;

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

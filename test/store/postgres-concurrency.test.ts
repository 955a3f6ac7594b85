import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Library } from '../../src/library/library.js';
import type { StoreSpec } from '../../src/store/types.js';
import { projectRoot } from '../helpers.js';
import { freshSchema, TEST_DATABASE_URL } from './postgres-fixtures.js';

/**
 * Several writers on one Postgres library at once (each its own Library, store and pool: as separate
 * processes or machines would be), ingesting overlapping sets of files, some of the same content
 * under several names: the library they leave must equal the one a single sequential ingest of all
 * the files makes: documents, paths, blocks, the index statistics BM25 reads, and so every score.
 */

const WRITERS = 4;
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Words for generated files: shared ones (document frequencies many writers change) and rare ones. */
const COMMON = ['library', 'tool', 'borrow', 'return', 'member', 'deposit', 'repair', 'garden', 'seed', 'ladder', 'drill', 'saw'];
const CHINESE = ['图书馆', '工具', '借用', '归还', '会员', '押金', '维修', '花园', '种子'];

/** The samples plus generated Markdown and text files; every fifth generated text twice, under two names. */
function writeFolder(): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'gw-pg-writers-'));
  temps.push(dir);
  cpSync(join(projectRoot, 'samples'), dir, { recursive: true });
  for (let i = 0; i < 36; i++) {
    const lines: string[] = [`# Notice ${i}`, ''];
    for (let p = 0; p < 3 + (i % 4); p++) {
      const words = Array.from({ length: 12 + ((i * 7 + p) % 9) }, (_, w) => (w % 5 === 4 ? `rare${i}x${p}` : COMMON[(i * 3 + p * 5 + w) % COMMON.length]!));
      lines.push(`## Part ${p}`, '', `${words.join(' ')}. ${CHINESE[(i + p) % CHINESE.length]}${CHINESE[(i * 2 + p) % CHINESE.length]}。`, '');
    }
    const text = lines.join('\n');
    writeFileSync(join(dir, `notice-${i}.md`), text);
    if (i % 5 === 0) writeFileSync(join(dir, `copy-of-notice-${i}.md`), text);
  }
  return readdirSync(dir).sort().map((name) => join(dir, name));
}

function spec(schema: string): StoreSpec {
  return { kind: 'postgres', url: TEST_DATABASE_URL!, schema, poolSize: 4 };
}

/** What a library holds, without what depends on when it was written (added times, row ids). */
async function contents(schema: string) {
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    const q = async (sql: string) => (await client.query(sql.replaceAll('S.', `"${schema}".`))).rows;
    return {
      documents: await q('SELECT id, format, title, strategy, config_hash, original FROM S.documents ORDER BY id'),
      paths: await q('SELECT path, doc_id, size FROM S.paths ORDER BY path'),
      blocks: await q('SELECT id, doc_id, ordinal, text, start, "end", tokens FROM S.blocks ORDER BY id'),
      terms: await q('SELECT b.id, t.part, t.col, t.length, t.terms::text FROM S.block_terms t JOIN S.blocks b USING (rowid) ORDER BY b.id, t.part'),
      df: await q('SELECT term, df FROM S.term_df WHERE df <> 0 ORDER BY term'),
      recountedDf: await q('SELECT lexeme AS term, count(*)::int AS df FROM S.block_terms, unnest(terms) AS u(lexeme) GROUP BY lexeme ORDER BY lexeme'),
      postings: await q('SELECT b.id, p.lexeme, p.col, p.tf FROM S.postings p LEFT JOIN S.blocks b USING (rowid) ORDER BY b.id, p.lexeme'),
      expectedPostings: await q(
        'SELECT b.id, u.lexeme, t.col, cardinality(u.positions) AS tf FROM S.block_terms t JOIN S.blocks b USING (rowid), unnest(t.terms) AS u ORDER BY b.id, u.lexeme',
      ),
      lengths: await q('SELECT col, blocks, terms FROM S.fts_lengths WHERE blocks <> 0 OR terms <> 0 ORDER BY col'),
      stats: await q('SELECT key, value FROM S.index_stats ORDER BY key'),
      parseCache: await q('SELECT key, doc_id FROM S.parse_cache ORDER BY key'),
      originals: await q('SELECT doc_id, bytes, parts FROM S.originals ORDER BY doc_id'),
    };
  } finally {
    await client.end();
  }
}

describe.skipIf(!TEST_DATABASE_URL)('several writers on one Postgres library', () => {
  let files: string[];
  let sequential: string;
  let concurrent: string;
  let reports: Awaited<ReturnType<Library['addFiles']>>[];

  beforeAll(async () => {
    files = writeFolder();
    sequential = freshSchema();
    concurrent = freshSchema();
    const folder = mkdtempSync(join(tmpdir(), 'gw-pg-writers-lib-'));
    temps.push(folder);

    const alone = await Library.open(folder, { store: spec(sequential) });
    try {
      const report = await alone.addFiles(files, { workers: 0 });
      expect(report.rejected).toEqual([]);
    } finally {
      await alone.close();
    }

    // Writer w takes every file but those at w modulo WRITERS, each in its own order: every file
    // is ingested by three writers at once, and the copies of a content by different writers.
    const libraries = await Promise.all(Array.from({ length: WRITERS }, () => Library.open(folder, { store: spec(concurrent) })));
    try {
      reports = await Promise.all(
        libraries.map((library, w) => {
          const mine = files.filter((_, i) => i % WRITERS !== w);
          const ordered = w % 2 === 0 ? mine : [...mine].reverse();
          return library.addFiles(ordered, { workers: 0 });
        }),
      );
    } finally {
      await Promise.all(libraries.map((library) => library.close()));
    }
  }, 600_000);

  test('every writer finished and accounted for each of its files, none rejected', () => {
    for (const report of reports) expect(report.rejected).toEqual([]);
    const seen = reports.reduce((n, r) => n + r.docsAdded + r.docsSkipped + r.docsUpdated, 0);
    expect(seen).toBe(files.length * (WRITERS - 1));
  });

  test('the library equals the sequential run: documents, paths, blocks, index rows, postings and statistics', async () => {
    const [a, b] = await Promise.all([contents(sequential), contents(concurrent)]);
    expect(b.documents.length).toBeGreaterThan(40);
    expect(b.documents).toEqual(a.documents);
    expect(b.paths).toEqual(a.paths);
    expect(b.blocks).toEqual(a.blocks);
    expect(b.terms).toEqual(a.terms);
    expect(b.df).toEqual(a.df);
    // The kept document frequencies are what the index rows say, not just equal by chance.
    expect(b.df).toEqual(b.recountedDf);
    // The postings search scores from: one per block and term of the index rows, none left over.
    expect(b.postings).toEqual(a.postings);
    expect(b.postings).toEqual(b.expectedPostings);
    expect(b.lengths).toEqual(a.lengths);
    expect(b.stats).toEqual(a.stats);
    expect(b.parseCache).toEqual(a.parseCache);
    expect(b.originals).toEqual(a.originals);
  });

  test('and so every search scores the same', async () => {
    const [one, many] = await Promise.all([Library.open(tmpdir(), { store: spec(sequential) }), Library.open(tmpdir(), { store: spec(concurrent) })]);
    try {
      for (const query of ['borrow deposit ladder', 'rare7x1 garden', '押金 归还', 'tool library handbook']) {
        const key = (hits: Awaited<ReturnType<Library['searchText']>>) => hits.map((h) => [h.block.id, h.score.toFixed(9)]);
        const [a, b] = await Promise.all([one.searchText(query, { k: 1000 }), many.searchText(query, { k: 1000 })]);
        expect(a.length, query).toBeGreaterThan(0);
        // Every matching block (a cut at k could fall inside a tie). Blocks of equal score may come
        // in another order (ties go by row id, and the rows were inserted in another order): the
        // same blocks with the same scores, rank by rank.
        const byScore = (hits: string[][]) => [...hits].sort((x, y) => Number(y[1]) - Number(x[1]) || x[0]!.localeCompare(y[0]!));
        expect(byScore(key(b)), query).toEqual(byScore(key(a)));
        expect(key(b).map((h) => h[1]), query).toEqual(key(a).map((h) => h[1]));
      }
    } finally {
      await Promise.all([one.close(), many.close()]);
    }
  });
});

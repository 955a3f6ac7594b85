import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { blockIndexText, queryTerms } from '../../src/search/analyze.js';
import { columnWeights, indexedRowCount, LENGTH_BOUNDS, LENGTH_COLUMNS, lengthColumn, MIN_ROW_TOKENS, termCount } from '../../src/store/sqlite/sqlite-fts.js';
import { REBUILD_TERM_STATS, SCHEMA_VERSION } from '../../src/store/sqlite/sqlite-schema.js';
import { termStatsOf } from '../../src/store/sqlite/sqlite-search.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { documentWrite, legacyLibrary, libraryFile } from './fixtures.js';

/** BM25 as FTS5 defines it (k1 1.2, b 0.75, IDF floored at 1e-6), over every block of a library. */
function referenceScores(bodies: Map<number, string[]>, query: string[]): Map<number, number> {
  const n = bodies.size;
  const avgdl = [...bodies.values()].reduce((s, t) => s + t.length, 0) / n;
  const scores = new Map<number, number>();
  for (const term of new Set(query)) {
    const hits = [...bodies].filter(([, terms]) => terms.includes(term));
    const idf = Math.max(1e-6, Math.log((n - hits.length + 0.5) / (hits.length + 0.5)));
    for (const [rowid, terms] of hits) {
      const tf = terms.filter((t) => t === term).length;
      const score = (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * terms.length) / avgdl));
      scores.set(rowid, (scores.get(rowid) ?? 0) + score);
    }
  }
  return scores;
}

/** The terms the store searches for `query` (common ones pruned, as search does). */
function searchedTerms(file: string, query: string): string[] {
  const db = new Database(file, { readonly: true });
  const terms = queryTerms(query, termStatsOf(db));
  db.close();
  return terms;
}

/** Index bodies by block rowid, as the store analyses them. */
function indexedBodies(file: string): Map<number, string[]> {
  const db = new Database(file, { readonly: true });
  const out = new Map<number, string[]>();
  for (const row of db.prepare('SELECT rowid, heading_path, text FROM blocks').all() as { rowid: number; heading_path: string; text: string }[]) {
    out.set(row.rowid, blockIndexText({ headingPath: JSON.parse(row.heading_path), text: row.text }).split(' '));
  }
  db.close();
  return out;
}

const WORDS = 'river bank water stone bridge field market harbour lantern orchard meadow quarry valley summit glacier canyon'.split(' ');

/** A block of exactly `terms` analysed terms, drawn from WORDS by a seeded walk. */
function blockOf(terms: number, seed: number): string {
  const words: string[] = [];
  for (let i = 0; i < terms; i++) words.push(WORDS[(seed * 7 + i * i * 3 + i) % WORDS.length]!);
  return words.join(' ');
}

describe('length columns', () => {
  test('termCount counts space-separated terms', () => {
    expect([termCount(''), termCount('a'), termCount('a b c')]).toEqual([0, 1, 3]);
  });

  test('lengthColumn follows LENGTH_BOUNDS, the last column open-ended', () => {
    expect(lengthColumn(0)).toBe(0);
    expect(lengthColumn(LENGTH_BOUNDS[0]! - 1)).toBe(0);
    expect(lengthColumn(LENGTH_BOUNDS[0]!)).toBe(1);
    expect(lengthColumn(10_000)).toBe(LENGTH_COLUMNS - 1);
  });

  test('weights are positive for short and long libraries alike', () => {
    for (const terms of [1, 5, 20, 80, 400]) {
      const col = lengthColumn(terms);
      const blocks = new Array<number>(LENGTH_COLUMNS).fill(0);
      const sums = new Array<number>(LENGTH_COLUMNS).fill(0);
      blocks[col] = 10;
      sums[col] = 10 * terms;
      const weights = columnWeights({ blocks, terms: sums, tokens: 10 * Math.max(terms, MIN_ROW_TOKENS) });
      expect(weights.every((w) => w > 0 && Number.isFinite(w))).toBe(true);
    }
  });
});

describe('BM25 from length columns', () => {
  // Lengths in distinct columns, so each column's mean is its blocks' length and scores are exact.
  const lengths = [12, 30, 48, 64, 96, 150];

  test('scores equal FTS5-defined BM25 with document lengths, short (padded) and long blocks alike', async () => {
    expect(new Set(lengths.map(lengthColumn)).size).toBe(lengths.length);
    const file = libraryFile();
    const store = new SqliteStore(file);
    const texts = lengths.flatMap((terms) => [0, 1, 2, 3].map((seed) => blockOf(terms, seed + terms)));
    // The first block also carries the heading path ['Intro']: one term fewer keeps its length.
    texts[0] = blockOf(lengths[0]! - 1, 99);
    await store.writeDocument(documentWrite('mixed', texts));
    const bodies = indexedBodies(file);
    for (const query of ['river bank', 'lantern orchard meadow', 'glacier', 'stone quarry valley summit']) {
      const expected = referenceScores(bodies, searchedTerms(file, query));
      const hits = await store.searchText(query, 50);
      expect(hits.length).toBe(expected.size);
      const db = new Database(file, { readonly: true });
      const rowidOf = db.prepare('SELECT rowid FROM blocks WHERE id = ?').pluck();
      for (const hit of hits) {
        const want = expected.get(rowidOf.get(hit.block.id) as number)!;
        expect(Math.abs(hit.score - want) / want).toBeLessThan(1e-9);
      }
      db.close();
    }
    await store.close();
  });

  test('a block of mixed length in a column is ranked by its column mean: close to exact BM25', async () => {
    const file = libraryFile();
    const store = new SqliteStore(file);
    const texts = Array.from({ length: 60 }, (_, i) => blockOf(20 + ((i * 37) % 120), i));
    await store.writeDocument(documentWrite('varied', texts));
    const bodies = indexedBodies(file);
    const expected = referenceScores(bodies, searchedTerms(file, 'harbour lantern'));
    for (const hit of await store.searchText('harbour lantern', 20)) {
      const db = new Database(file, { readonly: true });
      const rowid = db.prepare('SELECT rowid FROM blocks WHERE id = ?').pluck().get(hit.block.id) as number;
      db.close();
      const want = expected.get(rowid)!;
      // Columns are at most 1.25x wide: the length normaliser is off by at most ~12%.
      expect(Math.abs(hit.score - want) / want).toBeLessThan(0.12);
    }
    await store.close();
  });
});

describe('index upkeep', () => {
  function snapshot(file: string) {
    const db = new Database(file);
    const stored = db.prepare('SELECT term, df FROM term_df ORDER BY term').all();
    const lengths = db.prepare('SELECT col, blocks, terms FROM fts_lengths WHERE blocks <> 0 OR terms <> 0 ORDER BY col').all();
    const rows = indexedRowCount(db);
    db.exec("INSERT INTO blocks_fts(blocks_fts, rank) VALUES ('integrity-check', 0)");
    db.exec('BEGIN');
    db.exec(REBUILD_TERM_STATS);
    const rebuilt = db.prepare('SELECT term, df FROM term_df ORDER BY term').all();
    db.exec('ROLLBACK');
    db.close();
    return { stored, rebuilt, lengths, rows };
  }

  test('writes, re-chunks and removals leave the index, term_df and length statistics consistent', async () => {
    const file = libraryFile();
    const store = new SqliteStore(file);
    await store.writeDocument(documentWrite('a', [blockOf(5, 1), blockOf(40, 2), blockOf(200, 3)]));
    await store.writeDocument(documentWrite('b', [blockOf(10, 4), '长江大桥 water']));
    await store.writeDocument(documentWrite('a', [blockOf(60, 5)], { configHash: 'other' }));
    await store.removeDocument('doc-b');
    const { stored, rebuilt, lengths, rows } = snapshot(file);
    expect(stored).toEqual(rebuilt);
    expect(rows).toBe(1);
    const terms = blockIndexText({ headingPath: ['Intro'], text: blockOf(60, 5) }).split(' ').length;
    expect(lengths).toEqual([
      { col: lengthColumn(terms), blocks: 1, terms },
      { col: 1000, blocks: 0, terms: Math.max(terms, MIN_ROW_TOKENS) },
    ]);
    expect(await store.searchText('长江', 5)).toEqual([]);
    await store.close();
  });

  test('a library with the previous index layout is migrated and searches the same blocks', async () => {
    const file = libraryFile();
    legacyLibrary(file, 2, ['alpha beta', 'beta gamma', 'beta']);

    const store = new SqliteStore(file);
    expect((await store.searchText('gamma', 5)).map((h) => h.block.id)).toEqual(['b1']);
    expect(await store.searchText('beta', 5)).toHaveLength(3);
    await store.close();
    const migrated = new Database(file, { readonly: true });
    expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(indexedRowCount(migrated)).toBe(3);
    migrated.close();
  });

  test('the re-indexing of an upgrade reports its progress, from 0 to every block', async () => {
    const file = libraryFile();
    legacyLibrary(file, 2, ['alpha beta', 'beta gamma', 'beta']);
    const reports: [number, number][] = [];
    const store = new SqliteStore(file, { onIndexRebuild: (done, total) => reports.push([done, total]) });
    await store.close();
    expect(reports[0]).toEqual([0, 3]);
    expect(reports[reports.length - 1]).toEqual([3, 3]);
    // A new library has nothing to re-index and says nothing.
    const fresh: [number, number][] = [];
    await new SqliteStore(libraryFile(), { onIndexRebuild: (done, total) => fresh.push([done, total]) }).close();
    expect(fresh).toEqual([]);
    // Opened again, nothing is left to upgrade.
    const again: [number, number][] = [];
    await new SqliteStore(file, { onIndexRebuild: (done, total) => again.push([done, total]) }).close();
    expect(again).toEqual([]);
  });

  test('an index written by another analyzer version is rebuilt when the library is opened', async () => {
    const file = libraryFile();
    const store = new SqliteStore(file);
    await store.writeDocument(documentWrite('a', [blockOf(30, 1), 'orchard meadow']));
    await store.close();
    const db = new Database(file);
    // Simulate an index whose terms no longer match: empty it and mark it as built by another analyzer.
    db.exec("INSERT INTO blocks_fts(blocks_fts) VALUES ('delete-all'); UPDATE settings SET value = 'old' WHERE key = 'index.analyzer'");
    db.close();
    const reopened = new SqliteStore(file);
    expect((await reopened.searchText('orchard meadow', 5)).map((h) => h.block.text)[0]).toBe('orchard meadow');
    await reopened.close();
  });
});

import { afterEach, describe, expect, test } from 'vitest';
import { resolveCheckOptions } from '../../src/store/check.js';
import { MIGRATIONS } from '../../src/store/postgres/postgres-schema.js';
import { openStore } from '../../src/store/registry.js';
import type { LibraryStore } from '../../src/store/types.js';
import { documentWrite } from './fixtures.js';
import { freshSchema, query, TEST_DATABASE_URL } from './postgres-fixtures.js';

/**
 * The Postgres store's postings (the rows BM25 is scored from, postgres-search.ts) stay in step with
 * its index rows (the tsvector per block) through every write, replace, remove and repair, and a
 * library created before the postings table gets them when it is opened.
 */

const opened: LibraryStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function open(schema: string): Promise<LibraryStore> {
  const store = await openStore({ kind: 'postgres', url: TEST_DATABASE_URL!, schema });
  opened.push(store);
  return store;
}

interface Posting {
  block: string;
  lexeme: string;
  col: number;
  tf: number;
}

/** The postings rows, by block id. */
async function postings(schema: string): Promise<Posting[]> {
  return query<Posting>(
    `SELECT b.id AS block, p.lexeme, p.col, p.tf FROM "${schema}".postings p JOIN "${schema}".blocks b USING (rowid) ORDER BY b.id, p.lexeme`,
  );
}

/** What the postings must be: every term of every index row, with its block's column and its position count. */
async function expected(schema: string): Promise<Posting[]> {
  return query<Posting>(
    `SELECT b.id AS block, u.lexeme, t.col, cardinality(u.positions) AS tf
     FROM "${schema}".block_terms t JOIN "${schema}".blocks b USING (rowid), unnest(t.terms) AS u ORDER BY b.id, u.lexeme`,
  );
}

async function postingsCount(schema: string): Promise<number> {
  return Number((await query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".postings`))[0]!.n);
}

const TOOLS = ['The drill is lent for a week, the drill bit too.', 'Ladders and saws are lent to members with a deposit.', 'Seeds are swapped every spring.'];
const GARDEN = ['The garden opens at nine; seeds and seedlings for members.', 'Garden tools: spades, rakes, and a wheelbarrow or two.'];

describe.skipIf(!TEST_DATABASE_URL)('postgres postings', () => {
  test('written with the blocks: one row per block and distinct term, with its column and frequency', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    await store.writeDocument(documentWrite('tools', TOOLS));
    const rows = await postings(schema);
    expect(rows.length).toBeGreaterThan(10);
    expect(rows).toEqual(await expected(schema));
    // "drill" occurs twice in the first block.
    const drill = rows.filter((r) => r.lexeme === 'drill');
    expect(drill).toHaveLength(1);
    expect(drill[0]).toMatchObject({ block: 'tools-test-0', tf: 2 });
    expect((await store.searchText('drill', 5)).map((c) => c.block.id)).toEqual(['tools-test-0']);
  });

  test('a document written again with another configuration leaves postings of its new blocks only', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    await store.writeDocument(documentWrite('tools', TOOLS));
    await store.writeDocument(documentWrite('garden', GARDEN));
    await store.writeDocument(documentWrite('tools', ['Only a hammer now.', ...TOOLS.slice(2)], { configHash: 'other' }));
    const rows = await postings(schema);
    expect(rows).toEqual(await expected(schema));
    expect(new Set(rows.map((r) => r.block))).toEqual(new Set(['tools-other-0', 'tools-other-1', 'garden-test-0', 'garden-test-1']));
    // No postings row is left of the replaced blocks (their rowids are gone from blocks).
    expect(await postingsCount(schema)).toBe(rows.length);
    expect(await store.searchText('drill', 5)).toEqual([]);
    expect((await store.searchText('hammer', 5)).map((c) => c.block.id)).toEqual(['tools-other-0']);
  });

  test('a removed document takes its postings with it; the other documents keep theirs', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    await store.writeDocument(documentWrite('tools', TOOLS));
    await store.writeDocument(documentWrite('garden', GARDEN));
    const garden = (await postings(schema)).filter((r) => r.block.startsWith('garden'));
    expect(await store.removeDocument('doc-tools')).toBe(true);
    expect(await postings(schema)).toEqual(garden);
    expect(await postingsCount(schema)).toBe(garden.length);
    expect(await store.searchText('seeds', 5)).toHaveLength(1);
  });

  test('check finds postings rows missing, changed or left over, and --repair rebuilds them', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    await store.writeDocument(documentWrite('tools', TOOLS));
    await store.writeDocument(documentWrite('garden', GARDEN));
    const before = await postings(schema);
    const ranked = await store.searchText('garden seeds members', 5);
    expect(ranked.length).toBeGreaterThan(1);

    await query(`DELETE FROM "${schema}".postings WHERE lexeme = 'seed'`);
    await query(`UPDATE "${schema}".postings SET tf = tf + 4 WHERE lexeme = 'garden' AND rowid = (SELECT min(rowid) FROM "${schema}".postings WHERE lexeme = 'garden')`);
    await query(`INSERT INTO "${schema}".postings (lexeme, rowid, col, tf) SELECT 'stray', max(rowid), 0, 1 FROM "${schema}".blocks`);
    // Search reads the postings: the scores are not what they were.
    expect((await store.searchText('garden seeds members', 5)).map((c) => c.score)).not.toEqual(ranked.map((c) => c.score));

    const report = await store.check(resolveCheckOptions({}));
    expect(report.ok).toBe(false);
    const finding = report.found.find((f) => f.check === 'postings');
    expect(finding).toMatchObject({ severity: 'error', repairable: true, count: 4 });

    const repaired = await store.check(resolveCheckOptions({ repair: true }));
    expect(repaired.repairs.length).toBeGreaterThan(0);
    expect(repaired.remaining).toEqual([]);
    expect(repaired.ok).toBe(true);
    expect(await postings(schema)).toEqual(before);
    expect(await store.searchText('garden seeds members', 5)).toEqual(ranked);
  });

  test('a library created before the postings table gets them on open, and ranks as before', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    await store.writeDocument(documentWrite('tools', TOOLS));
    await store.writeDocument(documentWrite('garden', GARDEN));
    const before = await postings(schema);
    const ranked = await store.searchText('garden tools members', 5);
    await store.close();
    // The schema as the version before left it: no postings table, the GIN index over the tsvectors.
    const version = MIGRATIONS.findIndex((m) => m.sql.includes('CREATE TABLE postings')) + 1;
    expect(Number((await query<{ v: number }>(`SELECT max(version) AS v FROM "${schema}".schema_migrations`))[0]!.v)).toBe(version);
    await query(`DROP TABLE "${schema}".postings`);
    await query(`CREATE INDEX block_terms_gin ON "${schema}".block_terms USING gin (terms) WITH (fastupdate = off)`);
    await query(`DELETE FROM "${schema}".schema_migrations WHERE version = $1`, [version]);

    const reopened = await open(schema);
    expect(await postings(schema)).toEqual(before);
    expect(await reopened.searchText('garden tools members', 5)).toEqual(ranked);
    expect((await reopened.check(resolveCheckOptions({}))).ok).toBe(true);
    const gin = await query(`SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'block_terms_gin'`, [schema]);
    expect(gin).toHaveLength(0);
  });
});

/**
 * How every Postgres connection gets the library's schema: a startup parameter (no query before the
 * pool hands the connection out, so node-pg never sees two queries at once on one client).
 */
import { describe, expect, test } from 'vitest';
import { PostgresStore, withSearchPath } from '../../src/store/postgres/postgres-store.js';
import { freshSchema, TEST_DATABASE_URL } from './postgres-fixtures.js';

describe('withSearchPath', () => {
  test('a URL without options keeps its string; the search path goes into the startup options', () => {
    expect(withSearchPath('postgres://u:p%40ss@h:5432/db?sslmode=disable', '"lib",public')).toEqual({
      connectionString: 'postgres://u:p%40ss@h:5432/db?sslmode=disable',
      options: '-c search_path="lib",public',
    });
  });

  test("a URL's own options are kept in front of ours (node-pg would let them replace ours)", () => {
    const got = withSearchPath('postgres://h/db?options=-c%20statement_timeout%3D5000&sslmode=disable', '"lib",public');
    expect(got.options).toBe('-c statement_timeout=5000 -c search_path="lib",public');
    expect(new URL(got.connectionString).searchParams.get('options')).toBeNull();
    expect(new URL(got.connectionString).searchParams.get('sslmode')).toBe('disable');
  });

  test('spaces and backslashes in the value are escaped for the server', () => {
    expect(withSearchPath('postgres://h/db', '"a b",public').options).toBe('-c search_path="a\\ b",public');
  });

  test('a string that is not a URL is passed on as it is', () => {
    expect(withSearchPath('/var/run/postgresql', '"lib",public')).toEqual({ connectionString: '/var/run/postgresql', options: '-c search_path="lib",public' });
  });
});

describe.skipIf(!TEST_DATABASE_URL)('postgres connections', () => {
  test("every pooled connection is in the library's schema, also when the URL carries its own options", async () => {
    const url = new URL(TEST_DATABASE_URL!);
    url.searchParams.set('options', '-c statement_timeout=60000');
    const store = await PostgresStore.open({ kind: 'postgres', url: url.toString(), schema: freshSchema() });
    try {
      // Many reads at once: the pool opens new connections and hands them out at once; a
      // connection outside the schema would find no documents table.
      const results = await Promise.all(Array.from({ length: 12 }, () => store.listDocuments()));
      expect(results.every((r) => Array.isArray(r) && r.length === 0)).toBe(true);
      expect(await store.stats()).toMatchObject({ documents: 0 });
    } finally {
      await store.close();
    }
  });
});

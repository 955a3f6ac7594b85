import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { isGroundworkError } from '../../src/errors.js';
import { openStore } from '../../src/store/registry.js';
import { MIGRATIONS, REBUILD_TERM_STATS, SCHEMA_VERSION } from '../../src/store/sqlite/sqlite-schema.js';
import { termStatsOf } from '../../src/store/sqlite/sqlite-search.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { runStoreContract } from './contract.js';
import { documentWrite, legacyLibrary, libraryFile } from './fixtures.js';

runStoreContract({ name: 'sqlite file', newStore: () => openStore({ kind: 'sqlite', file: libraryFile() }) });
// A handle the caller opened, in memory: no second connection, no spec to reopen it from.
runStoreContract({ name: 'sqlite in-memory handle', newStore: async () => new SqliteStore(new Database(':memory:')) });

/** term_df and the block count as stored, and as recomputed from the FTS index itself. */
function termStatsSnapshot(file: string): { stored: Record<string, number>; rebuilt: Record<string, number> } {
  const db = new Database(file);
  const read = () => {
    const out: Record<string, number> = {};
    for (const row of db.prepare('SELECT term, df FROM term_df ORDER BY term').all() as { term: string; df: number }[]) out[row.term] = row.df;
    out['<blocks>'] = db.prepare("SELECT value FROM index_stats WHERE key = 'blocks'").pluck().get() as number;
    return out;
  };
  const stored = read();
  db.transaction(() => db.exec(REBUILD_TERM_STATS))();
  const rebuilt = read();
  db.close();
  return { stored, rebuilt };
}

describe('term statistics', () => {
  test('writes, re-chunks and removals keep term_df equal to the index', async () => {
    const file = libraryFile();
    const store = new SqliteStore(file);
    await store.writeDocument(documentWrite('a', ['Running rivers of 长江', 'The river runs north', 'Mountains only']));
    await store.writeDocument(documentWrite('b', ['长江 and the Yellow River']));
    let { stored, rebuilt } = termStatsSnapshot(file);
    expect(stored).toEqual(rebuilt);
    expect(stored.river).toBe(3);
    expect(stored.run).toBe(2); // "Running" and "runs" stem to one term, counted once per block
    expect(stored['<blocks>']).toBe(4);

    // Re-chunking a document replaces its blocks: its old terms leave, its new ones arrive.
    await store.writeDocument(documentWrite('a', ['Glaciers and rivers'], { configHash: 'other' }));
    ({ stored, rebuilt } = termStatsSnapshot(file));
    expect(stored).toEqual(rebuilt);
    expect(stored.run).toBeUndefined();
    expect(stored['<blocks>']).toBe(2);

    expect(await store.removeDocument('doc-b')).toBe(true);
    ({ stored, rebuilt } = termStatsSnapshot(file));
    expect(stored).toEqual(rebuilt);
    expect(stored['长江']).toBeUndefined();
    expect(stored['<blocks>']).toBe(1);
    await store.close();
  });

  test('a library from before term_df is backfilled when opened', async () => {
    const file = libraryFile();
    legacyLibrary(file, 1, ['alpha beta', 'beta gamma', 'beta']);

    await new SqliteStore(file).close();
    const migrated = new Database(file, { readonly: true });
    expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const stats = termStatsOf(migrated)!;
    expect(stats.blocks).toBe(3);
    expect([stats.df('alpha'), stats.df('beta'), stats.df('gamma'), stats.df('delta')]).toEqual([1, 3, 1, 0]);
    migrated.close();
  });

  test('a read-only library without term_df searches unpruned', () => {
    const file = libraryFile();
    const db = new Database(file);
    db.exec(MIGRATIONS[0] as string);
    db.pragma('user_version = 1');
    db.close();
    const readonly = new Database(file, { readonly: true });
    expect(termStatsOf(readonly)).toBeUndefined();
    readonly.close();
  });
});

describe('the SQLite store', () => {
  test('iteration reads one snapshot: a write on the store meanwhile is not half seen', async () => {
    const store = new SqliteStore(libraryFile());
    await store.writeDocument(documentWrite('a', Array.from({ length: 1200 }, (_, i) => `old block ${i}`)));
    const seen: string[] = [];
    for await (const block of store.iterateBlocks()) {
      // Re-chunked after the first page was read: the rest of the iteration still sees the old blocks.
      if (seen.length === 0) await store.writeDocument(documentWrite('a', ['new block'], { configHash: 'other' }));
      seen.push(block.text);
    }
    expect(seen).toHaveLength(1200);
    expect(seen.every((t) => t.startsWith('old block'))).toBe(true);
    expect((await store.blocksOf('doc-a')).map((b) => b.text)).toEqual(['new block']);
    await store.close();
  });

  test('a handle given to the store is migrated and owned by it; its spec names its file', async () => {
    const file = libraryFile();
    const db = new Database(file);
    const store = new SqliteStore(db);
    expect(store.spec).toEqual({ kind: 'sqlite', file });
    expect(store.capabilities).toEqual({ concurrentWriters: false });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    await store.close();
    expect(db.open).toBe(false);
  });

  test('a library from a newer Groundwork is refused with UNSUPPORTED, and a file that is no database with IO or CORRUPT', async () => {
    const file = libraryFile();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const newer = await openStore({ kind: 'sqlite', file }).catch((e: unknown) => e);
    expect(isGroundworkError(newer) && newer.code).toBe('UNSUPPORTED');
    const junk = libraryFile();
    writeFileSync(junk, 'this is not a database, only some text that is long enough to be read as a header '.repeat(20));
    await expect(openStore({ kind: 'sqlite', file: junk })).rejects.toThrow();
  });
});

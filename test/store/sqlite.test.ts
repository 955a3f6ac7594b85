import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { SqliteStore, termStatsOf } from '../../src/store/sqlite.js';
import { MIGRATIONS, REBUILD_TERM_STATS, SCHEMA_VERSION } from '../../src/store/sqlite-schema.js';
import type { SearchFilter } from '../../src/store/types.js';
import { documentWrite, legacyLibrary, libraryFile } from './fixtures.js';

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
  test('writes, re-chunks and removals keep term_df equal to the index', () => {
    const file = libraryFile();
    const store = new SqliteStore(file);
    store.writeDocument(documentWrite('a', ['Running rivers of 长江', 'The river runs north', 'Mountains only']));
    store.writeDocument(documentWrite('b', ['长江 and the Yellow River']));
    let { stored, rebuilt } = termStatsSnapshot(file);
    expect(stored).toEqual(rebuilt);
    expect(stored.river).toBe(3);
    expect(stored.run).toBe(2); // "Running" and "runs" stem to one term, counted once per block
    expect(stored['<blocks>']).toBe(4);

    // Re-chunking a document replaces its blocks: its old terms leave, its new ones arrive.
    store.writeDocument(documentWrite('a', ['Glaciers and rivers'], { configHash: 'other' }));
    ({ stored, rebuilt } = termStatsSnapshot(file));
    expect(stored).toEqual(rebuilt);
    expect(stored.run).toBeUndefined();
    expect(stored['<blocks>']).toBe(2);

    expect(store.removeDocument('doc-b')).toBe(true);
    ({ stored, rebuilt } = termStatsSnapshot(file));
    expect(stored).toEqual(rebuilt);
    expect(stored['长江']).toBeUndefined();
    expect(stored['<blocks>']).toBe(1);
    store.close();
  });

  test('a library from before term_df is backfilled when opened', () => {
    const file = libraryFile();
    legacyLibrary(file, 1, ['alpha beta', 'beta gamma', 'beta']);

    new SqliteStore(file).close();
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

describe('search', () => {
  // Many strong "needle" blocks in one document push the other document's weak ones far down the
  // ranking, past the candidates a filtered search looks at first.
  function crowdedLibrary(): SqliteStore {
    const store = new SqliteStore(libraryFile());
    const crowd = Array.from({ length: 300 }, (_, i) => `needle needle needle haystack ${i}`);
    store.writeDocument(documentWrite('crowd', crowd));
    store.writeDocument(documentWrite('sparse', ['a needle in a very long paragraph about hay, straw, barns, fields and farms', 'nothing here'], { format: 'pdf' }));
    return store;
  }

  test('ranks best first and returns k hits with provenance and snippets', () => {
    const store = crowdedLibrary();
    const hits = store.search('needle', 5);
    expect(hits).toHaveLength(5);
    expect(hits.every((h) => h.docId === 'doc-crowd' && h.path === '/docs/crowd.md')).toBe(true);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    expect(hits[0]!.snippet).toContain('«needle»');
    store.close();
  });

  test('filters find hits ranked below the first candidates', () => {
    const store = crowdedLibrary();
    const filters: SearchFilter[] = [{ docId: 'doc-sparse' }, { format: 'pdf' }, { path: '/docs/sparse*' }];
    for (const filter of filters) {
      const hits = store.search('needle', 3, filter);
      expect(hits.map((h) => h.block.text)).toEqual(['a needle in a very long paragraph about hay, straw, barns, fields and farms']);
    }
    expect(store.search('needle', 3, { docId: 'doc-crowd', pageFrom: 10, pageTo: 11 }).map((h) => h.block.ordinal)).toEqual([9, 10]);
    expect(store.search('needle', 3, { path: '/nowhere/**' })).toEqual([]);
    store.close();
  });

  test('a filtered search agrees with the unfiltered ranking', () => {
    const store = crowdedLibrary();
    const all = store.search('needle haystack 7', 400);
    const filtered = store.search('needle haystack 7', 4, { docId: 'doc-crowd' });
    expect(filtered.map((h) => h.block.id)).toEqual(all.filter((h) => h.docId === 'doc-crowd').slice(0, 4).map((h) => h.block.id));
    store.close();
  });
});

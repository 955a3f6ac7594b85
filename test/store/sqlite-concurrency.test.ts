// SQLite's one write lock shared by many connections and processes: a taken lock is waited for
// without blocking the thread, up to lockTimeoutMs (then TIMEOUT); readers never wait for it;
// two processes opening an old library at once migrate it once.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { resolveCheckOptions } from '../../src/store/check.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/sqlite-schema.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { projectRoot } from '../helpers.js';
import { documentWrite, legacyLibrary, libraryFile } from './fixtures.js';

/** Opens `file` with SqliteStore.open in a child process and prints what it then sees. */
function openInChild(file: string): Promise<{ code: number | null; out: string; err: string }> {
  const script = `
    import { SqliteStore } from ${JSON.stringify(join(projectRoot, 'src/store/sqlite/sqlite-store.ts'))};
    const store = await SqliteStore.open(${JSON.stringify(file)});
    const stats = await store.stats();
    const hits = await store.searchText('beta', 1000);
    await store.close();
    process.stdout.write(JSON.stringify({ blocks: stats.blocks, hits: hits.length }));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('SQLite: many connections on one library', () => {
  test('three processes opening a library of schema 1 at once: one migrates, the others wait and see the result', { timeout: 600_000 }, async () => {
    const file = libraryFile();
    const texts = Array.from({ length: 600 }, (_, i) => (i % 2 === 0 ? `alpha beta block ${i}` : `gamma delta block ${i}`));
    legacyLibrary(file, 1, texts);
    const results = await Promise.all([openInChild(file), openInChild(file), openInChild(file)]);
    for (const r of results) {
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toEqual({ blocks: 600, hits: 300 });
    }
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    // Migrated once: the statistics count every block once.
    expect(db.prepare("SELECT df FROM term_df WHERE term = 'beta'").pluck().get()).toBe(300);
    expect(db.prepare("SELECT value FROM index_stats WHERE key = 'blocks'").pluck().get()).toBe(600);
    db.close();
    const store = await SqliteStore.open(file);
    expect((await store.check(resolveCheckOptions({ full: true }))).found).toEqual([]);
    await store.close();
  });

  test('a write waits for another connection\'s lock without blocking this thread, and reads do not wait at all', async () => {
    const file = libraryFile();
    const store = await SqliteStore.open(file);
    await store.writeDocument(documentWrite('a', ['alpha bravo']));
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    holder.prepare("INSERT INTO settings(key, value) VALUES ('held', 'yes')").run();
    let released = false;
    // The holder commits on a timer of this same thread: the waiting write must leave it room to run.
    setTimeout(() => {
      holder.exec('COMMIT');
      released = true;
    }, 300);
    const write = store.writeDocument(documentWrite('b', ['charlie delta']));
    // Meanwhile reads answer from their snapshot.
    expect((await store.searchText('alpha', 5)).map((c) => c.block.docId)).toEqual(['doc-a']);
    expect(released).toBe(false);
    expect(await write).toEqual({ replacedDocId: null, written: true });
    expect(released).toBe(true);
    expect(await store.getSetting('held')).toBe('yes');
    expect((await store.stats()).documents).toBe(2);
    holder.close();
    await store.close();
  });

  test('a lock held longer than lockTimeoutMs: TIMEOUT naming the limit, nothing written', async () => {
    const file = libraryFile();
    const store = await SqliteStore.open(file, { lockTimeoutMs: 200 });
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const error = await store.writeDocument(documentWrite('a', ['alpha bravo'])).then(() => undefined, (e: unknown) => e);
    holder.exec('ROLLBACK');
    holder.close();
    expect(error).toMatchObject({ code: 'TIMEOUT', limit: { name: 'lockTimeoutMs', value: 200 } });
    expect((await store.stats()).documents).toBe(0);
    // Free again: the same write goes through.
    await store.writeDocument(documentWrite('a', ['alpha bravo']));
    expect((await store.stats()).documents).toBe(1);
    await store.close();
  });
});

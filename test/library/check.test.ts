// `library.check()` / `groundwork check`: every kind of damage put in on purpose is found, and
// repair brings the library back to what a clean ingest left (real library files, real corpus).
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Library } from '../../src/library/library.js';
import { blockIndexText } from '../../src/search/analyze.js';
import type { CheckReport } from '../../src/store/check.js';
import { openStore } from '../../src/store/registry.js';
import { FtsIndexWriter } from '../../src/store/sqlite/sqlite-fts.js';
import { runCli } from '../cli/cli.js';
import { corpusDir, hasShared, sharedSkipReason } from '../helpers.js';
import { freshSchema, query, TEST_DATABASE_URL } from '../store/postgres-fixtures.js';
import { copyCorpusFolders, libraryContents } from './contents.js';

const root = mkdtempSync(join(tmpdir(), 'gw-check-'));
const base = join(root, 'base');
let sources: Record<string, string>;
let clean: ReturnType<typeof libraryContents>;
let caseNo = 0;

beforeAll(async () => {
  if (!hasShared) return;
  // md: headings and tables; eml: attachments (documents of their own at `mail#name`, no original); csv.
  sources = copyCorpusFolders(corpusDir, ['md', 'eml', 'csv'], join(root, 'src'));
  const library = await Library.open(base);
  const report = await library.addFiles(Object.values(sources), { workers: 1 });
  expect(report.docsAdded).toBeGreaterThan(10);
  await library.close();
  clean = libraryContents(base);
}, 180_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the clean library to damage. */
function copyOfBase(): string {
  const dir = join(root, `case-${caseNo++}`);
  cpSync(base, dir, { recursive: true });
  return dir;
}

/** Runs `fn` on a raw connection to the library's database (foreign keys off: damage is the point). */
function tamper(dir: string, fn: (db: Database.Database) => void): void {
  const db = new Database(join(dir, 'library.sqlite'));
  db.pragma('foreign_keys = OFF');
  try {
    fn(db);
  } finally {
    db.close();
  }
}

async function check(dir: string, options: { repair?: boolean; full?: boolean } = {}): Promise<CheckReport> {
  const library = await Library.open(dir);
  try {
    return await library.check(options);
  } finally {
    await library.close();
  }
}

const checksOf = (findings: CheckReport['found']) => findings.map((f) => f.check);

function anOriginal(dir: string): { docId: string; file: string } {
  const db = new Database(join(dir, 'library.sqlite'), { readonly: true });
  const row = db.prepare("SELECT id, original FROM documents WHERE original IS NOT NULL AND format = 'markdown' ORDER BY id LIMIT 1").get() as { id: string; original: string };
  db.close();
  return { docId: row.id, file: join(dir, row.original) };
}

interface Fault {
  name: string;
  /** The check that must report it. */
  finds: string;
  severity: 'error' | 'leftover';
  inject: (dir: string) => void;
  /** Only `check({ full: true })` sees it. */
  fullOnly?: boolean;
}

const FAULTS: Fault[] = [
  {
    name: 'an index row deleted (its statistics left as they were)',
    finds: 'index-rows',
    severity: 'error',
    inject: (dir) =>
      tamper(dir, (db) => {
        const row = db.prepare('SELECT rowid, heading_path, text FROM blocks ORDER BY rowid LIMIT 1 OFFSET 3').get() as { rowid: number; heading_path: string; text: string };
        // The store's own writer removes the row; without flush() the statistics stay as they were.
        new FtsIndexWriter(db).remove(row.rowid, blockIndexText({ headingPath: JSON.parse(row.heading_path), text: row.text }));
      }),
  },
  {
    name: 'a term_df row tampered',
    finds: 'term-df',
    severity: 'error',
    inject: (dir) => tamper(dir, (db) => db.exec('UPDATE term_df SET df = df + 3 WHERE term = (SELECT term FROM term_df ORDER BY df DESC LIMIT 1)')),
  },
  {
    name: 'a term_df row deleted',
    finds: 'term-df',
    severity: 'error',
    inject: (dir) => tamper(dir, (db) => db.exec('DELETE FROM term_df WHERE term = (SELECT term FROM term_df ORDER BY term LIMIT 1 OFFSET 10)')),
  },
  {
    name: "index_stats' block count tampered",
    finds: 'index-stats',
    severity: 'error',
    inject: (dir) => tamper(dir, (db) => db.exec("UPDATE index_stats SET value = value - 1 WHERE key = 'blocks'")),
  },
  {
    name: 'fts_lengths: a block moved between length columns (totals unchanged)',
    finds: 'fts-lengths',
    severity: 'error',
    fullOnly: true,
    inject: (dir) =>
      tamper(dir, (db) => {
        const cols = db.prepare('SELECT col FROM fts_lengths WHERE blocks > 0 AND col < 17 ORDER BY col').pluck().all() as number[];
        db.prepare('UPDATE fts_lengths SET blocks = blocks - 1 WHERE col = ?').run(cols[0]);
        db.prepare('UPDATE fts_lengths SET blocks = blocks + 1 WHERE col = ?').run(cols[1]);
      }),
  },
  {
    name: 'an orphan block (its document gone)',
    finds: 'orphan-blocks',
    severity: 'error',
    inject: (dir) =>
      tamper(dir, (db) => {
        db.exec(`CREATE TEMP TABLE t AS SELECT * FROM blocks LIMIT 1;
          UPDATE t SET rowid = NULL, id = 'orphan-block', doc_id = 'no-such-document';
          INSERT INTO blocks SELECT * FROM t;`);
      }),
  },
  {
    name: 'an orphan path',
    finds: 'orphan-paths',
    severity: 'error',
    inject: (dir) => tamper(dir, (db) => db.exec("INSERT INTO paths(path, doc_id, size, mtime_ms) VALUES ('/nowhere/gone.md', 'no-such-document', 1, 0)")),
  },
  {
    name: 'a block whose ordinal is out of sequence',
    finds: 'document-blocks',
    severity: 'error',
    inject: (dir) => tamper(dir, (db) => db.exec("UPDATE blocks SET ordinal = ordinal + 1000 WHERE rowid = (SELECT max(rowid) FROM blocks b WHERE b.doc_id = (SELECT doc_id FROM blocks GROUP BY doc_id HAVING count(*) > 1 ORDER BY doc_id LIMIT 1))")),
  },
  {
    name: 'a kept original deleted',
    finds: 'original-missing',
    severity: 'error',
    inject: (dir) => rmSync(anOriginal(dir).file),
  },
  {
    name: 'a kept original truncated',
    finds: 'original-size',
    severity: 'error',
    inject: (dir) => truncateSync(anOriginal(dir).file, 10),
  },
  {
    name: 'a kept original changed in place (same size)',
    finds: 'original-hash',
    severity: 'error',
    inject: (dir) => {
      const { file } = anOriginal(dir);
      const bytes = readFileSync(file);
      bytes[0] = bytes[0]! ^ 1;
      writeFileSync(file, bytes);
    },
  },
  {
    name: 'a parse-cache entry of a document no longer stored',
    finds: 'orphan-parse-cache',
    severity: 'leftover',
    inject: (dir) => tamper(dir, (db) => db.exec("INSERT INTO parse_cache(key, doc_id, document, created_at) SELECT 'stale-key', 'no-such-document', document, created_at FROM parse_cache LIMIT 1")),
  },
  {
    name: 'a file under files/ no document keeps (older than an ingest could be committing it)',
    finds: 'original-unreferenced',
    severity: 'leftover',
    inject: (dir) => {
      const file = join(dir, 'files', 'ab', 'ab'.padEnd(64, '0'));
      cpSync(anOriginal(dir).file, file);
      const old = new Date(Date.now() - 2 * 3600 * 1000);
      utimesSync(file, old, old);
    },
  },
  {
    name: 'a temporary copy of a process that is gone',
    finds: 'temp-files',
    severity: 'leftover',
    inject: (dir) => {
      const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
      const { file } = anOriginal(dir);
      cpSync(file, `${file}.${dead}.0badc0de.tmp`);
    },
  },
];

describe.skipIf(!hasShared)('check finds what was damaged on purpose; repair restores a clean ingest', () => {
  test('a clean ingest checks clean, quick and full, and repair has nothing to do', async () => {
    for (const full of [false, true]) {
      const report = await check(base, { full });
      expect(report.found).toEqual([]);
      expect(report).toMatchObject({ ok: true, full, repairs: [], remaining: [] });
      // Under 1000 blocks every block is re-analysed, even in the quick check.
      expect(report.checked.find((c) => c.check === 'index-content')).toMatchObject({ scope: 'full', items: clean.blocks.length });
      expect(report.checked.find((c) => c.check === 'original-hash')!.items).toBe(clean.documents.filter((d) => (d as { original: string | null }).original !== null).length);
    }
    expect((await check(base, { repair: true })).repairs).toEqual([]);
  }, 120_000);

  test.each(FAULTS)('$name: found by $finds, repaired', async (fault) => {
    const dir = copyOfBase();
    fault.inject(dir);
    const quick = await check(dir);
    if (fault.fullOnly) {
      expect(checksOf(quick.found)).not.toContain(fault.finds);
      const full = await check(dir, { full: true });
      expect(checksOf(full.found)).toContain(fault.finds);
      expect(full.ok).toBe(false);
    } else {
      expect(checksOf(quick.found)).toContain(fault.finds);
      const f = quick.found.find((x) => x.check === fault.finds)!;
      expect(f).toMatchObject({ severity: fault.severity, repairable: true });
      expect(f.count).toBeGreaterThan(0);
      expect(quick.ok).toBe(fault.severity === 'leftover');
      expect(quick.remaining).toEqual(quick.found);
    }

    const repaired = await check(dir, { repair: true, full: Boolean(fault.fullOnly) });
    expect(repaired.repairs.length).toBeGreaterThan(0);
    expect(repaired.ok).toBe(true);
    if (fault.finds === 'document-blocks') {
      // Its document was removed (named in the repair; its kept copy, written just now, waits as a
      // leftover); ingesting again brings back the clean library, reusing that copy.
      expect(repaired.repairs.find((r) => r.check === 'document-blocks')!.action).toMatch(/ingest them again/);
      expect(repaired.remaining.map((f) => f.check)).toEqual(['original-unreferenced']);
      const library = await Library.open(dir);
      await library.addFiles(Object.values(sources), { workers: 1 });
      await library.close();
    } else {
      expect(repaired.remaining).toEqual([]);
    }
    // Checked again from scratch: nothing left, quick and full.
    expect((await check(dir, { full: true })).found).toEqual([]);
    expect(libraryContents(dir)).toEqual(clean);
    if (fault.finds.startsWith('original-') && fault.severity === 'error') {
      expect(readFileSync(anOriginal(dir).file).equals(readFileSync(join(sources.md!, readdirName(dir))))).toBe(true);
    }
  }, 120_000);

  test('a missing original whose files are gone too: its document keeps its blocks, its original is cleared', async () => {
    const dir = join(root, 'lost');
    const folder = mkdtempSync(join(root, 'lost-src-'));
    writeFileSync(join(folder, 'note.md'), '# Lost\n\nThe warehouse inventory was counted twice.\n');
    writeFileSync(join(folder, 'kept.md'), '# Kept\n\nThe harbour schedule changes in spring.\n');
    const library = await Library.open(dir);
    await library.addFiles(folder, { workers: 0 });
    const lost = (await library.document(join(folder, 'note.md')))!;
    rmSync(join(dir, lost.original!));
    rmSync(join(folder, 'note.md'));
    const found = await library.check();
    expect(found.ok).toBe(false);
    expect(found.found.find((f) => f.check === 'original-missing')!.examples[0]).toContain(lost.id.slice(0, 12));
    const repaired = await library.check({ repair: true });
    expect(repaired.ok).toBe(true);
    expect(repaired.repairs.map((r) => r.action).join(' ')).toMatch(/cleared the kept original of 1 document/);
    expect((await library.document(lost.id))!.original).toBeNull();
    expect((await library.searchText('warehouse inventory')).map((h) => h.docId)).toEqual([lost.id]);
    expect((await library.check()).found).toEqual([]);
    await library.close();
  });

  test('a file no document keeps that was written just now is left alone (an ingest may be committing it)', async () => {
    const dir = copyOfBase();
    const file = join(dir, 'files', 'cd', 'cd'.padEnd(64, '0'));
    cpSync(anOriginal(dir).file, file);
    const repaired = await check(dir, { repair: true });
    expect(repaired.ok).toBe(true);
    expect(existsSync(file)).toBe(true);
    expect(repaired.remaining.map((f) => f.check)).toEqual(['original-unreferenced']);
    expect(repaired.repairs.map((r) => r.action).join(' ')).toMatch(/kept 1 file/);
  });

  test('settings naming an unknown strategy: reported, not repairable, check stays failed', async () => {
    const dir = copyOfBase();
    tamper(dir, (db) => db.exec("INSERT INTO settings(key, value) VALUES ('strategy', 'no-such-strategy') ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
    const repaired = await check(dir, { repair: true });
    expect(repaired.ok).toBe(false);
    expect(repaired.remaining).toMatchObject([{ check: 'settings', severity: 'error', repairable: false }]);
  });

  test('bad options are INVALID_OPTIONS naming the field', async () => {
    const library = await Library.open(copyOfBase());
    await expect(library.check({ repair: 'yes' } as never)).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('repair') });
    await library.close();
  });
});

/** The corpus file name of `anOriginal`'s document (its first path's base name). */
function readdirName(dir: string): string {
  const db = new Database(join(dir, 'library.sqlite'), { readonly: true });
  const path = db.prepare('SELECT min(path) FROM paths WHERE doc_id = ?').pluck().get(anOriginal(dir).docId) as string;
  db.close();
  return path.slice(path.lastIndexOf('/') + 1);
}

describe.skipIf(!hasShared)('groundwork check (the CLI)', () => {
  test('exit 0 and "consistent" on a clean library; exit 1 with --json findings when damaged; --repair exits 0', async () => {
    const ok = await runCli(['check', '--library', base]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/The library is consistent\./);
    expect(ok.stdout).toMatch(/ok +term-df/);

    const dir = copyOfBase();
    tamper(dir, (db) => db.exec('UPDATE term_df SET df = df + 1 WHERE term = (SELECT term FROM term_df ORDER BY term LIMIT 1)'));
    const damaged = await runCli(['check', '--json', '--library', dir]);
    expect(damaged.code).toBe(1);
    const report = JSON.parse(damaged.stdout) as CheckReport;
    expect(report).toMatchObject({ ok: false, repair: false, full: false });
    expect(report.found.map((f) => f.check)).toEqual(['term-df']);

    const text = await runCli(['check', '--library', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/FOUND +term-df/);
    expect(text.stdout).toMatch(/Run groundwork check --repair/);

    const repaired = await runCli(['check', '--repair', '--library', dir]);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toMatch(/Repaired:\n  index: rebuilt the search index/);
    expect(repaired.stdout).toMatch(/Nothing found after the repair\./);
    expect(libraryContents(dir)).toEqual(clean);
  }, 240_000);

  test('usage errors exit 2; no library exits 1; --help lists the flags', async () => {
    expect((await runCli(['check', '--fix', '--library', base])).code).toBe(2);
    expect((await runCli(['check', 'extra', '--library', base])).code).toBe(2);
    const none = await runCli(['check', '--library', join(root, 'no-library-here')]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no library here/);
    expect(existsSync(join(root, 'no-library-here'))).toBe(false);
    const help = await runCli(['check', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--repair', '--full', '--json', '--library']) expect(help.stdout).toContain(flag);
  }, 240_000);
});

// A library on Postgres keeps its originals in the database (`store:<id>`): check reads them back
// through the store (before, it looked under files/ only and called every one of them missing).
describe.skipIf(!hasShared || !TEST_DATABASE_URL)('check on a store that keeps the originals (Postgres)', () => {
  test('clean after an ingest; a deleted original is found, and repair puts it back from its file', async () => {
    const schema = freshSchema();
    const dir = mkdtempSync(join(tmpdir(), 'gw-check-pg-'));
    const files = [sources['md/headings.md'] ?? Object.values(sources)[0]!, ...Object.values(sources).slice(1, 4)];
    const open = () => Library.open(dir, { store: { kind: 'postgres', url: TEST_DATABASE_URL!, schema } });
    let library = await open();
    try {
      const report = await library.addFiles(files, { workers: 1 });
      expect(report.rejected).toEqual([]);
      const docs = (await library.documents()).filter((d) => d.original !== null);
      expect(docs.length).toBeGreaterThan(0);
      for (const doc of docs) expect(doc.original).toBe(`store:${doc.id}`);
      expect((await library.check({ full: true })).found).toEqual([]);

      const victim = docs[0]!;
      await query(`DELETE FROM "${schema}".originals WHERE doc_id = $1`, [victim.id]);
      const damaged = await library.check();
      expect(damaged.found.map((f) => [f.check, f.count])).toEqual([['original-missing', 1]]);

      const repaired = await library.check({ repair: true });
      expect(repaired.repairs.map((r) => r.check)).toEqual(['original-missing']);
      expect(repaired.remaining).toEqual([]);
      // An original no document keeps (put for a write that never committed): a leftover, kept by
      // repair while it is fresh (an ingest may be about to commit it), deleted once it is older.
      const stray = join(dir, 'stray.txt');
      writeFileSync(stray, 'bytes no document keeps\n');
      const strayId = createHash('sha256').update(readFileSync(stray)).digest('hex');
      const store = await openStore({ kind: 'postgres', url: TEST_DATABASE_URL!, schema });
      await store.putOriginal!(strayId, stray);
      await store.close();
      const leftover = await library.check();
      expect(leftover.ok).toBe(true);
      expect(leftover.found.map((f) => [f.check, f.severity, f.count])).toEqual([['original-unreferenced', 'leftover', 1]]);
      const kept = await library.check({ repair: true });
      expect(kept.repairs.map((r) => [r.check, r.count])).toEqual([['original-unreferenced', 0]]);
      await query(`UPDATE "${schema}".originals SET created_at = $2 WHERE doc_id = $1`, [strayId, new Date(Date.now() - 2 * 3600_000).toISOString()]);
      const dropped = await library.check({ repair: true });
      expect(dropped.repairs.map((r) => [r.check, r.count])).toEqual([['original-unreferenced', 1]]);
      expect(dropped.remaining).toEqual([]);
      expect(await query(`SELECT 1 FROM "${schema}".original_parts WHERE doc_id = $1`, [strayId])).toEqual([]);

      await library.close();
      library = await open();
      const back = await library.openOriginal(victim.id);
      const chunks: Buffer[] = [];
      for await (const chunk of back) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(readFileSync(victim.paths[0]!))).toBe(true);
    } finally {
      await library.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

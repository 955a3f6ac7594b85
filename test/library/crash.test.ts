import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { Library } from '../../src/library/library.js';
import { indexedRowCount } from '../../src/store/sqlite/sqlite-fts.js';
import { projectRoot } from '../helpers.js';

const WORDS = 'budget review contract delivery invoice payment schedule warranty clause party notice term renewal audit'.split(' ');
const ZH = '合同 履约 付款 交付 验收 违约 责任 条款 期限 通知 审计 续约'.split(' ');

/** 120 generated documents, enough that an ingest is mid-way when it is killed. */
function makeCorpus(dir: string): void {
  mkdirSync(dir, { recursive: true });
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  for (let f = 0; f < 120; f++) {
    const parts = [`# Document ${f}`];
    for (let s = 0; s < 12; s++) {
      parts.push(`## Section ${f}.${s}`);
      const words = Array.from({ length: 120 }, () => (f % 3 === 0 ? ZH[rand(ZH.length)] : WORDS[rand(WORDS.length)]));
      parts.push(words.join(f % 3 === 0 ? '' : ' ') + '.');
    }
    writeFileSync(join(dir, `doc-${String(f).padStart(3, '0')}.md`), parts.join('\n\n'));
  }
}

function runChild(libDir: string, folder: string, killAfter?: number, killDelayMs = 0): Promise<{ lines: string[]; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'test/library/ingest-child.ts'), libDir, folder], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: string[] = [];
    let buffer = '';
    child.stdout.on('data', (data: Buffer) => {
      buffer += data.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts);
      if (killAfter !== undefined && lines.length >= killAfter && !child.killed) {
        if (killDelayMs === 0) child.kill('SIGKILL');
        else setTimeout(() => child.kill('SIGKILL'), killDelayMs).unref();
        killAfter = undefined;
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve({ lines, signal }));
  });
}

function checkConsistent(dbFile: string): { documents: number; blocks: number } {
  const db = new Database(dbFile, { readonly: true });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  const documents = db.prepare('SELECT count(*) FROM documents').pluck().get() as number;
  const blocks = db.prepare('SELECT count(*) FROM blocks').pluck().get() as number;
  // Every stored document has its blocks and its path; the search index has exactly the blocks' rows.
  expect(db.prepare('SELECT count(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE b.doc_id = d.id)').pluck().get()).toBe(0);
  expect(db.prepare('SELECT count(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM paths p WHERE p.doc_id = d.id)').pluck().get()).toBe(0);
  expect(indexedRowCount(db)).toBe(blocks);
  expect(db.prepare("SELECT value FROM index_stats WHERE key = 'blocks'").pluck().get() ?? 0).toBe(blocks);
  db.close();
  return { documents, blocks };
}

describe('crash safety', () => {
  const root = mkdtempSync(join(tmpdir(), 'gw-crash-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('SIGKILL mid-ingest leaves no partial document; a rerun completes the library', async () => {
    const folder = join(root, 'docs');
    makeCorpus(folder);
    const libDir = join(root, 'lib');
    const killed = await runChild(libDir, folder, 30);
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.lines.some((l) => l.startsWith('report'))).toBe(false);
    const partial = checkConsistent(join(libDir, 'library.sqlite'));
    expect(partial.documents).toBeLessThan(120);

    const rerun = await runChild(libDir, folder);
    const report = JSON.parse(rerun.lines.find((l) => l.startsWith('report'))!.slice(7));
    expect(report.docsAdded + report.docsSkipped).toBe(120);
    expect(report.docsSkipped).toBeGreaterThanOrEqual(partial.documents);
    const full = checkConsistent(join(libDir, 'library.sqlite'));
    expect(full.documents).toBe(120);
  });

  test('SIGKILL at a random moment: check finds no error (quick and full); repair leaves nothing; a rerun completes', { timeout: 180_000 }, async () => {
    const folder = join(root, 'docs3');
    makeCorpus(folder);
    const libDir = join(root, 'lib3');
    // Somewhere in the middle of a file: hashing, parsing, copying the original, or committing.
    const after = 1 + Math.floor(Math.random() * 40);
    const delay = 1 + Math.floor(Math.random() * 400);
    console.log(`crash test: SIGKILL ${delay} ms after file ${after}`);
    const killed = await runChild(libDir, folder, after, delay);
    expect(killed.signal).toBe('SIGKILL');
    const partial = checkConsistent(join(libDir, 'library.sqlite'));

    const library = await Library.open(libDir);
    for (const full of [false, true]) {
      const report = await library.check({ full });
      // A killed ingest leaves at most leftovers (a temporary copy, a copy whose document never committed).
      expect(report.found.filter((f) => f.severity === 'error')).toEqual([]);
      expect(report.ok).toBe(true);
    }
    const repaired = await library.check({ repair: true });
    expect(repaired.ok).toBe(true);
    expect(repaired.remaining.filter((f) => f.check !== 'original-unreferenced')).toEqual([]);
    await library.close();

    const rerun = await runChild(libDir, folder);
    const report = JSON.parse(rerun.lines.find((l) => l.startsWith('report'))!.slice(7));
    expect(report.rejected).toEqual([]);
    expect(report.docsAdded + report.docsSkipped).toBe(120);
    expect(report.docsSkipped).toBeGreaterThanOrEqual(partial.documents);
    const reopened = await Library.open(libDir);
    const final = await reopened.check({ full: true });
    expect(final.found.filter((f) => f.check !== 'original-unreferenced' && f.check !== 'temp-files')).toEqual([]);
    // Every document keeps its original; a copy left by the killed run is now some document's.
    expect((await reopened.documents()).every((d) => d.original !== null)).toBe(true);
    expect(final.found.map((f) => f.check)).not.toContain('original-unreferenced');
    await reopened.close();
    expect(checkConsistent(join(libDir, 'library.sqlite')).documents).toBe(120);
  });

  test('readers can search while an ingest is writing', async () => {
    const folder = join(root, 'docs2');
    makeCorpus(folder);
    const libDir = join(root, 'lib2');
    const reader = await Library.open(libDir);
    const child = runChild(libDir, folder);
    let searches = 0;
    let nonEmpty = 0;
    const deadline = Date.now() + 60_000;
    let finished = false;
    void child.then(() => (finished = true));
    while (!finished && Date.now() < deadline) {
      const hits = await reader.searchText('warranty 合同', { k: 5 });
      searches++;
      if (hits.length > 0) nonEmpty++;
      await new Promise((r) => setTimeout(r, 20));
    }
    await child;
    expect(searches).toBeGreaterThan(3);
    expect(nonEmpty).toBeGreaterThan(0);
    expect((await reader.searchText('warranty', { k: 5 })).length).toBe(5);
    await reader.close();
  });
});

import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { Library, type IngestReport } from '../../src/library/library.js';
import { generator } from '../fixtures/pathological.js';
import { corpus } from '../helpers.js';

/**
 * The per-file limits of an ingest, each hit by a real file in a real batch: the file is rejected
 * with its code and limit, nothing of it is stored, the worker that broke a limit is replaced (the
 * file after it still lands) and the batch goes on. Assertions are on codes, counts and sizes only.
 */

const cleanup: string[] = [];
afterEach(() => {
  for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(files: Record<string, string | { copy: string }>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-limits-'));
  cleanup.push(dir);
  for (const [name, content] of Object.entries(files)) {
    if (typeof content === 'string') writeFileSync(join(dir, name), content);
    else copyFileSync(content.copy, join(dir, name));
  }
  return dir;
}

const NOTE = '# Harbour note\n\nThe tide turns twice a day at the harbour mouth.\n';
const AFTER = 'Ferry timetable.\n\nThe first ferry leaves at six and the last one at midnight.\n';

/** What the library holds, read from its SQLite file and its files/ folder after it is closed. */
function contents(libDir: string) {
  const db = new Database(join(libDir, 'library.sqlite'), { readonly: true });
  const paths = db.prepare('SELECT path FROM paths ORDER BY path').pluck().all() as string[];
  const documents = db.prepare('SELECT id FROM documents').pluck().all() as string[];
  const blockDocs = db.prepare('SELECT DISTINCT doc_id FROM blocks').pluck().all() as string[];
  db.close();
  const originals = readdirSync(join(libDir, 'files'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
  return { paths, documents, blockDocs, originals };
}

function names(paths: string[], dir: string): string[] {
  return paths.map((p) => p.slice(dir.length + 1));
}

function rejected(report: IngestReport, dir: string) {
  return Object.fromEntries(report.rejected.map((r) => [r.path.slice(dir.length + 1), r]));
}

/** Nothing of a rejected file is stored: no path, and every document, block and original belongs to a landed file. */
function expectOnlyLanded(libDir: string, dir: string, landed: string[]): void {
  const stored = contents(libDir);
  expect(names(stored.paths, dir)).toEqual([...landed].sort());
  expect(stored.documents).toHaveLength(landed.length);
  expect(new Set(stored.blockDocs)).toEqual(new Set(stored.documents));
  expect(new Set(stored.originals)).toEqual(new Set(stored.documents));
}

describe('ingest: per-file limits held by killing the worker', () => {
  test('a file over --file-timeout is TIMEOUT naming the limit; parse limits are LIMIT_EXCEEDED; the batch goes on on a replaced worker', async () => {
    const dir = folder({
      'a-note.md': NOTE,
      // A scanned PDF: OCR takes many seconds (PDFium renders, tesseract reads), far past 2 s.
      'b-scan.pdf': { copy: corpus('pdf-scanned', 'loremipsum-flat.pdf') },
      'c-deep.json': generator('json-deep').generate(64 * 1024),
      'd-wide.csv': generator('csv-wide').generate(80 * 1024),
      'e-after.txt': AFTER,
    });
    const lib = await Library.open(join(dir, '.groundwork'));
    // One worker: every file after the killed one ran in its replacement.
    const report = await lib.addFiles(dir, { workers: 1, fileTimeoutMs: 2000, parseOptions: { maxTableColumns: 1000 } });
    await lib.close();

    const byName = rejected(report, dir);
    expect(Object.keys(byName).sort()).toEqual(['b-scan.pdf', 'c-deep.json', 'd-wide.csv']);
    expect(byName['b-scan.pdf']).toMatchObject({ code: 'TIMEOUT', limit: { name: 'fileTimeoutMs', value: 2000, flag: '--file-timeout' } });
    // The message names the file, the limit, its value and the flag that raises it.
    expect(byName['b-scan.pdf']!.reason).toMatch(/b-scan\.pdf: .*2 s.*fileTimeoutMs 2000.*--file-timeout/);
    expect(byName['c-deep.json']).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { name: 'maxNesting', value: 256, flag: '--max-nesting' } });
    expect(byName['d-wide.csv']).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { name: 'maxTableColumns', value: 1000, flag: '--max-table-columns' } });
    for (const r of report.rejected) expect(r.reason.startsWith(`${r.path}: `), r.reason).toBe(true);
    expect(report.docsAdded).toBe(2);
    expect(report.aborted).toBe(false);
    expectOnlyLanded(join(dir, '.groundwork'), dir, ['a-note.md', 'e-after.txt']);
  });

  test('a file over --file-memory is LIMIT_EXCEEDED naming fileMemoryMb; the next file lands', async () => {
    // About 40 MB of sentences on one line: held as a string, split and chunked, far past 200 MB.
    const dir = folder({
      'a-big.txt': generator('text-one-line').generate(40 * 1024 * 1024),
      'b-after.txt': AFTER,
    });
    const lib = await Library.open(join(dir, '.groundwork'));
    const report = await lib.addFiles(dir, { workers: 1, fileMemoryMb: 200 });
    await lib.close();
    const byName = rejected(report, dir);
    expect(Object.keys(byName)).toEqual(['a-big.txt']);
    expect(byName['a-big.txt']).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { name: 'fileMemoryMb', value: 200, flag: '--file-memory' } });
    expect(byName['a-big.txt']!.reason).toMatch(/a-big\.txt: .*200 MB.*--file-memory/);
    expect(report.docsAdded).toBe(1);
    expectOnlyLanded(join(dir, '.groundwork'), dir, ['b-after.txt']);
  });

  test('chunks past --max-expansion are LIMIT_EXCEEDED naming maxExpansion; the limit is not part of the chunk configuration', async () => {
    const cols = Array.from({ length: 30 }, (_, i) => `column_heading_number_${i}`);
    let table = `| ${cols.join(' | ')} |\n|${cols.map(() => '---').join('|')}|\n`;
    for (let r = 0; r < 1000; r++) table += `| ${cols.map((_, c) => `${r}${c}`).join(' | ')} |\n`;
    const dir = folder({ 'a-note.md': NOTE, 'b-table.md': table });
    const lib = await Library.open(join(dir, '.groundwork'));
    // qwen repeats a little of each table into its chunks: more than 1x the text.
    const report = await lib.addFiles(dir, { workers: 1, strategy: 'qwen', chunkOptions: { maxExpansion: 1 } });
    expect(report.rejected).toMatchObject([{ code: 'LIMIT_EXCEEDED', limit: { name: 'maxExpansion', value: 1, flag: '--max-expansion' } }]);
    expect(report.rejected[0]!.reason).toMatch(/b-table\.md: .*maxExpansion 1.*--max-expansion/);
    // Raising the limit does not re-chunk what landed: the limit is not configuration.
    const again = await lib.addFiles(dir, { workers: 1, strategy: 'qwen', chunkOptions: { maxExpansion: 8 } });
    expect(again).toMatchObject({ docsAdded: 1, docsSkipped: 1, rejected: [] });
    await lib.close();
  });

  test('limit options are validated by their schema: INVALID_OPTIONS before anything runs', async () => {
    const dir = folder({ 'a-note.md': NOTE });
    const lib = await Library.open(join(dir, '.groundwork'));
    try {
      await expect(lib.addFiles(dir, { fileTimeoutMs: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('fileTimeoutMs') });
      await expect(lib.addFiles(dir, { fileMemoryMb: 1.5 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('fileMemoryMb') });
      await expect(lib.addFiles(dir, { workers: -1 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
      expect((await lib.documents()).length).toBe(0);
    } finally {
      await lib.close();
    }
  });
});

/** The ids of this process's live child processes (Linux). */
function childPids(): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    const text = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'latin1').trim();
    if (text) out.push(...text.split(' ').map(Number));
  }
  return out;
}

describe('ingest: stopping', () => {
  test('an abort kills the running worker and ends the batch with what has committed; no worker is left', async () => {
    const dir = folder({
      'a-note.md': NOTE,
      'b-scan.pdf': { copy: corpus('pdf-scanned', 'loremipsum-flat.pdf') },
      'c-after.txt': AFTER,
    });
    const lib = await Library.open(join(dir, '.groundwork'));
    const stop = new AbortController();
    const before = childPids();
    let during: number[] = [];
    const report = await lib.addFiles(dir, {
      workers: 1,
      signal: stop.signal,
      onProgress: (p) => {
        // The note is done; the scan is now in the worker (OCR takes seconds): stop there.
        if (p.filesDone === 1) {
          setTimeout(() => {
            during = childPids();
            stop.abort();
          }, 300);
        }
      },
    });
    expect(during.filter((pid) => !before.includes(pid)).length).toBe(1);
    expect(childPids().filter((pid) => !before.includes(pid))).toEqual([]);
    expect(report).toMatchObject({ aborted: true, docsAdded: 1, rejected: [] });
    await lib.close();
    expectOnlyLanded(join(dir, '.groundwork'), dir, ['a-note.md']);
  });

  test('an ingest aborted before it starts writes nothing', async () => {
    const dir = folder({ 'a-note.md': NOTE, 'b-after.txt': AFTER });
    const lib = await Library.open(join(dir, '.groundwork'));
    const report = await lib.addFiles(dir, { signal: AbortSignal.abort() });
    await lib.close();
    expect(report).toMatchObject({ aborted: true, docsAdded: 0, rejected: [] });
    expectOnlyLanded(join(dir, '.groundwork'), dir, []);
  });

  test("closing the Library stops its running ingest and leaves no worker", async () => {
    const dir = folder({ 'a-scan.pdf': { copy: corpus('pdf-scanned', 'loremipsum-flat.pdf') }, 'b-after.txt': AFTER });
    const lib = await Library.open(join(dir, '.groundwork'));
    const before = childPids();
    const ingest = lib.addFiles(dir, { workers: 1 });
    // Close as soon as the worker exists (it has the scan, whose OCR takes seconds): a fixed delay
    // let a loaded machine finish the scan first.
    while (childPids().filter((pid) => !before.includes(pid)).length === 0) await new Promise((r) => setTimeout(r, 10));
    await lib.close();
    const report = await ingest;
    expect(report).toMatchObject({ aborted: true, docsAdded: 0, rejected: [] });
    expect(childPids().filter((pid) => !before.includes(pid))).toEqual([]);
  });
});

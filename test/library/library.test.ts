import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { isGroundworkError } from '../../src/errors.js';
import { Library } from '../../src/library/library.js';
import { openStore } from '../../src/store/registry.js';
import type { LibraryStore } from '../../src/store/types.js';
import { makeFolder } from './fixtures.js';

const cleanup: string[] = [];
afterEach(() => {
  for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setup() {
  const dir = makeFolder();
  cleanup.push(dir);
  const lib = await Library.open(join(dir, '.groundwork'));
  return { dir, lib };
}

describe('Library.addFiles', () => {
  test('ingests a folder: dedupes by content, rejects the empty file, skips hidden files', async () => {
    const { dir, lib } = await setup();
    const report = await lib.addFiles(dir, { workers: 2 });
    expect(report.docsAdded).toBe(4);
    expect(report.docsSkipped).toBe(1); // copy-of-meeting.txt has the same bytes as meeting.txt
    expect(report.rejected).toEqual([{ path: join(dir, 'empty.txt'), code: 'EMPTY', reason: expect.stringContaining('empty.txt') }]);
    expect(report.tablesAdded).toBe(2); // the Markdown table and the CSV
    expect(report.blocksAdded).toBeGreaterThanOrEqual(4);
    const docs = await lib.documents();
    expect(docs).toHaveLength(4);
    const meeting = docs.find((d) => d.paths.some((p) => p.endsWith('meeting.txt')))!;
    expect(meeting.paths.map((p) => p.slice(dir.length))).toEqual(['/notes/copy-of-meeting.txt', '/notes/meeting.txt']);
    expect(docs.some((d) => d.paths.some((p) => p.includes('.hidden')))).toBe(false);
    // Originals are kept by content hash.
    expect(existsSync(join(lib.dir, meeting.original!))).toBe(true);
    await lib.close();
  });

  test('a second run parses nothing; a changed file is re-ingested alone and replaces its blocks', async () => {
    const { dir, lib } = await setup();
    await lib.addFiles(dir, { workers: 0 });
    const again = await lib.addFiles(dir, { workers: 0 });
    expect(again).toMatchObject({ docsAdded: 0, docsUpdated: 0, parsed: 0, blocksAdded: 0 });
    expect(again.docsSkipped).toBe(5);

    const guide = join(dir, 'guide.md');
    const before = (await lib.document(guide))!;
    writeFileSync(guide, '# Installation guide\n\nEverything changed: use the installer.\n');
    const third = await lib.addFiles(dir, { workers: 0 });
    expect(third).toMatchObject({ docsAdded: 0, docsUpdated: 1, parsed: 1 });
    expect(await lib.document(before.id)).toBeUndefined();
    expect((await lib.searchText('installer'))[0]!.path).toBe(guide);
    expect(await lib.searchText('compiler')).toEqual([]);

    // Touching a file without changing it reads it but parses nothing.
    utimesSync(guide, new Date(), new Date(Date.now() + 5000));
    const fourth = await lib.addFiles(dir, { workers: 0 });
    expect(fourth).toMatchObject({ docsAdded: 0, docsUpdated: 0, parsed: 0 });
    await lib.close();
  });

  test('re-chunking with another strategy reuses the parse cache', async () => {
    const { dir, lib } = await setup();
    await lib.addFiles(dir, { workers: 0 });
    const rechunked = await lib.addFiles(dir, { workers: 0, strategy: 'recursive', chunkOptions: { chunkSize: 200, chunkOverlap: 20 } });
    expect(rechunked.parsed).toBe(0);
    expect(rechunked.docsUpdated).toBe(4);
    for (const d of await lib.documents()) expect(d.strategy).toBe('recursive');
    await lib.close();
  });

  test('dryRun reports without writing', async () => {
    const { dir, lib } = await setup();
    const report = await lib.addFiles(dir, { workers: 0, dryRun: true });
    expect(report.docsAdded).toBe(4);
    expect(await lib.documents()).toEqual([]);
    await lib.close();
  });

  test('include/exclude globs and maxFileSize', async () => {
    const { dir, lib } = await setup();
    const report = await lib.addFiles(dir, { workers: 0, include: ['**/*.md'], exclude: ['manual-*'] });
    expect(report.docsAdded).toBe(1);
    const small = await lib.addFiles(dir, { workers: 0, maxFileSize: 50 });
    expect(small.rejected.filter((r) => r.code === 'TOO_LARGE').length).toBeGreaterThan(0);
    await lib.close();
  });

  test('a mail attachment is stored as its own document at <mail>#<name>', async () => {
    const { dir, lib } = await setup();
    const mail = [
      'From: Ana <ana@example.com>',
      'To: Bo <bo@example.com>',
      'Subject: Quarterly figures',
      'Date: Mon, 30 Nov 2026 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="XYZ"',
      '',
      '--XYZ',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Please find the figures attached.',
      '--XYZ',
      'Content-Type: text/csv; name="figures.csv"',
      'Content-Disposition: attachment; filename="figures.csv"',
      '',
      'region,revenue',
      'north,1200',
      'south,950',
      '--XYZ--',
      '',
    ].join('\r\n');
    const only = join(dir, 'mail');
    mkdirSync(only);
    writeFileSync(join(only, 'figures.eml'), mail);
    const report = await lib.addFiles(only, { workers: 0 });
    expect(report.docsAdded).toBe(2);
    expect(report.rejected).toEqual([]);
    const hit = (await lib.searchText('revenue north'))[0]!;
    expect(hit.path).toBe(`${join(only, 'figures.eml')}#figures.csv`);
    expect(hit.block.kind).toBe('table');
    // Unchanged on a second run: nothing parsed, nothing added.
    expect(await lib.addFiles(only, { workers: 0 })).toMatchObject({ docsAdded: 0, parsed: 0 });
    await lib.close();
  });
});

describe('Library.search', () => {
  test('finds English and Chinese blocks with provenance and snippets', async () => {
    const { dir, lib } = await setup();
    await lib.addFiles(dir, { workers: 0 });
    const zh = await lib.searchText('第三章第二节提到的三个前提条件', { k: 3 });
    expect(zh[0]!.path).toBe(join(dir, 'manual-zh.md'));
    expect(zh[0]!.block.headingPath).toEqual(['合同总则', '第三章 履约', '3.2 前提条件']);
    expect(zh[0]!.snippet).toContain('«前提条件»');
    const en = await lib.searchText('quarterly budget approved');
    expect(en[0]!.path!.endsWith('meeting.txt')).toBe(true);
    expect(en[0]!.score).toBeGreaterThan(0);
    await lib.close();
  });

  test('filters by format, path glob, document and page', async () => {
    const { dir, lib } = await setup();
    await lib.addFiles(dir, { workers: 0 });
    expect(await lib.searchText('node', { filter: { format: 'csv' } })).toEqual([]);
    expect(await lib.searchText('Shanghai', { filter: { format: 'csv' } })).toHaveLength(1);
    expect(await lib.searchText('budget', { filter: { path: '**/notes/*.txt' } })).toHaveLength(1);
    expect(await lib.searchText('budget', { filter: { path: '**/*.md' } })).toEqual([]);
    const guide = (await lib.document(join(dir, 'guide.md')))!;
    expect((await lib.searchText('node', { filter: { docId: guide.id } })).every((h) => h.docId === guide.id)).toBe(true);
    await lib.close();
  });

  test('hostile query strings return results or nothing, never an error', async () => {
    const { dir, lib } = await setup();
    await lib.addFiles(dir, { workers: 0 });
    const hostile = ['"', '"unbalanced', 'AND', 'OR OR', 'NOT', '-', '-budget', 'budget AND', 'U.S.', "o'brien", '😀', '*', 'NEAR(a b)', '^', ':', 'col:budget', '(((', '\u0000', '第三章"', "'; DROP TABLE blocks; --"];
    for (const q of hostile) expect(Array.isArray(await lib.searchText(q))).toBe(true);
    expect((await lib.searchText('-budget')).length).toBeGreaterThan(0);
    await lib.close();
  });
});

describe('Library.remove and stats', () => {
  test('removes a document with its blocks and search rows', async () => {
    const { dir, lib } = await setup();
    await lib.addFiles(dir, { workers: 0 });
    const before = await lib.stats();
    const removed = (await lib.remove(join(dir, 'manual-zh.md')))!;
    expect(removed.title).toBe('合同总则');
    expect(existsSync(join(lib.dir, removed.original!))).toBe(false);
    expect(await lib.searchText('前提条件')).toEqual([]);
    const after = await lib.stats();
    expect(after.documents).toBe(before.documents - 1);
    expect(after.blocks).toBe(before.blocks - removed.blocks);
    await lib.close();
  });

  test('the library folder holds library.sqlite and files/', async () => {
    const { dir, lib } = await setup();
    await lib.addFiles(dir, { workers: 0 });
    expect(readdirSync(lib.dir).sort()).toEqual(expect.arrayContaining(['files', 'library.sqlite']));
    await lib.close();
  });
});

/**
 * A real SQLite store that reports how many of its write calls overlap. Each write yields to the
 * event loop first, as a server database's would, so overlapping calls really do overlap.
 */
async function countingStore(file: string, concurrentWriters: boolean): Promise<{ store: LibraryStore; maxActive: () => number }> {
  const inner = await openStore({ kind: 'sqlite', file });
  let active = 0;
  let max = 0;
  const writes = new Set(['setSetting', 'recordPath', 'writeDocument', 'removeDocument']);
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'capabilities') return { concurrentWriters };
      const value = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || !writes.has(key)) return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        max = Math.max(max, ++active);
        try {
          await new Promise((r) => setImmediate(r));
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          active--;
        }
      };
    },
  });
  return { store, maxActive: () => max };
}

describe('Library.open with a store', () => {
  test('writes take turns where the store takes one writer, and overlap where it takes many', async () => {
    const dir = makeFolder();
    cleanup.push(dir);
    const one = await countingStore(join(dir, 'one.sqlite'), false);
    const lib = await Library.open(join(dir, '.gw-one'), { store: one.store });
    await Promise.all([lib.setSetting('strategy', 'recursive'), lib.setSetting('tokenizer', 'o200k_base'), lib.setSetting('strategy', 'structure')]);
    const report = await lib.addFiles(dir, { workers: 0 });
    expect(report.docsAdded).toBe(4);
    expect(one.maxActive()).toBe(1);
    expect(await lib.settings()).toEqual({ strategy: 'structure', tokenizer: 'o200k_base', vectorModel: null, quantization: 'none' });
    await lib.close();

    const many = await countingStore(join(dir, 'many.sqlite'), true);
    const lib2 = await Library.open(join(dir, '.gw-many'), { store: many.store });
    await Promise.all([lib2.setSetting('strategy', 'recursive'), lib2.setSetting('tokenizer', 'o200k_base'), lib2.setSetting('strategy', 'structure')]);
    expect(many.maxActive()).toBe(3);
    await lib2.close();
  });

  test('a store spec puts the data where it names; a bad one is INVALID_OPTIONS', async () => {
    const dir = makeFolder();
    cleanup.push(dir);
    const file = join(dir, 'elsewhere.sqlite');
    const lib = await Library.open(join(dir, '.gw'), { store: { kind: 'sqlite', file } });
    await lib.addFiles(join(dir, 'notes'), { workers: 0 });
    await lib.close();
    expect(existsSync(join(dir, '.gw', 'library.sqlite'))).toBe(false);
    const reopened = await Library.open(join(dir, '.gw'), { store: { kind: 'sqlite', file } });
    expect((await reopened.stats()).documents).toBe(1);
    expect((await reopened.searchText('budget'))[0]!.snippet).toContain('«budget»');
    await reopened.close();

    const error = await Library.open(join(dir, '.gw'), { store: { kind: 'sqlite', path: file } }).catch((e: unknown) => e);
    expect(isGroundworkError(error) && error.code).toBe('INVALID_OPTIONS');
  });
});

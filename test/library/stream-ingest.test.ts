import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Library, STREAM_CHARS } from '../../src/library/library.js';
import { openStore } from '../../src/store/registry.js';
import type { DocumentHead, LibraryStore, StoreSpec } from '../../src/store/types.js';
import { freshSchema, TEST_DATABASE_URL } from '../store/postgres-fixtures.js';

/**
 * A document of more than STREAM_CHARS of chunk text from an ingest worker is written as its
 * pieces arrive (LibraryStore.beginDocument): the same library as a whole write makes, and
 * nothing of it when its write fails part-way.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A Markdown file of about `chars` characters in sections with headings. */
function bigMarkdown(chars: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const section = `# Chapter ${i}\n\n## Tides of ${i}\n\nThe tide turns twice a day at harbour ${i} and the boats wait for it. ${'Gulls circle over the quay while the nets dry. '.repeat(30)}\n\n`;
    parts.push(section);
    size += section.length;
  }
  return parts.join('');
}

const source = tempDir('gw-stream-src-');
writeFileSync(join(source, 'big.md'), bigMarkdown(STREAM_CHARS * 1.5));
writeFileSync(join(source, 'small.md'), '# Ferry\n\nThe first ferry leaves at six and the last one at midnight.\n');

interface Calls {
  begun: string[];
  added: number;
  whole: string[];
}

/** The store with its writes counted, and `failAt`: the addBlocks call (1-based) that fails. */
function watched(store: LibraryStore, calls: Calls, failAt?: number): LibraryStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'beginDocument') {
        return async (head: DocumentHead) => {
          calls.begun.push(head.document.id);
          const writer = await target.beginDocument(head);
          return {
            addBlocks: async (...args: Parameters<typeof writer.addBlocks>) => {
              calls.added++;
              if (calls.added === failAt) throw new Error('injected fault: the disk is full');
              return writer.addBlocks(...args);
            },
            commit: () => writer.commit(),
            abort: () => writer.abort(),
          };
        };
      }
      if (prop === 'writeDocument') {
        return (write: Parameters<LibraryStore['writeDocument']>[0]) => {
          calls.whole.push(write.document.id);
          return target.writeDocument(write);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// Postgres keeps the originals in the database (`store:<id>`); `check` reads them back through it.
const stores: { name: string; spec: () => StoreSpec; copyFiles: boolean }[] = [{ name: 'sqlite', spec: () => ({ kind: 'sqlite', file: join(tempDir('gw-stream-lib-'), 'library.sqlite') }), copyFiles: true }];
if (TEST_DATABASE_URL) stores.push({ name: 'postgres', spec: () => ({ kind: 'postgres', url: TEST_DATABASE_URL, schema: freshSchema() }), copyFiles: true });

describe.each(stores)('streamed ingest of a big document ($name)', ({ name, spec, copyFiles }) => {
  test('written as the pieces arrive: the same documents, blocks and ranking as a whole write, check clean', { timeout: 180_000 }, async () => {
    const calls: Calls = { begun: [], added: 0, whole: [] };
    const streamedLib = await Library.open(tempDir('gw-stream-a-'), { store: watched(await openStore(spec()), calls) });
    const wholeLib = await Library.open(tempDir('gw-stream-b-'), { store: await openStore(spec()) });
    try {
      const report = await streamedLib.addFiles(source, { workers: 1, copyFiles });
      expect(report.rejected).toEqual([]);
      expect(report.docsAdded).toBe(2);
      // Only the big document was streamed, in more than one piece; the small one was written whole.
      expect(calls.begun).toHaveLength(1);
      expect(calls.added).toBeGreaterThan(1);
      expect(calls.whole).toHaveLength(1);
      // In process (workers: 0) every document is written whole.
      const whole = await wholeLib.addFiles(source, { workers: 0, copyFiles });
      expect(whole.blocksAdded).toBe(report.blocksAdded);

      const big = (await streamedLib.document(join(source, 'big.md')))!;
      expect(calls.begun).toEqual([big.id]);
      const { addedAt: _a, ...doc } = big;
      const { addedAt: _b, ...expected } = (await wholeLib.document(join(source, 'big.md')))!;
      expect(doc).toEqual(expected);
      expect(big.blocks).toBeGreaterThan(100);
      const streamedStats = await streamedLib.stats();
      const wholeStats = await wholeLib.stats();
      for (const key of ['documents', 'blocks', 'paths', 'tokens', 'bytes', 'parseCacheEntries'] as const) expect(streamedStats[key]).toBe(wholeStats[key]);
      for (const query of ['harbour 1234 tide', 'gulls nets', 'ferry midnight']) {
        const a = await streamedLib.searchText(query, { k: 10 });
        const b = await wholeLib.searchText(query, { k: 10 });
        expect(a.map((h) => [h.block.id, h.score])).toEqual(b.map((h) => [h.block.id, h.score]));
      }
      expect((await streamedLib.check({ full: true })).found).toEqual([]);
      // The parse cache entry the streamed write stored is the whole parse.
      expect((await streamedLib.parsedDocument(big.id)).document.canonical.length).toBeGreaterThan(STREAM_CHARS);
      if (copyFiles) expect(big.original).not.toBeNull();
    } finally {
      await streamedLib.close();
      await wholeLib.close();
    }
  });

  test('a write that fails part-way: the file is rejected naming the cause, nothing of it stays, the other file lands', { timeout: 180_000 }, async () => {
    const calls: Calls = { begun: [], added: 0, whole: [] };
    const dir = tempDir('gw-stream-c-');
    const store = watched(await openStore(spec()), calls, 2);
    const lib = await Library.open(dir, { store });
    try {
      const report = await lib.addFiles(source, { workers: 1, copyFiles });
      expect(report.rejected.map((r) => [r.path, r.code])).toEqual([[join(source, 'big.md'), 'IO']]);
      expect(report.rejected[0]!.reason).toMatch(/injected fault/);
      expect(report.docsAdded).toBe(1);
      expect(calls.begun).toHaveLength(1);
      expect(await lib.document(join(source, 'big.md'))).toBeUndefined();
      expect((await lib.stats()).documents).toBe(1);
      expect(await lib.searchText('gulls nets', { k: 5 })).toEqual([]);
      const check = await lib.check({ full: true });
      expect(check.found).toEqual([]);
      // The original kept for it was removed again: from files/ (SQLite), from the database (Postgres).
      if (name === 'sqlite') expect(readdirSync(join(dir, 'files'), { recursive: true }).filter((f) => String(f).length > 40)).toHaveLength(1);
      else expect(await store.openOriginal!(createHash('sha256').update(readFileSync(join(source, 'big.md'))).digest('hex'))).toBeUndefined();
    } finally {
      await lib.close();
    }
  });
});

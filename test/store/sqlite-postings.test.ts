import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { queryTerms } from '../../src/search/analyze.js';
import { columnWeights, lengthStatsReader, rankFunction, TOP_ROWIDS_SQL } from '../../src/store/sqlite/sqlite-fts.js';
import { MEMORY_INDEX_FAILED } from '../../src/store/sqlite/sqlite-postings.js';
import { SqliteSearch, termStatsOf } from '../../src/store/sqlite/sqlite-search.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { documentWrite, libraryFile } from './fixtures.js';

const CORPUS = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'corpus');

/** Paragraphs of real corpus files (English, Chinese and German text), in order. */
function paragraphs(): string[] {
  const files = ['md/wiki.md', 'md/nested.md', 'md/markdown.sample.zh.md', 'txt/candide-windows-1252.txt.expected.txt', 'txt/chatgpt-prompt-guide_zh.txt', 'txt/UDHR_first_article_all.txt'];
  const out: string[] = [];
  for (const file of files) {
    for (const p of readFileSync(join(CORPUS, file), 'utf8').split(/\n\s*\n/)) if (p.trim().length > 20) out.push(p.trim());
  }
  return out;
}

/** Queries: every 7th paragraph's first words, single words and two-word pairs from the texts. */
function queries(texts: string[]): string[] {
  const out: string[] = [];
  texts.forEach((t, i) => {
    const words = t.split(/\s+/).filter((w) => w.length > 3);
    if (i % 7 === 0) out.push(words.slice(0, 8).join(' '));
    if (i % 5 === 0 && words.length > 2) out.push(words[1]!, `${words[0]} ${words[2]}`);
  });
  return out;
}

/** What FTS5's bm25() ranks for `query` (the order and numbers the store gave before the postings). */
function fts5Rank(db: Database.Database, query: string, k: number): { docId: string; ordinal: number; score: number }[] {
  const terms = queryTerms(query, termStatsOf(db));
  if (terms.length === 0) return [];
  const match = terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
  return db
    .prepare(`WITH top AS (${TOP_ROWIDS_SQL}) SELECT b.doc_id AS docId, b.ordinal AS ordinal, -top.rank AS score FROM top JOIN blocks b ON b.rowid = top.rowid ORDER BY top.rank`)
    .all({ match, rank: rankFunction(columnWeights(lengthStatsReader(db)())), n: k }) as { docId: string; ordinal: number; score: number }[];
}

describe('SQLite BM25 from in-memory postings', () => {
  test('ranks exactly as FTS5 bm25() does (same blocks, same order, bit-identical scores), after writes, re-chunks and removals', async () => {
    const file = libraryFile();
    const store = new SqliteStore(file);
    const texts = paragraphs();
    expect(texts.length).toBeGreaterThan(100);
    // Documents of 12 paragraphs; then one removed and one re-chunked (its blocks replaced).
    const docs = Array.from({ length: Math.ceil(texts.length / 12) }, (_, i) => texts.slice(i * 12, (i + 1) * 12));
    for (const [i, doc] of docs.entries()) await store.writeDocument(documentWrite(`d${i}`, doc));
    await store.removeDocument('doc-d1');
    await store.writeDocument(documentWrite('d2', [docs[2]!.join('\n\n'), ...docs[1]!], { configHash: 'rechunked' }));
    await store.close();

    const db = new Database(file, { readonly: true });
    try {
      const search = new SqliteSearch(db, { memoryIndex: {} });
      expect(await search.memoryReady()).toBe(true);
      const asked = queries(texts);
      expect(asked.length).toBeGreaterThan(50);
      let compared = 0;
      for (const query of asked) {
        for (const k of [1, 10, 60]) {
          const reference = fts5Rank(db, query, k);
          expect(search.rank(query, k), `${query} (k ${k})`).toEqual(reference);
          compared += reference.length;
        }
      }
      expect(compared).toBeGreaterThan(1000);
    } finally {
      db.close();
    }
  });

  test('blockRows (what searchText returns) is in the same order, with FTS5 ranks, filtered or not', async () => {
    const file = libraryFile();
    const store = new SqliteStore(file);
    const texts = paragraphs();
    for (let i = 0; i * 10 < texts.length; i++) await store.writeDocument(documentWrite(`d${i}`, texts.slice(i * 10, (i + 1) * 10), { format: i % 2 ? 'text' : 'markdown' }));
    await store.close();
    const db = new Database(file, { readonly: true });
    try {
      const search = new SqliteSearch(db, { memoryIndex: {} });
      expect(await search.memoryReady()).toBe(true);
      for (const query of queries(texts).slice(0, 40)) {
        const reference = fts5Rank(db, query, 10);
        const rows = search.blockRows(query, 10);
        expect(rows.map((r) => ({ docId: r.doc_id, ordinal: r.ordinal, score: -r.rank }))).toEqual(reference);
        // With a filter the postings give the candidates; the survivors keep their order.
        const filtered = search.blockRows(query, 5, { format: 'markdown' });
        const formats = new Map((db.prepare('SELECT id, format FROM documents').all() as { id: string; format: string }[]).map((d) => [d.id, d.format]));
        const wider = fts5Rank(db, query, 500).filter((r) => formats.get(r.docId) === 'markdown').slice(0, 5);
        expect(filtered.map((r) => ({ docId: r.doc_id, ordinal: r.ordinal, score: -r.rank }))).toEqual(wider);
      }
    } finally {
      db.close();
    }
  });

  test('a reader holding the postings never serves a removed document; after a removal and a re-ingest it rebuilds and still equals FTS5', async () => {
    const file = libraryFile();
    const writer = new SqliteStore(file);
    const texts = paragraphs();
    for (let i = 0; i * 10 < texts.length; i++) await writer.writeDocument(documentWrite(`d${i}`, texts.slice(i * 10, (i + 1) * 10)));
    // The reader a server's search worker is: another connection, read-only, postings in memory.
    const reader = new SqliteStore(file, { readonly: true, memoryIndex: true });
    const db = new Database(file, { readonly: true });
    try {
      expect(await reader.memoryIndexReady()).toBe(true);
      const asked = queries(texts).slice(0, 30);
      const same = async () => {
        for (const query of asked) expect(await reader.rankText(query, 20), query).toEqual(fts5Rank(db, query, 20));
      };
      await same();
      // A query whose best hit is in d3: removed, it must not come back, even before any rebuild.
      const words = texts[30]!.split(/\s+/).filter((w) => w.length > 3).slice(0, 6).join(' ');
      expect((await reader.rankText(words, 5)).some((r) => r.docId === 'doc-d3')).toBe(true);
      await writer.removeDocument('doc-d3');
      expect((await reader.rankText(words, 50)).some((r) => r.docId === 'doc-d3')).toBe(false);
      expect((await reader.searchText(words, 50)).some((c) => c.block.docId === 'doc-d3')).toBe(false);
      await same();
      expect(await reader.memoryIndexReady()).toBe(true);
      expect((await reader.rankText(words, 50)).some((r) => r.docId === 'doc-d3')).toBe(false);
      await same();
      // Re-ingested under another configuration (its blocks replaced): back, ranked as FTS5 ranks it.
      await writer.writeDocument(documentWrite('d3', texts.slice(30, 40), { configHash: 'again' }));
      await same();
      expect(await reader.memoryIndexReady()).toBe(true);
      await same();
      expect((await reader.rankText(words, 5)).some((r) => r.docId === 'doc-d3')).toBe(true);
      // The writer's own connection (its changes are seen through total_changes(), not data_version).
      const own = new SqliteStore(file, { memoryIndex: true });
      try {
        expect(await own.memoryIndexReady()).toBe(true);
        await own.removeDocument('doc-d3');
        expect((await own.rankText(words, 50)).some((r) => r.docId === 'doc-d3')).toBe(false);
        expect(await own.memoryIndexReady()).toBe(true);
        for (const query of asked) expect(await own.rankText(query, 20), query).toEqual(fts5Rank(db, query, 20));
      } finally {
        await own.close();
      }
    } finally {
      db.close();
      await reader.close();
      await writer.close();
    }
  });

  test('a build that fails is a process warning, once, and FTS5 ranks meanwhile', async () => {
    const file = libraryFile();
    const writer = new SqliteStore(file);
    const texts = paragraphs();
    await writer.writeDocument(documentWrite('d0', texts.slice(0, 20)));
    await writer.close();
    // A block the build cannot read (its heading path is not JSON); FTS5 does not need it.
    const raw = new Database(file);
    raw.prepare("UPDATE blocks SET heading_path = 'not json' WHERE ordinal = 0").run();
    raw.close();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => {
      if ((warning as Error & { code?: string }).code === MEMORY_INDEX_FAILED) warnings.push(warning);
    };
    process.on('warning', onWarning);
    const reader = new SqliteStore(file, { readonly: true, memoryIndex: true });
    const db = new Database(file, { readonly: true });
    try {
      // Three attempts (settled retries): still one warning.
      expect(await reader.memoryIndexReady()).toBe(false);
      expect(await reader.memoryIndexReady()).toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.length).toBe(1);
      expect(warnings[0]!.message).toMatch(/in-memory search index failed .*JSON.*FTS5/);
      const asked = queries(texts.slice(1, 20)).slice(0, 10);
      expect(asked.length).toBeGreaterThan(3);
      for (const query of asked) expect(await reader.rankText(query, 10), query).toEqual(fts5Rank(db, query, 10));
    } finally {
      process.off('warning', onWarning);
      db.close();
      await reader.close();
    }
  });

  test('over the budget the store keeps FTS5 (no postings in memory)', async () => {
    const file = libraryFile();
    const writer = new SqliteStore(file);
    await writer.writeDocument(documentWrite('d0', paragraphs().slice(0, 5)));
    await writer.close();
    const small = new SqliteStore(file, { readonly: true, memoryIndex: { maxBlocks: 2 } });
    try {
      expect(await small.memoryIndexReady()).toBe(false);
    } finally {
      await small.close();
    }
  });
});

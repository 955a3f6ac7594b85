import pg from 'pg';
import type { Readable } from 'node:stream';
import { decodeParse, encodeParse } from '../parse-cache.js';
import type { Document } from '../../document/types.js';
import { GroundworkError, isGroundworkError } from '../../errors.js';
import { ANALYZER_VERSION, blockIndexText } from '../../search/analyze.js';
import type {
  Block, BlockWithPath, DocumentDump, DocumentHead, DocumentWrite, DocumentWriter, JobPatch, JobQuery, JobRecord, JobState, LibraryStore, OutlineBlock, WriteResult, PathRecord, RankedBlock, SearchFilter, StoreCapabilities, StoreOpenOptions, StoreStats,
  StoredDocument, TextCandidate, VectorCandidate, VectorEntry, VectorFilter, VectorQuantization, VectorSpace, VectorStats,
} from '../types.js';
import { FRESH_UNREFERENCED_MS, mergeReports, type CheckRepair, type CheckReport, type ResolvedCheckOptions } from '../check.js';
import { inspect, rebuiltRepair } from './postgres-check.js';
import { DEFAULT_SCHEMA, type PostgresStoreSpec } from './postgres-definition.js';
import { createJob, getJob, listJobs, updateJob } from './postgres-jobs.js';
import { indexEntry, IndexDelta, type IndexEntry } from './postgres-fts.js';
import { dropOriginal, readOriginal, STORE_ORIGINAL_PREFIX, unreferencedOriginals, writeOriginal } from './postgres-originals.js';
import { BLOCK_COLUMN_TYPES, BLOCK_COLUMNS, blockValues, fromPgText, toBlock, toPgJson, toPgText, toStoredDocument } from './postgres-rows.js';
import { migrate, quoteIdentifier } from './postgres-schema.js';
import { PostgresSearch } from './postgres-search.js';
import { PostgresVectors } from './postgres-vectors.js';

type Row = Record<string, any>;

/** Rows per page of block iteration. */
const BLOCK_PAGE = 512;
/** Blocks per insert statement (a document of many blocks is written in several, in its one transaction). */
const INSERT_BATCH = 1000;
/** Attempts of a write transaction that lost a deadlock or serialization race to another writer. */
const WRITE_ATTEMPTS = 5;
/** SQLSTATEs of a transaction that may succeed when run again. */
const RETRYABLE = new Set(['40P01', '40001']);

/** Integers come back as numbers (counts, sizes, row ids stay below 2^53); the rest as node-postgres parses them. */
const TYPES = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** The server, database and schema without credentials, for messages. */
export function describeLocation(url: string, schema: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
    return `postgres://${user}${parsed.host}${parsed.pathname} (schema ${schema})`;
  } catch {
    return `a Postgres server (schema ${schema})`;
  }
}

/**
 * The server backend: a library in one schema of a PostgreSQL database, reached through a pool of
 * connections (`pg`). Every write is one transaction on a connection of its own, so any number of
 * writers (threads, processes, machines) may write at once: `concurrentWriters: true`. Readers see
 * committed data only. Full text is the SQLite store's ranking computed from the same statistics
 * (postgres-fts.ts, postgres-search.ts); originals may be kept in the database (`putOriginal`).
 */
export class PostgresStore implements LibraryStore {
  readonly location: string;
  readonly spec: PostgresStoreSpec;
  readonly capabilities: StoreCapabilities = { concurrentWriters: true };
  private readonly pool: pg.Pool;
  private readonly schema: string;
  private readonly search: PostgresSearch;
  private readonly vectors: PostgresVectors;
  private closed = false;

  private constructor(spec: PostgresStoreSpec) {
    this.spec = spec;
    this.schema = spec.schema ?? DEFAULT_SCHEMA;
    this.location = describeLocation(spec.url, this.schema);
    // Every connection works in the library's schema (public stays on the path for extension types),
    // set as a startup parameter: no query runs before the pool hands a connection out (a query
    // issued from the pool's 'connect' event overlapped the caller's first one).
    this.pool = new pg.Pool({ ...withSearchPath(spec.url, `${quoteIdentifier(this.schema)},public`), max: spec.poolSize ?? 10, types: TYPES });
    // An idle connection the server dropped is replaced on next use; it must not crash the process.
    this.pool.on('error', () => undefined);
    this.search = new PostgresSearch(this.pool);
    this.vectors = new PostgresVectors(this.location);
  }

  /**
   * Connects, creates or migrates the schema (one process at a time, see postgres-schema.ts) and
   * re-indexes every block when the index was built by another analyzer.
   */
  static async open(spec: PostgresStoreSpec, options: StoreOpenOptions = {}): Promise<PostgresStore> {
    const store = new PostgresStore(spec);
    try {
      const client = await store.connect();
      try {
        await migrate(client, store.schema, (c) => store.checkAnalyzer(c, options.onIndexRebuild), spec.create ?? true);
      } finally {
        client.release();
      }
      return store;
    } catch (error) {
      await store.pool.end().catch(() => undefined);
      throw store.translate(error);
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    if (this.closed) throw new GroundworkError('IO', 'the store is closed', { file: this.location });
    try {
      return await this.pool.connect();
    } catch (cause) {
      throw new GroundworkError('IO', `cannot connect to the Postgres server: ${(cause as Error).message}`, { file: this.location, cause });
    }
  }

  /** A server error as a GroundworkError naming the store; ours and the caller's pass unchanged. */
  private translate(error: unknown): unknown {
    if (isGroundworkError(error) || !(error instanceof pg.DatabaseError)) return error;
    return new GroundworkError('IO', `Postgres: ${error.message}${error.code ? ` (SQLSTATE ${error.code})` : ''}`, { file: this.location, cause: error });
  }

  /** One query on any pooled connection. */
  private async query<R extends Row = Row>(sql: string, params: unknown[] = []): Promise<R[]> {
    const client = await this.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } catch (error) {
      throw this.translate(error);
    } finally {
      client.release();
    }
  }

  /**
   * Runs `body` in one transaction (READ COMMITTED), again when it lost a deadlock to another
   * writer (Postgres aborts one of the two; the statistics rows are locked in one order, but
   * documents and paths of two writes can still cross).
   */
  private async transaction<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect();
      try {
        await client.query('BEGIN');
        const result = await body(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        const code = error instanceof pg.DatabaseError ? error.code : undefined;
        if (code && RETRYABLE.has(code) && attempt < WRITE_ATTEMPTS) {
          await new Promise((r) => setTimeout(r, 5 * 2 ** attempt * (0.5 + Math.random())));
          continue;
        }
        throw this.translate(error);
      } finally {
        client.release();
      }
    }
  }

  /** Re-indexes every block when the index was built by another analyzer (inside the migration lock). */
  private async checkAnalyzer(client: pg.PoolClient, onIndexRebuild: StoreOpenOptions['onIndexRebuild']): Promise<void> {
    const { rows } = await client.query<{ value: string }>("SELECT value FROM settings WHERE key = 'index.analyzer'");
    if (rows[0]?.value === ANALYZER_VERSION) return;
    await rebuildIndex(client, onIndexRebuild);
    await client.query(
      "INSERT INTO settings (key, value) VALUES ('index.analyzer', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [ANALYZER_VERSION],
    );
  }

  async getSetting(key: string): Promise<string | undefined> {
    const rows = await this.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return rows[0]?.value;
  }

  async setSetting(key: string, value: string): Promise<void> {
    await this.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
  }

  async pathRecord(path: string): Promise<PathRecord | undefined> {
    const rows = await this.query<PathRecord>('SELECT path, doc_id AS "docId", size, mtime_ms AS "mtimeMs" FROM paths WHERE path = $1', [path]);
    return rows[0];
  }

  async documentInfo(docId: string): Promise<{ configHash: string } | undefined> {
    const rows = await this.query<{ configHash: string }>('SELECT config_hash AS "configHash" FROM documents WHERE id = $1', [docId]);
    return rows[0];
  }

  async recordPath(record: PathRecord): Promise<{ replacedDocId: string | null }> {
    return this.transaction(async (client) => {
      const stored = await client.query('SELECT 1 FROM documents WHERE id = $1 FOR SHARE', [record.docId]);
      if (!stored.rowCount) {
        throw new GroundworkError('NOT_FOUND', `document ${record.docId.slice(0, 12)} is not stored (removed meanwhile?)`, { file: record.path });
      }
      const delta = new IndexDelta();
      const result = await this.putPath(client, record, delta);
      await delta.apply(client);
      return result;
    });
  }

  /**
   * Points `path` at its document; a document left with no path is deleted (it was replaced). The
   * path row is locked first (or inserted: a concurrent insert of the same path makes this wait
   * and then take the row as it was committed), then the replaced document's row, before its
   * remaining paths are counted, so a path added to it meanwhile is seen.
   */
  private async putPath(client: pg.PoolClient, record: PathRecord, delta: IndexDelta): Promise<{ replacedDocId: string | null }> {
    let previous: string | undefined;
    for (;;) {
      const { rows } = await client.query<{ doc_id: string }>('SELECT doc_id FROM paths WHERE path = $1 FOR UPDATE', [record.path]);
      if (rows[0]) {
        previous = rows[0].doc_id;
        await client.query('UPDATE paths SET doc_id = $2, size = $3, mtime_ms = $4 WHERE path = $1', [record.path, record.docId, record.size, record.mtimeMs]);
        break;
      }
      const inserted = await client.query(
        'INSERT INTO paths (path, doc_id, size, mtime_ms) VALUES ($1, $2, $3, $4) ON CONFLICT (path) DO NOTHING',
        [record.path, record.docId, record.size, record.mtimeMs],
      );
      if (inserted.rowCount === 1) break;
    }
    if (previous === undefined || previous === record.docId) return { replacedDocId: null };
    const locked = await client.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [previous]);
    if (locked.rowCount === 0) return { replacedDocId: null };
    const { rowCount } = await client.query('SELECT 1 FROM paths WHERE doc_id = $1 LIMIT 1', [previous]);
    if (rowCount) return { replacedDocId: null };
    await this.deleteDocumentRows(client, previous, delta);
    return { replacedDocId: previous };
  }

  async writeDocument(write: DocumentWrite): Promise<WriteResult> {
    return this.transaction(async (client): Promise<WriteResult> => {
      const delta = new IndexDelta();
      const written = await this.startRows(client, write, delta);
      if (written) {
        for (let from = 0; from < write.blocks.length; from += INSERT_BATCH) {
          await this.insertBatch(client, write.blocks.slice(from, from + INSERT_BATCH), write.indexTexts?.slice(from, from + INSERT_BATCH), delta);
        }
      }
      return this.finishRows(client, write, delta, written);
    });
  }

  /**
   * A streamed write: a connection of its own holds one transaction (READ COMMITTED) from
   * `beginDocument` to `commit`, and the blocks are inserted into it as they come, so no reader
   * sees any of them before the commit, and a rollback, a lost connection or a killed process
   * leaves nothing. The document's row is locked (or inserted) at the start: a second writer of the
   * same content waits there for this one to end. Unlike `writeDocument`, a transaction that loses
   * a deadlock is not run again (its blocks are gone): the write fails and the caller may retry.
   */
  async beginDocument(head: DocumentHead): Promise<DocumentWriter> {
    const client = await this.connect();
    const delta = new IndexDelta();
    let state: 'open' | 'done' = 'open';
    const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
      state = 'done';
      try {
        await client.query(sql);
      } finally {
        client.release();
      }
    };
    const fail = async (error: unknown): Promise<never> => {
      if (state === 'open') await end('ROLLBACK').catch(() => undefined);
      throw this.translate(error);
    };
    let written: boolean;
    try {
      await client.query('BEGIN');
      written = await this.startRows(client, head, delta);
    } catch (error) {
      return fail(error);
    }
    const ensureOpen = () => {
      if (state !== 'open') throw new GroundworkError('INVALID_OPTIONS', `the streamed write of document ${head.document.id.slice(0, 12)} is already committed or aborted`, { file: this.location });
    };
    return {
      addBlocks: async (blocks, indexTexts) => {
        ensureOpen();
        // Content stored already with this configuration: its blocks are there; only the path is written.
        if (!written) return;
        try {
          for (let from = 0; from < blocks.length; from += INSERT_BATCH) {
            await this.insertBatch(client, blocks.slice(from, from + INSERT_BATCH), indexTexts?.slice(from, from + INSERT_BATCH), delta);
          }
        } catch (error) {
          await fail(error);
        }
      },
      commit: async () => {
        ensureOpen();
        try {
          const result = await this.finishRows(client, head, delta, written);
          await end('COMMIT');
          return result;
        } catch (error) {
          return fail(error);
        }
      },
      abort: async () => {
        if (state === 'open') await end('ROLLBACK').catch(() => undefined);
      },
    };
  }

  /**
   * The start of a document's write: false when the content is stored with this configuration
   * already (its row is then locked, and only the path will be written); else the document's row
   * is written (a second writer of the same content waits here for the first to commit) and the
   * blocks of another configuration deleted.
   */
  private async startRows(client: pg.PoolClient, head: DocumentHead, delta: IndexDelta): Promise<boolean> {
    const { document: doc } = head;
    const stored = await client.query<{ config_hash: string }>('SELECT config_hash FROM documents WHERE id = $1 FOR UPDATE', [doc.id]);
    if (stored.rows[0]?.config_hash === head.configHash) return false;
    const { rows } = await client.query<{ existed: boolean }>(
      `INSERT INTO documents (id, format, mime, title, language, page_count, bytes, metadata, warnings, strategy, config_hash, tables, images, original, added_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (id) DO UPDATE SET format = excluded.format, mime = excluded.mime, title = excluded.title, language = excluded.language,
         page_count = excluded.page_count, metadata = excluded.metadata, warnings = excluded.warnings, strategy = excluded.strategy,
         config_hash = excluded.config_hash, tables = excluded.tables, images = excluded.images,
         original = coalesce(excluded.original, documents.original)
       RETURNING (xmax <> 0) AS existed`,
      [
        doc.id, doc.format, doc.mime, toPgText(doc.title ?? null), doc.language ?? null, doc.pageCount ?? null, doc.source.bytes,
        toPgJson(doc.metadata ?? {}), toPgJson(doc.warnings ?? []), head.strategy, head.configHash,
        doc.elements.filter((e) => e.kind === 'table').length, doc.elements.filter((e) => e.kind === 'image').length,
        head.original, new Date().toISOString(),
      ],
    );
    // Re-chunking with another configuration replaces the document's blocks; its paths stay.
    if (rows[0]!.existed) await this.deleteBlocks(client, doc.id, delta);
    return true;
  }

  private async insertBatch(client: pg.PoolClient, blocks: readonly Block[], indexTexts: readonly string[] | undefined, delta: IndexDelta): Promise<void> {
    if (blocks.length === 0) return;
    await this.insertBlocks(client, blocks, blocks.map((block, i) => indexTexts?.[i] ?? blockIndexText(block)), delta);
  }

  /** The end of a document's write: the parse-cache entry (when written), the path, the index statistics. */
  private async finishRows(client: pg.PoolClient, head: DocumentHead, delta: IndexDelta, written: boolean): Promise<WriteResult> {
    const { document: doc } = head;
    if (!written) {
      if (head.original) await client.query('UPDATE documents SET original = $2 WHERE id = $1 AND original IS NULL', [doc.id, head.original]);
    } else if (head.parseCacheKey) {
      await client.query(
        'INSERT INTO parse_cache (key, doc_id, document, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO UPDATE SET doc_id = excluded.doc_id, document = excluded.document, created_at = excluded.created_at',
        [head.parseCacheKey, doc.id, head.parseBlob ?? encodeParse(doc), new Date().toISOString()],
      );
    }
    const replaced = head.path ? await this.putPath(client, head.path, delta) : { replacedDocId: null };
    await delta.apply(client);
    return { ...replaced, written };
  }

  async setOriginal(docId: string, original: string | null): Promise<boolean> {
    const client = await this.connect();
    try {
      return ((await client.query('UPDATE documents SET original = $2 WHERE id = $1', [docId, original])).rowCount ?? 0) > 0;
    } catch (error) {
      throw this.translate(error);
    } finally {
      client.release();
    }
  }

  /** Inserts blocks and their index rows in one statement; counts them into `delta`. */
  private async insertBlocks(client: pg.PoolClient, blocks: readonly Block[], bodies: readonly string[], delta: IndexDelta): Promise<void> {
    const columns: unknown[][] = BLOCK_COLUMNS.map(() => []);
    for (const block of blocks) blockValues(block).forEach((value, c) => columns[c]!.push(value));
    const index = { ids: [] as string[], parts: [] as number[], cols: [] as number[], lengths: [] as number[], terms: [] as string[] };
    const postings = new PostingRows<string>();
    blocks.forEach((block, i) => {
      const entry = indexEntry(bodies[i]!);
      entry.parts.forEach((terms, part) => {
        index.ids.push(block.id);
        index.parts.push(part);
        index.cols.push(entry.column);
        index.lengths.push(entry.length);
        index.terms.push(terms);
      });
      postings.add(block.id, entry);
      delta.add(entry);
    });
    const n = BLOCK_COLUMNS.length;
    const unnest = BLOCK_COLUMN_TYPES.map((type, c) => `$${c + 1}::${type === 'json' ? 'text' : type}[]`).join(', ');
    const selected = BLOCK_COLUMNS.map((column) => {
      const name = column.replace(/"/g, '');
      if (name === 'heading_path') return 'ARRAY(SELECT json_array_elements_text(u.heading_path::json))';
      const type = BLOCK_COLUMN_TYPES[BLOCK_COLUMNS.indexOf(column)];
      return type === 'json' ? `u.${column}::json` : `u.${column}`;
    });
    await client.query(
      `WITH u AS (SELECT * FROM unnest(${unnest}) WITH ORDINALITY AS u(${BLOCK_COLUMNS.join(', ')}, n)),
       ins AS (INSERT INTO blocks (${BLOCK_COLUMNS.join(', ')}) SELECT ${selected.join(', ')} FROM u ORDER BY u.n RETURNING rowid, id),
       terms AS (
         INSERT INTO block_terms (rowid, part, col, length, terms)
         SELECT ins.rowid, t.part, t.col, t.length, t.terms::tsvector
         FROM unnest($${n + 1}::text[], $${n + 2}::int[], $${n + 3}::int[], $${n + 4}::int[], $${n + 5}::text[]) AS t(id, part, col, length, terms)
         JOIN ins ON ins.id = t.id)
       INSERT INTO postings (lexeme, rowid, col, tf)
       SELECT p.lexeme, ins.rowid, p.col, p.tf
       FROM unnest($${n + 6}::text[], $${n + 7}::text[], $${n + 8}::int[], $${n + 9}::int[]) AS p(id, lexeme, col, tf)
       JOIN ins ON ins.id = p.id`,
      [...columns, index.ids, index.parts, index.cols, index.lengths, index.terms, postings.blocks, postings.lexemes, postings.cols, postings.tfs],
    );
  }

  /**
   * Deletes a document's blocks (their index rows cascade) and their postings (found by the terms
   * of the index rows), counting what leaves the index into `delta`.
   */
  private async deleteBlocks(client: pg.PoolClient, docId: string, delta: IndexDelta): Promise<void> {
    const { rows } = await client.query<{ rowid: number; part: number; length: number; lexemes: string[] }>(
      `SELECT t.rowid, t.part, t.length, tsvector_to_array(t.terms) AS lexemes FROM block_terms t JOIN blocks b ON b.rowid = t.rowid WHERE b.doc_id = $1`,
      [docId],
    );
    const lexemes: string[] = [];
    const rowids: number[] = [];
    for (const row of rows) {
      delta.remove(row);
      for (const lexeme of row.lexemes) {
        lexemes.push(lexeme);
        rowids.push(row.rowid);
      }
    }
    if (lexemes.length > 0) {
      await client.query(
        'DELETE FROM postings p USING unnest($1::text[], $2::bigint[]) AS x(lexeme, rowid) WHERE p.lexeme = x.lexeme AND p.rowid = x.rowid',
        [lexemes, rowids],
      );
    }
    await client.query('DELETE FROM blocks WHERE doc_id = $1', [docId]);
  }

  /** Deletes a document with everything that hangs off it (paths cascade). */
  private async deleteDocumentRows(client: pg.PoolClient, docId: string, delta: IndexDelta): Promise<void> {
    await this.deleteBlocks(client, docId, delta);
    await client.query('DELETE FROM documents WHERE id = $1', [docId]);
    await client.query('DELETE FROM originals WHERE doc_id = $1', [docId]);
  }

  async removeDocument(docId: string): Promise<boolean> {
    return this.transaction(async (client) => {
      const { rowCount } = await client.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [docId]);
      if (!rowCount) return false;
      const delta = new IndexDelta();
      await this.deleteDocumentRows(client, docId, delta);
      await client.query('DELETE FROM parse_cache WHERE doc_id = $1', [docId]);
      await delta.apply(client);
      return true;
    });
  }

  async cachedParse(key: string): Promise<Document | undefined> {
    const rows = await this.query<{ document: Buffer }>('SELECT document FROM parse_cache WHERE key = $1', [key]);
    return rows[0] ? decodeParse(rows[0].document) : undefined;
  }

  async listDocuments(): Promise<StoredDocument[]> {
    return (await this.query(`${DOCUMENT_SELECT} ORDER BY d.added_at, d.id`)).map(toStoredDocument);
  }

  async documentTokens(docIds: readonly string[]): Promise<Map<string, number>> {
    const sums = new Map<string, number>(docIds.map((id) => [id, 0]));
    if (docIds.length === 0) return sums;
    const rows = await this.query<{ doc_id: string; tokens: string }>('SELECT doc_id, coalesce(sum(tokens), 0) AS tokens FROM blocks WHERE doc_id = ANY($1::text[]) GROUP BY doc_id', [[...new Set(docIds)]]);
    for (const row of rows) sums.set(row.doc_id, Number(row.tokens));
    return sums;
  }

  async getDocument(idOrPath: string): Promise<StoredDocument | undefined> {
    const byPath = await this.pathRecord(idOrPath);
    const key = byPath ? byPath.docId : idOrPath;
    const prefix = `${key.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    const rows = await this.query(`${DOCUMENT_SELECT} WHERE d.id = $1 OR d.id LIKE $2 ORDER BY d.id = $1 DESC, d.id LIMIT 2`, [key, prefix]);
    if (rows.length > 1 && rows[0]!.id !== key) {
      throw new GroundworkError('INVALID_OPTIONS', `'${idOrPath}' matches more than one document id; give more characters`);
    }
    return rows[0] ? toStoredDocument(rows[0]) : undefined;
  }

  async getBlock(blockId: string): Promise<Block | undefined> {
    const rows = await this.query('SELECT * FROM blocks WHERE id = $1', [blockId]);
    return rows[0] ? toBlock(rows[0]) : undefined;
  }

  async blockRange(docId: string, from: number, to: number): Promise<Block[]> {
    return (await this.query('SELECT * FROM blocks WHERE doc_id = $1 AND ordinal BETWEEN $2 AND $3 ORDER BY ordinal', [docId, from, to])).map(toBlock);
  }

  async blocksOf(docId: string): Promise<Block[]> {
    return (await this.query('SELECT * FROM blocks WHERE doc_id = $1 ORDER BY ordinal', [docId])).map(toBlock);
  }

  async outlineBlocks(docId: string): Promise<OutlineBlock[]> {
    // strpos() runs in the server: only the texts that may hold a heading line are sent.
    const rows = await this.query(
      `SELECT ordinal, start, "end", page_start, heading_path, strategy, CASE WHEN strpos(text, '# ') > 0 THEN text END AS text
       FROM blocks WHERE doc_id = $1 ORDER BY ordinal`, [docId]);
    return rows.map((row) => ({
      ordinal: row.ordinal, start: row.start, end: row.end, pageStart: row.page_start,
      headingPath: (row.heading_path as string[]).map((h) => fromPgText(h)), strategy: row.strategy,
      text: row.text === null ? null : fromPgText(row.text as string),
    }));
  }

  /**
   * Every block by (doc_id, ordinal), read through a cursor inside one REPEATABLE READ transaction
   * on a connection of its own: one snapshot, as one statement would see, while other connections
   * go on writing. Pages of BLOCK_PAGE rows; leaving the loop early closes the transaction.
   */
  async *iterateBlocks(): AsyncIterable<BlockWithPath> {
    const client = await this.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(
        `DECLARE blocks_cursor NO SCROLL CURSOR FOR
         SELECT b.*, (SELECT min(p.path) FROM paths p WHERE p.doc_id = b.doc_id) AS path FROM blocks b ORDER BY b.doc_id, b.ordinal, b.rowid`,
      );
      for (;;) {
        const { rows } = await client.query(`FETCH ${BLOCK_PAGE} FROM blocks_cursor`);
        for (const row of rows) yield { ...toBlock(row), path: row.path ?? null };
        if (rows.length < BLOCK_PAGE) break;
      }
    } catch (error) {
      throw this.translate(error);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }

  async searchText(query: string, k: number, filter: SearchFilter = {}): Promise<TextCandidate[]> {
    return this.search.candidates(query, k, filter).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  async rankText(query: string, k: number): Promise<RankedBlock[]> {
    return this.search.rank(query, k).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  /**
   * Keeps the file at `path` as the original of `docId`, streamed into the database in parts;
   * returns the reference to record in the document's `original`. A no-op when it is stored.
   */
  async putOriginal(docId: string, path: string): Promise<string> {
    await this.transaction((client) => writeOriginal(client, docId, path));
    return `${STORE_ORIGINAL_PREFIX}${docId}`;
  }

  async dropOriginal(docId: string): Promise<void> {
    await dropOriginal(this.pool, docId).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  /** The kept original of `docId` as a stream, or undefined when the store holds none. */
  async openOriginal(docId: string): Promise<Readable | undefined> {
    return readOriginal(this.pool, docId).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  async listSettings(): Promise<Record<string, string>> {
    const rows = await this.query<{ key: string; value: string }>('SELECT key, value FROM settings ORDER BY key');
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  /**
   * Writes a document copied from another store (`groundwork migrate`) in one transaction: its row
   * as it was (added time, original), its blocks with index rows built by this store's analysis,
   * its paths (a path held by another document moves, as in `recordPath`) and parse cache.
   */
  async importDocument(dump: DocumentDump): Promise<void> {
    const doc = dump.document;
    await this.transaction(async (client) => {
      const delta = new IndexDelta();
      const { rows } = await client.query<{ existed: boolean }>(
        `INSERT INTO documents (id, format, mime, title, language, page_count, bytes, metadata, warnings, strategy, config_hash, tables, images, original, added_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (id) DO UPDATE SET format = excluded.format, mime = excluded.mime, title = excluded.title, language = excluded.language,
           page_count = excluded.page_count, bytes = excluded.bytes, metadata = excluded.metadata, warnings = excluded.warnings,
           strategy = excluded.strategy, config_hash = excluded.config_hash, tables = excluded.tables, images = excluded.images,
           original = coalesce(excluded.original, documents.original), added_at = excluded.added_at
         RETURNING (xmax <> 0) AS existed`,
        [
          doc.id, doc.format, doc.mime, toPgText(doc.title), doc.language, doc.pageCount, doc.bytes, toPgJson(doc.metadata), toPgJson(doc.warnings),
          doc.strategy, doc.configHash, doc.tables, doc.images, doc.original, doc.addedAt,
        ],
      );
      if (rows[0]!.existed) await this.deleteBlocks(client, doc.id, delta);
      for (let from = 0; from < dump.blocks.length; from += INSERT_BATCH) {
        const blocks = dump.blocks.slice(from, from + INSERT_BATCH);
        await this.insertBlocks(client, blocks, blocks.map(blockIndexText), delta);
      }
      for (const record of dump.paths) await this.putPath(client, record, delta);
      for (const entry of dump.parseCache) {
        await client.query(
          'INSERT INTO parse_cache (key, doc_id, document, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO UPDATE SET doc_id = excluded.doc_id, document = excluded.document',
          [entry.key, doc.id, entry.document, new Date().toISOString()],
        );
      }
      await delta.apply(client);
    });
  }

  /**
   * The checks of postgres-check.ts on one REPEATABLE READ snapshot (writers go on); a repair
   * rebuilds the index from the blocks with the index tables locked against writers, then checks again.
   */
  async check(options: ResolvedCheckOptions): Promise<CheckReport> {
    const started = performance.now();
    const inspectAll = async () => {
      const client = await this.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        return await inspect(client);
      } catch (error) {
        throw this.translate(error);
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
      }
    };
    const first = await inspectAll();
    let repairs: CheckReport['repairs'] = [];
    let remaining = first.found;
    if (options.repair && first.found.some((f) => f.repairable)) {
      if (first.found.some((f) => f.repairable && f.check !== 'original-unreferenced')) {
        const blocks = await this.transaction(async (client) => {
          await client.query('LOCK TABLE blocks, block_terms, postings, term_df, fts_lengths, index_stats IN EXCLUSIVE MODE');
          await rebuildIndex(client, undefined);
          return Number((await client.query('SELECT count(*) AS n FROM blocks')).rows[0].n);
        });
        repairs.push(rebuiltRepair(blocks));
      }
      if (first.found.some((f) => f.check === 'original-unreferenced')) repairs.push(...(await this.dropUnreferencedOriginals()));
      remaining = (await inspectAll()).found;
    }
    return mergeReports(options, [{ checked: first.checked, found: first.found, repairs, remaining, durationMs: Math.round(performance.now() - started) }]);
  }

  /**
   * Deletes the originals no document keeps, except those put in the last FRESH_UNREFERENCED_MS
   * (an ingest may be about to commit the document that keeps it).
   */
  private async dropUnreferencedOriginals(): Promise<CheckRepair[]> {
    const client = await this.connect();
    let removed = 0;
    let fresh = 0;
    try {
      const now = Date.now();
      for (const original of await unreferencedOriginals(client)) {
        if (now - Date.parse(original.createdAt) < FRESH_UNREFERENCED_MS) fresh++;
        else {
          await dropOriginal(client, original.docId);
          removed++;
        }
      }
    } catch (error) {
      throw this.translate(error);
    } finally {
      client.release();
    }
    const repairs: CheckRepair[] = [];
    if (removed > 0) repairs.push({ check: 'original-unreferenced', action: `deleted ${removed} original(s) in the database that were no document's`, count: removed });
    if (fresh > 0) {
      repairs.push({ check: 'original-unreferenced', action: `kept ${fresh} original(s) no document keeps, put in the last ${FRESH_UNREFERENCED_MS / 60_000} minutes (an ingest may be about to commit them; a later repair deletes them)`, count: 0 });
    }
    return repairs;
  }

  async putVectors(space: VectorSpace, entries: readonly VectorEntry[]): Promise<{ stored: number; linked: number }> {
    return this.transaction((client) => this.vectors.put(client, space, entries));
  }

  async knownVectors(space: VectorSpace, hashes: readonly string[]): Promise<Set<string>> {
    return this.reading((db) => this.vectors.known(db, space, hashes));
  }

  async missingVectors(space: VectorSpace, limit: number, after?: { docId: string; ordinal: number }): Promise<BlockWithPath[]> {
    const rows = await this.reading((db) => this.vectors.missing(db, space, limit, after));
    return rows.map((row) => ({ ...toBlock(row), path: row.path ?? null }));
  }

  async vectorCandidates(space: VectorSpace, vector: Float32Array, k: number, filter: VectorFilter = {}): Promise<VectorCandidate[]> {
    // A transaction: the quantized search sets its index scan's parameters for itself (SET LOCAL).
    const rows = await this.transaction((client) => this.vectors.nearest(client, space, vector, k, filter));
    return rows.map((row) => ({ block: toBlock(row), path: row.path ?? null, score: row.score }));
  }

  async setQuantization(space: VectorSpace, quantization: VectorQuantization): Promise<void> {
    await this.transaction((client) => this.vectors.setQuantization(client, space, quantization));
  }

  async vectorStats(): Promise<VectorStats[]> {
    return this.reading((db) => this.vectors.stats(db));
  }

  async pruneVectors(space: VectorSpace): Promise<number> {
    return this.transaction((client) => this.vectors.prune(client, space));
  }

  async dropVectors(model: string): Promise<number> {
    return this.transaction((client) => this.vectors.drop(client, model));
  }

  /** A read on the pool, its server errors translated. */
  private async reading<T>(body: (db: pg.Pool) => Promise<T>): Promise<T> {
    if (this.closed) throw new GroundworkError('IO', 'the store is closed', { file: this.location });
    return body(this.pool).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  async createJob(job: JobRecord): Promise<void> {
    await createJob(this.pool, job).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    return getJob(this.pool, id).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  async listJobs(query?: JobQuery): Promise<JobRecord[]> {
    return listJobs(this.pool, query).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  async updateJob(id: string, patch: JobPatch, options: { ifState?: readonly JobState[] } = {}): Promise<JobRecord | undefined> {
    return updateJob(this.pool, id, patch, options.ifState).catch((error: unknown) => {
      throw this.translate(error);
    });
  }

  async stats(): Promise<StoreStats> {
    const [row] = await this.query(`SELECT
      (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM blocks) AS blocks, (SELECT count(*) FROM paths) AS paths,
      (SELECT coalesce(sum(tokens), 0) FROM blocks) AS tokens, (SELECT coalesce(sum(bytes), 0) FROM documents) AS bytes,
      (SELECT count(*) FROM parse_cache) AS parse_cache_entries,
      (SELECT coalesce(json_object_agg(format, n ORDER BY format), '{}') FROM (SELECT format, count(*) AS n FROM documents GROUP BY format) f) AS by_format`);
    return {
      documents: row!.documents,
      blocks: row!.blocks,
      paths: row!.paths,
      tokens: Number(row!.tokens),
      bytes: Number(row!.bytes),
      byFormat: row!.by_format,
      parseCacheEntries: row!.parse_cache_entries,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/** How a document's `original` names an original kept inside the store. */
export { STORE_ORIGINAL_PREFIX };

const DOCUMENT_SELECT = `SELECT d.*, (SELECT count(*) FROM blocks b WHERE b.doc_id = d.id) AS block_count,
  ARRAY(SELECT p.path FROM paths p WHERE p.doc_id = d.id ORDER BY p.path) AS path_list FROM documents d`;

/**
 * Re-creates the index rows and statistics from the blocks with the current analyzer, in pages
 * (the migration lock is held, so no writer runs meanwhile).
 */
async function rebuildIndex(client: pg.PoolClient, onProgress: StoreOpenOptions['onIndexRebuild']): Promise<void> {
  await client.query('DELETE FROM block_terms; DELETE FROM postings; DELETE FROM term_df; DELETE FROM fts_lengths; DELETE FROM index_stats');
  const total = onProgress ? Number((await client.query('SELECT count(*) AS n FROM blocks')).rows[0].n) : 0;
  const report = total > 0 ? onProgress : undefined;
  report?.(0, total);
  let done = 0;
  for (let last = 0; ; ) {
    const { rows } = await client.query<{ rowid: number; heading_path: string[]; text: string }>(
      'SELECT rowid, heading_path, text FROM blocks WHERE rowid > $1 ORDER BY rowid LIMIT 2000',
      [last],
    );
    if (rows.length === 0) break;
    const delta = new IndexDelta();
    const index = { rowids: [] as number[], parts: [] as number[], cols: [] as number[], lengths: [] as number[], terms: [] as string[] };
    const postings = new PostingRows<number>();
    for (const row of rows) {
      // Only the two columns the analysis reads (toBlock wants the whole row).
      const entry = indexEntry(blockIndexText({ headingPath: row.heading_path.map((h) => fromPgText(h)), text: fromPgText(row.text) }));
      entry.parts.forEach((terms, part) => {
        index.rowids.push(row.rowid);
        index.parts.push(part);
        index.cols.push(entry.column);
        index.lengths.push(entry.length);
        index.terms.push(terms);
      });
      postings.add(row.rowid, entry);
      delta.add(entry);
    }
    await client.query(
      `WITH terms AS (
         INSERT INTO block_terms (rowid, part, col, length, terms)
         SELECT rowid, part, col, length, terms::tsvector FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::text[]) AS t(rowid, part, col, length, terms))
       INSERT INTO postings (lexeme, rowid, col, tf) SELECT * FROM unnest($6::text[], $7::bigint[], $8::int[], $9::int[])`,
      [index.rowids, index.parts, index.cols, index.lengths, index.terms, postings.lexemes, postings.blocks, postings.cols, postings.tfs],
    );
    // Applied per page: the document-frequency map of a large library would not fit otherwise.
    await delta.apply(client);
    last = rows[rows.length - 1]!.rowid;
    done += rows.length;
    report?.(Math.min(done, total), total);
  }
}

/** Postings rows of a batch of blocks as parallel arrays (for one unnest), keyed by block id or rowid. */
class PostingRows<K> {
  readonly blocks: K[] = [];
  readonly lexemes: string[] = [];
  readonly cols: number[] = [];
  readonly tfs: number[] = [];

  add(block: K, entry: IndexEntry): void {
    entry.lexemes.forEach((lexeme, i) => {
      this.blocks.push(block);
      this.lexemes.push(lexeme);
      this.cols.push(entry.column);
      this.tfs.push(entry.tfs[i]!);
    });
  }
}

/**
 * The connection string and startup `options` that set `search_path` on every connection. node-pg
 * lets an `options` parameter in the URL override the config's, so one the URL carries is taken out
 * and kept in front of ours.
 */
export function withSearchPath(url: string, searchPath: string): { connectionString: string; options: string } {
  const ours = `-c search_path=${searchPath.replace(/[\\ ]/g, (c) => `\\${c}`)}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, options: ours };
  }
  const theirs = parsed.searchParams.get('options');
  if (theirs === null) return { connectionString: url, options: ours };
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), options: `${theirs} ${ours}` };
}

import Database from 'better-sqlite3';
import { decodeParse, encodeParse } from '../parse-cache.js';
import { z } from 'zod';
import type { Document } from '../../document/types.js';
import { GroundworkError } from '../../errors.js';
import { ANALYZER_VERSION, blockIndexText } from '../../search/analyze.js';
import { mergeReports, type CheckReport, type ResolvedCheckOptions } from '../check.js';
import type {
  Block, BlockWithPath, DocumentDump, DocumentHead, DocumentWrite, DocumentWriter, JobPatch, JobQuery, JobRecord, JobState, LibraryStore, OutlineBlock, PathRecord, RankedBlock, SearchFilter, StoreCapabilities, StoreDefinition, StoreStats,
  StoredDocument, TextCandidate, WriteResult,
  VectorCandidate, VectorEntry, VectorFilter, VectorQuantization, VectorSpace, VectorStats,
} from '../types.js';
import { ftsStructure, inspect, repair, type Inspection } from './sqlite-check.js';
import { FtsIndexWriter, rebuildIndex } from './sqlite-fts.js';
import { DEFAULT_LOCK_TIMEOUT_MS, READ_BUSY_TIMEOUT_MS, WAL_SIZE_LIMIT_BYTES, WriteLock } from './sqlite-lock.js';
import { SqliteJobs } from './sqlite-jobs.js';
import { MIGRATIONS, SCHEMA_VERSION, type IndexProgress } from './sqlite-schema.js';
import { FIRST_PATH, SqliteSearch } from './sqlite-search.js';
import { loadVectorExtension, SqliteVectors } from './sqlite-vectors.js';

type Row = Record<string, any>;

/** How a SQLite store is named in a spec: the database file. */
export const sqliteStoreSpec = z.strictObject({
  kind: z.literal('sqlite'),
  /** The database file (created with the schema when missing). */
  file: z.string().min(1),
  /** How long a write waits for other processes' writes before failing with TIMEOUT (default 10 minutes). */
  lockTimeoutMs: z.number().int().positive().optional(),
  /**
   * Open for reading only (a search worker beside the process that writes): the file must exist and
   * be migrated already; every write fails. WAL readers read snapshots and never wait for the writer.
   */
  readonly: z.boolean().optional(),
  /**
   * Rank BM25 from postings held in memory, built in the background from the stored blocks (for a
   * long-lived reader: a server's search workers). FTS5 ranks until they are built and whenever the
   * library changed since (the same results either way). `true`, or the budget: libraries with more
   * than `maxBlocks` blocks (default 300,000, about 0.5 KB of memory a block) keep FTS5's ranking.
   */
  memoryIndex: z.union([z.boolean(), z.strictObject({ maxBlocks: z.number().int().nonnegative().optional() })]).optional(),
});
export type SqliteStoreSpec = z.infer<typeof sqliteStoreSpec>;

export interface SqliteStoreOptions {
  /**
   * Hears of the one-time re-indexing of every block when an older library is upgraded or its
   * analyzer changed (minutes for a million blocks): blocks done of the total.
   */
  onIndexRebuild?: IndexProgress;
  /** How long a write waits for the write lock (other processes' writes) before TIMEOUT. Default 10 minutes. */
  lockTimeoutMs?: number;
  /** Read only: no migration, no writes (see `SqliteStoreSpec.readonly`). */
  readonly?: boolean;
  /** BM25 from in-memory postings (see `SqliteStoreSpec.memoryIndex`). */
  memoryIndex?: SqliteStoreSpec['memoryIndex'];
}

/** Set by `SqliteStore.open`: the constructor leaves the migration to the asynchronous path. */
const MIGRATE_LATER = Symbol('migrate later');

/** Staged blocks read back per page by a streamed write's commit. */
const STAGE_PAGE = 256;

/** Rows per page of block iteration. */
const BLOCK_PAGE = 512;

/**
 * The embedded backend: one SQLite file in WAL mode. Any number of processes may open one file:
 * readers read snapshots and never wait, writers take turns on the write lock (src/store/sqlite/
 * sqlite-lock.ts: BEGIN IMMEDIATE, waited for on a timer). better-sqlite3 answers synchronously;
 * the methods are asynchronous to share the interface with server databases and so a write can
 * wait for its turn without blocking the thread. One connection runs one transaction at a time,
 * hence `concurrentWriters: false`.
 */
export class SqliteStore implements LibraryStore {
  readonly location: string;
  readonly spec: SqliteStoreSpec | null;
  readonly capabilities: StoreCapabilities = { concurrentWriters: false };
  private readonly db: Database.Database;
  /** Write transactions: taking turns with the other connections to the file. */
  readonly lock: WriteLock;
  private readonly onIndexRebuild: IndexProgress | undefined;
  private stmts!: ReturnType<SqliteStore['prepareStatements']>;
  private search!: SqliteSearch;
  private vectors!: SqliteVectors;
  private jobs!: SqliteJobs;
  private indexWriter: FtsIndexWriter | undefined;
  private readonly memoryIndex: { maxBlocks?: number | undefined } | undefined;

  /**
   * Opens the library database `file` (created and migrated as needed), or takes over an open
   * better-sqlite3 handle (migrated the same way, closed by `close()`). A migration another process
   * is running is waited for here, blocking the thread: `SqliteStore.open` waits without blocking.
   */
  constructor(database: string | Database.Database, options: SqliteStoreOptions = {}) {
    if (typeof database === 'string') {
      try {
        this.db = new Database(database, { timeout: READ_BUSY_TIMEOUT_MS, ...(options.readonly && { readonly: true, fileMustExist: true }) });
      } catch (cause) {
        throw new GroundworkError('IO', `cannot open the library database: ${(cause as Error).message}`, { file: database, cause });
      }
    } else {
      this.db = database;
    }
    this.location = this.db.name;
    const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.spec = this.db.memory ? null : { kind: 'sqlite', file: this.db.name, ...(options.lockTimeoutMs !== undefined && { lockTimeoutMs }), ...(options.readonly && { readonly: true }) };
    this.lock = new WriteLock(this.db, lockTimeoutMs, this.location);
    this.onIndexRebuild = options.onIndexRebuild;
    this.memoryIndex = options.memoryIndex === true ? {} : options.memoryIndex || undefined;
    try {
      // The busy timeout first: a new file's switch to WAL may have to wait for another process's.
      this.db.pragma(`busy_timeout = ${READ_BUSY_TIMEOUT_MS}`);
      // A reader leaves the journal mode to the writers (WAL is kept in the file).
      if (!this.db.readonly) this.db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode: a crash loses at most the last transactions, never consistency.
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
      if (!(options as { [MIGRATE_LATER]?: boolean })[MIGRATE_LATER]) {
        if (this.needsMigration()) {
          if (options.readonly) throw new GroundworkError('UNSUPPORTED', 'the library database needs an upgrade, which a read-only opening cannot do: open it for writing once first', { file: this.location });
          this.lock.runSync(() => this.migrate());
        }
        this.ready();
      }
    } catch (error) {
      // A file this store opened is closed again (a handle it was given too: it owns it now).
      this.db.close();
      throw error;
    }
  }

  /**
   * Opens (creating and migrating as needed) the library database `file`. When another process is
   * migrating the same file, this waits for it (without blocking the thread) and sees its result.
   */
  static async open(file: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
    const store = new SqliteStore(file, { ...options, [MIGRATE_LATER]: true } as SqliteStoreOptions);
    try {
      if (store.needsMigration()) {
        if (options.readonly) throw new GroundworkError('UNSUPPORTED', 'the library database needs an upgrade, which a read-only opening cannot do: open it for writing once first', { file: store.location });
        await store.lock.run(() => store.migrate());
      }
      store.ready();
    } catch (error) {
      store.db.close();
      throw error;
    }
    return store;
  }

  private ready(): void {
    this.stmts = this.prepareStatements();
    this.search = new SqliteSearch(this.db, { memoryIndex: this.memoryIndex });
    const search = this.search;
    this.vectors = new SqliteVectors(this.db, (filter) => search.conditions(filter), loadVectorExtension(this.db), this.location);
    this.jobs = new SqliteJobs(this.db);
  }

  /** The index writer, created on first write (a store that only reads never needs one). */
  private get fts(): FtsIndexWriter {
    return (this.indexWriter ??= new FtsIndexWriter(this.db));
  }

  /** Whether the schema or the index is behind this Groundwork (read without the write lock). */
  private needsMigration(): boolean {
    const version = this.schemaVersion();
    if (version !== SCHEMA_VERSION) return true;
    return this.db.prepare("SELECT value FROM settings WHERE key = 'index.analyzer'").pluck().get() !== ANALYZER_VERSION;
  }

  private schemaVersion(): number {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new GroundworkError('UNSUPPORTED', `library schema version ${version} is newer than this Groundwork supports (${SCHEMA_VERSION}); upgrade Groundwork`, { file: this.location });
    }
    return version;
  }

  /**
   * Runs the missing migrations and the index rebuild an analyzer change needs, in the caller's
   * write transaction, reading the version again under the lock: of two processes opening an old
   * library at once, one migrates and the other, its turn come, finds nothing left to do.
   */
  private migrate(): void {
    for (let v = this.schemaVersion(); v < SCHEMA_VERSION; v++) {
      const migration = MIGRATIONS[v]!;
      if (typeof migration === 'string') this.db.exec(migration);
      else migration(this.db, this.onIndexRebuild);
      this.db.pragma(`user_version = ${v + 1}`);
    }
    // An index built by another analyzer would not match this one's query terms: rebuild it.
    const analyzer = this.db.prepare("SELECT value FROM settings WHERE key = 'index.analyzer'").pluck().get();
    if (analyzer !== ANALYZER_VERSION) {
      rebuildIndex(this.db, this.onIndexRebuild);
      this.db.prepare("INSERT INTO settings(key, value) VALUES ('index.analyzer', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(ANALYZER_VERSION);
    }
  }

  /** Reads in one snapshot (a deferred transaction: it never takes the write lock). */
  private read<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.db.transaction(fn).deferred();
  }

  private prepareStatements() {
    const db = this.db;
    return {
      getSetting: db.prepare('SELECT value FROM settings WHERE key = ?').pluck(),
      setSetting: db.prepare('INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      pathRecord: db.prepare('SELECT path, doc_id AS docId, size, mtime_ms AS mtimeMs FROM paths WHERE path = ?'),
      documentInfo: db.prepare('SELECT config_hash AS configHash FROM documents WHERE id = ?'),
      upsertPath: db.prepare(
        'INSERT INTO paths(path, doc_id, size, mtime_ms) VALUES (@path, @docId, @size, @mtimeMs) ON CONFLICT(path) DO UPDATE SET doc_id = excluded.doc_id, size = excluded.size, mtime_ms = excluded.mtime_ms',
      ),
      pathCountOf: db.prepare('SELECT count(*) FROM paths WHERE doc_id = ?').pluck(),
      upsertDocument: db.prepare(
        `INSERT INTO documents(id, format, mime, title, language, page_count, bytes, metadata, warnings, strategy, config_hash, tables, images, original, added_at)
         VALUES (@id, @format, @mime, @title, @language, @pageCount, @bytes, @metadata, @warnings, @strategy, @configHash, @tables, @images, @original, @addedAt)
         ON CONFLICT(id) DO UPDATE SET format = excluded.format, mime = excluded.mime, title = excluded.title, language = excluded.language,
           page_count = excluded.page_count, metadata = excluded.metadata, warnings = excluded.warnings, strategy = excluded.strategy,
           config_hash = excluded.config_hash, tables = excluded.tables, images = excluded.images, original = coalesce(excluded.original, original)`,
      ),
      deleteBlocks: db.prepare('DELETE FROM blocks WHERE doc_id = ?'),
      deleteDocument: db.prepare('DELETE FROM documents WHERE id = ?'),
      blockIndexRows: db.prepare('SELECT rowid, text, heading_path FROM blocks WHERE doc_id = ?'),
      insertBlock: db.prepare(
        `INSERT INTO blocks(id, doc_id, ordinal, kind, text, heading_path, page_start, page_end, bboxes, start, "end", chars, tokens, table_rows, speaker, time_start, time_end, strategy, config_hash)
         VALUES (@id, @docId, @ordinal, @kind, @text, @headingPath, @pageStart, @pageEnd, @bboxes, @start, @end, @chars, @tokens, @table, @speaker, @timeStart, @timeEnd, @strategy, @configHash)`,
      ),
      putParse: db.prepare('INSERT OR REPLACE INTO parse_cache(key, doc_id, document, created_at) VALUES (?, ?, ?, ?)'),
      deleteParses: db.prepare('DELETE FROM parse_cache WHERE doc_id = ?'),
      keepOriginal: db.prepare('UPDATE documents SET original = coalesce(original, ?) WHERE id = ?'),
      setOriginal: db.prepare('UPDATE documents SET original = ? WHERE id = ?'),
      getParse: db.prepare('SELECT document FROM parse_cache WHERE key = ?').pluck(),
      listDocuments: db.prepare(
        `SELECT d.*, (SELECT count(*) FROM blocks b WHERE b.doc_id = d.id) AS block_count,
                (SELECT json_group_array(path) FROM (SELECT path FROM paths p WHERE p.doc_id = d.id ORDER BY path)) AS path_list
         FROM documents d ORDER BY d.added_at, d.id`,
      ),
      documentTokens: db.prepare('SELECT doc_id, coalesce(sum(tokens), 0) AS tokens FROM blocks WHERE doc_id IN (SELECT value FROM json_each(?)) GROUP BY doc_id'),
      documentById: db.prepare(
        `SELECT d.*, (SELECT count(*) FROM blocks b WHERE b.doc_id = d.id) AS block_count,
                (SELECT json_group_array(path) FROM (SELECT path FROM paths p WHERE p.doc_id = d.id ORDER BY path)) AS path_list
         FROM documents d WHERE d.id = ? OR d.id LIKE ? || '%' LIMIT 2`,
      ),
      blocksOf: db.prepare('SELECT * FROM blocks WHERE doc_id = ? ORDER BY ordinal'),
      // instr() runs in SQLite: only the texts that may hold a heading line reach the process.
      outlineBlocks: db.prepare(`SELECT ordinal, start, "end", page_start, heading_path, strategy, CASE WHEN instr(text, '# ') > 0 THEN text END AS text
                                 FROM blocks WHERE doc_id = ? ORDER BY ordinal`),
      blockById: db.prepare('SELECT * FROM blocks WHERE id = ?'),
      blockRange: db.prepare('SELECT * FROM blocks WHERE doc_id = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal'),
      firstPath: db.prepare('SELECT min(path) FROM paths WHERE doc_id = ?').pluck(),
    };
  }

  async getSetting(key: string): Promise<string | undefined> {
    return this.stmts.getSetting.get(key) as string | undefined;
  }

  async setSetting(key: string, value: string): Promise<void> {
    await this.lock.run(() => this.stmts.setSetting.run(key, value));
  }

  async pathRecord(path: string): Promise<PathRecord | undefined> {
    return this.pathRow(path);
  }

  private pathRow(path: string): PathRecord | undefined {
    return this.stmts.pathRecord.get(path) as PathRecord | undefined;
  }

  async documentInfo(docId: string): Promise<{ configHash: string } | undefined> {
    return this.documentRow(docId);
  }

  private documentRow(docId: string): { configHash: string } | undefined {
    return this.stmts.documentInfo.get(docId) as { configHash: string } | undefined;
  }

  async recordPath(record: PathRecord): Promise<{ replacedDocId: string | null }> {
    return this.lock.run(() => {
      if (!this.documentRow(record.docId)) {
        throw new GroundworkError('NOT_FOUND', `document ${record.docId.slice(0, 12)} is not stored (removed meanwhile?)`, { file: record.path });
      }
      return this.putPath(record);
    });
  }

  /** Points `path` at its document; a document left with no path is deleted (it was replaced). */
  private putPath(record: PathRecord): { replacedDocId: string | null } {
    const previous = this.pathRow(record.path);
    this.stmts.upsertPath.run(record);
    if (previous && previous.docId !== record.docId && (this.stmts.pathCountOf.get(previous.docId) as number) === 0) {
      this.deleteDocumentRows(previous.docId);
      return { replacedDocId: previous.docId };
    }
    return { replacedDocId: null };
  }

  async writeDocument(write: DocumentWrite): Promise<WriteResult> {
    return this.lock.run(() =>
      this.writeRows(write, () => {
        write.blocks.forEach((block, i) => {
          const info = this.stmts.insertBlock.run(blockRow(block));
          this.fts.add(info.lastInsertRowid, write.indexTexts?.[i] ?? blockIndexText(block));
        });
      }),
    );
  }

  /**
   * A streamed write: the blocks go into a TEMP table of this connection as they come, with their
   * search analysis made then (SQLite's temp database, a file of its own deleted when the
   * connection closes, so a killed process leaves nothing and no other connection ever sees them;
   * writing it takes no write lock on the library). `commit` then moves them into the library in one
   * write transaction (`INSERT ... SELECT`, inside SQLite) and indexes them from their staged
   * analysis, a page at a time. The write lock is held only for that transaction, never while the
   * blocks arrive, and no block is analysed under it.
   */
  async beginDocument(head: DocumentHead): Promise<DocumentWriter> {
    if (this.db.readonly) throw new GroundworkError('UNSUPPORTED', 'the library was opened read-only', { file: this.location });
    if (!this.staging) {
      this.db.exec(`CREATE TEMP TABLE IF NOT EXISTS staged_blocks (stage INTEGER NOT NULL, seq INTEGER NOT NULL, ${BLOCK_COLUMNS.map((c) => `${c.column} ${c.type}`).join(', ')}, index_text TEXT NOT NULL, PRIMARY KEY (stage, seq))`);
      const names = BLOCK_COLUMNS.map((c) => c.column).join(', ');
      this.staging = {
        put: this.db.prepare(`INSERT INTO temp.staged_blocks (stage, seq, ${names}, index_text) VALUES (@stage, @seq, ${BLOCK_COLUMNS.map((c) => `@${c.param}`).join(', ')}, @indexText)`),
        move: this.db.prepare(`INSERT INTO main.blocks (${names}) SELECT ${names} FROM temp.staged_blocks WHERE stage = ? ORDER BY seq`),
        page: this.db.prepare('SELECT s.seq, b.rowid AS row_id, s.index_text FROM temp.staged_blocks s JOIN main.blocks b ON b.id = s.id WHERE s.stage = ? AND s.seq > ? ORDER BY s.seq LIMIT ?'),
        drop: this.db.prepare('DELETE FROM temp.staged_blocks WHERE stage = ?'),
      };
    }
    const staging = this.staging;
    const stage = this.nextStage++;
    let seq = 0;
    let state: 'open' | 'done' = 'open';
    const drop = () => {
      state = 'done';
      if (this.db.open) staging.drop.run(stage);
    };
    const ensureOpen = () => {
      if (state !== 'open') throw new GroundworkError('INVALID_OPTIONS', `the streamed write of document ${head.document.id.slice(0, 12)} is already committed or aborted`, { file: this.location });
    };
    return {
      addBlocks: async (blocks, indexTexts) => {
        ensureOpen();
        try {
          const rows = blocks.map((block, i) => ({ ...blockRow(block), stage, seq: seq + i, indexText: indexTexts?.[i] ?? blockIndexText(block) }));
          // One transaction on the temp database only: no library lock is taken.
          this.db.transaction(() => {
            for (const row of rows) staging.put.run(row);
          })();
          seq += blocks.length;
        } catch (error) {
          drop();
          throw new GroundworkError('IO', `cannot stage the blocks of document ${head.document.id.slice(0, 12)}: ${(error as Error).message}`, { file: this.location, cause: error });
        }
      },
      commit: async () => {
        ensureOpen();
        try {
          return await this.lock.run(() =>
            this.writeRows(head, () => {
              staging.move.run(stage);
              for (let after = -1; ; ) {
                const rows = staging.page.all(stage, after, STAGE_PAGE) as { seq: number; row_id: number; index_text: string }[];
                for (const row of rows) this.fts.add(row.row_id, row.index_text);
                if (rows.length < STAGE_PAGE) return;
                after = rows[rows.length - 1]!.seq;
              }
            }),
          );
        } finally {
          drop();
        }
      },
      abort: async () => {
        if (state === 'open') drop();
      },
    };
  }

  private staging: { put: Database.Statement; move: Database.Statement; page: Database.Statement; drop: Database.Statement } | undefined;
  private nextStage = 0;

  /**
   * One document's write inside the caller's write transaction: the path only when the content is
   * stored with this configuration already, else the document row, the blocks with their index
   * rows (`insertBlocks`), the parse-cache entry and the path.
   */
  private writeRows(head: DocumentHead, insertBlocks: () => void): WriteResult {
    const write = head;
    const { document: doc } = write;
    this.fts.discard();
    const stored = this.documentRow(doc.id);
    // Stored meanwhile with the same configuration (another process had the same bytes): the
    // same blocks are there already; only this path is new.
    if (stored && stored.configHash === write.configHash) {
      if (write.original) this.stmts.keepOriginal.run(write.original, doc.id);
      return { replacedDocId: write.path ? this.putPath(write.path).replacedDocId : null, written: false };
    }
    // Re-chunking with another configuration replaces the document's blocks; its paths stay.
    if (stored) this.deleteDocumentRows(doc.id, { keepDocument: true });
    this.stmts.upsertDocument.run({
      id: doc.id,
      format: doc.format,
      mime: doc.mime,
      title: doc.title ?? null,
      language: doc.language ?? null,
      pageCount: doc.pageCount ?? null,
      bytes: doc.source.bytes,
      metadata: JSON.stringify(doc.metadata ?? {}),
      warnings: JSON.stringify(doc.warnings ?? []),
      strategy: write.strategy,
      configHash: write.configHash,
      tables: doc.elements.filter((e) => e.kind === 'table').length,
      images: doc.elements.filter((e) => e.kind === 'image').length,
      original: write.original,
      addedAt: new Date().toISOString(),
    });
    insertBlocks();
    this.fts.flush();
    if (write.parseCacheKey) this.stmts.putParse.run(write.parseCacheKey, doc.id, write.parseBlob ?? encodeParse(doc), new Date().toISOString());
    return { replacedDocId: write.path ? this.putPath(write.path).replacedDocId : null, written: true };
  }

  async setOriginal(docId: string, original: string | null): Promise<boolean> {
    return this.lock.run(() => this.stmts.setOriginal.run(original, docId).changes > 0);
  }

  /** Deletes a document's blocks and their index rows; with `keepDocument`, only those. */
  private deleteDocumentRows(docId: string, options: { keepDocument?: boolean } = {}): void {
    // The index holds no text: a row is deleted by giving it its terms again, re-derived from the
    // block with the analyzer that indexed it (a changed analyzer rebuilds the index at open).
    this.fts.discard();
    for (const row of this.stmts.blockIndexRows.all(docId) as Row[]) {
      this.fts.remove(row.rowid, blockIndexText({ headingPath: JSON.parse(row.heading_path), text: row.text }));
    }
    this.fts.flush();
    this.stmts.deleteBlocks.run(docId);
    if (!options.keepDocument) {
      // A deleted document's parse is dead weight: the same bytes come back through a new parse.
      this.stmts.deleteParses.run(docId);
      this.stmts.deleteDocument.run(docId);
    }
  }

  async removeDocument(docId: string): Promise<boolean> {
    return this.lock.run(() => {
      if (!this.documentRow(docId)) return false;
      this.deleteDocumentRows(docId);
      return true;
    });
  }

  async cachedParse(key: string): Promise<Document | undefined> {
    const blob = this.stmts.getParse.get(key) as Buffer | undefined;
    return blob ? decodeParse(blob) : undefined;
  }

  async listDocuments(): Promise<StoredDocument[]> {
    return (this.stmts.listDocuments.all() as Row[]).map(toStoredDocument);
  }

  async documentTokens(docIds: readonly string[]): Promise<Map<string, number>> {
    const sums = new Map<string, number>(docIds.map((id) => [id, 0]));
    if (docIds.length === 0) return sums;
    const rows = this.stmts.documentTokens.all(JSON.stringify([...new Set(docIds)])) as { doc_id: string; tokens: number }[];
    for (const row of rows) sums.set(row.doc_id, row.tokens);
    return sums;
  }

  async getDocument(idOrPath: string): Promise<StoredDocument | undefined> {
    // The path and the document in one snapshot.
    const { key, rows } = this.read(() => {
      const byPath = this.pathRow(idOrPath);
      const key = byPath ? byPath.docId : idOrPath;
      return { key, rows: this.stmts.documentById.all(key, key) as Row[] };
    });
    if (rows.length > 1 && rows[0]!.id !== key) {
      throw new GroundworkError('INVALID_OPTIONS', `'${idOrPath}' matches more than one document id; give more characters`);
    }
    return rows[0] ? toStoredDocument(rows[0]) : undefined;
  }

  async blocksOf(docId: string): Promise<Block[]> {
    return (this.stmts.blocksOf.all(docId) as Row[]).map(toBlock);
  }

  async outlineBlocks(docId: string): Promise<OutlineBlock[]> {
    return (this.stmts.outlineBlocks.all(docId) as Row[]).map((row) => ({
      ordinal: row.ordinal, start: row.start, end: row.end, pageStart: row.page_start,
      headingPath: JSON.parse(row.heading_path), strategy: row.strategy, text: row.text,
    }));
  }

  async getBlock(blockId: string): Promise<Block | undefined> {
    const row = this.stmts.blockById.get(blockId) as Row | undefined;
    return row ? toBlock(row) : undefined;
  }

  async blockRange(docId: string, from: number, to: number): Promise<Block[]> {
    return (this.stmts.blockRange.all(docId, from, to) as Row[]).map(toBlock);
  }

  /**
   * Pages of blocks by (doc_id, ordinal, rowid). A file library is read on a connection of its own
   * inside one read transaction, so every page comes from one snapshot (as one statement would)
   * while this store's connection goes on writing; an in-memory one pages on its only connection.
   */
  async *iterateBlocks(): AsyncIterable<BlockWithPath> {
    const reader = this.db.memory ? this.db : new Database(this.db.name, { readonly: true });
    try {
      if (reader !== this.db) reader.exec('BEGIN');
      const page = reader.prepare(
        `SELECT b.rowid AS row_id, b.*, (SELECT min(path) FROM paths p WHERE p.doc_id = b.doc_id) AS path FROM blocks b
         WHERE (b.doc_id, b.ordinal, b.rowid) > (@docId, @ordinal, @rowid) ORDER BY b.doc_id, b.ordinal, b.rowid LIMIT @n`,
      );
      let after: { docId: string; ordinal: number; rowid: number } = { docId: '', ordinal: -Infinity, rowid: -Infinity };
      for (;;) {
        const rows = page.all({ ...after, n: BLOCK_PAGE }) as Row[];
        for (const row of rows) yield { ...toBlock(row), path: row.path ?? null };
        if (rows.length < BLOCK_PAGE) return;
        const last = rows[rows.length - 1]!;
        after = { docId: last.doc_id, ordinal: last.ordinal, rowid: last.row_id };
      }
    } finally {
      if (reader !== this.db) reader.close();
    }
  }

  async searchText(query: string, k: number, filter: SearchFilter = {}): Promise<TextCandidate[]> {
    // One snapshot: a hit's path is read from the same state as the hit.
    return this.read(() =>
      this.search.blockRows(query, k, filter).map((row) => {
        const block = toBlock(row);
        const path = FIRST_PATH in row ? row[FIRST_PATH] : this.stmts.firstPath.get(block.docId);
        return { block, path: (path as string | null) ?? null, score: -row.rank };
      }),
    );
  }

  async rankText(query: string, k: number): Promise<RankedBlock[]> {
    return this.search.rank(query, k);
  }

  async putVectors(space: VectorSpace, entries: readonly VectorEntry[]): Promise<{ stored: number; linked: number }> {
    return this.lock.run(() => this.vectors.put(space, entries));
  }

  async knownVectors(space: VectorSpace, hashes: readonly string[]): Promise<Set<string>> {
    return this.read(() => this.vectors.known(space, hashes));
  }

  async missingVectors(space: VectorSpace, limit: number, after?: { docId: string; ordinal: number }): Promise<BlockWithPath[]> {
    return this.read(() => this.vectors.missing(space, limit, after)).map((row) => ({ ...toBlock(row), path: row.path ?? null }));
  }

  async vectorCandidates(space: VectorSpace, vector: Float32Array, k: number, filter: VectorFilter = {}): Promise<VectorCandidate[]> {
    return this.read(() => this.vectors.nearest(space, vector, k, filter)).map(({ row, score }) => ({ block: toBlock(row), path: row.path ?? null, score }));
  }

  async setQuantization(space: VectorSpace, quantization: VectorQuantization): Promise<void> {
    await this.lock.run(() => this.vectors.setQuantization(space, quantization));
  }

  async vectorStats(): Promise<VectorStats[]> {
    return this.read(() => this.vectors.stats());
  }

  async pruneVectors(space: VectorSpace): Promise<number> {
    return this.lock.run(() => this.vectors.prune(space));
  }

  async dropVectors(model: string): Promise<number> {
    return this.lock.run(() => this.vectors.drop(model));
  }

  async stats(): Promise<StoreStats> {
    return this.read(() => this.statsNow());
  }

  private statsNow(): StoreStats {
    const one = (sql: string) => this.db.prepare(sql).pluck().get() as number;
    const byFormat: Record<string, number> = {};
    for (const row of this.db.prepare('SELECT format, count(*) AS n FROM documents GROUP BY format ORDER BY format').all() as Row[]) byFormat[row.format] = row.n;
    return {
      documents: one('SELECT count(*) FROM documents'),
      blocks: one('SELECT count(*) FROM blocks'),
      paths: one('SELECT count(*) FROM paths'),
      tokens: one('SELECT coalesce(sum(tokens), 0) FROM blocks'),
      bytes: one('SELECT coalesce(sum(bytes), 0) FROM documents'),
      byFormat,
      parseCacheEntries: one('SELECT count(*) FROM parse_cache'),
    };
  }

  async listSettings(): Promise<Record<string, string>> {
    const rows = this.db.prepare('SELECT key, value FROM settings ORDER BY key').all() as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  /**
   * Every document with its paths, blocks and parse cache, in the order they were stored
   * (documents' rowid), DUMP_PAGE documents per read. A store migrated to assigns its block rowids
   * in this order, so blocks of equal score (both stores break ties by rowid) keep their order.
   */
  async *dumpDocuments(): AsyncIterable<DocumentDump> {
    const page = this.db.prepare(
      `SELECT d.*, (SELECT count(*) FROM blocks b WHERE b.doc_id = d.id) AS block_count,
              (SELECT json_group_array(path) FROM (SELECT path FROM paths p WHERE p.doc_id = d.id ORDER BY path)) AS path_list
              , d.rowid AS dump_rowid
       FROM documents d WHERE d.rowid > ? ORDER BY d.rowid LIMIT ${DUMP_PAGE}`,
    );
    const paths = this.db.prepare('SELECT path, doc_id AS docId, size, mtime_ms AS mtimeMs FROM paths WHERE doc_id = ? ORDER BY path');
    const cache = this.db.prepare('SELECT key, document FROM parse_cache WHERE doc_id = ? ORDER BY key');
    for (let last = 0; ; ) {
      const rows = page.all(last) as Row[];
      for (const row of rows) {
        yield {
          document: toStoredDocument(row),
          paths: paths.all(row.id) as PathRecord[],
          blocks: (this.stmts.blocksOf.all(row.id) as Row[]).map(toBlock),
          parseCache: cache.all(row.id) as { key: string; document: Buffer }[],
        };
      }
      if (rows.length < DUMP_PAGE) return;
      last = rows[rows.length - 1]!.dump_rowid;
    }
  }

  async *dumpVectors(space: VectorSpace, pageSize = 1000): AsyncIterable<VectorEntry[]> {
    for (let after: { vectorId: number; blockRowid: number } | undefined = { vectorId: 0, blockRowid: 0 }; after; ) {
      const from: { vectorId: number; blockRowid: number } = after;
      const page = this.read(() => this.vectors.dumpPage(space.model, Math.max(1, pageSize), from));
      if (page.entries.length > 0) yield page.entries;
      after = page.entries.length < pageSize ? undefined : page.last;
    }
  }

  /**
   * The checks of src/store/sqlite/sqlite-check.ts on one snapshot (other processes go on reading
   * and writing); FTS5's own check (full) and the repairs under the write lock; then, after
   * repairs, the checks again.
   */
  async check(options: ResolvedCheckOptions): Promise<CheckReport> {
    const started = performance.now();
    const inspectAll = async (): Promise<Inspection> => {
      const snapshot = this.read(() => inspect(this.db, options.full));
      if (!options.full) return snapshot;
      // A write statement, so it takes the lock; nothing is written.
      const structure = await this.lock.run(() => ftsStructure(this.db));
      return { checked: [...snapshot.checked, ...structure.checked], found: [...snapshot.found, ...structure.found] };
    };
    const first = await inspectAll();
    let repairs: CheckReport['repairs'] = [];
    let remaining = first.found;
    if (options.repair && first.found.some((f) => f.repairable)) {
      repairs = await this.lock.run(() => repair(this.db, first.found, this.onIndexRebuild));
      remaining = (await inspectAll()).found;
    }
    return mergeReports(options, [{ checked: first.checked, found: first.found, repairs, remaining, durationMs: Math.round(performance.now() - started) }]);
  }

  async createJob(job: JobRecord): Promise<void> {
    await this.lock.run(() => this.jobs.create(job));
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    return this.jobs.get(id);
  }

  async listJobs(query?: JobQuery): Promise<JobRecord[]> {
    return this.jobs.list(query);
  }

  async updateJob(id: string, patch: JobPatch, options: { ifState?: readonly JobState[] } = {}): Promise<JobRecord | undefined> {
    return this.lock.run(() => this.jobs.update(id, patch, options.ifState));
  }

  /**
   * Waits for the in-memory postings (`memoryIndex`) to be built for the current state: true when
   * searches now rank from them, false when the store has none (not opted in, over the budget).
   */
  async memoryIndexReady(): Promise<boolean> {
    return this.search.memoryReady();
  }

  async close(): Promise<void> {
    this.search?.close();
    this.db.close();
  }
}

/** Documents per page of `dumpDocuments`. */
const DUMP_PAGE = 64;

/** The registry entry: `openStore({ kind: 'sqlite', file })`. */
export const sqliteStoreDefinition: StoreDefinition<SqliteStoreSpec> = {
  kind: 'sqlite',
  spec: sqliteStoreSpec,
  open: (spec, options) =>
    SqliteStore.open(spec.file, {
      ...(options.onIndexRebuild && { onIndexRebuild: options.onIndexRebuild }),
      ...(spec.lockTimeoutMs !== undefined && { lockTimeoutMs: spec.lockTimeoutMs }),
      ...(spec.readonly && { readonly: true }),
      ...(spec.memoryIndex !== undefined && { memoryIndex: spec.memoryIndex }),
    }),
};

function toStoredDocument(row: Row): StoredDocument {
  return {
    id: row.id,
    format: row.format,
    mime: row.mime,
    title: row.title,
    language: row.language,
    pageCount: row.page_count,
    bytes: row.bytes,
    metadata: JSON.parse(row.metadata),
    warnings: JSON.parse(row.warnings),
    paths: JSON.parse(row.path_list),
    strategy: row.strategy,
    configHash: row.config_hash,
    blocks: row.block_count,
    tables: row.tables,
    images: row.images,
    addedAt: row.added_at,
    original: row.original,
  };
}

function toBlock(row: Row): Block {
  return {
    id: row.id,
    docId: row.doc_id,
    ordinal: row.ordinal,
    kind: row.kind,
    text: row.text,
    headingPath: JSON.parse(row.heading_path),
    pageStart: row.page_start,
    pageEnd: row.page_end,
    bboxes: row.bboxes ? JSON.parse(row.bboxes) : null,
    start: row.start,
    end: row.end,
    chars: row.chars,
    tokens: row.tokens,
    table: row.table_rows ? JSON.parse(row.table_rows) : null,
    speaker: row.speaker,
    time: row.time_start !== null && row.time_start !== undefined ? [row.time_start, row.time_end] : null,
    strategy: row.strategy,
    configHash: row.config_hash,
  };
}

/** The blocks table's columns as a block fills them (`blockRow`): column, its type, the statement parameter. */
const BLOCK_COLUMNS = [
  ['id', 'TEXT', 'id'], ['doc_id', 'TEXT', 'docId'], ['ordinal', 'INTEGER', 'ordinal'], ['kind', 'TEXT', 'kind'], ['text', 'TEXT', 'text'],
  ['heading_path', 'TEXT', 'headingPath'], ['page_start', 'INTEGER', 'pageStart'], ['page_end', 'INTEGER', 'pageEnd'], ['bboxes', 'TEXT', 'bboxes'],
  ['start', 'INTEGER', 'start'], ['"end"', 'INTEGER', 'end'], ['chars', 'INTEGER', 'chars'], ['tokens', 'INTEGER', 'tokens'], ['table_rows', 'TEXT', 'table'],
  ['speaker', 'TEXT', 'speaker'], ['time_start', 'REAL', 'timeStart'], ['time_end', 'REAL', 'timeEnd'], ['strategy', 'TEXT', 'strategy'], ['config_hash', 'TEXT', 'configHash'],
].map(([column, type, param]) => ({ column: column!, type: type!, param: param! }));

/** A block's values for the `insertBlock` statement (and the staging table), by parameter name. */
function blockRow(block: Block): Record<string, unknown> {
  return {
    id: block.id,
    docId: block.docId,
    ordinal: block.ordinal,
    kind: block.kind,
    text: block.text,
    headingPath: JSON.stringify(block.headingPath),
    pageStart: block.pageStart,
    pageEnd: block.pageEnd,
    bboxes: block.bboxes ? JSON.stringify(block.bboxes) : null,
    start: block.start,
    end: block.end,
    chars: block.chars,
    tokens: block.tokens,
    table: block.table ? JSON.stringify(block.table) : null,
    speaker: block.speaker,
    timeStart: block.time ? block.time[0] : null,
    timeEnd: block.time ? block.time[1] : null,
    strategy: block.strategy,
    configHash: block.configHash,
  };
}

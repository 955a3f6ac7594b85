import Database from 'better-sqlite3';
import { gunzipSync, gzipSync } from 'node:zlib';
import picomatch from 'picomatch';
import type { Document } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { ANALYZER_VERSION, blockIndexText, ftsQuery, type TermStats } from '../search/analyze.js';
import { Highlighter } from '../search/snippet.js';
import { columnWeights, FtsIndexWriter, lengthStatsReader, rankFunction, rebuildIndex, TOP_ROWIDS_SQL, type LengthStats } from './sqlite-fts.js';
import { MIGRATIONS, SCHEMA_VERSION, type IndexProgress } from './sqlite-schema.js';
import type { Block, DocumentWrite, LibraryStore, PathRecord, SearchFilter, SearchHit, StoreStats, StoredDocument } from './types.js';

type Row = Record<string, any>;

/** The embedded backend: one SQLite file in WAL mode (readers never wait for the writer). */
export class SqliteStore implements LibraryStore {
  readonly location: string;
  private readonly db: Database.Database;
  private readonly stmts: ReturnType<SqliteStore['prepareStatements']>;
  private readonly termStats: TermStats | undefined;
  private readonly lengthStats: () => LengthStats;
  private indexWriter: FtsIndexWriter | undefined;
  private readonly statements = new Map<string, Database.Statement>();

  /**
   * `onIndexRebuild` hears of the one-time re-indexing of every block when an older library is
   * upgraded or its analyzer changed (minutes for a million blocks): blocks done of the total.
   */
  constructor(file: string, options: { readonly?: boolean; onIndexRebuild?: IndexProgress } = {}) {
    this.location = file;
    try {
      this.db = new Database(file, { readonly: options.readonly ?? false });
    } catch (cause) {
      throw new GroundworkError('IO', `cannot open the library database: ${(cause as Error).message}`, { file, cause });
    }
    this.db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode: a crash loses at most the last transactions, never consistency.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 10000');
    if (!options.readonly) this.migrate(options.onIndexRebuild);
    this.stmts = this.prepareStatements();
    this.termStats = termStatsOf(this.db);
    this.lengthStats = lengthStatsReader(this.db);
  }

  /** The index writer, created on first write (a read-only store never needs one). */
  private get fts(): FtsIndexWriter {
    return (this.indexWriter ??= new FtsIndexWriter(this.db));
  }

  private migrate(onIndexRebuild: IndexProgress | undefined): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new GroundworkError('UNSUPPORTED', `library schema version ${version} is newer than this Groundwork supports (${SCHEMA_VERSION}); upgrade Groundwork`, { file: this.location });
    }
    for (let v = version; v < SCHEMA_VERSION; v++) {
      this.db.transaction(() => {
        const migration = MIGRATIONS[v]!;
        if (typeof migration === 'string') this.db.exec(migration);
        else migration(this.db, onIndexRebuild);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
    // An index built by another analyzer would not match this one's query terms: rebuild it.
    const analyzer = this.db.prepare("SELECT value FROM settings WHERE key = 'index.analyzer'").pluck().get();
    if (analyzer !== ANALYZER_VERSION) {
      this.db.transaction(() => {
        rebuildIndex(this.db, onIndexRebuild);
        this.db.prepare("INSERT INTO settings(key, value) VALUES ('index.analyzer', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(ANALYZER_VERSION);
      })();
    }
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
      topRowids: db.prepare(TOP_ROWIDS_SQL),
      putParse: db.prepare('INSERT OR REPLACE INTO parse_cache(key, doc_id, document, created_at) VALUES (?, ?, ?, ?)'),
      getParse: db.prepare('SELECT document FROM parse_cache WHERE key = ?').pluck(),
      listDocuments: db.prepare(
        `SELECT d.*, (SELECT count(*) FROM blocks b WHERE b.doc_id = d.id) AS block_count,
                (SELECT json_group_array(path) FROM (SELECT path FROM paths p WHERE p.doc_id = d.id ORDER BY path)) AS path_list
         FROM documents d ORDER BY d.added_at, d.id`,
      ),
      documentById: db.prepare(
        `SELECT d.*, (SELECT count(*) FROM blocks b WHERE b.doc_id = d.id) AS block_count,
                (SELECT json_group_array(path) FROM (SELECT path FROM paths p WHERE p.doc_id = d.id ORDER BY path)) AS path_list
         FROM documents d WHERE d.id = ? OR d.id LIKE ? || '%' LIMIT 2`,
      ),
      blocksOf: db.prepare('SELECT * FROM blocks WHERE doc_id = ? ORDER BY ordinal'),
      allBlocks: db.prepare('SELECT b.*, (SELECT min(path) FROM paths p WHERE p.doc_id = b.doc_id) AS path FROM blocks b ORDER BY b.doc_id, b.ordinal'),
      firstPath: db.prepare('SELECT min(path) FROM paths WHERE doc_id = ?').pluck(),
      pathsMatching: db.prepare('SELECT path, doc_id FROM paths'),
    };
  }

  getSetting(key: string): string | undefined {
    return this.stmts.getSetting.get(key) as string | undefined;
  }

  setSetting(key: string, value: string): void {
    this.stmts.setSetting.run(key, value);
  }

  pathRecord(path: string): PathRecord | undefined {
    return this.stmts.pathRecord.get(path) as PathRecord | undefined;
  }

  documentInfo(docId: string): { configHash: string } | undefined {
    return this.stmts.documentInfo.get(docId) as { configHash: string } | undefined;
  }

  recordPath(record: PathRecord): { replacedDocId: string | null } {
    return this.db.transaction(() => this.putPath(record))();
  }

  /** Points `path` at its document; a document left with no path is deleted (it was replaced). */
  private putPath(record: PathRecord): { replacedDocId: string | null } {
    const previous = this.pathRecord(record.path);
    this.stmts.upsertPath.run(record);
    if (previous && previous.docId !== record.docId && (this.stmts.pathCountOf.get(previous.docId) as number) === 0) {
      this.deleteDocumentRows(previous.docId);
      return { replacedDocId: previous.docId };
    }
    return { replacedDocId: null };
  }

  writeDocument(write: DocumentWrite): { replacedDocId: string | null } {
    const { document: doc } = write;
    return this.db.transaction(() => {
      this.fts.discard();
      // Re-chunking with another configuration replaces the document's blocks; its paths stay.
      if (this.documentInfo(doc.id)) this.deleteDocumentRows(doc.id, { keepDocument: true });
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
      write.blocks.forEach((block, i) => {
        const info = this.stmts.insertBlock.run({
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
        });
        this.fts.add(info.lastInsertRowid, write.indexTexts?.[i] ?? blockIndexText(block));
      });
      this.fts.flush();
      if (write.parseCacheKey) this.stmts.putParse.run(write.parseCacheKey, doc.id, gzipSync(JSON.stringify(doc), { level: 1 }), new Date().toISOString());
      return write.path ? this.putPath(write.path) : { replacedDocId: null };
    })();
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
    if (!options.keepDocument) this.stmts.deleteDocument.run(docId);
  }

  removeDocument(docId: string): boolean {
    return this.db.transaction(() => {
      if (!this.documentInfo(docId)) return false;
      this.deleteDocumentRows(docId);
      this.db.prepare('DELETE FROM parse_cache WHERE doc_id = ?').run(docId);
      return true;
    })();
  }

  cachedParse(key: string): Document | undefined {
    const blob = this.stmts.getParse.get(key) as Buffer | undefined;
    return blob ? (JSON.parse(gunzipSync(blob).toString('utf8')) as Document) : undefined;
  }

  listDocuments(): StoredDocument[] {
    return (this.stmts.listDocuments.all() as Row[]).map(toStoredDocument);
  }

  getDocument(idOrPath: string): StoredDocument | undefined {
    const byPath = this.pathRecord(idOrPath);
    const key = byPath ? byPath.docId : idOrPath;
    const rows = this.stmts.documentById.all(key, key) as Row[];
    if (rows.length > 1 && rows[0]!.id !== key) {
      throw new GroundworkError('INVALID_OPTIONS', `'${idOrPath}' matches more than one document id; give more characters`);
    }
    return rows[0] ? toStoredDocument(rows[0]) : undefined;
  }

  blocksOf(docId: string): Block[] {
    return (this.stmts.blocksOf.all(docId) as Row[]).map(toBlock);
  }

  *iterateBlocks(): IterableIterator<Block & { path: string | null }> {
    for (const row of this.stmts.allBlocks.iterate() as IterableIterator<Row>) yield { ...toBlock(row), path: row.path ?? null };
  }

  search(query: string, k: number, filter: SearchFilter = {}): SearchHit[] {
    const match = ftsQuery(query, this.termStats);
    if (!match) return [];
    const conditions: string[] = [];
    const params: Record<string, unknown> = {};
    const docIds = asArray(filter.docId);
    if (filter.path) {
      // Globs run in JS (picomatch) over the paths table: SQLite's GLOB has no `**`.
      const isMatch = picomatch(filter.path, { dot: true });
      for (const row of this.stmts.pathsMatching.iterate() as IterableIterator<Row>) if (isMatch(row.path)) docIds.push(row.doc_id);
      if (docIds.length === 0) return [];
    }
    if (docIds.length > 0 || filter.path) conditions.push(`b.doc_id IN (SELECT value FROM json_each(@docIds))`), (params.docIds = JSON.stringify(docIds));
    const formats = asArray(filter.format);
    if (formats.length > 0) conditions.push(`d.format IN (SELECT value FROM json_each(@formats))`), (params.formats = JSON.stringify(formats));
    if (filter.pageFrom !== undefined) conditions.push('b.page_end >= @pageFrom'), (params.pageFrom = filter.pageFrom);
    if (filter.pageTo !== undefined) conditions.push('b.page_start <= @pageTo'), (params.pageTo = filter.pageTo);
    const rows = this.rankedRows(match, k, conditions, params);
    const highlighter = new Highlighter(query);
    return rows.map((row) => {
      const block = toBlock(row);
      return {
        score: -row.rank,
        docId: block.docId,
        path: (this.stmts.firstPath.get(block.docId) as string | null) ?? null,
        block,
        snippet: highlighter.snippet(block.text),
      };
    });
  }

  /**
   * The best `k` block rows for `match` that pass `conditions`, with their bm25 `rank`. FTS5 ranks
   * first and only the winners are joined with their blocks: joining every match (text and all)
   * before sorting costs several times more. With filters, the top candidates are filtered; when
   * too few survive and more candidates exist, the full join is the exact answer.
   */
  private rankedRows(match: string, k: number, conditions: string[], params: Record<string, unknown>): Row[] {
    const candidates = conditions.length === 0 ? k : Math.max(k * FILTER_CANDIDATES_PER_HIT, MIN_FILTER_CANDIDATES);
    const rank = rankFunction(columnWeights(this.lengthStats()));
    const top = this.stmts.topRowids.all({ match, rank, n: candidates }) as { rowid: number; rank: number }[];
    if (top.length === 0) return [];
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows = this.cached(
      `SELECT b.*, c.key AS position FROM json_each(@rowids) c JOIN blocks b ON b.rowid = c.value
       JOIN documents d ON d.id = b.doc_id ${where} ORDER BY c.key LIMIT @k`,
    ).all({ ...params, rowids: JSON.stringify(top.map((t) => t.rowid)), k }) as Row[];
    for (const row of rows) row.rank = top[row.position]!.rank;
    if (rows.length >= k || top.length < candidates) return rows;
    return this.cached(
      `SELECT b.*, blocks_fts.rank AS rank FROM blocks_fts JOIN blocks b ON b.rowid = blocks_fts.rowid
       JOIN documents d ON d.id = b.doc_id WHERE blocks_fts MATCH @match AND blocks_fts.rank MATCH @rank AND ${conditions.join(' AND ')}
       ORDER BY blocks_fts.rank LIMIT @k`,
    ).all({ ...params, match, rank, k }) as Row[];
  }

  /** A prepared statement for SQL built from a few fixed shapes (the filter combinations). */
  private cached(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  stats(): StoreStats {
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

  close(): void {
    this.db.close();
  }
}

/** Filtered searches rank this many FTS candidates per wanted hit (at least MIN) before the exact fallback. */
const FILTER_CANDIDATES_PER_HIT = 20;
const MIN_FILTER_CANDIDATES = 200;

/**
 * Document frequencies from term_df (migration 2), one indexed lookup per query term. Undefined for
 * a library that predates them, opened read-only (not migrated): its queries are not pruned.
 */
export function termStatsOf(db: Database.Database): TermStats | undefined {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'term_df'").get()) return undefined;
  const dfOf = db.prepare('SELECT df FROM term_df WHERE term = ?').pluck();
  const blockCount = db.prepare("SELECT value FROM index_stats WHERE key = 'blocks'").pluck();
  return {
    get blocks() {
      return (blockCount.get() as number | undefined) ?? 0;
    },
    df: (term) => (dfOf.get(term) as number | undefined) ?? 0,
  };
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
}

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

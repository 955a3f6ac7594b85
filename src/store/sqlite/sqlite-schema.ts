import type Database from 'better-sqlite3';
import { ANALYZER_VERSION } from '../../search/analyze.js';
import { rebuildIndex } from './sqlite-fts.js';

/**
 * Recomputes term_df and the indexed block count from the FTS index itself (fts5vocab walks every
 * posting list once; the padding token of short rows is not a term). Run by migration 2 and by tests.
 */
export const REBUILD_TERM_STATS = `
  DELETE FROM term_df;
  CREATE VIRTUAL TABLE temp.blocks_fts_vocab USING fts5vocab(main, blocks_fts, 'row');
  INSERT INTO term_df(term, df) SELECT term, doc FROM temp.blocks_fts_vocab WHERE doc > 0 AND term <> char(57344);
  DROP TABLE temp.blocks_fts_vocab;
  INSERT INTO index_stats(key, value) VALUES ('blocks', (SELECT count(*) FROM blocks))
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
`;

/** Blocks re-indexed so far of all there are: reported while a library's index is rebuilt. */
export type IndexProgress = (done: number, total: number) => void;

/** A migration: SQL, or a function for steps SQL cannot do (re-analysing every block). */
export type Migration = string | ((db: Database.Database, onProgress?: IndexProgress) => void);

/**
 * The SQLite schema, as ordered migrations. `PRAGMA user_version` records how many have run; a
 * library written by a newer Groundwork (higher version) is refused rather than corrupted.
 */
export const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE documents (
    id TEXT PRIMARY KEY,              -- sha256 of the source bytes
    format TEXT NOT NULL,
    mime TEXT NOT NULL,
    title TEXT,
    language TEXT,
    page_count INTEGER,
    bytes INTEGER NOT NULL,
    metadata TEXT NOT NULL,           -- JSON
    warnings TEXT NOT NULL,           -- JSON array
    strategy TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    tables INTEGER NOT NULL,
    images INTEGER NOT NULL,
    original TEXT,                    -- kept original, relative to the library folder
    added_at TEXT NOT NULL
  );

  CREATE TABLE paths (
    path TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL
  );
  CREATE INDEX paths_doc ON paths(doc_id);

  CREATE TABLE blocks (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    heading_path TEXT NOT NULL,       -- JSON array
    page_start INTEGER,
    page_end INTEGER,
    bboxes TEXT,                      -- JSON
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    chars INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    table_rows TEXT,                  -- JSON TableData
    speaker TEXT,
    time_start REAL,
    time_end REAL,
    strategy TEXT NOT NULL,
    config_hash TEXT NOT NULL
  );
  CREATE INDEX blocks_doc ON blocks(doc_id, ordinal);

  -- Contentless: the analyzed text (jieba-segmented Chinese, stemmed English) is only indexed;
  -- snippets are cut from blocks.text. Rows share blocks.rowid.
  CREATE VIRTUAL TABLE blocks_fts USING fts5(body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

  CREATE TABLE parse_cache (
    key TEXT PRIMARY KEY,             -- sha256(content hash, parser version, parse options)
    doc_id TEXT NOT NULL,
    document BLOB NOT NULL,           -- gzip JSON of the parsed Document
    created_at TEXT NOT NULL
  );
  CREATE INDEX parse_cache_doc ON parse_cache(doc_id);
  `,
  // 2: document frequencies for query-term pruning (a per-term lookup, where fts5vocab would walk
  // posting lists), kept up to date by every write, backfilled here from an existing index.
  `
  CREATE TABLE term_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE index_stats (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
  ${REBUILD_TERM_STATS}`,
  // 3: the index without stored sizes, blocks in length columns (see sqlite-fts.ts), with the
  // length statistics the ranking weights come from; every block is re-analysed into it.
  (db, onProgress) => {
    db.exec('CREATE TABLE fts_lengths (col INTEGER PRIMARY KEY, blocks INTEGER NOT NULL, terms INTEGER NOT NULL)');
    rebuildIndex(db, onProgress);
    db.prepare("INSERT INTO settings(key, value) VALUES ('index.analyzer', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(ANALYZER_VERSION);
  },
  // 4: background jobs (an upload's ingest under `groundwork serve`), kept so a restart resumes them.
  // IF NOT EXISTS: safe whatever position this step ends up at when branches adding steps merge.
  `
  CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    state TEXT NOT NULL,
    input TEXT NOT NULL,              -- JSON
    progress TEXT,                    -- JSON
    result TEXT,                      -- JSON
    error TEXT,                       -- JSON { code, message }
    attempts INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
  );
  CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, created_at);
  CREATE INDEX IF NOT EXISTS jobs_created ON jobs(created_at);
  `,
  // 5: vectors (src/store/sqlite/sqlite-vectors.ts). One row per (model, text hash) in `vectors`,
  // its float32 vector in the model's vec0 table (sqlite-vec, created on first use, rowid = vector
  // id); blocks link to the vector of their contextual text, so identical texts share one.
  `
  CREATE TABLE IF NOT EXISTS vector_models (
    slot INTEGER PRIMARY KEY,
    model TEXT NOT NULL UNIQUE,       -- the embedder id, e.g. openai:bge-m3:1024
    dimensions INTEGER NOT NULL,
    quantization TEXT NOT NULL DEFAULT 'none',
    created_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS vectors (
    id INTEGER PRIMARY KEY,
    slot INTEGER NOT NULL REFERENCES vector_models(slot) ON DELETE CASCADE,
    hash TEXT NOT NULL,               -- sha256 of the text embedded
    UNIQUE (slot, hash)
  );
  CREATE TABLE IF NOT EXISTS block_vectors (
    block_rowid INTEGER NOT NULL REFERENCES blocks(rowid) ON DELETE CASCADE,
    slot INTEGER NOT NULL,
    vector_id INTEGER NOT NULL,
    PRIMARY KEY (block_rowid, slot)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS block_vectors_vector ON block_vectors(slot, vector_id);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

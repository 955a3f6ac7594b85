import type pg from 'pg';
import { GroundworkError } from '../../errors.js';
import { JOBS_MIGRATION } from './postgres-jobs.js';
import { VECTORS_MIGRATION } from './postgres-vectors.js';

/**
 * The Postgres schema, as ordered migrations (like src/store/sqlite/sqlite-schema.ts). Each applied
 * version is a row of `schema_migrations`; a schema written by a newer Groundwork (a higher version)
 * is refused rather than corrupted. Every table lives in the store's own schema (`groundwork` unless
 * the spec names another), so one database can hold several libraries.
 *
 * Text keys use the "C" collation: byte order, as SQLite sorts, so `paths[0]` (the first path) and
 * listing orders are the same in both stores, and `id LIKE 'prefix%'` can use the primary key.
 */
export const MIGRATIONS: readonly { description: string; sql: string }[] = [
  {
    description: 'documents, paths, blocks, full-text index and statistics, parse cache, originals',
    sql: `
    CREATE TABLE settings (key text COLLATE "C" PRIMARY KEY, value text NOT NULL);

    CREATE TABLE documents (
      id text COLLATE "C" PRIMARY KEY,        -- sha256 of the source bytes
      format text NOT NULL,
      mime text NOT NULL,
      title text,
      language text,
      page_count integer,
      bytes bigint NOT NULL,
      metadata json NOT NULL,
      warnings json NOT NULL,
      strategy text NOT NULL,
      config_hash text NOT NULL,
      tables integer NOT NULL,
      images integer NOT NULL,
      original text,                          -- where the kept original is (see StoredDocument.original)
      added_at text NOT NULL                  -- ISO 8601, as the SQLite store keeps it
    );
    CREATE INDEX documents_added ON documents (added_at, id);

    CREATE TABLE paths (
      path text COLLATE "C" PRIMARY KEY,
      doc_id text COLLATE "C" NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
      size bigint NOT NULL,
      mtime_ms double precision NOT NULL
    );
    CREATE INDEX paths_doc ON paths (doc_id, path);

    CREATE TABLE blocks (
      rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text COLLATE "C" NOT NULL UNIQUE,
      doc_id text COLLATE "C" NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
      ordinal integer NOT NULL,
      kind text NOT NULL,
      text text NOT NULL,
      heading_path text[] NOT NULL,
      page_start integer,
      page_end integer,
      bboxes json,
      start integer NOT NULL,
      "end" integer NOT NULL,
      chars integer NOT NULL,
      tokens integer NOT NULL,
      table_rows json,
      speaker text,
      time_start double precision,
      time_end double precision,
      strategy text NOT NULL,
      config_hash text NOT NULL
    );
    CREATE INDEX blocks_doc ON blocks (doc_id, ordinal);

    -- The full-text index (postgres-fts.ts): per block its analysed terms as a tsvector (term
    -- frequencies as position counts), its length in terms and its length column. A block whose
    -- terms exceed one tsvector's size is split into parts, each term in exactly one part.
    CREATE TABLE block_terms (
      rowid bigint NOT NULL REFERENCES blocks(rowid) ON DELETE CASCADE,
      part smallint NOT NULL,
      col smallint NOT NULL,
      length integer NOT NULL,
      terms tsvector NOT NULL,
      PRIMARY KEY (rowid, part)
    );
    CREATE INDEX block_terms_gin ON block_terms USING gin (terms) WITH (fastupdate = off);

    -- Index statistics, updated by every write inside its transaction (hot rows: room for HOT
    -- updates, vacuumed often).
    CREATE TABLE term_df (term text COLLATE "C" PRIMARY KEY, df integer NOT NULL)
      WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000);
    CREATE TABLE index_stats (key text COLLATE "C" PRIMARY KEY, value bigint NOT NULL)
      WITH (fillfactor = 10, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 200);
    CREATE TABLE fts_lengths (col integer PRIMARY KEY, blocks bigint NOT NULL, terms bigint NOT NULL)
      WITH (fillfactor = 10, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 200);

    CREATE TABLE parse_cache (
      key text COLLATE "C" PRIMARY KEY,       -- sha256(content hash, parse options)
      doc_id text COLLATE "C" NOT NULL,
      document bytea NOT NULL,                -- gzip JSON of the parsed Document
      created_at text NOT NULL
    );
    CREATE INDEX parse_cache_doc ON parse_cache (doc_id);

    -- Kept originals (postgres-originals.ts), in parts so neither side holds a whole file.
    CREATE TABLE originals (
      doc_id text COLLATE "C" PRIMARY KEY,
      bytes bigint NOT NULL,
      parts integer NOT NULL,
      created_at text NOT NULL
    );
    CREATE TABLE original_parts (
      doc_id text COLLATE "C" NOT NULL REFERENCES originals(doc_id) ON DELETE CASCADE,
      part integer NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (doc_id, part)
    );
    `,
  },
  JOBS_MIGRATION,
  VECTORS_MIGRATION,
  {
    // BM25 is scored from per-term postings (postgres-search.ts), so the GIN index over the
    // tsvectors has no reader left. A library created before gets its postings from its index
    // rows here, once (one row per block and distinct term: minutes for millions of blocks).
    description: 'per-term postings with their frequencies; the GIN index dropped',
    sql: `
    CREATE TABLE postings (
      lexeme text COLLATE "C" NOT NULL,
      rowid bigint NOT NULL,
      col smallint NOT NULL,
      tf smallint NOT NULL
    ) WITH (autovacuum_vacuum_insert_scale_factor = 0.05);
    INSERT INTO postings (lexeme, rowid, col, tf)
      SELECT u.lexeme, t.rowid, t.col, cardinality(u.positions) FROM block_terms t, unnest(t.terms) AS u;
    ALTER TABLE postings ADD CONSTRAINT postings_pkey PRIMARY KEY (lexeme, rowid) INCLUDE (col, tf);
    DROP INDEX block_terms_gin;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Advisory-lock namespace of Groundwork's schema migrations (any constant; 'GW' in ASCII). */
const LOCK_NAMESPACE = 0x4757;

/**
 * Brings `schema` up to SCHEMA_VERSION. Two processes opening one library at once take turns on a
 * transaction-scoped advisory lock keyed by the schema's name: the first migrates, the second
 * waits and then finds nothing left to do. Each migration runs in the same transaction as its
 * version row, so a failed one leaves the schema as it was. `afterMigrations` runs under the same
 * lock (the index rebuild when the analyzer changed).
 */
export async function migrate(
  client: pg.PoolClient,
  schema: string,
  afterMigrations: (client: pg.PoolClient) => Promise<void>,
  create = true,
): Promise<void> {
  const quoted = quoteIdentifier(schema);
  if (!create && !(await libraryExists(client, schema))) {
    throw new GroundworkError('NOT_FOUND', `no library in schema ${schema} of this database; create one with 'groundwork ingest PATH --postgres URL'`, { file: schema });
  }
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_NAMESPACE, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    // The connection's search path names the schema; it takes effect now that the schema exists.
    await client.query(`SET LOCAL search_path TO ${quoted}, public`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
      version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${quoted}.schema_migrations`);
    const version = rows[0]?.version ?? 0;
    if (version > SCHEMA_VERSION) {
      throw new GroundworkError(
        'UNSUPPORTED',
        `library schema version ${version} is newer than this Groundwork supports (${SCHEMA_VERSION}); upgrade Groundwork`,
        { file: schema },
      );
    }
    for (let v = version; v < SCHEMA_VERSION; v++) {
      const migration = MIGRATIONS[v]!;
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${quoted}.schema_migrations (version, description) VALUES ($1, $2)`, [v + 1, migration.description]);
    }
    await afterMigrations(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** True when `schema` holds a Groundwork library (its migrations table). */
export async function libraryExists(client: pg.PoolClient, schema: string): Promise<boolean> {
  const { rows } = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [`${quoteIdentifier(schema)}.schema_migrations`]);
  return rows[0]?.found != null;
}

/** A schema name as SQL: validated by the spec (letters, digits, underscores), quoted anyway. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

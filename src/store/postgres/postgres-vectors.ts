import type pg from 'pg';
import { GroundworkError } from '../../errors.js';
import type { VectorEntry, VectorFilter, VectorQuantization, VectorSpace, VectorStats } from '../types.js';
import { toPgText } from './postgres-rows.js';
import { documentsAtPaths } from './postgres-search.js';

type Row = Record<string, any>;
type Db = pg.Pool | pg.PoolClient;

/**
 * Vectors in a Postgres library, with pgvector (the SQLite store's layout and semantics,
 * src/store/sqlite/sqlite-vectors.ts):
 *
 * - `vector_models`: one row per model (embedder id, dimensions, quantization);
 * - `vectors`: one row per (model, text hash), the float vector in an untyped `vector` column
 *   (every model's lengths in one table);
 * - `block_vectors`: block -> vector per model, deleted with its block (ON DELETE CASCADE), so a
 *   re-chunk or removal unlinks and the vectors stay until pruned.
 *
 * Search is exact: one statement joins the model's links with their blocks, applies every filter
 * field in its WHERE clause (documents, formats, path glob, pages, heading prefix, sections,
 * metadata) and orders by cosine distance (`<=>`) with LIMIT k, so k results are k results of the
 * filter and identical texts (one shared vector) get one score. Quantization (`int8`, `binary`) is
 * recorded and served exactly: scores are always the exact cosine similarities.
 */
export const VECTORS_MIGRATION = {
  description: 'vectors (pgvector): models, vectors by text hash, block links',
  sql: `
    -- pgvector is database-wide; created in public (on every library's search path) when missing,
    -- one migrating library at a time (two concurrent CREATE EXTENSIONs would collide).
    SELECT pg_advisory_xact_lock(18263, hashtext('groundwork:pgvector'));
    CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;

    CREATE TABLE vector_models (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      model text COLLATE "C" NOT NULL UNIQUE,   -- the embedder id, e.g. openai:bge-m3:1024
      dimensions integer NOT NULL,
      quantization text NOT NULL DEFAULT 'none',
      created_at text NOT NULL
    );
    CREATE TABLE vectors (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      model_id integer NOT NULL REFERENCES vector_models(id) ON DELETE CASCADE,
      hash text COLLATE "C" NOT NULL,           -- sha256 of the text embedded
      embedding vector NOT NULL,                -- the model's dimensions (checked on write)
      UNIQUE (model_id, hash)
    );
    CREATE TABLE block_vectors (
      block_rowid bigint NOT NULL REFERENCES blocks(rowid) ON DELETE CASCADE,
      model_id integer NOT NULL REFERENCES vector_models(id) ON DELETE CASCADE,
      vector_id bigint NOT NULL REFERENCES vectors(id) ON DELETE CASCADE,
      PRIMARY KEY (block_rowid, model_id)
    );
    CREATE INDEX block_vectors_vector ON block_vectors (vector_id);`,
};

interface ModelRow {
  id: number;
  model: string;
  dimensions: number;
  quantization: VectorQuantization;
}

/** A filter as SQL conditions on `b` (blocks) and `d` (documents), numbered after `params`. */
interface Conditions {
  sql: string[];
  params: unknown[];
}

/** pgvector's text form of a float vector (float32 values print exactly as doubles). */
const literal = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

export class PostgresVectors {
  constructor(private readonly location: string) {}

  async modelOf(db: Db, model: string): Promise<ModelRow | undefined> {
    const { rows } = await db.query<ModelRow>('SELECT id, model, dimensions, quantization FROM vector_models WHERE model = $1', [model]);
    return rows[0];
  }

  /** The model's row, created on first use; a model stored with other dimensions is refused. */
  async ensureModel(db: Db, space: VectorSpace): Promise<ModelRow> {
    checkSpace(space);
    await db.query(
      "INSERT INTO vector_models (model, dimensions, quantization, created_at) VALUES ($1, $2, 'none', $3) ON CONFLICT (model) DO NOTHING",
      [space.model, space.dimensions, new Date().toISOString()],
    );
    const model = (await this.modelOf(db, space.model))!;
    if (model.dimensions !== space.dimensions) {
      throw new GroundworkError('INVALID_OPTIONS', `the library stores ${space.model} vectors of ${model.dimensions} dimensions, not ${space.dimensions}`, { file: this.location });
    }
    return model;
  }

  /** Stores new vectors and links the blocks (the caller holds the transaction). */
  async put(client: pg.PoolClient, space: VectorSpace, entries: readonly VectorEntry[]): Promise<{ stored: number; linked: number }> {
    const model = await this.ensureModel(client, space);
    // First vector of a hash wins (as one by one); the last link of a block wins.
    const fresh = new Map<string, string>();
    for (const entry of entries) {
      if (!entry.vector) continue;
      checkVector(entry.vector, model.dimensions, `the vector of block ${entry.blockId}`);
      if (!fresh.has(entry.hash)) fresh.set(entry.hash, literal(entry.vector));
    }
    const inserted = await client.query(
      `INSERT INTO vectors (model_id, hash, embedding) SELECT $1, u.hash, u.embedding::vector FROM unnest($2::text[], $3::text[]) AS u(hash, embedding)
       ON CONFLICT (model_id, hash) DO NOTHING`,
      [model.id, [...fresh.keys()], [...fresh.values()]],
    );
    const hashes = [...new Set(entries.map((e) => e.hash))];
    const { rows: unknown } = await client.query<{ hash: string }>(
      'SELECT u.hash FROM unnest($2::text[]) AS u(hash) WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model_id = $1 AND v.hash = u.hash) LIMIT 1',
      [model.id, hashes],
    );
    if (unknown[0]) {
      const entry = entries.find((e) => e.hash === unknown[0]!.hash)!;
      throw new GroundworkError('INVALID_OPTIONS', `no ${space.model} vector is stored for the text of block ${entry.blockId} (hash ${entry.hash.slice(0, 12)}): give its vector`);
    }
    const links = new Map<string, string>();
    for (const entry of entries) links.set(entry.blockId, entry.hash);
    const { rows: present } = await client.query<{ id: string }>(
      `WITH u AS (SELECT * FROM unnest($2::text[], $3::text[]) AS u(block_id, hash)),
       linked AS (
         INSERT INTO block_vectors (block_rowid, model_id, vector_id)
         SELECT b.rowid, $1::integer, v.id FROM u JOIN blocks b ON b.id = u.block_id JOIN vectors v ON v.model_id = $1 AND v.hash = u.hash
         ON CONFLICT (block_rowid, model_id) DO UPDATE SET vector_id = excluded.vector_id
         RETURNING block_rowid)
       SELECT b.id FROM linked JOIN blocks b ON b.rowid = linked.block_rowid`,
      [model.id, [...links.keys()], [...links.values()]],
    );
    const linkedIds = new Set(present.map((r) => r.id));
    return { stored: inserted.rowCount ?? 0, linked: entries.filter((e) => linkedIds.has(e.blockId)).length };
  }

  async known(db: Db, space: VectorSpace, hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const { rows } = await db.query<{ hash: string }>(
      'SELECT v.hash FROM vectors v JOIN vector_models m ON m.id = v.model_id WHERE m.model = $1 AND v.hash = ANY($2::text[])',
      [space.model, [...hashes]],
    );
    return new Set(rows.map((r) => r.hash));
  }

  async missing(db: Db, space: VectorSpace, limit: number, after: { docId: string; ordinal: number } | undefined): Promise<Row[]> {
    const model = await this.modelOf(db, space.model);
    const { rows } = await db.query(
      `SELECT b.*, (SELECT min(p.path) FROM paths p WHERE p.doc_id = b.doc_id) AS path FROM blocks b
       WHERE (b.doc_id, b.ordinal) > ($1::text COLLATE "C", $2::integer)
         AND NOT EXISTS (SELECT 1 FROM block_vectors bv WHERE bv.block_rowid = b.rowid AND bv.model_id = $3)
       ORDER BY b.doc_id, b.ordinal, b.rowid LIMIT $4`,
      [after?.docId ?? '', after?.ordinal ?? -1, model?.id ?? -1, Math.max(0, Math.floor(limit))],
    );
    return rows;
  }

  /** The k nearest linked blocks passing the filter, best first, with their cosine similarity (`score`). */
  async nearest(db: Db, space: VectorSpace, query: Float32Array, k: number, filter: VectorFilter = {}): Promise<Row[]> {
    const model = await this.modelOf(db, space.model);
    if (!model) return [];
    checkVector(query, model.dimensions, 'the query vector');
    const params: unknown[] = [model.id, literal(query), Math.max(0, Math.floor(k))];
    const conditions = await filterConditions(db, filter, params.length);
    if (!conditions) return [];
    // A zero vector has no direction: pgvector gives NaN, taken here as distance 1 (similarity 0).
    const distance = "coalesce(nullif(v.embedding <=> $2::vector, 'NaN'), 1)";
    const { rows } = await db.query(
      `SELECT b.*, 1 - ${distance} AS score, (SELECT min(p.path) FROM paths p WHERE p.doc_id = b.doc_id) AS path
       FROM block_vectors bv JOIN vectors v ON v.id = bv.vector_id JOIN blocks b ON b.rowid = bv.block_rowid JOIN documents d ON d.id = b.doc_id
       WHERE bv.model_id = $1 ${conditions.sql.map((c) => `AND ${c}`).join(' ')}
       ORDER BY ${distance}, v.id, b.rowid LIMIT $3`,
      [...params, ...conditions.params],
    );
    return rows;
  }

  async setQuantization(client: pg.PoolClient, space: VectorSpace, quantization: VectorQuantization): Promise<void> {
    const model = await this.ensureModel(client, space);
    if (model.quantization === quantization) return;
    if (quantization === 'binary' && model.dimensions % 8 !== 0) {
      throw new GroundworkError('INVALID_OPTIONS', `binary quantization needs dimensions divisible by 8; ${space.model} has ${model.dimensions}`);
    }
    await client.query('UPDATE vector_models SET quantization = $2 WHERE id = $1', [model.id, quantization]);
  }

  async stats(db: Db): Promise<VectorStats[]> {
    const { rows } = await db.query<VectorStats>(
      `SELECT m.model, m.dimensions, m.quantization,
              (SELECT count(*) FROM vectors v WHERE v.model_id = m.id) AS vectors,
              (SELECT count(*) FROM block_vectors bv WHERE bv.model_id = m.id) AS blocks
       FROM vector_models m ORDER BY m.id`,
    );
    return rows;
  }

  async prune(db: Db, space: VectorSpace): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM vectors v USING vector_models m WHERE m.model = $1 AND v.model_id = m.id
         AND NOT EXISTS (SELECT 1 FROM block_vectors bv WHERE bv.vector_id = v.id)`,
      [space.model],
    );
    return rowCount ?? 0;
  }

  /** Deletes the model's row; its vectors and links cascade. */
  async drop(client: pg.PoolClient, model: string): Promise<number> {
    const row = await this.modelOf(client, model);
    if (!row) return 0;
    const { rows } = await client.query<{ n: number }>('SELECT count(*) AS n FROM vectors WHERE model_id = $1', [row.id]);
    await client.query('DELETE FROM vector_models WHERE id = $1', [row.id]);
    return rows[0]!.n;
  }
}

/**
 * Every filter field as SQL conditions (parameters numbered after the first `offset`), with the
 * semantics of src/retrieval/filter.ts `blockMatches`; undefined when nothing can pass (no path
 * matches the glob, no document in the sections and the ids at once).
 */
async function filterConditions(db: Db, filter: VectorFilter, offset: number): Promise<Conditions | undefined> {
  const sql: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${offset + params.push(value)}`;
  let docIds = filter.docId === undefined ? undefined : asArray(filter.docId);
  if (filter.path) {
    const matched = await documentsAtPaths(db, filter.path);
    docIds = docIds ? docIds.filter((id) => matched.has(id)) : [...matched];
  }
  if (filter.sections) {
    const inSections = new Set(filter.sections.map((s) => s.docId));
    docIds = docIds ? docIds.filter((id) => inSections.has(id)) : [...inSections];
  }
  if (docIds) {
    if (docIds.length === 0) return undefined;
    sql.push(`b.doc_id = ANY(${param(docIds)}::text[])`);
  }
  const formats = asArray(filter.format);
  if (formats.length > 0) sql.push(`d.format = ANY(${param(formats)}::text[])`);
  if (filter.pageFrom !== undefined) sql.push(`b.page_end >= ${param(filter.pageFrom)}::integer`);
  if (filter.pageTo !== undefined) sql.push(`b.page_start <= ${param(filter.pageTo)}::integer`);
  if (filter.headingPrefix) sql.push(headingPrefix(filter.headingPrefix, param));
  if (filter.sections) {
    const any = filter.sections.map((s) => {
      const inside = s.start !== undefined && s.end !== undefined
        ? `b.start < ${param(s.end)}::integer AND b."end" > ${param(s.start)}::integer`
        : headingPrefix(s.headingPath, param);
      return `(b.doc_id = ${param(s.docId)}::text AND ${inside})`;
    });
    sql.push(`(${any.join(' OR ')})`);
  }
  // Metadata as stored (JSON.stringify's text, `json` keeps it): a value equals, or an array holds, the wanted one.
  for (const [key, want] of Object.entries(filter.metadata ?? {})) {
    const value = `(d.metadata -> ${param(key)}::text)`;
    const wanted = param(JSON.stringify(want));
    sql.push(`(CASE WHEN json_typeof(${value}) = 'array' THEN EXISTS (SELECT 1 FROM json_array_elements(${value}) e WHERE e::text = ${wanted}::text) ELSE ${value}::text = ${wanted}::text END)`);
  }
  return { sql, params };
}

/** The block's heading path starts with `prefix` (stored escaped, see postgres-rows.ts). */
function headingPrefix(prefix: readonly string[], param: (value: unknown) => string): string {
  if (prefix.length === 0) return 'TRUE';
  return `b.heading_path[1:${prefix.length}] = ${param(prefix.map((h) => toPgText(h)))}::text[]`;
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
}

function checkSpace(space: VectorSpace): void {
  if (typeof space.model !== 'string' || space.model === '' || !Number.isInteger(space.dimensions) || space.dimensions < 1 || space.dimensions > 8192) {
    throw new GroundworkError('INVALID_OPTIONS', `a vector space needs a model id and 1-8192 dimensions, got ${JSON.stringify(space)}`);
  }
}

function checkVector(vector: Float32Array, dimensions: number, what: string): void {
  if (!(vector instanceof Float32Array) || vector.length !== dimensions) {
    throw new GroundworkError('INVALID_OPTIONS', `${what} has ${vector?.length ?? 0} dimensions, the model's vectors ${dimensions}`);
  }
  for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i]!)) throw new GroundworkError('INVALID_OPTIONS', `${what} has a non-finite value`);
}

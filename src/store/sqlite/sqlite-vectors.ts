import type Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { GroundworkError } from '../../errors.js';
import { compileFilter } from '../../retrieval/filter.js';
import type { VectorEntry, VectorFilter, VectorQuantization, VectorSpace, VectorStats } from '../types.js';
import { addToIvf, dropIvf, ivfCandidates, probesFor, ivfExact, ivfRescore, ivfExists, ivfVersion, loadIvf, removeFromIvf, RETRAIN_GROWTH, trainIvf, type Coded, type IvfState } from './sqlite-ivf.js';
import type { Conditions } from './sqlite-search.js';

type Row = Record<string, any>;

/**
 * Vectors in the library file, with sqlite-vec's `vec0` tables (exact KNN by a scan in C).
 *
 * Layout (migration 4): `vector_models` (one slot per model: its id, dimensions, quantization),
 * `vectors` (one row per (slot, text hash)), `block_vectors` (block -> vector, deleted with the
 * block), and per slot `vec_f<slot>` (float32, cosine; rowid = vector id) and, when quantized
 * (int8 or binary), an inverted file of quantized codes (src/store/sqlite/sqlite-ivf.ts) whose
 * probed lists give candidates that are then rescored exactly from the floats.
 *
 * Filters: on a quantized model, a filter that passes few blocks (counted first, up to
 * `exactFilterLimit`) is ranked exactly among its own vectors, so its k results are exactly its
 * exact top k. Otherwise the KNN first ranks the whole model unfiltered and keeps the filter's
 * blocks among the best `FILTER_WINDOW` candidates (exact when the model is: anything the filter
 * passes that ranks higher is in the window); when fewer than k pass, the filter's vector ids become
 * the KNN's candidate set (exact), so k results are k results of the filter either way.
 */

/** sqlite-vec refuses a larger k. */
export const MAX_KNN = 4096;
/**
 * Candidates of the quantized index rescored exactly, per wanted result (chosen by measurement,
 * bench/vectors.ts: binary codes rank coarsely, so they need more).
 */
export const RESCORE_FACTORS: Record<Coded, number> = { int8: 4, binary: 20 };
const factorOf = (quantization: VectorQuantization) => (quantization === 'none' ? 1 : RESCORE_FACTORS[quantization]);
/**
 * A filter of a quantized model that passes at most this many blocks is ranked exactly: about the
 * vectors the probed lists hold (ranking them exactly costs a few times a code, so this errs on the
 * cheap side of the inverted file's cost), at least EXACT_FILTER_MIN, at most EXACT_FILTER_MAX.
 */
export const EXACT_FILTER_MIN = 500;
export const EXACT_FILTER_MAX = 20_000;
export function exactFilterLimit(state: { lists: number; count: number }): number {
  const probed = (probesFor(state.lists) * state.count) / Math.max(1, state.lists);
  return Math.round(Math.min(EXACT_FILTER_MAX, Math.max(EXACT_FILTER_MIN, probed)));
}
/** A filtered search first looks among this many unfiltered candidates per wanted result (at least MIN). */
const FILTER_WINDOW_PER_HIT = 20;
const MIN_FILTER_WINDOW = 200;

export interface VectorSlot {
  slot: number;
  model: string;
  dimensions: number;
  quantization: VectorQuantization;
}

/** A block row (every column of `blocks`, plus `path`) with its cosine similarity. */
export interface ScoredRow {
  row: Row;
  score: number;
}

/** Loads sqlite-vec into the connection; the reason when it cannot be (vectors are then unavailable). */
export function loadVectorExtension(db: Database.Database): string | undefined {
  try {
    sqliteVec.load(db);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const blob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

export class SqliteVectors {
  private readonly statements = new Map<string, Database.Statement>();
  /** The partition of each quantized slot, as last read (reloaded when its version changes). */
  private readonly partitions = new Map<number, IvfState>();

  constructor(
    private readonly db: Database.Database,
    private readonly conditionsOf: (filter: VectorFilter) => Conditions | undefined,
    private readonly loadError: string | undefined,
    private readonly location: string,
  ) {}

  private available(): void {
    if (this.loadError !== undefined) {
      throw new GroundworkError('UNSUPPORTED', `vector search needs the sqlite-vec extension, which did not load here: ${this.loadError}`, { file: this.location });
    }
  }

  private cached(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  slotOf(model: string): VectorSlot | undefined {
    return this.cached('SELECT slot, model, dimensions, quantization FROM vector_models WHERE model = ?').get(model) as VectorSlot | undefined;
  }

  /** The model's slot, created with its vec0 table on first use; a model stored with other dimensions is refused. */
  ensureSlot(space: VectorSpace): VectorSlot {
    this.available();
    checkSpace(space);
    const existing = this.slotOf(space.model);
    if (existing) {
      if (existing.dimensions !== space.dimensions) {
        throw new GroundworkError('INVALID_OPTIONS', `the library stores ${space.model} vectors of ${existing.dimensions} dimensions, not ${space.dimensions}`, { file: this.location });
      }
      return existing;
    }
    const slot = Number(this.db.prepare("INSERT INTO vector_models(model, dimensions, quantization, created_at) VALUES (?, ?, 'none', ?)").run(space.model, space.dimensions, new Date().toISOString()).lastInsertRowid);
    this.db.exec(`CREATE VIRTUAL TABLE vec_f${slot} USING vec0(emb float[${space.dimensions}] distance_metric=cosine)`);
    return { slot, model: space.model, dimensions: space.dimensions, quantization: 'none' };
  }

  /** Stores new vectors and links the blocks (the caller holds the transaction). */
  put(space: VectorSpace, entries: readonly VectorEntry[]): { stored: number; linked: number } {
    const info = this.ensureSlot(space);
    const insertVector = this.cached('INSERT INTO vectors(slot, hash) VALUES (?, ?) ON CONFLICT(slot, hash) DO NOTHING');
    const vectorId = this.cached('SELECT id FROM vectors WHERE slot = ? AND hash = ?').pluck();
    const blockRowid = this.cached('SELECT rowid FROM blocks WHERE id = ?').pluck();
    const link = this.cached('INSERT INTO block_vectors(block_rowid, slot, vector_id) VALUES (?, ?, ?) ON CONFLICT(block_rowid, slot) DO UPDATE SET vector_id = excluded.vector_id');
    const insertFloat = this.cached(`INSERT INTO vec_f${info.slot}(rowid, emb) VALUES (?, ?)`);
    const added: { id: bigint; vector: Float32Array }[] = [];
    let stored = 0;
    let linked = 0;
    for (const entry of entries) {
      if (entry.vector) {
        checkVector(entry.vector, info.dimensions, `the vector of block ${entry.blockId}`);
        const result = insertVector.run(info.slot, entry.hash);
        if (result.changes > 0) {
          const id = BigInt(result.lastInsertRowid);
          insertFloat.run(id, blob(entry.vector));
          added.push({ id, vector: entry.vector });
          stored++;
        }
      }
      const id = vectorId.get(info.slot, entry.hash) as number | undefined;
      if (id === undefined) throw new GroundworkError('INVALID_OPTIONS', `no ${space.model} vector is stored for the text of block ${entry.blockId} (hash ${entry.hash.slice(0, 12)}): give its vector`);
      const rowid = blockRowid.get(entry.blockId) as number | undefined;
      if (rowid === undefined) continue;
      link.run(rowid, info.slot, id);
      linked++;
    }
    if (info.quantization !== 'none') this.index(info, added);
    return { stored, linked };
  }

  known(space: VectorSpace, hashes: readonly string[]): Set<string> {
    const info = this.slotOf(space.model);
    if (!info || hashes.length === 0) return new Set();
    const rows = this.cached('SELECT hash FROM vectors WHERE slot = ? AND hash IN (SELECT value FROM json_each(?))').pluck().all(info.slot, JSON.stringify(hashes)) as string[];
    return new Set(rows);
  }

  missing(space: VectorSpace, limit: number, after: { docId: string; ordinal: number } | undefined): Row[] {
    const info = this.slotOf(space.model);
    return this.cached(
      `SELECT b.*, (SELECT min(path) FROM paths p WHERE p.doc_id = b.doc_id) AS path FROM blocks b
       WHERE (b.doc_id, b.ordinal) > (@docId, @ordinal)
         AND NOT EXISTS (SELECT 1 FROM block_vectors bv WHERE bv.block_rowid = b.rowid AND bv.slot = @slot)
       ORDER BY b.doc_id, b.ordinal LIMIT @n`,
    ).all({ docId: after?.docId ?? '', ordinal: after?.ordinal ?? -1, slot: info?.slot ?? -1, n: limit }) as Row[];
  }

  /** The k nearest blocks that pass the filter, best first (see the file comment). */
  nearest(space: VectorSpace, query: Float32Array, k: number, filter: VectorFilter = {}): ScoredRow[] {
    const info = this.slotOf(space.model);
    if (!info) return [];
    this.available();
    checkVector(query, info.dimensions, 'the query vector');
    if (!hasFilter(filter)) return this.unfiltered(info, query, k);
    const conditions = this.filterConditions(filter);
    if (!conditions) return [];
    const extra = extraFilter(filter);

    // 0. Quantized, and the filter passes few blocks: ranked exactly among its own vectors.
    const partition = this.partition(info);
    if (partition !== undefined && this.countBlocks(info, conditions, exactFilterLimit(partition) + 1) <= exactFilterLimit(partition)) {
      if (!extra) {
        // Only the best k vectors' block rows are read.
        const ranked = ivfExact(info.slot, query, this.vectorIdsOf(info, conditions), k, (sql) => this.cached(sql));
        return expand(ranked, groupByVector(this.blocksOf(info, ranked.map((r) => r.id), conditions)), k);
      }
      const all = groupByVector(this.blocksOf(info, undefined, conditions, extra));
      return expand(ivfExact(info.slot, query, [...all.keys()], k, (sql) => this.cached(sql)), all, k);
    }

    // 1. The filter's blocks among the best unfiltered candidates.
    const window = Math.min(MAX_KNN, Math.max(k * FILTER_WINDOW_PER_HIT, MIN_FILTER_WINDOW));
    const raw = this.knn(info, query, window);
    const passing = this.blocksOf(info, raw.map((r) => r.id), conditions, extra);
    const byVector = groupByVector(passing);
    if (byVector.size > 0) {
      const candidates = raw.filter((r) => byVector.has(r.id));
      const ranked = this.ranked(info, query, candidates.slice(0, k * factorOf(info.quantization)));
      const rows = expand(ranked, byVector, k);
      if (rows.length >= k) return rows;
    }
    if (raw.length < window) return expand(this.ranked(info, query, raw.filter((r) => byVector.has(r.id))), byVector, k);

    // 2. Too few in the window: the filter's vectors as the KNN's candidate set (exact).
    const all = groupByVector(this.blocksOf(info, undefined, conditions, extra));
    if (all.size === 0) return [];
    const ids = [...all.keys()];
    // Exact over the float vectors of the filter's set, quantized or not (quantized: from the
    // partition's float copy, which a vec0 `rowid IN` would scan the whole model for).
    if (this.partition(info) !== undefined) return expand(ivfExact(info.slot, query, ids, k, (sql) => this.cached(sql)), all, k);
    return expand(this.exactKnn(info, query, Math.min(MAX_KNN, ids.length, k), ids), all, k);
  }

  /** Exact scores for raw candidates of a quantized index (unchanged for an exact one). */
  private ranked(info: VectorSlot, query: Float32Array, raw: { id: number; distance: number }[]): { id: number; distance: number }[] {
    return this.partition(info) === undefined ? raw : this.rescore(info, query, raw.map((r) => r.id));
  }

  private unfiltered(info: VectorSlot, query: Float32Array, k: number): ScoredRow[] {
    // Vectors no block links to any more (until pruned) take places: widen until k blocks.
    for (let n = k; ; n = Math.min(MAX_KNN, n * 4)) {
      const raw = this.knn(info, query, this.partition(info) === undefined ? n : Math.min(MAX_KNN, n * factorOf(info.quantization)));
      const ranked = this.ranked(info, query, raw).slice(0, n);
      const rows = expand(ranked, groupByVector(this.blocksOf(info, ranked.map((r) => r.id))), k);
      if (rows.length >= k || raw.length < n || n >= MAX_KNN) return rows;
    }
  }

  /** KNN over the model's index: the partition's code distances when quantized, else exact. */
  private knn(info: VectorSlot, query: Float32Array, n: number): { id: number; distance: number }[] {
    const partition = this.partition(info);
    if (partition === undefined) return this.exactKnn(info, query, n);
    return ivfCandidates(this.db, info.slot, partition, info.quantization as Coded, query, Math.max(1, n), (sql) => this.cached(sql));
  }

  /** Exact KNN over the float vectors (a scan in C), optionally within `ids`. */
  private exactKnn(info: VectorSlot, query: Float32Array, n: number, ids?: number[]): { id: number; distance: number }[] {
    const sql = `SELECT rowid AS id, distance FROM vec_f${info.slot} WHERE emb MATCH ? AND k = ?
      ${ids ? 'AND rowid IN (SELECT value FROM json_each(?))' : ''} ORDER BY distance`;
    const params: unknown[] = [blob(query), Math.max(1, Math.min(MAX_KNN, n))];
    if (ids) params.push(JSON.stringify(ids));
    return this.cached(sql).all(...params) as { id: number; distance: number }[];
  }

  /** Exact cosine distances for these vector ids, from the float vectors, best first. */
  private rescore(info: VectorSlot, query: Float32Array, ids: number[]): { id: number; distance: number }[] {
    if (this.partition(info) !== undefined) return ivfRescore(info.slot, query, ids, (sql) => this.cached(sql));
    const read = this.cached(`SELECT emb FROM vec_f${info.slot} WHERE rowid = ?`).pluck();
    const qn = Math.sqrt(dot(query, query));
    const out = ids.map((id) => {
      const bytes = read.get(BigInt(id)) as Buffer;
      const v = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      const denominator = qn * Math.sqrt(dot(v, v));
      return { id, distance: denominator === 0 ? 1 : 1 - dot(query, v) / denominator };
    });
    return out.sort((a, b) => a.distance - b.distance || a.id - b.id);
  }

  /** Blocks of the model that pass the filter's SQL conditions, counted up to `limit`. */
  private countBlocks(info: VectorSlot, conditions: Conditions, limit: number): number {
    return this.cached(`SELECT count(*) FROM (SELECT 1 FROM ${FILTERED_BLOCKS} ${whereOf(conditions)} LIMIT @limit)`).pluck().get({ ...conditions.params, slot: info.slot, limit }) as number;
  }

  /** The vector ids of the blocks that pass the filter's SQL conditions. */
  private vectorIdsOf(info: VectorSlot, conditions: Conditions): number[] {
    return this.cached(`SELECT DISTINCT bv.vector_id FROM ${FILTERED_BLOCKS} ${whereOf(conditions)}`).pluck().all({ ...conditions.params, slot: info.slot }) as number[];
  }

  /** The blocks linked to these vectors (all linked blocks when `ids` is undefined) that pass the filter. */
  private blocksOf(info: VectorSlot, ids: number[] | undefined, conditions?: Conditions, extra?: ExtraFilter): Row[] {
    if (ids && ids.length === 0) return [];
    if (!ids && conditions) {
      const rows = this.cached(
        `SELECT b.*, bv.vector_id AS vector_id, d.metadata AS doc_metadata, (SELECT min(path) FROM paths p WHERE p.doc_id = b.doc_id) AS path
         FROM ${FILTERED_BLOCKS} ${whereOf(conditions)} ORDER BY bv.vector_id, b.rowid`,
      ).all({ ...conditions.params, slot: info.slot }) as Row[];
      return extra ? rows.filter(extra) : rows;
    }
    const where = [`bv.slot = @slot`, ...(ids ? ['bv.vector_id IN (SELECT value FROM json_each(@ids))'] : []), ...(conditions?.sql ?? [])];
    const rows = this.cached(
      `SELECT b.*, bv.vector_id AS vector_id, d.metadata AS doc_metadata, (SELECT min(path) FROM paths p WHERE p.doc_id = b.doc_id) AS path
       FROM block_vectors bv JOIN blocks b ON b.rowid = bv.block_rowid JOIN documents d ON d.id = b.doc_id
       WHERE ${where.join(' AND ')} ORDER BY bv.vector_id, b.rowid`,
    ).all({ ...(conditions?.params ?? {}), slot: info.slot, ...(ids && { ids: JSON.stringify(ids) }) }) as Row[];
    return extra ? rows.filter(extra) : rows;
  }

  private filterConditions(filter: VectorFilter): Conditions | undefined {
    // Sections narrow the documents to theirs (intersected with any given).
    let docIds = filter.docId === undefined ? undefined : Array.isArray(filter.docId) ? filter.docId : [filter.docId];
    if (filter.sections) {
      const inSections = new Set(filter.sections.map((s) => s.docId));
      docIds = docIds ? docIds.filter((id) => inSections.has(id)) : [...inSections];
      if (docIds.length === 0) return undefined;
    }
    return this.conditionsOf({ ...filter, ...(docIds && { docId: docIds }) });
  }

  setQuantization(space: VectorSpace, quantization: VectorQuantization): void {
    const info = this.ensureSlot(space);
    // Setting the same quantization again keeps a current partition and re-trains a stale one.
    if (info.quantization === quantization && (quantization === 'none' || !this.stale(info))) return;
    if (quantization === 'binary' && info.dimensions % 8 !== 0) {
      throw new GroundworkError('INVALID_OPTIONS', `binary quantization needs dimensions divisible by 8; ${space.model} has ${info.dimensions}`);
    }
    // vec_q<slot>: the quantized vec0 scan of libraries written before the partition.
    this.db.exec(`DROP TABLE IF EXISTS vec_q${info.slot}`);
    dropIvf(this.db, info.slot);
    this.partitions.delete(info.slot);
    this.db.prepare('UPDATE vector_models SET quantization = ? WHERE slot = ?').run(quantization, info.slot);
    this.statements.clear();
    if (quantization !== 'none') this.train({ ...info, quantization });
  }

  /** Rebuilds the partition of every quantized model (`groundwork check --repair`). */
  rebuildPartitions(): number {
    const slots = this.db.prepare("SELECT slot, model, dimensions, quantization FROM vector_models WHERE quantization <> 'none'").all() as VectorSlot[];
    for (const info of slots) this.train(info);
    return slots.length;
  }

  private train(info: VectorSlot): IvfState {
    this.available();
    this.db.exec(`DROP TABLE IF EXISTS vec_q${info.slot}`);
    const state = trainIvf(this.db, info.slot, info.dimensions, info.quantization as Coded);
    this.partitions.set(info.slot, state);
    this.statements.clear();
    return state;
  }

  /** The partition has not been trained, or the model has grown RETRAIN_GROWTH times since. */
  private stale(info: VectorSlot): boolean {
    const state = this.partition(info);
    return state === undefined || state.count >= RETRAIN_GROWTH * Math.max(state.trained, 256);
  }

  /** The quantized slot's partition (undefined for an exact slot, or one not built yet: searched exactly). */
  private partition(info: VectorSlot): IvfState | undefined {
    if (info.quantization === 'none') return undefined;
    const cached = this.partitions.get(info.slot);
    const version = ivfExists(this.db, info.slot) ? ivfVersion(this.db, info.slot) : undefined;
    if (version === undefined) {
      this.partitions.delete(info.slot);
      return undefined;
    }
    if (cached && cached.version === version) return cached;
    const state = loadIvf(this.db, info.slot, info.dimensions);
    if (state) this.partitions.set(info.slot, state);
    else this.partitions.delete(info.slot);
    return state;
  }

  /** Adds new vectors to a quantized slot's partition (training it when missing or outgrown). */
  private index(info: VectorSlot, added: { id: bigint; vector: Float32Array }[]): void {
    const state = this.partition(info);
    if (state === undefined) {
      this.train(info);
      return;
    }
    addToIvf(this.db, info.slot, state, info.quantization as Coded, added);
    if (this.stale(info)) this.train(info);
  }

  stats(): VectorStats[] {
    return this.db.prepare(
      `SELECT m.model, m.dimensions, m.quantization,
              (SELECT count(*) FROM vectors v WHERE v.slot = m.slot) AS vectors,
              (SELECT count(*) FROM block_vectors bv WHERE bv.slot = m.slot) AS blocks
       FROM vector_models m ORDER BY m.slot`,
    ).all() as VectorStats[];
  }

  prune(space: VectorSpace): number {
    const info = this.slotOf(space.model);
    if (!info) return 0;
    this.available();
    const ids = this.db.prepare(
      'DELETE FROM vectors WHERE slot = ? AND NOT EXISTS (SELECT 1 FROM block_vectors bv WHERE bv.slot = vectors.slot AND bv.vector_id = vectors.id) RETURNING id',
    ).pluck().all(info.slot) as number[];
    const remove = this.cached(`DELETE FROM vec_f${info.slot} WHERE rowid = ?`);
    for (const id of ids) remove.run(BigInt(id));
    if (ivfExists(this.db, info.slot)) removeFromIvf(this.db, info.slot, ids);
    return ids.length;
  }

  /**
   * One page of the model's block links for copying (`LibraryStore.dumpVectors`), after `after`
   * (vector id, block rowid), by vector then block: a vector's float copy with its first block only.
   */
  dumpPage(model: string, limit: number, after: { vectorId: number; blockRowid: number }): { entries: VectorEntry[]; last: { vectorId: number; blockRowid: number } | undefined } {
    const info = this.slotOf(model);
    if (!info) return { entries: [], last: undefined };
    this.available();
    const rows = this.cached(
      `SELECT bv.vector_id AS vector_id, bv.block_rowid AS block_rowid, b.id AS block_id, v.hash AS hash
       FROM block_vectors bv JOIN blocks b ON b.rowid = bv.block_rowid JOIN vectors v ON v.id = bv.vector_id
       WHERE bv.slot = @slot AND (bv.vector_id, bv.block_rowid) > (@vectorId, @blockRowid)
       ORDER BY bv.vector_id, bv.block_rowid LIMIT @n`,
    ).all({ slot: info.slot, vectorId: after.vectorId, blockRowid: after.blockRowid, n: limit }) as Row[];
    const read = this.cached(`SELECT emb FROM vec_f${info.slot} WHERE rowid = ?`).pluck();
    let previous = after.vectorId;
    const entries = rows.map((row): VectorEntry => {
      if (row.vector_id === previous) return { blockId: row.block_id, hash: row.hash };
      previous = row.vector_id;
      const bytes = read.get(BigInt(row.vector_id)) as Buffer;
      return { blockId: row.block_id, hash: row.hash, vector: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) };
    });
    const tail = rows.at(-1);
    return { entries, last: tail ? { vectorId: tail.vector_id, blockRowid: tail.block_rowid } : undefined };
  }

  drop(model: string): number {
    const info = this.slotOf(model);
    if (!info) return 0;
    this.available();
    const count = this.db.prepare('SELECT count(*) FROM vectors WHERE slot = ?').pluck().get(info.slot) as number;
    this.db.prepare('DELETE FROM block_vectors WHERE slot = ?').run(info.slot);
    this.db.prepare('DELETE FROM vector_models WHERE slot = ?').run(info.slot);
    this.db.exec(`DROP TABLE IF EXISTS vec_f${info.slot}; DROP TABLE IF EXISTS vec_q${info.slot}`);
    dropIvf(this.db, info.slot);
    this.partitions.delete(info.slot);
    this.statements.clear();
    return count;
  }
}

type ExtraFilter = (row: Row) => boolean;

/** The part of the filter SQL does not apply (heading prefix, sections, metadata), over block rows. */
function extraFilter(filter: VectorFilter): ExtraFilter | undefined {
  if (!filter.headingPrefix && !filter.sections && !filter.metadata) return undefined;
  const passes = compileFilter({
    ...(filter.headingPrefix && { headingPrefix: filter.headingPrefix }),
    ...(filter.sections && { sections: filter.sections }),
    ...(filter.metadata && { metadata: filter.metadata }),
  });
  const metadataOf = new Map<string, Record<string, unknown>>();
  return (row) => {
    let metadata = metadataOf.get(row.doc_id);
    if (!metadata) metadataOf.set(row.doc_id, (metadata = JSON.parse(row.doc_metadata) as Record<string, unknown>));
    const block = { docId: row.doc_id, headingPath: JSON.parse(row.heading_path) as string[], pageStart: row.page_start, pageEnd: row.page_end, start: row.start, end: row.end };
    return passes(block, { format: '', paths: [], metadata });
  };
}

function hasFilter(filter: VectorFilter): boolean {
  return Object.values(filter).some((v) => v !== undefined);
}

/**
 * A filter's blocks with their vectors, joined from the documents (CROSS JOIN fixes the order: the
 * planner otherwise walks every vector of the slot and filters after, 100x slower for one document).
 */
const FILTERED_BLOCKS = 'documents d CROSS JOIN blocks b ON b.doc_id = d.id CROSS JOIN block_vectors bv ON bv.block_rowid = b.rowid AND bv.slot = @slot';
const whereOf = (conditions: Conditions) => (conditions.sql.length === 0 ? '' : `WHERE ${conditions.sql.join(' AND ')}`);

function groupByVector(rows: Row[]): Map<number, Row[]> {
  const out = new Map<number, Row[]>();
  for (const row of rows) {
    const list = out.get(row.vector_id);
    if (list) list.push(row);
    else out.set(row.vector_id, [row]);
  }
  return out;
}

/** Ranked vectors to their blocks (a vector shared by identical texts gives each of them), first k. */
function expand(ranked: { id: number; distance: number }[], byVector: Map<number, Row[]>, k: number): ScoredRow[] {
  const out: ScoredRow[] = [];
  for (const { id, distance } of ranked) {
    for (const row of byVector.get(id) ?? []) {
      out.push({ row, score: 1 - distance });
      if (out.length >= k) return out;
    }
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
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

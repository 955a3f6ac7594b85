import type Database from 'better-sqlite3';

/**
 * The approximate index behind `quantization` int8 / binary in a SQLite library: an inverted file
 * (IVF). sqlite-vec 0.1.9 only scans, and its scan is far too slow at a million vectors (its own
 * bit KNN takes ~70 ms at k = 10 and grows with k), so the vectors are partitioned instead:
 *
 * - `vec_i<slot>` (one row): the partition's version, the vector count it was trained at, the
 *   current count, and the mean vector (binary codes are signs around it);
 * - `vec_c<slot>`: `lists` centroids (spherical k-means on a sample of SAMPLE_PER_LIST float vectors
 *   per list, unit length; the `grp` column is unused since layout 2);
 * - `vec_l<slot>` (list, id, code): every vector of the model under its nearest centroid (exactly
 *   the nearest: a projection bounds which centroids can be, see `nearestCentroid`), with its
 *   quantized code (int8: the vector scaled to the int8 range; binary: the signs of vector - mean);
 * - `vec_r<slot>` (id, emb): a copy of the float vectors in a plain table, for the exact rescoring
 *   (a point read from sqlite-vec's vec0 costs about half a millisecond, one from a table a few
 *   microseconds): the file grows by 4 x dimensions bytes per vector while quantized.
 *
 * A query compares itself with every centroid, probes the best `probesFor(lists)` lists (a share of
 * them, PROBE_SHARE, at least MIN_PROBES: a fixed count would be a shrinking share as the library
 * grows; more while they hold fewer than the candidates wanted), ranks their codes in SQL
 * (sqlite-vec's scalar distance functions, in C), and the caller rescores the best candidates
 * exactly from the float vectors. The probe settings are read at query time (IVF_SEARCH), so a
 * trained partition can be measured with others.
 * Writes keep it in step in the same transaction as the vectors: `put` assigns new vectors, prune
 * deletes their rows, and once the model has grown to RETRAIN_GROWTH times the count it was trained
 * at, the next write trains it again (amortised: each vector is re-assigned O(1) times).
 */

export type Coded = 'int8' | 'binary';

/**
 * Lists probed per query: `probeShare` of the lists, at least `minProbes` (more while the probed
 * lists hold fewer candidates than wanted). Mutable for the benchmark's sweeps; chosen by
 * measurement (bench/vectors.ts, docs/retrieval.md).
 */
export const IVF_SEARCH = { minProbes: 16, probeShare: 0.05 };
/** The lists a query probes first, of `lists`. */
export function probesFor(lists: number): number {
  return Math.min(lists, Math.max(IVF_SEARCH.minProbes, Math.ceil(IVF_SEARCH.probeShare * lists)));
}
/**
 * The layout and training of the partition: a benchmark's cached trained library is stale when this
 * changes (2: exact assignment, SAMPLE_PER_LIST 32).
 */
export const IVF_LAYOUT = 2;
/** Training sample per list (k-means iterations: KMEANS_ITERATIONS). */
const SAMPLE_PER_LIST = 32;
const KMEANS_ITERATIONS = 6;
const MAX_LISTS = 4096;
/** The next write trains again once the model has this many times the vectors it was trained at. */
export const RETRAIN_GROWTH = 4;

export interface IvfState {
  version: number;
  lists: number;
  dims: number;
  trained: number;
  count: number;
  mean: Float32Array;
  /** lists x dims, unit rows. */
  centroids: Float32Array;
  /** The centroids prepared for exact assignment. */
  index: CentroidIndex;
}

export const ivfTables = (slot: number) => ({ info: `vec_i${slot}`, centroids: `vec_c${slot}`, lists: `vec_l${slot}`, floats: `vec_r${slot}` });

export function ivfExists(db: Database.Database, slot: number): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(ivfTables(slot).info) !== undefined;
}

export function dropIvf(db: Database.Database, slot: number): void {
  const t = ivfTables(slot);
  db.exec(`DROP TABLE IF EXISTS ${t.lists}; DROP TABLE IF EXISTS ${t.centroids}; DROP TABLE IF EXISTS ${t.floats}; DROP TABLE IF EXISTS ${t.info}`);
}

/** The number of lists for n vectors: about sqrt(n), so a list and the centroid comparison cost alike. */
export function listsFor(n: number): number {
  return Math.max(1, Math.min(MAX_LISTS, Math.round(Math.sqrt(n))));
}

const floats = (bytes: Buffer) => new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
const bytesOf = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

export function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, n: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[ao + i]! * b[bo + i]!;
    s1 += a[ao + i + 1]! * b[bo + i + 1]!;
    s2 += a[ao + i + 2]! * b[bo + i + 2]!;
    s3 += a[ao + i + 3]! * b[bo + i + 3]!;
  }
  for (; i < n; i++) s0 += a[ao + i]! * b[bo + i]!;
  return s0 + s1 + s2 + s3;
}

function normalise(v: Float32Array, offset: number, n: number): void {
  let s = 0;
  for (let i = 0; i < n; i++) s += v[offset + i]! * v[offset + i]!;
  const norm = Math.sqrt(s);
  if (norm > 0) for (let i = 0; i < n; i++) v[offset + i] = v[offset + i]! / norm;
}

/** Unit copy (zero stays zero). */
function unitCopy(v: Float32Array): Float32Array {
  const out = Float32Array.from(v);
  normalise(out, 0, out.length);
  return out;
}

/** k-means (spherical: unit centres, cosine) of `points` (count x dims, flat) into k centres, assigning exactly (`nearestCentroid`). */
export function kmeans(points: Float32Array, count: number, dims: number, k: number, iterations: number): Float32Array {
  return kmeansWith(points, count, dims, k, iterations, (centres) => {
    const index = centroidIndex(centres, k, dims);
    return (p) => nearestCentroid(index, points, p * dims);
  });
}

function kmeansWith(points: Float32Array, count: number, dims: number, k: number, iterations: number, assigner: (centres: Float32Array) => (p: number) => number): Float32Array {
  const centres = new Float32Array(k * dims);
  // Spread initial centres over the sample (it is already a stride over the vectors).
  for (let c = 0; c < k; c++) centres.set(points.subarray(Math.floor((c * count) / k) * dims, (Math.floor((c * count) / k) + 1) * dims), c * dims);
  const assignment = new Int32Array(count);
  for (let it = 0; it < iterations; it++) {
    const nearestOf = assigner(centres);
    for (let p = 0; p < count; p++) assignment[p] = nearestOf(p);
    const sums = new Float32Array(k * dims);
    const sizes = new Int32Array(k);
    for (let p = 0; p < count; p++) {
      const c = assignment[p]!;
      sizes[c]!++;
      for (let i = 0; i < dims; i++) sums[c * dims + i]! += points[p * dims + i]!;
    }
    for (let c = 0; c < k; c++) {
      if (sizes[c] === 0) continue; // keep the old centre
      normalise(sums, c * dims, dims);
      centres.set(sums.subarray(c * dims, (c + 1) * dims), c * dims);
    }
  }
  return centres;
}

function nearest(v: Float32Array, vo: number, centres: Float32Array, k: number, dims: number): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c < k; c++) {
    const s = dot(v, vo, centres, c * dims, dims);
    if (s > bestScore) {
      bestScore = s;
      best = c;
    }
  }
  return best;
}

/**
 * Unit centroids prepared for `nearestCentroid`: an orthonormal basis of (most of) their span,
 * PROJECTION_DIMS vectors by pivoted Gram-Schmidt (the centroid with the largest residual next),
 * each centroid's coordinates in it, and the norm of what the basis misses of each centroid.
 */
export interface CentroidIndex {
  lists: number;
  dims: number;
  centroids: Float32Array;
  basisSize: number;
  /** basisSize x dims, orthonormal rows. */
  basis: Float32Array;
  /** lists x basisSize. */
  projected: Float32Array;
  residual: Float64Array;
}

/** Basis vectors of the projection that bounds the centroid search. */
const PROJECTION_DIMS = 32;

export function centroidIndex(centroids: Float32Array, lists: number, dims: number): CentroidIndex {
  const m = Math.min(PROJECTION_DIMS, lists, dims);
  const basis = new Float32Array(m * dims);
  const rest = Float64Array.from(centroids.subarray(0, lists * dims));
  const norm2 = new Float64Array(lists);
  for (let c = 0; c < lists; c++) for (let i = 0; i < dims; i++) norm2[c]! += rest[c * dims + i]! ** 2;
  let size = 0;
  for (; size < m; size++) {
    let pivot = 0;
    for (let c = 1; c < lists; c++) if (norm2[c]! > norm2[pivot]!) pivot = c;
    const length = Math.sqrt(norm2[pivot]!);
    if (length < 1e-6) break;
    for (let i = 0; i < dims; i++) basis[size * dims + i] = rest[pivot * dims + i]! / length;
    for (let c = 0; c < lists; c++) {
      let s = 0;
      for (let i = 0; i < dims; i++) s += rest[c * dims + i]! * basis[size * dims + i]!;
      let n = 0;
      for (let i = 0; i < dims; i++) {
        rest[c * dims + i]! -= s * basis[size * dims + i]!;
        n += rest[c * dims + i]! ** 2;
      }
      norm2[c] = n;
    }
  }
  const projected = new Float32Array(lists * size);
  const residual = new Float64Array(lists);
  for (let c = 0; c < lists; c++) {
    let inside = 0;
    for (let j = 0; j < size; j++) {
      const s = dot(centroids, c * dims, basis, j * dims, dims);
      projected[c * size + j] = s;
      inside += s * s;
    }
    let total = 0;
    for (let i = 0; i < dims; i++) total += centroids[c * dims + i]! ** 2;
    residual[c] = Math.sqrt(Math.max(0, total - inside));
  }
  return { lists, dims, centroids, basisSize: size, basis: basis.subarray(0, size * dims), projected, residual };
}

/**
 * The exactly nearest centroid of the unit vector at `v[vo..]` (the highest dot product; the lower
 * list on a tie), without comparing it with most centroids in full: with P the projection on the
 * basis and R what it misses, v.c = Pv.Pc + Rv.Rc <= Pv.Pc + |Rv| |Rc| (Cauchy-Schwarz), so a
 * centroid whose bound is below the best dot product found cannot be the nearest. Only the
 * centroids the bound cannot rule out are compared in full (a few, on embedding-like vectors).
 */
export function nearestCentroid(index: CentroidIndex, v: Float32Array, vo = 0): number {
  const { dims, lists, centroids, basisSize: m, basis, projected, residual } = index;
  if (m === 0) return 0;
  const pv = new Float64Array(m);
  let inside = 0;
  for (let j = 0; j < m; j++) {
    pv[j] = dot(v, vo, basis, j * dims, dims);
    inside += pv[j]! * pv[j]!;
  }
  let total = 0;
  for (let i = 0; i < dims; i++) total += v[vo + i]! * v[vo + i]!;
  const rv = Math.sqrt(Math.max(0, total - inside));
  const bounds = new Float64Array(lists);
  let top = 0;
  for (let c = 0; c < lists; c++) {
    let s = 0;
    const o = c * m;
    for (let j = 0; j < m; j++) s += pv[j]! * projected[o + j]!;
    bounds[c] = s + rv * residual[c]!;
    if (bounds[c]! > bounds[top]!) top = c;
  }
  let best = top;
  let bestScore = dot(v, vo, centroids, top * dims, dims);
  // Rounding (float32 centroids, float64 bounds): rule out only what is worse by more than this.
  const slack = 1e-4;
  for (let c = 0; c < lists; c++) {
    if (c === top || bounds[c]! < bestScore - slack) continue;
    const s = dot(v, vo, centroids, c * dims, dims);
    if (s > bestScore || (s === bestScore && c < best)) {
      bestScore = s;
      best = c;
    }
  }
  return best;
}

/** The list a unit vector belongs to: its nearest centroid. */
export function assign(state: IvfState, v: Float32Array): number {
  return nearestCentroid(state.index, v, 0);
}

/** The lists in order of their centroid's similarity to the query (unit). */
export function probeOrder(state: IvfState, query: Float32Array): number[] {
  const scores = new Float64Array(state.lists);
  for (let c = 0; c < state.lists; c++) scores[c] = dot(query, 0, state.centroids, c * state.dims, state.dims);
  return Array.from({ length: state.lists }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/** The code stored for a vector (and compared with the query's, in SQL). */
export function codeOf(quantization: Coded, v: Float32Array, mean: Float32Array): Buffer {
  if (quantization === 'binary') {
    const out = Buffer.alloc(Math.ceil(v.length / 8));
    // sqlite-vec's bit order: element i is bit (i % 8) of byte i / 8, least significant first.
    for (let i = 0; i < v.length; i++) if (v[i]! - mean[i]! > 0) out[i >> 3]! |= 1 << (i & 7);
    return out;
  }
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const out = Buffer.alloc(v.length);
  // Scaled per vector to the full int8 range: cosine does not see the scale, only the resolution.
  const scale = max === 0 ? 0 : 127 / max;
  for (let i = 0; i < v.length; i++) out.writeInt8(Math.round(v[i]! * scale), i);
  return out;
}

/** SQL ranking a list's codes against the query's code (`?`), smaller is nearer. */
export function codeDistance(quantization: Coded): string {
  return quantization === 'binary' ? 'vec_distance_hamming(vec_bit(code), vec_bit(?))' : 'vec_distance_cosine(vec_int8(code), vec_int8(?))';
}

/** Reads the partition (undefined when the slot has none). */
export function loadIvf(db: Database.Database, slot: number, dims: number): IvfState | undefined {
  if (!ivfExists(db, slot)) return undefined;
  const t = ivfTables(slot);
  const info = db.prepare(`SELECT version, trained, count, lists, mean FROM ${t.info}`).get() as { version: number; trained: number; count: number; lists: number; mean: Buffer } | undefined;
  if (!info) return undefined;
  const centroids = new Float32Array(info.lists * dims);
  for (const row of db.prepare(`SELECT list, centroid FROM ${t.centroids} ORDER BY list`).all() as { list: number; centroid: Buffer }[]) {
    if (row.list < 0 || row.list >= info.lists) continue;
    centroids.set(floats(row.centroid), row.list * dims);
  }
  return { version: info.version, lists: info.lists, dims, trained: info.trained, count: info.count, mean: floats(info.mean), centroids, index: centroidIndex(centroids, info.lists, dims) };
}

/** The partition's version (changes whenever it is trained), to know when a cached copy is stale. */
export function ivfVersion(db: Database.Database, slot: number): number | undefined {
  return db.prepare(`SELECT version FROM ${ivfTables(slot).info}`).pluck().get() as number | undefined;
}

/**
 * Every float vector of the slot, chunk by chunk from vec0's own tables (sqlite-vec 0.1.9:
 * `vec_f<slot>_chunks` holds each chunk's validity bitmap and rowids, `..._vector_chunks00` its
 * vectors): a sequential read, where a read through the virtual table costs ~0.5 ms per vector.
 * Each chunk is one finished statement, so the caller may write between them.
 */
function* floatVectors(db: Database.Database, slot: number, dims: number): Generator<[number, Float32Array]> {
  const shadow = db.prepare("SELECT count(*) FROM sqlite_master WHERE name IN (?, ?)").pluck().get(`vec_f${slot}_chunks`, `vec_f${slot}_vector_chunks00`) === 2;
  if (!shadow) {
    const page = db.prepare('SELECT id FROM vectors WHERE slot = ? AND id > ? ORDER BY id LIMIT 1024').pluck();
    const read = db.prepare(`SELECT emb FROM vec_f${slot} WHERE rowid = ?`).pluck();
    for (let last = -1; ; ) {
      const ids = page.all(slot, last) as number[];
      if (ids.length === 0) return;
      for (const id of ids) {
        const emb = read.get(BigInt(id)) as Buffer | undefined;
        if (emb !== undefined) yield [id, floats(emb)];
      }
      last = ids[ids.length - 1]!;
    }
  }
  const next = db.prepare(`SELECT c.chunk_id AS chunk, c.validity, c.rowids, v.vectors FROM vec_f${slot}_chunks c JOIN vec_f${slot}_vector_chunks00 v ON v.rowid = c.chunk_id WHERE c.chunk_id > ? ORDER BY c.chunk_id LIMIT 1`);
  for (let last = -1; ; ) {
    const row = next.get(last) as { chunk: number; validity: Buffer; rowids: Buffer; vectors: Buffer } | undefined;
    if (!row) return;
    const size = row.rowids.length / 8;
    const all = floats(row.vectors);
    for (let i = 0; i < size; i++) {
      if ((row.validity[i >> 3]! & (1 << (i & 7))) === 0) continue;
      yield [Number(row.rowids.readBigInt64LE(i * 8)), all.subarray(i * dims, (i + 1) * dims)];
    }
    last = row.chunk;
  }
}

/**
 * Trains the partition on the slot's float vectors (`vec_f<slot>`) and assigns every vector (the
 * caller holds the write transaction). Replaces any earlier partition.
 */
export function trainIvf(db: Database.Database, slot: number, dims: number, quantization: Coded): IvfState {
  const t = ivfTables(slot);
  dropIvf(db, slot);
  const count = db.prepare('SELECT count(*) FROM vectors WHERE slot = ?').pluck().get(slot) as number;
  const lists = Math.min(listsFor(count), Math.max(1, count));
  const sampleSize = Math.min(count, lists * SAMPLE_PER_LIST);
  const stride = sampleSize === 0 ? 1 : count / sampleSize;
  const sample = new Float32Array(sampleSize * dims);
  const mean = new Float64Array(dims);
  let taken = 0;
  let seen = 0;
  for (const [, vector] of floatVectors(db, slot, dims)) {
    const v = unitCopy(vector);
    for (let i = 0; i < dims; i++) mean[i]! += v[i]!;
    if (taken < sampleSize && seen >= Math.floor(taken * stride)) sample.set(v, taken++ * dims);
    seen++;
  }
  const meanVector = Float32Array.from(mean, (x) => (seen === 0 ? 0 : x / seen));
  const centroids = taken === 0 ? new Float32Array(dims) : kmeans(sample, taken, dims, Math.max(1, Math.min(lists, taken)), KMEANS_ITERATIONS);
  const realLists = Math.max(1, Math.min(lists, taken));
  const version = Math.floor(Math.random() * 2 ** 31);

  db.exec(`CREATE TABLE ${t.info} (version INTEGER NOT NULL, trained INTEGER NOT NULL, count INTEGER NOT NULL, lists INTEGER NOT NULL, quantization TEXT NOT NULL, mean BLOB NOT NULL);
    CREATE TABLE ${t.centroids} (list INTEGER PRIMARY KEY, grp INTEGER NOT NULL, centroid BLOB NOT NULL);
    CREATE TABLE ${t.lists} (list INTEGER NOT NULL, id INTEGER NOT NULL, code BLOB NOT NULL, PRIMARY KEY (list, id)) WITHOUT ROWID;
    CREATE TABLE ${t.floats} (id INTEGER PRIMARY KEY, emb BLOB NOT NULL);`);
  db.prepare(`INSERT INTO ${t.info} VALUES (?, ?, ?, ?, ?, ?)`).run(version, seen, seen, realLists, quantization, bytesOf(meanVector));
  const insertCentroid = db.prepare(`INSERT INTO ${t.centroids} VALUES (?, ?, ?)`);
  for (let c = 0; c < realLists; c++) insertCentroid.run(c, 0, bytesOf(centroids.slice(c * dims, (c + 1) * dims)));
  const state: IvfState = { version, lists: realLists, dims, trained: seen, count: seen, mean: meanVector, centroids: centroids.slice(0, realLists * dims), index: centroidIndex(centroids.slice(0, realLists * dims), realLists, dims) };
  const insert = db.prepare(`INSERT INTO ${t.lists} (list, id, code) VALUES (?, ?, ?)`);
  const insertFloat = db.prepare(`INSERT INTO ${t.floats} (id, emb) VALUES (?, ?)`);
  for (const [id, vector] of floatVectors(db, slot, dims)) {
    const v = unitCopy(vector);
    insert.run(assign(state, v), id, codeOf(quantization, v, meanVector));
    insertFloat.run(id, bytesOf(vector));
  }
  // Deletes find a vector's row by its id.
  db.exec(`CREATE INDEX ${t.lists}_id ON ${t.lists}(id)`);
  return state;
}

/** Adds new vectors to the partition (the caller holds the transaction). */
export function addToIvf(db: Database.Database, slot: number, state: IvfState, quantization: Coded, entries: readonly { id: number | bigint; vector: Float32Array }[]): void {
  if (entries.length === 0) return;
  const t = ivfTables(slot);
  const insert = db.prepare(`INSERT INTO ${t.lists} (list, id, code) VALUES (?, ?, ?) ON CONFLICT (list, id) DO UPDATE SET code = excluded.code`);
  const insertFloat = db.prepare(`INSERT INTO ${t.floats} (id, emb) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET emb = excluded.emb`);
  for (const { id, vector } of entries) {
    const v = unitCopy(vector);
    insert.run(assign(state, v), id, codeOf(quantization, v, state.mean));
    insertFloat.run(id, bytesOf(vector));
  }
  db.prepare(`UPDATE ${t.info} SET count = count + ?`).run(entries.length);
  state.count += entries.length;
}

/** Removes vectors from the partition (the caller holds the transaction). */
export function removeFromIvf(db: Database.Database, slot: number, ids: readonly number[]): void {
  if (ids.length === 0) return;
  const t = ivfTables(slot);
  const remove = db.prepare(`DELETE FROM ${t.lists} WHERE id = ?`);
  const removeFloat = db.prepare(`DELETE FROM ${t.floats} WHERE id = ?`);
  let removed = 0;
  for (const id of ids) {
    removed += remove.run(id).changes;
    removeFloat.run(id);
  }
  db.prepare(`UPDATE ${t.info} SET count = max(0, count - ?)`).run(removed);
}

/** The `n` nearest candidates by code distance, from the best lists (probing more until n or all). */
export function ivfCandidates(db: Database.Database, slot: number, state: IvfState, quantization: Coded, query: Float32Array, n: number, statement: (sql: string) => Database.Statement): { id: number; distance: number }[] {
  const q = unitCopy(query);
  const order = probeOrder(state, q);
  const code = codeOf(quantization, q, state.mean);
  const sql = `SELECT id, ${codeDistance(quantization)} AS distance FROM ${ivfTables(slot).lists} WHERE list IN (SELECT value FROM json_each(?)) ORDER BY distance, id LIMIT ?`;
  for (let probes = Math.min(probesFor(state.lists), order.length); ; probes = Math.min(order.length, probes * 2)) {
    const rows = statement(sql).all(code, JSON.stringify(order.slice(0, probes)), n) as { id: number; distance: number }[];
    if (rows.length >= n || probes >= order.length) return rows;
  }
}

/** Exact cosine distances of these vectors to the query (from the float copy), best first. */
export function ivfRescore(slot: number, query: Float32Array, ids: readonly number[], statement: (sql: string) => Database.Statement): { id: number; distance: number }[] {
  if (ids.length === 0) return [];
  const rows = statement(`SELECT id, vec_distance_cosine(emb, ?) AS distance FROM ${ivfTables(slot).floats} WHERE id IN (SELECT value FROM json_each(?))`).all(bytesOf(query), JSON.stringify(ids)) as { id: number; distance: number }[];
  return rows.sort((a, b) => a.distance - b.distance || a.id - b.id);
}

/** The exact k nearest of these vectors (from the float copy, in C): a small filter's search. */
export function ivfExact(slot: number, query: Float32Array, ids: readonly number[], k: number, statement: (sql: string) => Database.Statement): { id: number; distance: number }[] {
  if (ids.length === 0) return [];
  return statement(`SELECT id, vec_distance_cosine(emb, ?) AS distance FROM ${ivfTables(slot).floats} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY distance, id LIMIT ?`).all(bytesOf(query), JSON.stringify(ids), k) as { id: number; distance: number }[];
}

/** For `groundwork check`: vectors of the slot without their row in the partition (or float copy), and rows without a vector. */
export function ivfMismatch(db: Database.Database, slot: number): { missing: number; extra: number; count: number; recorded: number; lists: number; badLists: number } {
  const t = ivfTables(slot);
  const one = (sql: string, ...params: unknown[]) => db.prepare(sql).pluck().get(...params) as number;
  const lists = one(`SELECT lists FROM ${t.info}`);
  return {
    missing: one(`SELECT count(*) FROM vectors v WHERE v.slot = ? AND (NOT EXISTS (SELECT 1 FROM ${t.lists} l WHERE l.id = v.id) OR NOT EXISTS (SELECT 1 FROM ${t.floats} f WHERE f.id = v.id))`, slot),
    extra: one(`SELECT count(*) FROM ${t.lists} l WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.id = l.id AND v.slot = ?)`, slot) +
      one(`SELECT count(*) FROM ${t.floats} f WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.id = f.id AND v.slot = ?)`, slot),
    count: one(`SELECT count(*) FROM ${t.lists}`),
    recorded: one(`SELECT count FROM ${t.info}`),
    lists,
    badLists: one(`SELECT count(*) FROM ${t.lists} l WHERE l.list < 0 OR l.list >= ? OR NOT EXISTS (SELECT 1 FROM ${t.centroids} c WHERE c.list = l.list)`, lists),
  };
}

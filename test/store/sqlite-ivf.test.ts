import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { resolveCheckOptions } from '../../src/store/check.js';
import { ivfTables, listsFor, loadIvf, nearestCentroid, probesFor, RETRAIN_GROWTH } from '../../src/store/sqlite/sqlite-ivf.js';
import { exactFilterLimit } from '../../src/store/sqlite/sqlite-vectors.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { VectorFilter, VectorQuantization, VectorSpace } from '../../src/store/types.js';
import { rng, StructuredVectors } from '../fixtures/structured-vectors.js';
import { contractWrite } from './contract.js';
import { libraryFile } from './fixtures.js';

/**
 * The inverted file behind int8 / binary quantization in SQLite (src/store/sqlite/sqlite-ivf.ts), on
 * structured vectors (test/fixtures/structured-vectors.ts, the generator bench/vectors.ts uses):
 * recall against exact, filters before ranking, consistency with writes, and `check`.
 */

const DIMS = 96;
const LATENT = 12;
const PER_DOC = 250;
const DOCS = 12; // 3000 vectors: listsFor(3000) = 55 lists, so probing probesFor(55) of them matters
const space: VectorSpace = { model: 'test:structured:96', dimensions: DIMS };

/** The benchmark's generator (bench/vectors.ts), at 96 dimensions. */
const generator = (seed: number, clusters: number) => new StructuredVectors({ dims: DIMS, latent: LATENT, clusters, seed });

const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

async function structuredLibrary(): Promise<{ file: string; store: SqliteStore; vectors: Map<string, Float32Array>; point: (r: () => number) => Float32Array }> {
  const file = libraryFile();
  const store = new SqliteStore(file);
  const vectorsOf = generator(3, 12);
  const point = (r: () => number) => vectorsOf.point(r);
  const random = rng(5);
  const vectors = new Map<string, Float32Array>();
  for (let d = 0; d < DOCS; d++) {
    const write = contractWrite(`d${d}`, Array.from({ length: PER_DOC }, (_, i) => `doc ${d} block ${i}`), { format: d % 3 === 0 ? 'pdf' : 'markdown', path: `/lib/${d % 3 === 0 ? 'pdf' : 'md'}/d${d}` });
    await store.writeDocument(write);
    const entries = write.blocks.map((b) => ({ blockId: b.id, hash: b.id, vector: point(random) }));
    for (const e of entries) vectors.set(e.blockId, e.vector);
    await store.putVectors(space, entries);
  }
  return { file, store, vectors, point };
}

/** The exact top k block ids (brute force, in the test) among the blocks `keep` passes. */
function exactTop(vectors: Map<string, Float32Array>, query: Float32Array, k: number, keep: (id: string) => boolean = () => true): string[] {
  return [...vectors].filter(([id]) => keep(id)).map(([id, v]) => ({ id, s: cosine(query, v) })).sort((a, b) => b.s - a.s).slice(0, k).map((x) => x.id);
}

describe('the SQLite vector index (inverted file) on structured vectors', () => {
  test('int8 and binary: recall@10 against exact >= 0.95, scores exact, lists probed not scanned', async () => {
    const { file, store, vectors, point } = await structuredLibrary();
    const random = rng(77);
    const queries = Array.from({ length: 40 }, () => point(random));
    const expected = queries.map((q) => exactTop(vectors, q, 10));
    // The store's exact search agrees with brute force.
    const exact = await Promise.all(queries.map((q) => store.vectorCandidates(space, q, 10)));
    expect(exact.map((r) => r.map((c) => c.block.id))).toEqual(expected);
    for (const quantization of ['int8', 'binary'] as VectorQuantization[]) {
      await store.setQuantization(space, quantization);
      let hits = 0;
      for (const [i, q] of queries.entries()) {
        const got = await store.vectorCandidates(space, q, 10);
        expect(got).toHaveLength(10);
        hits += got.filter((c) => expected[i]!.includes(c.block.id)).length;
        // Rescored from the floats: each score is the exact cosine similarity, best first.
        for (const c of got) expect(c.score).toBeCloseTo(cosine(q, vectors.get(c.block.id)!), 5);
        for (let j = 1; j < got.length; j++) expect(got[j - 1]!.score).toBeGreaterThanOrEqual(got[j]!.score);
      }
      expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    }
    await store.close();
    // The partition: listsFor(3000) lists, every vector once, more lists than a query probes.
    const db = new Database(file, { readonly: true });
    const t = ivfTables(1);
    expect(db.prepare(`SELECT lists FROM ${t.info}`).pluck().get()).toBe(listsFor(DOCS * PER_DOC));
    expect(listsFor(DOCS * PER_DOC)).toBeGreaterThan(2 * probesFor(listsFor(DOCS * PER_DOC)));
    expect(db.prepare(`SELECT count(*), count(DISTINCT id) FROM ${t.lists}`).raw().get()).toEqual([DOCS * PER_DOC, DOCS * PER_DOC]);
    // Exact assignment: every vector is in the list of its nearest centroid (brute force here).
    const state = loadIvf(db, 1, DIMS)!;
    const idOf = new Map((db.prepare('SELECT b.id AS block, bv.vector_id AS id FROM block_vectors bv JOIN blocks b ON b.rowid = bv.block_rowid').all() as { block: string; id: number }[]).map((r) => [r.id, r.block]));
    const rows = db.prepare(`SELECT list, id FROM ${t.lists}`).all() as { list: number; id: number }[];
    expect(rows).toHaveLength(DOCS * PER_DOC);
    for (const { list, id } of rows) {
      const v = vectors.get(idOf.get(id)!)!;
      let best = 0;
      for (let c = 1; c < state.lists; c++) if (cosine(v, state.centroids.subarray(c * DIMS, (c + 1) * DIMS)) > cosine(v, state.centroids.subarray(best * DIMS, (best + 1) * DIMS))) best = c;
      expect(list).toBe(best);
      expect(nearestCentroid(state.index, v)).toBe(best);
    }
    db.close();
  });

  test('filters apply before ranking on the quantized index: k results of the filter, exactly the exact top k for a small filter', async () => {
    const { file, store, vectors, point } = await structuredLibrary();
    await store.setQuantization(space, 'binary');
    const db = new Database(file, { readonly: true });
    const limit = exactFilterLimit(loadIvf(db, 1, DIMS)!);
    db.close();
    const random = rng(8);
    const docOf = (id: string) => Number(/^d(\d+)-/.exec(id)![1]);
    const filters: [VectorFilter, (id: string) => boolean][] = [
      [{ docId: 'doc-d4' }, (id) => docOf(id) === 4],
      [{ docId: ['doc-d4', 'doc-d7'] }, (id) => docOf(id) === 4 || docOf(id) === 7],
      [{ path: '/lib/md/d1' }, (id) => docOf(id) === 1],
      [{ format: 'pdf' }, (id) => docOf(id) % 3 === 0],
      [{ path: '/lib/md/**' }, (id) => docOf(id) % 3 !== 0],
      [{ docId: ['doc-d1', 'doc-d2'], pageFrom: 1, pageTo: 3 }, () => false], // contractWrite blocks have no pages
    ];
    let small = 0;
    for (const [filter, keep] of filters) {
      const matching = [...vectors.keys()].filter(keep);
      // The small filters are ranked exactly; the large ones (a third and two thirds) are not.
      if (matching.length <= limit) small++;
      let hits = 0;
      let wanted = 0;
      for (let i = 0; i < 5; i++) {
        const q = point(random);
        for (const k of [1, 10, 40]) {
          const got = (await store.vectorCandidates(space, q, k, filter)).map((c) => c.block.id);
          expect(got).toHaveLength(Math.min(k, matching.length));
          for (const id of got) expect(keep(id)).toBe(true);
          const exact = exactTop(vectors, q, k, keep);
          if (matching.length <= limit) expect(got).toEqual(exact);
          hits += got.filter((id) => exact.includes(id)).length;
          wanted += exact.length;
        }
      }
      if (wanted > 0) expect(hits / wanted).toBeGreaterThanOrEqual(0.9);
    }
    expect(small).toBe(4);
    await store.close();
  });

  test('writes keep the index in step: new vectors are found, removed ones are gone, growth re-trains, check agrees', async () => {
    const file = libraryFile();
    const store = new SqliteStore(file);
    const vectorsOf = generator(9, 6);
    const point = (r: () => number) => vectorsOf.point(r);
    const random = rng(10);
    const add = async (name: string, n: number) => {
      const write = contractWrite(name, Array.from({ length: n }, (_, i) => `${name} ${i}`));
      await store.writeDocument(write);
      const entries = write.blocks.map((b) => ({ blockId: b.id, hash: b.id, vector: point(random) }));
      await store.putVectors(space, entries);
      return entries;
    };
    await add('first', 100);
    await store.setQuantization(space, 'int8');
    const versionOf = () => {
      const db = new Database(file, { readonly: true });
      const row = db.prepare(`SELECT version, trained, count FROM ${ivfTables(1).info}`).get() as { version: number; trained: number; count: number };
      db.close();
      return row;
    };
    const trained = versionOf();
    expect(trained).toMatchObject({ trained: 100, count: 100 });
    // Added after training: assigned to a list in the same write, and found.
    const more = await add('second', 50);
    expect(versionOf()).toMatchObject({ version: trained.version, count: 150 });
    for (const e of more.slice(0, 10)) expect((await store.vectorCandidates(space, e.vector!, 1))[0]!.block.id).toBe(e.blockId);
    // Removed: the document goes, prune drops its vectors from the index too.
    await store.removeDocument('doc-second');
    expect(await store.pruneVectors(space)).toBe(50);
    expect(versionOf().count).toBe(100);
    for (const c of await store.vectorCandidates(space, more[0]!.vector!, 20)) expect(c.block.docId).toBe('doc-first');
    expect((await store.check(resolveCheckOptions({}))).found.filter((f) => f.check === 'vector-index')).toEqual([]);
    // Grown RETRAIN_GROWTH times past max(trained, 256): the write that gets there trains again.
    await add('big', RETRAIN_GROWTH * 256);
    const retrained = versionOf();
    expect(retrained.version).not.toBe(trained.version);
    expect(retrained.trained).toBe(100 + RETRAIN_GROWTH * 256);
    expect((await store.check(resolveCheckOptions({}))).found.filter((f) => f.check === 'vector-index')).toEqual([]);
    await store.close();
  });

  test('check finds an index out of step with the vectors and --repair rebuilds it', async () => {
    const { file, store, vectors } = await structuredLibrary();
    await store.setQuantization(space, 'binary');
    await store.close();
    const db = new Database(file);
    db.prepare(`DELETE FROM ${ivfTables(1).lists} WHERE id IN (SELECT id FROM ${ivfTables(1).lists} LIMIT 7)`).run();
    db.close();
    const reopened = new SqliteStore(file);
    const report = await reopened.check(resolveCheckOptions({}));
    const found = report.found.filter((f) => f.check === 'vector-index');
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('7 vector(s) missing');
    expect(report.ok).toBe(false);
    const repaired = await reopened.check(resolveCheckOptions({ repair: true }));
    expect(repaired.repairs.map((r) => r.check)).toContain('vector-index');
    expect(repaired.remaining.filter((f) => f.check === 'vector-index')).toEqual([]);
    // Searches after the repair see every vector again.
    const [id, v] = [...vectors][123]!;
    expect((await reopened.vectorCandidates(space, v, 1))[0]!.block.id).toBe(id);
    await reopened.close();
  });
});

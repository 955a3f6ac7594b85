/**
 * The vector benchmark: KNN in the library file (src/store/sqlite/sqlite-vectors.ts, sqlite-ivf.ts).
 *
 * Per library size (100k blocks x 384 dimensions by default; GW_BENCH_VECTOR_SIZES=100000,1000000
 * for 1M too, whose first build takes about 20 minutes here):
 * - KNN latency p50/p99 of `vectorCandidates(k = 10)`: exact (sqlite-vec's float32 scan), int8 and
 *   binary (the inverted file: probed lists ranked by their codes, the best candidates rescored
 *   exactly from the floats), with each quantized index's build time;
 * - recall@10 of each quantized index against exact;
 * - filtered KNN (one document of 1000 blocks; a format holding a quarter of the library; a path
 *   glob with a page range);
 * - hybrid latency of `Library.search(q, { mode: 'hybrid', k: 10 })`: BM25 + vector + RRF + clean-up
 *   (the query vector is precomputed: an endpoint's embedding time comes on top).
 *
 * Vectors are structured like embeddings (test/fixtures/structured-vectors.ts, shared with the
 * index's tests: seeded Gaussian clusters in a 48-dimensional subspace, a shared offset, noise,
 * unit length), and queries are drawn the same way: uniform random vectors have no neighbourhood
 * structure, every approximate index fails on them, and recall on them says nothing about real
 * libraries. Block texts are 20 words from a Zipf-like vocabulary, so BM25 has work to do.
 *
 * Cache: each library is built once, through the store interface, under GW_BENCH_CACHE (default
 * os.tmpdir()) as groundwork-bench-vectors-<version>-<n> (the version names the generator and its
 * seeds), and each quantized index once more as a copy of it, -<int8|binary>-ivf<IVF_LAYOUT>
 * (IVF_LAYOUT changes with the partition's training or assignment). Probing and rescoring are
 * query-time settings, so a cached index can be swept: GW_BENCH_PROBE_SHARES (shares of the lists
 * probed, e.g. "0.02,0.05,0.1"; default the store's), GW_BENCH_RESCORE_INT8 / _BINARY (candidates
 * rescored per result, e.g. "4,8"; default the store's). Every combination is a row of the KNN
 * table; filters and hybrid use the defaults.
 *
 * Environment: GW_BENCH_VECTOR_SIZES (default "100000"), GW_BENCH_VECTOR_QUERIES (default 100),
 * GW_BENCH_CACHE, GW_BENCH_PROBE_SHARES, GW_BENCH_RESCORE_INT8, GW_BENCH_RESCORE_BINARY, GW_BENCH_EXACT=knn.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Document } from '../src/document/types.js';
import type { Embedder } from '../src/embed/types.js';
import { Library } from '../src/library/library.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { IVF_LAYOUT, IVF_SEARCH, listsFor, probesFor, type Coded } from '../src/store/sqlite/sqlite-ivf.js';
import { RESCORE_FACTORS } from '../src/store/sqlite/sqlite-vectors.js';
import type { Block, VectorFilter, VectorQuantization, VectorSpace } from '../src/store/types.js';
import { rng, StructuredVectors } from '../test/fixtures/structured-vectors.js';
import { printTable } from './inputs.js';

const VERSION = 'v2';
const DIMS = 384;
const BLOCKS_PER_DOC = 1000;
const POINTS_PER_CLUSTER = 500;
/** The generator (test/fixtures/structured-vectors.ts): latent dimensions, spread of a cluster, shared offset, noise per dimension. */
const LATENT = 48;
const SPREAD = 0.8;
const OFFSET = 4;
const NOISE = 0.14;
/** The generator of a library of n blocks (seed 7: the basis, offset and centres; block vectors then draw from rng(11)). */
const clustersFor = (n: number) => new StructuredVectors({ dims: DIMS, latent: LATENT, clusters: Math.max(10, Math.round(n / POINTS_PER_CLUSTER)), seed: 7, spread: SPREAD, offset: OFFSET, noise: NOISE });
export const SPACE: VectorSpace = { model: 'bench:structured:384', dimensions: DIMS };
const SIZES = (process.env.GW_BENCH_VECTOR_SIZES ?? '100000').split(',').map(Number).filter((n) => n > 0);
const QUERIES = Number(process.env.GW_BENCH_VECTOR_QUERIES ?? 100);
const VOCAB = 30_000;
const K = 10;
const FILTER_QUERIES = 30;
const CACHE = process.env.GW_BENCH_CACHE ?? tmpdir();
/** GW_BENCH_EXACT=knn: the exact index only as recall's reference (no filtered or hybrid rows: at 1M each exact query is a scan of seconds). */
const EXACT_KNN_ONLY = process.env.GW_BENCH_EXACT === 'knn';
const numbers = (value: string | undefined) => value?.split(',').map(Number).filter((x) => x > 0);
const SHARES = numbers(process.env.GW_BENCH_PROBE_SHARES) ?? [IVF_SEARCH.probeShare];
const FACTORS: Record<Coded, number[]> = {
  int8: numbers(process.env.GW_BENCH_RESCORE_INT8) ?? [RESCORE_FACTORS.int8],
  binary: numbers(process.env.GW_BENCH_RESCORE_BINARY) ?? [RESCORE_FACTORS.binary],
};

export function words(random: () => number, n: number): string {
  const out: string[] = [];
  // Zipf-like: small ids far more often.
  for (let i = 0; i < n; i++) out.push(`w${Math.floor(VOCAB ** random())}`);
  return out.join(' ');
}

function documentOf(d: number, random: () => number): { document: Document; blocks: Block[] } {
  const id = `bench-doc-${d}`;
  const configHash = 'bench';
  const blocks: Block[] = [];
  let offset = 0;
  for (let i = 0; i < BLOCKS_PER_DOC; i++) {
    const text = words(random, 20);
    const page = 1 + Math.floor(i / 20);
    blocks.push({
      id: `${id}-${i}`, docId: id, ordinal: i, kind: 'text', text, headingPath: [`Chapter ${Math.floor(i / 100) + 1}`], pageStart: page, pageEnd: page, bboxes: null,
      start: offset, end: offset + text.length, chars: text.length, tokens: 20, table: null, speaker: null, time: null, strategy: 'structure', configHash,
    });
    offset += text.length + 2;
  }
  const format = d % 4 === 0 ? 'pdf' : 'markdown';
  const document = {
    id, source: { name: `${id}.${format === 'pdf' ? 'pdf' : 'md'}`, bytes: offset }, format, mime: format === 'pdf' ? 'application/pdf' : 'text/markdown',
    title: id, metadata: {}, elements: [], warnings: [], canonical: '',
  } as unknown as Document;
  return { document, blocks };
}

/** The cached library of `n` blocks with their vectors (built once). */
export async function ensureLibrary(n: number): Promise<{ dir: string; buildSeconds: number; clusters: StructuredVectors }> {
  const dir = join(CACHE, `groundwork-bench-vectors-${VERSION}-${n}`);
  const clusters = clustersFor(n);
  if (existsSync(join(dir, 'done'))) return { dir, buildSeconds: Number(readFileSync(join(dir, 'done'), 'utf8')), clusters };
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const t0 = performance.now();
  const store = new SqliteStore(join(building, 'library.sqlite'));
  const random = rng(11);
  for (let d = 0; d < n / BLOCKS_PER_DOC; d++) {
    const { document, blocks } = documentOf(d, random);
    await store.writeDocument({
      document, blocks, path: { path: `/bench/${d % 4 === 0 ? 'pdf' : 'md'}/${document.source.name}`, docId: document.id, size: 1, mtimeMs: 0 },
      strategy: 'structure', configHash: 'bench', original: null, parseCacheKey: null,
    });
    await store.putVectors(SPACE, blocks.map((b) => ({ blockId: b.id, hash: b.id, vector: clusters.point(random) })));
    if (d % 50 === 0) process.stdout.write(`\r  building ${n} blocks: ${(d + 1) * BLOCKS_PER_DOC}, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  await store.setSetting('vectors.model', SPACE.model);
  await store.close();
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write('\n');
  writeFileSync(join(building, 'done'), String(Math.round(seconds)));
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  return { dir, buildSeconds: seconds, clusters };
}

/** The cached library of `n` blocks with its quantized index trained (a copy of the plain one; built once per IVF_LAYOUT). */
export async function ensureQuantized(n: number, base: string, quantization: Coded): Promise<{ dir: string; indexSeconds: number }> {
  const dir = `${base}-${quantization}-ivf${IVF_LAYOUT}`;
  if (existsSync(join(dir, 'done'))) return { dir, indexSeconds: Number(readFileSync(join(dir, 'done'), 'utf8')) };
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  copyFileSync(join(base, 'library.sqlite'), join(building, 'library.sqlite'));
  process.stdout.write(`  training the ${quantization} index of ${n} blocks ...`);
  const library = await Library.open(building);
  const t0 = performance.now();
  await library.setSetting('quantization', quantization);
  const seconds = (performance.now() - t0) / 1000;
  await library.close();
  process.stdout.write(` ${seconds.toFixed(0)} s\n`);
  writeFileSync(join(building, 'done'), seconds.toFixed(1));
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  return { dir, indexSeconds: seconds };
}

const FILTERS: [string, VectorFilter][] = [['one document (1000 blocks)', { docId: 'bench-doc-3' }], ['format pdf (25%)', { format: 'pdf' }], ['path glob + pages', { path: '/bench/md/**', pageFrom: 3, pageTo: 9 }]];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed<T>(inputs: readonly T[], run: (x: T) => Promise<unknown>): Promise<{ p50: number; p99: number; results: unknown[] }> {
  for (const x of inputs.slice(0, 5)) await run(x);
  const times: number[] = [];
  const results: unknown[] = [];
  for (const x of inputs) {
    const t0 = performance.now();
    results.push(await run(x));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), results };
}

/** An embedder for the benchmark's queries: their precomputed vectors (no model here). */
function lookupEmbedder(vectors: Map<string, Float32Array>): Embedder {
  return {
    provider: 'bench', model: 'structured', dimensions: DIMS, maxInputTokens: Infinity, id: SPACE.model,
    countTokens: (t) => t.split(' ').length,
    embed: async (texts) => texts.map((t) => vectors.get(t) ?? new Float32Array(DIMS)),
    close: async () => undefined,
  };
}

const ms = (x: number) => x.toFixed(1);

export async function main(): Promise<void> {
  console.log(`Vectors: ${DIMS} dimensions, structured like embeddings (seeded Gaussian clusters of ~${POINTS_PER_CLUSTER} in a ${LATENT}-dimensional subspace, a shared offset, noise; unit length), queries drawn the same way; not uniform random vectors.`);
  const rows: (string | number)[][] = [];
  const filterRows: (string | number)[][] = [];
  const hybridRows: (string | number)[][] = [];
  for (const n of SIZES) {
    const { dir, buildSeconds, clusters } = await ensureLibrary(n);
    const random = rng(99);
    const queries = Array.from({ length: QUERIES }, (_, i) => ({ text: `${words(random, 3)} q${i}`, vector: clusters.point(random) }));
    const sizeMB = statSync(join(dir, 'library.sqlite')).size / 2 ** 20;
    const dirs: Record<VectorQuantization, string> = { none: dir, int8: dir, binary: dir };
    const exactIds: string[][] = [];
    for (const quantization of ['none', 'int8', 'binary'] as VectorQuantization[]) {
      const built = quantization === 'none' ? { dir, indexSeconds: 0 } : await ensureQuantized(n, dir, quantization);
      dirs[quantization] = built.dir;
      const store = new SqliteStore(join(built.dir, 'library.sqlite'));
      const defaults = { share: IVF_SEARCH.probeShare, factor: quantization === 'none' ? 1 : RESCORE_FACTORS[quantization] };
      const settings = quantization === 'none' ? [defaults] : SHARES.flatMap((share) => FACTORS[quantization].map((factor) => ({ share, factor })));
      for (const { share, factor } of settings) {
        IVF_SEARCH.probeShare = share;
        if (quantization !== 'none') RESCORE_FACTORS[quantization] = factor;
        const knn = await timed(queries, (q) => store.vectorCandidates(SPACE, q.vector, K));
        const ids = knn.results.map((r) => (r as { block: Block }[]).map((c) => c.block.id));
        if (quantization === 'none') exactIds.push(...ids);
        const recall = ids.reduce((sum, got, i) => sum + got.filter((id) => exactIds[i]!.includes(id)).length / K, 0) / ids.length;
        const probes = quantization === 'none' ? '' : `${probesFor(listsFor(n))} of ${listsFor(n)}`;
        rows.push([n, quantization, probes, quantization === 'none' ? '' : `${factor}k`, ms(knn.p50), ms(knn.p99), quantization === 'none' ? '1 (exact)' : recall.toFixed(3), quantization === 'none' ? '' : built.indexSeconds.toFixed(0)]);
      }
      IVF_SEARCH.probeShare = defaults.share;
      if (quantization !== 'none') RESCORE_FACTORS[quantization] = defaults.factor;
      for (const [name, filter] of quantization === 'none' && EXACT_KNN_ONLY ? [] : FILTERS) {
        const f = await timed(queries.slice(0, FILTER_QUERIES), (q) => store.vectorCandidates(SPACE, q.vector, K, filter));
        filterRows.push([n, quantization, name, ms(f.p50), ms(f.p99)]);
      }
      await store.close();
    }

    for (const quantization of (EXACT_KNN_ONLY ? ['binary', 'int8'] : ['binary', 'int8', 'none']) as VectorQuantization[]) {
      const library = await Library.open(dirs[quantization]);
      await library.useEmbedder({ embedder: lookupEmbedder(new Map(queries.map((q) => [q.text, q.vector]))), persist: false });
      const bm25 = await timed(queries, (q) => library.search(q.text, { mode: 'bm25', k: K }));
      const hybrid = await timed(queries, (q) => library.search(q.text, { mode: 'hybrid', k: K }));
      hybridRows.push([n, quantization, ms(bm25.p50), ms(bm25.p99), ms(hybrid.p50), ms(hybrid.p99)]);
      await library.close();
    }
    console.log(`\n${n} blocks x ${DIMS} dims: library file ${sizeMB.toFixed(0)} MB, built in ${buildSeconds.toFixed(0)} s (cached in ${dir}).`);
  }
  printTable(`KNN, k = ${K}, ${QUERIES} structured queries (quantized: inverted file of about sqrt(n) lists, the best lists probed, the best candidates by code rescored exactly); recall@10 against exact`, ['blocks', 'index', 'lists probed', 'rescored', 'p50 ms', 'p99 ms', 'recall@10', 'index build s'], rows);
  printTable(`Filtered KNN (filter before ranking; ${Math.min(QUERIES, FILTER_QUERIES)} queries)`, ['blocks', 'index', 'filter', 'p50 ms', 'p99 ms'], filterRows);
  printTable('Library.search, k = 10 (query vectors precomputed)', ['blocks', 'index', 'bm25 p50', 'bm25 p99', 'hybrid p50', 'hybrid p99'], hybridRows);
}

if (process.argv[1]?.endsWith('vectors.ts')) await main();

import { createHash } from 'node:crypto';
import { createReadStream, rmSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { withoutChunkLimits, type ChunkOptions } from '../chunk.js';
import { DEFAULT_STRATEGY, getChunker } from '../chunkers/registry.js';
import type { Document } from '../document/types.js';
import { GroundworkError, isGroundworkError, type LimitInfo } from '../errors.js';
import { resolveChunkLimits, resolveFileLimits, type FileLimits } from '../limits.js';
import { isPdf, matchMagic } from '../detect/magic.js';
import { parse } from '../parse.js';
import { parserVersion } from '../parsers/registry.js';
import type { ParseOptions } from '../parsers/types.js';
import { openEmbedder, openReranker, type ResolveInput } from '../embed/config.js';
import { embedQuery, ensureDimensions } from '../embed/documents.js';
import type { Embedder, EmbedderContext } from '../embed/types.js';
import { librarySources } from '../retrieval/library-source.js';
import type { RetrievalOptionsInput } from '../retrieval/options.js';
import { retrieve, type RetrievalResult, type RetrievalSources } from '../retrieval/pipeline.js';
import type { Candidate, PassageReranker, Retriever } from '../retrieval/types.js';
import { Highlighter } from '../search/snippet.js';
import { isLibraryStore, openStore } from '../store/registry.js';
import { mergeReports, resolveCheckOptions, type CheckOptions, type CheckReport } from '../store/check.js';
import {
  VECTOR_QUANTIZATIONS, type Block, type BlockWithPath, type DocumentWriter, type JobPatch, type JobQuery, type JobRecord, type JobState, type LibraryStore, type OutlineBlock, type PathRecord, type SearchFilter, type SearchHit,
  type StoreCapabilities, type StoreSpec, type StoreStats, type StoredDocument, type VectorFilter, type VectorQuantization, type VectorSpace, type VectorStats, type WriteResult,
} from '../store/types.js';
import { chunksToBlocks, configHash } from './blocks.js';
import { checkFiles, checkSettings } from './check.js';
import type { IngestWorkerConfig } from './ingest-process.js';
import { hashFile, keepOriginal, originalPath, STORE_ORIGINAL } from './originals.js';
import { ProcessPool } from './process-pool.js';
import { Serial } from './serial.js';
import { documentTree, PART_CHARS, ResultReceiver, runTask, type IngestResult, type IngestTask, type WireIngestResult } from './worker.js';
import { embedBlocks, emptyEmbeddingReport, IngestEmbedder, mixedModelsError, type EmbeddingReport } from './vectors.js';
import { walkFiles, type WalkedFile } from './walk.js';

/**
 * Ingest options. The per-file limits (`fileTimeoutMs`, `fileMemoryMb`) are defined by their zod
 * schema in src/limits.ts (FILE_LIMITS_SCHEMA), which validates them here (INVALID_OPTIONS) and
 * gives the CLI its --file-timeout and --file-memory. Each file is parsed and chunked in a worker
 * process that is killed when it breaks one (docs/library.md, "Per-file limits").
 */
export interface IngestOptions extends Partial<FileLimits> {
  /** Chunking strategy (default: the library's `strategy` setting, else `structure`). */
  strategy?: string;
  /** The strategy's options, e.g. `{ chunkSize: 512 }`. */
  chunkOptions?: Record<string, unknown>;
  tokenizer?: string;
  parseOptions?: ParseOptions;
  /** Keep a copy of each original under `files/` by content hash. Default true. */
  copyFiles?: boolean;
  /** Globs on paths relative to each given folder. */
  include?: string[];
  exclude?: string[];
  /** Files larger than this are rejected with TOO_LARGE. Default 512 MiB. */
  maxFileSize?: number;
  /** Parse and chunk, report what would change, write nothing. */
  dryRun?: boolean;
  /**
   * Worker processes that parse and chunk (this process writes). Default: cores - 1 (at least 1,
   * at most 8). 0 parses and chunks in this process, where the per-file limits cannot be held
   * (parse() and chunk() keep their own limits).
   */
  workers?: number;
  /**
   * Embed the new blocks as they are stored, with the embedder `useEmbedder` chose. Default: true
   * when there is one. Blocks land first, their vectors follow (src/library/vectors.ts).
   */
  embed?: boolean;
  /** Blocks embedded per batch across documents (default 256). */
  embedBatch?: number;
  onProgress?: (progress: IngestProgress) => void;
  /**
   * Stops the batch: checked between files and before each write; running workers are killed.
   * The report then says `aborted: true` and counts what was committed (each document is stored
   * whole or not at all); files stopped midway are neither counted nor rejected.
   */
  signal?: AbortSignal;
}

export interface IngestProgress {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  path: string;
}

export interface RejectedFile {
  path: string;
  code: string;
  reason: string;
  /** For TOO_LARGE, LIMIT_EXCEEDED and TIMEOUT: the limit, its value and the flag that raises it. */
  limit?: LimitInfo;
}

export interface IngestReport {
  docsAdded: number;
  /** Unchanged files and duplicates of stored content. */
  docsSkipped: number;
  /** Files whose content changed (old blocks replaced) or that were re-chunked with a new configuration. */
  docsUpdated: number;
  blocksAdded: number;
  pagesAdded: number;
  tablesAdded: number;
  imagesAdded: number;
  /** How many documents were parsed (the rest came from the parse cache or were skipped). */
  parsed: number;
  rejected: RejectedFile[];
  /** What embedding did, when an embedder was in use. */
  embedding?: EmbeddingReport;
  durationMs: number;
  dryRun: boolean;
  /** True when `signal` (or the Library's close) stopped the batch before every file was done. */
  aborted: boolean;
}

/** How `useEmbedder` picks the embedder. */
export interface UseEmbedderOptions {
  /** An embedder made by the caller (the library does not close it). */
  embedder?: Embedder;
  /** Settings from the caller (CLI flags, see src/cli/embed-options.ts), over the environment and the library's stored settings. */
  flags?: ResolveInput['flags'];
  /** Default process.env. */
  env?: NodeJS.ProcessEnv;
  context?: Omit<EmbedderContext, 'key'>;
  /**
   * Make this embedder's model the library's, when its vectors come from another (else that is an
   * error: models are never mixed). The old model's vectors stay unless `dropOld`.
   */
  switchModel?: boolean;
  dropOld?: boolean;
  /** Record the choice in the library's settings (the key never). Default true; searches pass false. */
  persist?: boolean;
}

/** Progress of `Library.embed`. */
export interface EmbedRunProgress {
  blocksDone: number;
  blocksTotal: number;
  documentsDone: number;
  elapsedMs: number;
}

export interface EmbedRunReport extends EmbeddingReport {
  /** Vectors deleted because no block uses them any more. */
  pruned: number;
  durationMs: number;
}

/** What `Library.search` may be given besides the options (which are the retrieval schema's). */
export interface LibrarySearchContext {
  /** Reranks when `rerank: true`; default: the one GROUNDWORK_RERANK_* or the library's settings configure. */
  reranker?: PassageReranker;
  /** Abandons the query's embedding. */
  signal?: AbortSignal;
  /**
   * How the query is embedded when this library's own embedder is elsewhere (the search pool: the
   * main thread embeds, a worker searches): `null` for none (vector search is then left out, as
   * the main thread found no embedder or vectors), undefined for the library's own (`queryEmbedding`).
   */
  queryEmbedding?: QueryEmbedding | null;
}

/** The library's vector model and a way to embed a query into it (`Library.queryEmbedding`). */
export interface QueryEmbedding {
  model: string;
  dimensions: number;
  embed(query: string): Promise<Float32Array>;
}

const SETTING_KEYS = ['strategy', 'tokenizer', 'quantization'] as const;

/**
 * Chunk text (UTF-16 code units) over which a document from a worker is written as its pieces
 * arrive (`LibraryStore.beginDocument`) instead of whole: more than one piece's worth.
 */
export const STREAM_CHARS = PART_CHARS;
/** Blocks per read when a streamed document's blocks are read back to be embedded. */
const EMBED_PAGE = 256;

/**
 * OCR runs a tesseract process beside its worker (135 MB for an image of the shared corpus, 152 MB
 * for its 5738 x 2700 scanned PDF page, eng+chi_sim): a worker over this many MB is retired before
 * a file that may be OCR'd, so that what it kept from earlier files (the Chinese dictionary, PDFium's
 * heap, the allocator's pages) is not at that peak too. An image is always OCR'd; a PDF only for its
 * pages without text, which is not known before it is parsed, and every PDF grows its worker by
 * PDFium's heap, hence a higher mark. A fresh worker is about 80 MB (docs/robustness.md, "The corpus
 * batch under 512 MB").
 */
export const OCR_FRESH_WORKER_MB: Readonly<Record<string, number>> = { image: 160, pdf: 200 };

/** 'image' or 'pdf' when the file's first bytes are that format's signature; undefined otherwise or when unreadable (the worker reports that). */
async function headFormat(path: string): Promise<'image' | 'pdf' | undefined> {
  try {
    const handle = await open(path, 'r');
    try {
      const head = new Uint8Array(1024); // isPdf looks for %PDF- within the first 1 KB
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const bytes = head.subarray(0, bytesRead);
      if (isPdf(bytes)) return 'pdf';
      return matchMagic(bytes)?.format === 'image' ? 'image' : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}
export type LibrarySettingKey = (typeof SETTING_KEYS)[number];

export interface SearchOptions {
  k?: number;
  filter?: SearchFilter;
}

export interface LibraryOpenOptions {
  /**
   * Where the documents and blocks are kept: a store spec (`{ kind: 'sqlite', file }`, see
   * `openStore`) or an open store, which the Library then owns (its `close()` closes it). Default:
   * SQLite in `DIR/library.sqlite`.
   */
  store?: StoreSpec | LibraryStore;
  /**
   * Shorthand for `store: { kind: 'postgres', url }`: the library in a PostgreSQL database
   * (schema `groundwork`; name another with `store`). Ignored when `store` is given.
   */
  postgres?: string;
  /** Hears the blocks done of the total while an upgrade re-indexes every block. */
  onIndexRebuild?: (done: number, total: number) => void;
  /**
   * Keep each ingest's parsing processes for the next ingest with the same worker count, limits,
   * strategy and tokenizer, instead of starting new ones per `addFiles` (a long-running queue
   * worker ingests many small batches). They stay until `close()`; idle ones never keep the
   * process alive. Default false.
   */
  keepIngestPools?: boolean;
  /**
   * Rank BM25 from postings held in memory (SQLite; the store spec's `memoryIndex`): for a process
   * that lives long and searches often (an application, `groundwork mcp --memory-index`; the
   * server's search workers always do). Built in the background from the stored blocks, about 0.5
   * KB a block (`{ maxBlocks }`, default 300,000: a larger library keeps FTS5's ranking); FTS5
   * ranks until it is built and after every change until it is rebuilt, with the same results.
   * `warmSearch()` waits for it. Ignored for other stores and for an open store given as `store`.
   */
  memoryIndex?: boolean | { maxBlocks?: number };
}

export const DEFAULT_MAX_FILE_SIZE = 512 * 1024 * 1024;

/** A file for `Library.addCopies`: its bytes are at `from`, it is stored as the file at `path`. */
export interface FileCopy {
  path: string;
  from: string;
  mtimeMs?: number;
}


/** Where a library lives when none is named: $GROUNDWORK_HOME, else ./.groundwork. */
export function defaultLibraryDir(): string {
  return resolve(process.env.GROUNDWORK_HOME ?? '.groundwork');
}

/**
 * The library: documents and blocks in a store, originals under `files/`. It orchestrates only:
 * detection, parsing and chunking run in worker processes under per-file limits; this process
 * writes every document in one transaction, so an interrupted ingest leaves each document fully
 * stored or absent, and a file whose worker is killed leaves nothing.
 */
export class Library {
  /** Present when the store takes one writer at a time: every write of this Library waits its turn. */
  private readonly writes: Serial | undefined;

  private constructor(
    readonly dir: string,
    private readonly store: LibraryStore,
    private readonly keepPools = false,
  ) {
    this.writes = store.capabilities.concurrentWriters ? undefined : new Serial();
  }

  /**
   * Opens (or creates) the library in `dir`, its originals under `dir/files`, its documents and
   * blocks in `options.store` (default: SQLite in `dir/library.sqlite`). A library written by an
   * older Groundwork is upgraded on open; where that re-indexes every block, `onIndexRebuild`
   * hears the blocks done of the total.
   */
  static async open(dir: string = defaultLibraryDir(), options: LibraryOpenOptions = {}): Promise<Library> {
    const abs = resolve(dir);
    const given = options.store ?? (options.postgres !== undefined ? { kind: 'postgres', url: options.postgres } : { kind: 'sqlite', file: join(abs, 'library.sqlite') });
    // The folder holds the SQLite file and kept originals; a store that keeps originals itself
    // (a server database) needs none.
    const keepsOriginals = isLibraryStore(given) ? typeof given.putOriginal === 'function' : given.kind !== 'sqlite';
    if (!keepsOriginals) {
      await mkdir(join(abs, 'files'), { recursive: true }).catch((cause: Error) => {
        throw new GroundworkError('IO', `cannot create the library folder: ${cause.message}`, { file: abs, cause });
      });
    }
    const spec = !isLibraryStore(given) && given.kind === 'sqlite' && options.memoryIndex && !('memoryIndex' in given) ? { ...given, memoryIndex: options.memoryIndex } : given;
    const store = isLibraryStore(spec) ? spec : await openStore(spec, options.onIndexRebuild ? { onIndexRebuild: options.onIndexRebuild } : {});
    return new Library(abs, store, options.keepIngestPools ?? false);
  }

  /** Where the documents and blocks live, for messages (a file, or a server without credentials). */
  get location(): string {
    return this.store.location;
  }

  /** The kind of store the library is in (`sqlite`, `postgres`), undefined for one without a spec. */
  get storeKind(): string | undefined {
    return this.store.spec?.kind;
  }

  /**
   * Builds the store's in-memory text ranking, where it has one (`memoryIndex`; a search worker's
   * SQLite store): true once searches use it, false when there is none (not asked for, over its
   * budget, or its build failed: then a warning says why, once, and FTS5 ranks). Searches give the
   * same results before; this only makes them cheaper.
   */
  async warmSearch(): Promise<boolean> {
    return (await this.store.memoryIndexReady?.()) ?? false;
  }

  /** How to open this library's store elsewhere (a worker thread): null when it cannot be (in memory). */
  get storeSpec(): StoreSpec | null {
    return this.store.spec;
  }

  /** What the library's store can do (`concurrentWriters`: a server database answering many at once). */
  get storeCapabilities(): StoreCapabilities {
    return this.store.capabilities;
  }

  /**
   * A write to the store, taking its turn where the store takes one writer at a time. With `stop`,
   * an ingest's write: not begun once the ingest was aborted (checked when its turn comes).
   */
  private write<T>(task: () => Promise<T>, stop?: AbortSignal): Promise<T> {
    const guarded = stop ? () => (stop.aborted || this.closing ? Promise.reject(new IngestStopped()) : task()) : task;
    // A write may add or drop vectors: searches count them again.
    const run = () => guarded().finally(() => this.vectorModelsSeen.clear());
    return this.writes ? this.writes.run(run) : run();
  }

  /**
   * Models whose vectors a search has counted since this library last wrote: `vectorStats` counts
   * every linked block (tens of ms at 100k blocks), too much to repeat per search. Only "has vectors"
   * is kept; another process dropping them all is seen after this library's next write.
   */
  private readonly vectorModelsSeen = new Set<string>();

  /** Set by close(): ingests still running stop before their next file or write. */
  private closing = false;
  /** The worker pools of the ingests running now (close() stops them). */
  private readonly pools = new Set<ProcessPool<IngestTask, WireIngestResult>>();

  /** With `keepIngestPools`: the pools kept between ingests, by their configuration. */
  private readonly keptPools = new Map<string, ProcessPool<IngestTask, WireIngestResult>>();

  /** The worker processes of one ingest (a kept one when `keepIngestPools`), each file under the per-file limits. */
  private ingestPool(size: number, limits: FileLimits, config: IngestWorkerConfig): ProcessPool<IngestTask, WireIngestResult> {
    const key = JSON.stringify([size, limits, config]);
    const kept = this.keepPools ? this.keptPools.get(key) : undefined;
    if (kept) return kept;
    const entry = new URL(`./ingest-process.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
    const pool = new ProcessPool<IngestTask, WireIngestResult>(entry, { size, limits, args: [JSON.stringify(config)] });
    this.pools.add(pool);
    if (this.keepPools) this.keptPools.set(key, pool);
    return pool;
  }

  /** An ingest is done with its pool: closed, unless it is kept for the next one (and was not closed by an abort). */
  private async releasePool(pool: ProcessPool<IngestTask, WireIngestResult>, aborted: boolean): Promise<void> {
    const key = [...this.keptPools].find(([, p]) => p === pool)?.[0];
    if (key !== undefined && !aborted && !this.closing) return;
    if (key !== undefined) this.keptPools.delete(key);
    this.pools.delete(pool);
    await pool.close();
  }

  /**
   * One file in a worker: its result (sent in pieces, see `packResult`), a rejection for a worker
   * killed on a limit or crashed, or a stop.
   */
  private async runInPool(pool: ProcessPool<IngestTask, WireIngestResult>, task: IngestTask, receiver = new ResultReceiver()): Promise<IngestResult> {
    const freshOverMb = !task.cached && task.parseOptions.ocr !== 'off' ? OCR_FRESH_WORKER_MB[(await headFormat(task.path)) ?? ''] : undefined;
    const outcome = await pool.run(task, { onPart: (part) => receiver.take(part), ...(freshOverMb !== undefined && { freshOverMb }) });
    if (outcome.ok) return receiver.result(outcome.result);
    if (outcome.cancelled) throw new IngestStopped();
    const { code, message, limit } = outcome.failure;
    return { id: task.id, ok: false, code, reason: message, ...(limit && { limit }) };
  }

  async settings(): Promise<{ strategy: string; tokenizer: string; vectorModel: string | null; quantization: VectorQuantization }> {
    const [strategy, tokenizer, vectorModel, quantization] = await Promise.all(['strategy', 'tokenizer', 'vectors.model', 'vectors.quantization'].map((k) => this.store.getSetting(k)));
    return { strategy: strategy ?? DEFAULT_STRATEGY, tokenizer: tokenizer ?? 'cl100k_base', vectorModel: vectorModel ?? null, quantization: (quantization as VectorQuantization | undefined) ?? 'none' };
  }

  /**
   * `strategy`, `tokenizer`, or `quantization` (none | int8 | binary: how the current model's
   * vectors are indexed; the quantized index is built now, from the stored vectors).
   */
  async setSetting(key: LibrarySettingKey, value: string): Promise<void> {
    if (!(SETTING_KEYS as readonly string[]).includes(key)) throw new GroundworkError('INVALID_OPTIONS', `unknown library setting '${key}' (settings: ${SETTING_KEYS.join(', ')})`);
    if (key === 'strategy') getChunker(value);
    if (key === 'quantization') {
      if (!(VECTOR_QUANTIZATIONS as readonly string[]).includes(value)) throw new GroundworkError('INVALID_OPTIONS', `quantization must be one of ${VECTOR_QUANTIZATIONS.join(', ')}, got '${value}'`);
      await this.write(async () => {
        await this.store.setSetting('vectors.quantization', value);
        const model = await this.store.getSetting('vectors.model');
        const stats = (await this.store.vectorStats()).find((s) => s.model === model);
        if (stats) await this.store.setQuantization({ model: stats.model, dimensions: stats.dimensions }, value as VectorQuantization);
      });
      return;
    }
    await this.write(() => this.store.setSetting(key, value));
  }

  private embedding: { embedder: Embedder; space: VectorSpace; owned: boolean } | undefined;

  /** The embedder in use (`useEmbedder`), if any. */
  get embedder(): Embedder | undefined {
    return this.embedding?.embedder;
  }

  /**
   * Chooses the embedder for ingest, `embed` and vector search: the caller's, else the one the flags,
   * the environment (GROUNDWORK_EMBEDDINGS_*) and the library's stored settings configure (flags >
   * environment > stored). Undefined when none is configured. An embedder whose model is not the
   * one the library's vectors come from is refused (INVALID_OPTIONS naming both) unless
   * `switchModel`. The settings are stored (never the key) once chosen.
   */
  async useEmbedder(options: UseEmbedderOptions = {}): Promise<Embedder | undefined> {
    let embedder = options.embedder;
    let settings: unknown;
    if (!embedder) {
      const stored = await this.store.getSetting('embedder');
      const opened = await openEmbedder({ stored, ...(options.flags && { flags: options.flags }), ...(options.env && { env: options.env }), ...(options.context && { context: options.context }) });
      if (!opened) return undefined;
      embedder = opened.embedder;
      settings = opened.settings;
    }
    try {
      const dimensions = await ensureDimensions(embedder);
      const model = embedder.id ?? `${embedder.provider}:${embedder.model}:${dimensions}`;
      const current = await this.store.getSetting('vectors.model');
      if (current !== undefined && current !== model && !options.switchModel) throw mixedModelsError(current, model);
      const space = { model, dimensions };
      if (options.persist !== false) {
        await this.write(async () => {
          if (current !== model) await this.store.setSetting('vectors.model', model);
          if (settings !== undefined) await this.store.setSetting('embedder', JSON.stringify(settings));
          if (current !== undefined && current !== model && options.dropOld) await this.store.dropVectors(current);
          const quantization = ((await this.store.getSetting('vectors.quantization')) as VectorQuantization | undefined) ?? 'none';
          await this.store.setQuantization(space, quantization);
        });
      }
      await this.releaseEmbedder();
      this.embedding = { embedder, space, owned: options.embedder === undefined };
      return embedder;
    } catch (error) {
      if (options.embedder === undefined) await embedder.close();
      throw error;
    }
  }

  private async releaseEmbedder(): Promise<void> {
    const previous = this.embedding;
    this.embedding = undefined;
    if (previous?.owned) await previous.embedder.close();
  }

  /** What the store holds per model, and which model is the library's. */
  async vectorStats(): Promise<{ model: string | null; models: VectorStats[] }> {
    const [model, models] = await Promise.all([this.store.getSetting('vectors.model'), this.store.vectorStats()]);
    return { model: model ?? null, models };
  }

  /** Blocks with no vector of the current model (the first `limit`, by document and ordinal). */
  async blocksWithoutVectors(limit = 1000): Promise<BlockWithPath[]> {
    const space = this.embedding?.space ?? (await this.currentSpace());
    return space ? this.store.missingVectors(space, limit) : (await this.store.stats()).blocks > 0 ? this.store.missingVectors({ model: '', dimensions: 1 }, limit) : [];
  }

  /** The library's model and its dimensions, from the store (no embedder needed). */
  private async currentSpace(): Promise<VectorSpace | undefined> {
    const model = await this.store.getSetting('vectors.model');
    const stats = (await this.store.vectorStats()).find((s) => s.model === model);
    return stats ? { model: stats.model, dimensions: stats.dimensions } : undefined;
  }

  /**
   * Embeds every block that has no vector of the current model (the embedder `useEmbedder` chose),
   * in committed batches: an interrupted run loses at most one batch, and running it again goes on
   * where it stopped. Vectors no block uses any more are deleted at the end.
   */
  async embed(options: { batchSize?: number; signal?: AbortSignal; onProgress?: (progress: EmbedRunProgress) => void } = {}): Promise<EmbedRunReport> {
    const started = performance.now();
    const state = this.embedding;
    if (!state) throw new GroundworkError('INVALID_OPTIONS', 'no embedder configured: give --embed-url URL --embed-model NAME (or GROUNDWORK_EMBEDDINGS_URL/MODEL), or --embed-model-path DIR for a local model');
    const { embedder, space } = state;
    const report = emptyEmbeddingReport(space.model);
    const linked = (await this.store.vectorStats()).find((s) => s.model === space.model)?.blocks ?? 0;
    const blocksTotal = Math.max(0, (await this.store.stats()).blocks - linked);
    const batch = Math.max(1, options.batchSize ?? 256);
    const documents = new Set<string>();
    let done = 0;
    let after: { docId: string; ordinal: number } | undefined;
    for (;;) {
      options.signal?.throwIfAborted();
      const page = await this.store.missingVectors(space, batch, after);
      if (page.length === 0) break;
      await embedBlocks(this.store, (t) => this.write(t), embedder, space, page, report, options.signal);
      const last = page[page.length - 1]!;
      after = { docId: last.docId, ordinal: last.ordinal };
      done += page.length;
      for (const b of page) documents.add(b.docId);
      options.onProgress?.({ blocksDone: done, blocksTotal: Math.max(blocksTotal, done), documentsDone: documents.size, elapsedMs: performance.now() - started });
    }
    const pruned = await this.write(() => this.store.pruneVectors(space));
    return { ...report, pruned, durationMs: Math.round(performance.now() - started) };
  }

  async addFiles(paths: string | string[], options: IngestOptions = {}): Promise<IngestReport> {
    const roots = Array.isArray(paths) ? paths : [paths];
    const walkOptions = { skipDirs: [this.dir], ...(options.include && { include: options.include }), ...(options.exclude && { exclude: options.exclude }) };
    return this.ingest(() => walkFiles(roots, walkOptions), options);
  }

  /**
   * Ingests files whose bytes are somewhere else than where they belong: each is read from `from`
   * (a temporary copy, e.g. bytes a queue worker took from the database) and stored, named in
   * reports and parsed as the file at `path`, with `mtimeMs` (default: the copy's). No folder is
   * walked and `include`/`exclude` do not apply; otherwise as `addFiles`.
   */
  async addCopies(files: readonly FileCopy[], options: IngestOptions = {}): Promise<IngestReport> {
    const list = [...files];
    return this.ingest(async function* () {
      for (const file of list) {
        const path = resolve(file.path);
        try {
          const info = await stat(file.from);
          if (!info.isFile()) throw new Error('not a file');
          const from = resolve(file.from);
          yield { path, ...(from !== path && { from }), size: info.size, mtimeMs: file.mtimeMs ?? info.mtimeMs };
        } catch (error) {
          yield { path, error: error as Error };
        }
      }
    }, options);
  }

  /** Every ingest running now: close() lets them stop (closing is set, their workers killed) before it closes the store. */
  private readonly ingests = new Set<Promise<unknown>>();

  private ingest(walk: () => AsyncIterable<WalkedFile | { path: string; error: Error }>, options: IngestOptions): Promise<IngestReport> {
    if (this.closing) return Promise.reject(new GroundworkError('IO', 'the library is closed'));
    const running = this.runIngest(walk, options);
    const settled = running.then(() => undefined, () => undefined);
    this.ingests.add(settled);
    void settled.finally(() => this.ingests.delete(settled));
    return running;
  }

  private async runIngest(walk: () => AsyncIterable<WalkedFile | { path: string; error: Error }>, options: IngestOptions): Promise<IngestReport> {
    const started = performance.now();
    const settings = await this.settings();
    const strategy = options.strategy ?? settings.strategy;
    const tokenizer = options.tokenizer ?? settings.tokenizer;
    const chunker = getChunker(strategy);
    // The chunk limits (maxExpansion) are validated here but are not the strategy's options, nor part of its configuration.
    resolveChunkLimits(options.chunkOptions ?? {});
    const resolved = chunker.resolveOptions(withoutChunkLimits(options.chunkOptions ?? {})) as Record<string, unknown>;
    const fileLimits = resolveFileLimits(options as Record<string, unknown>);
    const workers = options.workers ?? Math.max(1, Math.min(availableParallelism() - 1, 8));
    if (!Number.isInteger(workers) || workers < 0) throw new GroundworkError('INVALID_OPTIONS', `ingest options: workers must be a whole number of 0 or more, got ${workers}`);
    const hash = configHash({ strategy, options: resolved, tokenizer });
    const chunkOptions: ChunkOptions = { ...(options.chunkOptions ?? {}), strategy, tokenizer: tokenizer as ChunkOptions['tokenizer'] };
    const parseOptions = options.parseOptions ?? {};
    const parseOptionsHash = parseOptionsDigest(parseOptions);
    const maxFileSize = options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
    const report: IngestReport = {
      docsAdded: 0, docsSkipped: 0, docsUpdated: 0, blocksAdded: 0, pagesAdded: 0, tablesAdded: 0, imagesAdded: 0,
      parsed: 0, rejected: [], durationMs: 0, dryRun: options.dryRun ?? false, aborted: false,
    };
    const embedding = this.embedding && options.embed !== false && !report.dryRun
      ? new IngestEmbedder(this.store, (t) => this.write(t), this.embedding.embedder, this.embedding.space, options.embedBatch)
      : undefined;

    // Totals for the progress bar come from a stat-only pre-walk (cheap next to parsing).
    const progress: IngestProgress = { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0, path: '' };
    if (options.onProgress) {
      for await (const f of walk()) {
        progress.filesTotal++;
        if ('size' in f) progress.bytesTotal += f.size;
      }
    }
    const tick = (path: string, bytes: number) => {
      progress.filesDone++;
      progress.bytesDone += bytes;
      progress.path = path;
      options.onProgress?.({ ...progress });
    };

    // One core stays with this process, which hashes files and writes every document; on 2 cores one
    // worker ingests about as fast as two and keeps peak memory well lower (bench/library.ts).
    const pool = workers > 0 ? this.ingestPool(workers, fileLimits, { strategy, tokenizer }) : undefined;
    const stop = new AbortController();
    const onAbort = () => {
      stop.abort();
      void pool?.close();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const run = (task: IngestTask, receiver?: ResultReceiver) => (pool ? this.runInPool(pool, task, receiver) : runTask(task));
    const inFlight = new Set<Promise<void>>();
    let nextId = 0;
    const seen = new Set<string>();
    try {
      for await (const entry of walk()) {
        if (stop.signal.aborted || this.closing) break;
        if ('error' in entry) {
          report.rejected.push({ path: entry.path, code: 'IO', reason: `${entry.path}: ${entry.error.message}` });
          tick(entry.path, 0);
          continue;
        }
        const job = this.ingestOne(entry, { run, stop: stop.signal, id: nextId++, hash, strategy, chunkOptions, parseOptions, parseOptionsHash, maxFileSize, copy: options.copyFiles ?? true, dryRun: report.dryRun, seen, embedding }, report)
          .catch((error: unknown) => {
            if (error instanceof IngestStopped) return;
            const e = error as GroundworkError;
            report.rejected.push({ path: entry.path, code: e.code ?? 'IO', reason: e.message, ...(e.limit && { limit: e.limit }) });
          })
          .finally(() => {
            inFlight.delete(job);
            tick(entry.path, entry.size);
          });
        inFlight.add(job);
        // Bounded: never more files in flight than workers (plus one being hashed).
        if (inFlight.size > Math.max(1, workers)) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      if (embedding) {
        await embedding.flush();
        // Vectors of texts no block has any more (re-chunked or replaced documents).
        if (embedding.report.failed.length === 0) await this.write(() => this.store.pruneVectors(this.embedding!.space));
        report.embedding = embedding.report;
      }
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      if (pool) await this.releasePool(pool, stop.signal.aborted);
    }
    report.aborted = stop.signal.aborted || this.closing;
    report.durationMs = Math.round(performance.now() - started);
    return report;
  }

  private async ingestOne(
    file: WalkedFile,
    ctx: {
      run: (task: IngestTask, receiver?: ResultReceiver) => Promise<IngestResult>; stop: AbortSignal; id: number; hash: string; strategy: string; chunkOptions: ChunkOptions; parseOptions: ParseOptions;
      parseOptionsHash: string; maxFileSize: number; copy: boolean; dryRun: boolean; seen: Set<string>; embedding: IngestEmbedder | undefined;
    },
    report: IngestReport,
  ): Promise<void> {
    if (file.size > ctx.maxFileSize) {
      report.rejected.push({
        path: file.path,
        code: 'TOO_LARGE',
        reason: `${file.path}: ${file.size} bytes exceeds the limit of ${ctx.maxFileSize} bytes (maxFileSize; raise it with --max-file-size)`,
        limit: { name: 'maxFileSize', value: ctx.maxFileSize, flag: '--max-file-size' },
      });
      return;
    }
    const known = await this.store.pathRecord(file.path);
    const knownDoc = known ? await this.store.documentInfo(known.docId) : undefined;
    // Unchanged file (same size and mtime) already chunked this way: nothing to read or parse.
    if (known && knownDoc && known.size === file.size && known.mtimeMs === file.mtimeMs && knownDoc.configHash === ctx.hash) {
      report.docsSkipped++;
      return;
    }
    const docId = (await hashFile(file.from ?? file.path)).hash;
    // The same bytes under another name may be in flight right now: let that one finish first.
    const twin = this.inFlightContent.get(docId);
    if (twin) await twin;
    let done!: () => void;
    this.inFlightContent.set(docId, new Promise<void>((r) => (done = r)));
    try {
      await this.storeContent(file, docId, known, ctx, report);
    } finally {
      this.inFlightContent.delete(docId);
      done();
    }
  }

  private readonly inFlightContent = new Map<string, Promise<void>>();

  private async storeContent(
    file: WalkedFile,
    docId: string,
    known: { docId: string } | undefined,
    ctx: {
      run: (task: IngestTask, receiver?: ResultReceiver) => Promise<IngestResult>; stop: AbortSignal; id: number; hash: string; strategy: string; chunkOptions: ChunkOptions; parseOptions: ParseOptions;
      parseOptionsHash: string; copy: boolean; dryRun: boolean; seen: Set<string>; embedding: IngestEmbedder | undefined;
    },
    report: IngestReport,
  ): Promise<void> {
    let stored = await this.store.documentInfo(docId);
    // A dry run writes nothing, so it remembers this run's contents itself to count duplicates.
    if (ctx.dryRun) {
      if (ctx.seen.has(docId)) {
        report.docsSkipped++;
        return;
      }
      ctx.seen.add(docId);
    }
    const pathRecord = { path: file.path, docId, size: file.size, mtimeMs: file.mtimeMs };
    const countPathOnly = () => {
      if (known && known.docId !== docId) report.docsUpdated++;
      else report.docsSkipped++;
    };
    if (stored && stored.configHash === ctx.hash) {
      // Same bytes already stored (a duplicate, a touched file, or a rename): record the path only.
      if (ctx.dryRun || (await this.recordPathIfStored(pathRecord, ctx.stop))) {
        countPathOnly();
        return;
      }
      // Removed by another process since it was looked up: stored again below.
      stored = undefined;
    }
    const cacheKey = parseCacheKey(docId, ctx.parseOptionsHash);
    const cached = await this.cachedDocument(cacheKey);
    // The original is copied (or put into the store) before its document is committed: a process
    // killed in between leaves only a file no document keeps (src/library/originals.ts).
    const keep = () => (!ctx.copy ? null : this.store.putOriginal ? this.store.putOriginal(docId, file.from ?? file.path) : keepOriginal(this.dir, file.from ?? file.path, docId));
    // A root document of more than STREAM_CHARS of chunk text is written as its pieces arrive
    // from the worker (LibraryStore.beginDocument): its blocks are never all in this process.
    const stream: { writer?: DocumentWriter; original?: string | null; blocks: number; error?: unknown } = { blocks: 0 };
    const receiver = new ResultReceiver({
      onHead: async (head, parseBlob) => {
        if (ctx.dryRun || (head.sets[0]?.chars ?? 0) <= STREAM_CHARS) return;
        try {
          if (ctx.stop.aborted || this.closing) throw new IngestStopped();
          stream.original = await keep();
          stream.writer = await this.store.beginDocument({
            document: head.document,
            path: pathRecord,
            strategy: ctx.strategy,
            configHash: ctx.hash,
            original: stream.original,
            parseCacheKey: head.parsed ? cacheKey : null,
            ...(parseBlob && { parseBlob }),
          });
        } catch (error) {
          stream.error = error;
        }
      },
      keep: (set) => set !== 0 || stream.writer === undefined,
      onChunks: async (set, from, chunks, indexTexts) => {
        if (set !== 0 || !stream.writer || stream.error !== undefined) return;
        try {
          const blocks = chunksToBlocks(receiver.head!.document, chunks, ctx.hash, from);
          await stream.writer.addBlocks(blocks, indexTexts);
          stream.blocks += blocks.length;
        } catch (error) {
          stream.error = error;
        }
      },
    });
    try {
      const result = await ctx.run({
        id: ctx.id,
        path: file.from ?? file.path,
        ...(file.from !== undefined && { recordAs: { path: file.path, mtimeMs: file.mtimeMs } }),
        ...(cached && { cached }),
        parseOptions: ctx.parseOptions,
        chunkOptions: ctx.chunkOptions,
      }, receiver);
      if (stream.error !== undefined) throw stream.error;
      if (!result.ok) {
        report.rejected.push({ path: file.path, code: result.code, reason: namingFile(file.path, result.reason), ...(result.limit && { limit: result.limit }) });
        return;
      }
      await this.writeResult(file, docId, known, stored, pathRecord, cacheKey, result, stream, keep, ctx, report);
    } finally {
      if (stream.writer) {
        // Not committed (a failure, a stop): nothing of it stays, nor the original kept for it.
        await stream.writer.abort();
        if (stream.original) await this.dropOriginal(docId);
      }
    }
  }

  /** Writes the documents of one worker result: its root (streamed already, or whole) and its children. */
  private async writeResult(
    file: WalkedFile,
    docId: string,
    known: { docId: string } | undefined,
    stored: { configHash: string } | undefined,
    pathRecord: PathRecord,
    cacheKey: string,
    result: Extract<IngestResult, { ok: true }> & { parseBlob?: Uint8Array },
    stream: { writer?: DocumentWriter; original?: string | null; blocks: number },
    keep: () => Promise<string | null> | string | null,
    ctx: { stop: AbortSignal; hash: string; strategy: string; dryRun: boolean; embedding: IngestEmbedder | undefined },
    report: IngestReport,
  ): Promise<void> {
    const countPathOnly = () => {
      if (known && known.docId !== docId) report.docsUpdated++;
      else report.docsSkipped++;
    };
    if (result.parsed) report.parsed++;
    const isUpdate = Boolean(stored) || (known !== undefined && known.docId !== docId);
    // Attachments and archive entries are documents of their own, at `<path>#<name>`.
    const tree = documentTree(result.document);
    for (let i = 0; i < tree.length; i++) {
      const doc = tree[i]!;
      const isRoot = i === 0;
      const streamed = isRoot && stream.writer !== undefined;
      const childPath = { path: doc.source.name ?? `${file.path}#${i}`, docId: doc.id, size: doc.source.bytes, mtimeMs: file.mtimeMs };
      if (!isRoot && (await this.store.documentInfo(doc.id))?.configHash === ctx.hash && (ctx.dryRun || (await this.recordPathIfStored(childPath, ctx.stop)))) continue;
      const blocks = streamed ? [] : chunksToBlocks(doc, result.chunks[i] ?? [], ctx.hash);
      const blockCount = streamed ? stream.blocks : blocks.length;
      if (!ctx.dryRun) {
        // A stopped ingest copies nothing more (the write below would not begin anyway).
        if (ctx.stop.aborted || this.closing) throw new IngestStopped();
        // A store that holds originals itself (a server database) keeps them instead of files/.
        const original = streamed ? null : !isRoot ? null : await keep();
        const written: WriteResult = streamed
          ? await this.write(() => stream.writer!.commit(), ctx.stop)
          : await this.write(() => this.store.writeDocument({
            // The parse cache keeps the whole tree under the root's key; each stored row keeps only itself.
            document: isRoot ? doc : { ...doc, children: [] },
            blocks,
            indexTexts: result.indexTexts[i] ?? [],
            path: isRoot ? pathRecord : childPath,
            strategy: ctx.strategy,
            configHash: ctx.hash,
            original,
            // A parse that came from the cache is cached already. From a worker, the document here
            // carries no texts: the worker encoded the cache entry (`parseBlob`).
            parseCacheKey: isRoot && result.parsed ? cacheKey : null,
            ...(isRoot && result.parseBlob && { parseBlob: result.parseBlob }),
          }), ctx.stop);
        await this.dropOriginal(written.replacedDocId);
        // Another process stored the same bytes first: this file only added its path.
        if (!written.written) {
          if (isRoot) countPathOnly();
          continue;
        }
        if (ctx.embedding) {
          const path = isRoot ? file.path : (doc.source.name ?? `${file.path}#${i}`);
          if (!streamed) await ctx.embedding.add(path, blocks);
          // A streamed document's blocks are read back a page at a time.
          else for (let from = 0; from < blockCount; from += EMBED_PAGE) await ctx.embedding.add(path, await this.store.blockRange(doc.id, from, from + EMBED_PAGE - 1));
        }
      }
      if (isRoot && isUpdate) report.docsUpdated++;
      else report.docsAdded++;
      report.blocksAdded += blockCount;
      report.pagesAdded += doc.pageCount ?? 0;
      for (const el of doc.elements) {
        if (el.kind === 'table') report.tablesAdded++;
        else if (el.kind === 'image') report.imagesAdded++;
      }
    }
  }

  /** Records a path of stored content; false when the content is no longer stored (removed meanwhile). */
  private async recordPathIfStored(record: { path: string; docId: string; size: number; mtimeMs: number }, stop: AbortSignal): Promise<boolean> {
    try {
      const { replacedDocId } = await this.write(() => this.store.recordPath(record), stop);
      await this.dropOriginal(replacedDocId);
      return true;
    } catch (error) {
      if (isGroundworkError(error) && error.code === 'NOT_FOUND') return false;
      throw error;
    }
  }

  /** Deletes the kept original of a document a changed file replaced, unless the content is stored again. */
  private async dropOriginal(docId: string | null): Promise<void> {
    if (!docId || (await this.store.documentInfo(docId))) return;
    // A store that keeps the originals drops its own (only when no document keeps it).
    if (this.store.putOriginal) await this.store.dropOriginal?.(docId);
    else await rm(join(this.dir, originalPath(docId)), { force: true });
  }

  /**
   * The parsed Document of a stored document (id, id prefix or path), to chunk it again without
   * storing anything (the inspector's compare view, `POST /v1/documents/{id}/chunk`): from the
   * parse cache under the key its ingest used with `parseOptions` (default none, as ingest's), else
   * parsed again from the kept original. NOT_FOUND when the document is unknown, or has neither (an
   * attachment, or a document ingested without copying whose cache entry is gone).
   */
  async parsedDocument(idOrPath: string, parseOptions: ParseOptions = {}): Promise<{ document: Document; from: 'cache' | 'original' }> {
    const stored = await this.document(idOrPath);
    if (!stored) throw new GroundworkError('NOT_FOUND', 'no document with this id, id prefix or path', { file: idOrPath });
    const cached = await this.cachedDocument(parseCacheKey(stored.id, parseOptionsDigest(parseOptions)));
    if (cached) return { document: cached, from: 'cache' };
    if (!stored.original) {
      throw new GroundworkError('NOT_FOUND', 'the parse of this document is not cached with these parse options and no original was kept to parse it again', { file: idOrPath });
    }
    const parts: Buffer[] = [];
    for await (const part of await this.openOriginal(stored.id)) parts.push(part as Buffer);
    const document = await parse(new Uint8Array(Buffer.concat(parts)), { ...parseOptions, name: stored.paths[0] ?? stored.id });
    return { document, from: 'original' };
  }

  /** A cached parse is valid only while the parser that made it is at the same version. */
  private async cachedDocument(key: string): Promise<Document | undefined> {
    const doc = await this.store.cachedParse(key);
    if (!doc) return undefined;
    return parserVersion(doc.format) === doc.parserVersion ? doc : undefined;
  }

  private sources: RetrievalSources | undefined;
  private embedderOpening: Promise<Embedder | undefined> | undefined;

  /**
   * The library's BM25 retriever and block fetcher, made once: its outline cache (each entry checked
   * against its document's chunking on use) then lives as long as the library, so a server's
   * section-aware searches do not rebuild a document's outline from all its blocks per request.
   */
  get retrievalSources(): RetrievalSources {
    return (this.sources ??= librarySources(this));
  }

  /**
   * Searches the library: the retrieval pipeline (src/retrieval/) over BM25 and, when the library
   * has vectors of its model and an embedder, vector search: `mode` bm25 | vector | hybrid (default
   * hybrid when vectors exist, else bm25), RRF with optional `weights`, `filter` before ranking,
   * `section`, `neighbors`, `rerank`, `explain`. Options are validated by
   * `RetrievalOptionsSchema` (INVALID_OPTIONS); vector mode without an embedder or vectors is
   * INVALID_OPTIONS saying what to configure.
   */
  async search(query: string, options: RetrievalOptionsInput = {}, context: LibrarySearchContext = {}): Promise<RetrievalResult> {
    const sources = this.retrievalSources;
    const retrievers: Retriever[] = [...sources.retrievers];
    if (options.mode !== 'bm25') {
      const embedding = context.queryEmbedding !== undefined ? context.queryEmbedding : await this.queryEmbedding(options.mode !== undefined, context.signal);
      if (embedding) retrievers.push(this.vectorRetriever(embedding));
    }
    const reranker = options.rerank ? await this.searchReranker(context.reranker) : context.reranker;
    return retrieve(query, options, { retrievers, fetcher: sources.fetcher, ...(reranker && { reranker }) });
  }

  /**
   * The reranker of a search with `rerank: true`: `given`, else the one the library's settings and
   * GROUNDWORK_RERANK_* configure; INVALID_OPTIONS when there is none.
   */
  async searchReranker(given?: PassageReranker): Promise<PassageReranker> {
    const reranker = given ?? openReranker({ stored: await this.store.getSetting('rerank') })?.reranker;
    if (!reranker) throw new GroundworkError('INVALID_OPTIONS', 'rerank needs a reranker: configure one with --rerank-url or GROUNDWORK_RERANK_URL');
    return reranker;
  }

  /**
   * How a search embeds its query, when the library has an embedder (chosen, or configured by its
   * stored settings and the environment) and vectors of its model. `required`: a vector or
   * hybrid search was asked for, so their absence is an error that says what to do.
   */
  async queryEmbedding(required: boolean, signal?: AbortSignal): Promise<QueryEmbedding | undefined> {
    if (!this.embedding) {
      const model = await this.store.getSetting('vectors.model');
      if (model === undefined) {
        if (required) throw new GroundworkError('INVALID_OPTIONS', 'this library has no vectors: configure an embedder (--embed-url/--embed-model, GROUNDWORK_EMBEDDINGS_URL/MODEL, or --embed-model-path) and run groundwork embed');
        return undefined;
      }
      try {
        // One opening for the searches that arrive together (a server's first ones), not one each.
        await (this.embedderOpening ??= this.useEmbedder({ persist: false }).finally(() => (this.embedderOpening = undefined)));
      } catch (error) {
        if (required) throw error;
        return undefined;
      }
      if (!this.embedding) {
        if (required) throw new GroundworkError('INVALID_OPTIONS', `vector search embeds the query with the library's model (${model}), but no embedder is configured: set GROUNDWORK_EMBEDDINGS_URL/MODEL or give --embed-url/--embed-model (--embed-model-path for a local model)`);
        return undefined;
      }
    }
    const { embedder, space } = this.embedding!;
    if (!this.vectorModelsSeen.has(space.model)) {
      const stats = (await this.store.vectorStats()).find((s) => s.model === space.model);
      if (!stats || stats.blocks === 0) {
        if (required) throw new GroundworkError('INVALID_OPTIONS', `this library has no ${space.model} vectors yet: run groundwork embed`);
        return undefined;
      }
      this.vectorModelsSeen.add(space.model);
    }
    return { model: space.model, dimensions: space.dimensions, embed: (query) => embedQuery(embedder, query, signal ? { signal } : {}) };
  }

  /** The `vector` retriever over the store, its queries embedded by `embedding`. */
  private vectorRetriever(embedding: QueryEmbedding): Retriever {
    // The pipeline may search the same keywords several times (discover, inside, outside a section).
    const vectors = new Map<string, Promise<Float32Array>>();
    const store = this.store;
    const space = { model: embedding.model, dimensions: embedding.dimensions };
    return {
      name: 'vector',
      async search(query, k, filter) {
        if (query.trim() === '') return [];
        let vector = vectors.get(query);
        if (!vector) vectors.set(query, (vector = embedding.embed(query)));
        return store.vectorCandidates(space, await vector, k, filter as VectorFilter);
      },
    };
  }

  /** The BM25 ranking of `searchText` without the snippets: what the retrieval pipeline asks for (it highlights its passages itself). */
  async searchCandidates(query: string, options: SearchOptions = {}): Promise<Candidate[]> {
    return this.store.searchText(query, options.k ?? 10, options.filter);
  }

  /** BM25 over the blocks, best first, each hit with a highlighted snippet of its block (no pipeline: see `search`). */
  async searchText(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const candidates = await this.store.searchText(query, options.k ?? 10, options.filter);
    if (candidates.length === 0) return [];
    const highlighter = new Highlighter(query);
    return candidates.map(({ block, path, score }) => ({ score, docId: block.docId, path, block, snippet: highlighter.snippet(block.text) }));
  }

  documents(): Promise<StoredDocument[]> {
    return this.store.listDocuments();
  }

  /** The tokens of each document's stored blocks, summed (0 for an unknown id). */
  documentTokens(docIds: readonly string[]): Promise<Map<string, number>> {
    return this.store.documentTokens(docIds);
  }

  /** A document by id, id prefix, or one of its paths. */
  async document(idOrPath: string): Promise<StoredDocument | undefined> {
    return (await this.store.getDocument(idOrPath)) ?? (await this.store.getDocument(resolve(idOrPath)));
  }

  blocks(docId: string): Promise<Block[]> {
    return this.store.blocksOf(docId);
  }

  /**
   * What the document's outline is built from, without the blocks' texts (except those that may
   * hold a heading line), boxes and tables (`LibraryStore.outlineBlocks`). For the outline itself,
   * cached: `library.retrievalSources.fetcher.outline(docId)`.
   */
  outlineBlocks(docId: string): Promise<OutlineBlock[]> {
    return this.store.outlineBlocks(docId);
  }

  /** One block by its id. */
  block(blockId: string): Promise<Block | undefined> {
    return this.store.getBlock(blockId);
  }

  /** A document's blocks with ordinals `from` to `to` (inclusive), in order: a block's neighbours. */
  blockRange(docId: string, from: number, to: number): Promise<Block[]> {
    return this.store.blockRange(docId, from, to);
  }

  /** Every block with its document's first path, document by document in block order, in pages. */
  allBlocks(): AsyncIterable<BlockWithPath> {
    return this.store.iterateBlocks();
  }

  /** Removes a document, its blocks, its search rows and its kept original. */
  async remove(idOrPath: string): Promise<StoredDocument | undefined> {
    const doc = await this.document(idOrPath);
    if (doc) {
      // The store removes an original it holds with the document; a copy in the folder goes here.
      await this.write(() => this.store.removeDocument(doc.id));
      if (doc.original && !doc.original.startsWith(STORE_ORIGINAL)) rmSync(resolve(this.dir, doc.original), { force: true });
    }
    return doc;
  }

  /**
   * The kept original of a document (id, id prefix or path) as a stream of its bytes: from the
   * store when it holds it, else from the library folder. NOT_FOUND when none was kept
   * (ingested with `copyFiles: false`) or the document is unknown.
   */
  async openOriginal(idOrPath: string): Promise<Readable> {
    const doc = await this.document(idOrPath);
    if (!doc) throw new GroundworkError('NOT_FOUND', 'no document with this id, id prefix or path', { file: idOrPath });
    if (!doc.original) throw new GroundworkError('NOT_FOUND', 'no original was kept for this document (ingested without copying)', { file: idOrPath });
    if (doc.original.startsWith(STORE_ORIGINAL)) {
      const stream = await this.store.openOriginal?.(doc.id);
      if (!stream) throw new GroundworkError('NOT_FOUND', `the store ${this.store.location} holds no original for this document`, { file: idOrPath });
      return stream;
    }
    const file = resolve(this.dir, doc.original);
    await stat(file).catch((cause: Error) => {
      throw new GroundworkError('NOT_FOUND', `the kept original is missing: ${cause.message}`, { file, cause });
    });
    return createReadStream(file);
  }

  async stats(): Promise<StoreStats & { dir: string; location: string; strategy: string; tokenizer: string; vectorModel: string | null; quantization: VectorQuantization }> {
    const [settings, stats] = await Promise.all([this.settings(), this.store.stats()]);
    return { dir: this.dir, location: this.store.location, ...settings, ...stats };
  }

  /**
   * Checks the library: the store's own data (`LibraryStore.check`: the database file, the search
   * index and its statistics against the blocks, orphans), every kept original under files/ (present,
   * its sha256 equal to its name, its size), leftovers, and the settings. With `repair`, rebuilds
   * what can be rebuilt, restores or clears missing originals, removes leftovers, and checks again.
   * Safe while other processes ingest and search.
   */
  async check(options: CheckOptions = {}): Promise<CheckReport> {
    const resolved = resolveCheckOptions(options);
    // Through this Library's write queue: a repair never overlaps its own writes.
    const store = await this.write(() => this.store.check(resolved));
    const files = await checkFiles(this.dir, this.store, resolved);
    const settings = await checkSettings(this.store, resolved);
    return mergeReports(resolved, [store, files, settings]);
  }

  /** Stores a new background job (see `JobRecord`; `groundwork serve` keeps its uploads' ingests here). */
  createJob(job: JobRecord): Promise<void> {
    return this.write(() => this.store.createJob(job));
  }

  job(id: string): Promise<JobRecord | undefined> {
    return this.store.getJob(id);
  }

  /** Jobs newest first, optionally in some states only. */
  jobs(query?: JobQuery): Promise<JobRecord[]> {
    return this.store.listJobs(query);
  }

  /** Changes a job; with `ifState`, only when it is in one of those states (else undefined): a compare-and-set. */
  updateJob(id: string, patch: JobPatch, options?: { ifState?: readonly JobState[] }): Promise<JobRecord | undefined> {
    return this.write(() => this.store.updateJob(id, patch, options));
  }

  /**
   * Closes the store once the writes already started are done. Ingests still running are stopped
   * (their worker processes killed, their reports `aborted`), so no process is left behind.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.keptPools.clear();
    await Promise.all([...this.pools].map((pool) => pool.close()));
    // Their next step sees `closing` and stops: none reads or writes a closed store.
    await Promise.all([...this.ingests]);
    await this.writes?.run(async () => undefined);
    await this.releaseEmbedder();
    await this.store.close();
  }
}

/** Thrown inside an ingest that was stopped (its signal, or the Library's close): the file is neither counted nor rejected. */
class IngestStopped extends Error {
  constructor() {
    super('the ingest was stopped');
  }
}

/** A rejection reason that starts with the file it is about (a chunker's error does not know its file). */
function namingFile(path: string, reason: string): string {
  return reason.startsWith(path) ? reason : `${path}: ${reason}`;
}

/** What ingest's parse-cache key says about the parse options (so another caller finds the same entry). */
function parseOptionsDigest(parseOptions: ParseOptions): string {
  return createHash('sha256').update(JSON.stringify(parseOptions)).digest('hex').slice(0, 16);
}

/** The parse cache's key of a document's bytes parsed with the options of `parseOptionsDigest`. */
function parseCacheKey(docId: string, parseOptionsHash: string): string {
  return createHash('sha256').update(`${docId}:${parseOptionsHash}`).digest('hex');
}

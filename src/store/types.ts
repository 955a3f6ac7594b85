import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { ChunkKind } from '../chunkers/types.js';
import type { BBox, Document, Format, TableData } from '../document/types.js';
import type { CheckReport, ResolvedCheckOptions } from './check.js';

/** The stored unit (DESIGN.md, "Block"). */
export interface Block {
  /** Stable: derived from document id + chunking-config hash + ordinal. */
  id: string;
  docId: string;
  ordinal: number;
  kind: ChunkKind;
  /** What is embedded and shown to a model (may include breadcrumb / repeated header). */
  text: string;
  headingPath: string[];
  pageStart: number | null;
  pageEnd: number | null;
  bboxes: (BBox & { page?: number })[] | null;
  /** Span in the document's canonical text. */
  start: number;
  end: number;
  chars: number;
  tokens: number;
  table: TableData | null;
  speaker: string | null;
  /** Dialog turns: [start, end] seconds. */
  time: [number, number] | null;
  strategy: string;
  configHash: string;
}

/** A block as `LibraryStore.outlineBlocks` reads it: `text` is null where it holds no `# `. */
export type OutlineBlock = Pick<Block, 'ordinal' | 'start' | 'end' | 'pageStart' | 'headingPath' | 'strategy'> & { text: string | null };

/** A stored document: the parsed Document's header plus where it came from. */
export interface StoredDocument {
  id: string;
  format: Format;
  mime: string;
  title: string | null;
  language: string | null;
  pageCount: number | null;
  bytes: number;
  metadata: Record<string, unknown>;
  warnings: string[];
  /** Every path this content was seen at (dedupe is by content, never by name). */
  paths: string[];
  strategy: string;
  configHash: string;
  blocks: number;
  tables: number;
  images: number;
  addedAt: string;
  /**
   * Where the kept original is, when `copyFiles` was on: a path relative to the library folder
   * (`files/<aa>/<hash>`), an absolute path (in a folder named by the `files` option), or
   * `store:<id>` when the store holds it (`LibraryStore.putOriginal`).
   */
  original: string | null;
}

export interface PathRecord {
  path: string;
  docId: string;
  size: number;
  mtimeMs: number;
}

export interface SearchFilter {
  docId?: string | string[];
  format?: Format | Format[];
  /** Glob on the document's path(s), e.g. `**\/contracts/*.pdf`. */
  path?: string;
  pageFrom?: number;
  pageTo?: number;
}

/** One BM25 result of `LibraryStore.searchText`: the block, its document's first path, its score. */
export interface TextCandidate {
  block: Block;
  /** The document's first path (in sort order), null for a document stored without one. */
  path: string | null;
  /** BM25, higher is better. */
  score: number;
}

/** One result of `LibraryStore.rankText`: which block, without the block itself. */
export interface RankedBlock {
  docId: string;
  ordinal: number;
  score: number;
}

/** A search hit as `Library.search` returns it: a candidate plus a highlighted snippet. */
export interface SearchHit {
  score: number;
  docId: string;
  path: string | null;
  block: Block;
  /** The block text around the matched terms, with matches wrapped in « ». */
  snippet: string;
}

/**
 * One document with everything stored for it, as `groundwork migrate` copies it from one store to
 * another (`LibraryStore.dumpDocuments` / `importDocument`).
 */
export interface DocumentDump {
  /** Its row as stored (added time and `original` included; `paths` and `blocks` as counted there). */
  document: StoredDocument;
  paths: PathRecord[];
  blocks: Block[];
  /** Its parse-cache entries: the key and the stored form (gzip JSON of the Document), copied as is. */
  parseCache: { key: string; document: Buffer }[];
}

/** What one document's ingest writes, atomically. */
export interface DocumentWrite {
  document: Document;
  blocks: Block[];
  path: PathRecord | null;
  strategy: string;
  configHash: string;
  original: string | null;
  /** The analyzed search text of each block (blockIndexText), when computed off the writing thread. */
  indexTexts?: string[];
  /** Where the parse is cached (the root of a container holds its whole tree); null for children. */
  parseCacheKey: string | null;
  /**
   * The document already encoded for the parse cache (`encodeParse`, src/store/parse-cache.ts), when
   * that was done off the writing process (an ingest worker, which holds the whole parse; the
   * Library's copy of the document then carries no texts). Default: the store encodes `document`.
   */
  parseBlob?: Uint8Array;
}

/**
 * What a streamed document write (`LibraryStore.beginDocument`) is given before its blocks:
 * everything of a `DocumentWrite` but the blocks and their index texts.
 */
export type DocumentHead = Omit<DocumentWrite, 'blocks' | 'indexTexts'>;

/**
 * One document written as its blocks arrive (`LibraryStore.beginDocument`): `addBlocks` as often
 * as needed (blocks in ordinal order; the caller may drop them once the call resolves), then
 * `commit` or `abort`, one call at a time. Nothing of the document is visible to any reader before
 * `commit` resolves; `abort`, a failed call, or the process dying (kill -9) leaves nothing of it.
 * The same-content rule of `writeDocument` holds: content already stored with the same
 * configuration hash records only the path (`written: false`), whatever blocks were added.
 */
export interface DocumentWriter {
  /** The next blocks, with their analyzed search texts when they were made off the writer (`DocumentWrite.indexTexts`). */
  addBlocks(blocks: readonly Block[], indexTexts?: readonly string[]): Promise<void>;
  commit(): Promise<WriteResult>;
  /** Drops what was added; a no-op once committed, aborted or failed. */
  abort(): Promise<void>;
}

/** What `writeDocument` did. */
export interface WriteResult {
  /** A document the path pointed at before, deleted because it was left with no path. */
  replacedDocId: string | null;
  /**
   * False when the document was already stored with the same configuration hash (another process
   * stored the same bytes meanwhile): its blocks were kept and only the path (and a missing
   * `original`) recorded. The same bytes chunked the same way are the same blocks.
   */
  written: boolean;
}

export interface StoreStats {
  documents: number;
  blocks: number;
  paths: number;
  tokens: number;
  bytes: number;
  byFormat: Record<string, number>;
  parseCacheEntries: number;
}

/**
 * Which vectors: the embedder's id (`openai:bge-m3:1024`, see src/embed/types.ts `Embedder.id`)
 * and their length. Vectors are keyed by (text hash, model, dimensions); a library keeps the
 * vectors of each model apart and searches one model's at a time.
 */
export interface VectorSpace {
  model: string;
  dimensions: number;
}

/**
 * How a model's vectors are indexed for search. `none`: exact KNN over the float vectors. `int8` /
 * `binary`: approximate KNN over quantized copies (SQLite: an inverted file of int8 / bit codes,
 * src/store/sqlite/sqlite-ivf.ts; PostgreSQL: HNSW over halfvec / bit), the best candidates then
 * rescored exactly from the float vectors.
 */
export const VECTOR_QUANTIZATIONS = ['none', 'int8', 'binary'] as const;
export type VectorQuantization = (typeof VECTOR_QUANTIZATIONS)[number];

/**
 * One block's vector for `putVectors`: the block, the hash of the text embedded for it
 * (`textHash(contextualize(block).text)`), and the vector, which may be left out when the store
 * already has one for this hash (`knownVectors`): identical texts are stored once.
 */
export interface VectorEntry {
  blockId: string;
  hash: string;
  vector?: Float32Array;
}

/**
 * What vector search may be restricted to: the store's `SearchFilter` plus heading-path prefix,
 * sections and document metadata (src/retrieval/filter.ts `RetrievalFilter` has the same shape and
 * `blockMatches` the reference semantics). Applied before ranking.
 */
export interface VectorFilter extends SearchFilter {
  headingPrefix?: string[];
  sections?: { docId: string; headingPath: string[]; start?: number; end?: number }[];
  metadata?: Record<string, string | number | boolean>;
}

/** One result of `vectorCandidates`: the block, its document's first path, cosine similarity. */
export interface VectorCandidate {
  block: Block;
  path: string | null;
  /** Cosine similarity to the query vector (1 = same direction), higher is better. */
  score: number;
}

/** What a store holds for one model. */
export interface VectorStats {
  model: string;
  dimensions: number;
  quantization: VectorQuantization;
  /** Distinct texts with a vector (identical blocks share one). */
  vectors: number;
  /** Blocks linked to a vector of this model. */
  blocks: number;
}

/** Where a job is in its life: queued -> running -> done | failed | cancelled (a restart may re-queue a running one). */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'done', 'failed', 'cancelled'];

/**
 * A unit of background work kept in the library (an upload's ingest, for `groundwork serve`), so it
 * outlives the process that queued it. The store keeps the record; what `input`, `progress` and
 * `result` hold is the job kind's business (plain JSON).
 */
export interface JobRecord {
  id: string;
  /** What runs it, e.g. `ingest`. */
  kind: string;
  state: JobState;
  input: Record<string, unknown>;
  progress: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  /** Why a failed job failed: the GroundworkError code and message. */
  error: { code: string; message: string } | null;
  /** How many times it was started (more than 1 after a restart resumed it). */
  attempts: number;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** The fields of a job that change as it runs. */
export type JobPatch = Partial<Pick<JobRecord, 'state' | 'progress' | 'result' | 'error' | 'attempts' | 'startedAt' | 'finishedAt'>>;

export interface JobQuery {
  /** Only jobs in these states. */
  states?: readonly JobState[];
  /** At most this many, newest first (default 100). */
  limit?: number;
}

/** A block as block iteration yields it: with its document's first path. */
export type BlockWithPath = Block & { path: string | null };

/**
 * What a store can do, for the code above it to adapt to (kysely's dialect-adapter flags). Only
 * flags that something reads belong here.
 */
export interface StoreCapabilities {
  /**
   * True when overlapping write calls on this store handle are safe (a pool of connections, each
   * write its own transaction). False (SQLite: one connection, one transaction at a time): the
   * Library makes its writes take turns.
   */
  readonly concurrentWriters: boolean;
}

/**
 * A plain, serialisable description of a store, enough to open the same store anywhere (another
 * thread, another process): `{ kind: 'sqlite', file }`; each kind validates its own fields
 * (src/store/registry.ts).
 */
export interface StoreSpec {
  readonly kind: string;
  readonly [field: string]: unknown;
}

/**
 * The storage backend, all asynchronous (a server database cannot answer synchronously). SQLite is
 * the embedded default (src/store/sqlite/); other backends implement the same interface and pass
 * the same contract suite (test/store/contract.ts). Code above the store speaks only this
 * interface: no SQL and no concrete store outside the backend.
 *
 * Writes are atomic per call: a call that fails leaves nothing of what it was writing. Whether
 * write calls may overlap is `capabilities.concurrentWriters`.
 */
export interface LibraryStore {
  /** Where the data lives, for messages (a file path, a server address without credentials). */
  readonly location: string;
  /** How to open this same store elsewhere; null when it cannot be (an in-memory database). */
  readonly spec: StoreSpec | null;
  readonly capabilities: StoreCapabilities;

  getSetting(key: string): Promise<string | undefined>;
  setSetting(key: string, value: string): Promise<void>;

  pathRecord(path: string): Promise<PathRecord | undefined>;
  /** The document stored for this content hash, if any. */
  documentInfo(docId: string): Promise<{ configHash: string } | undefined>;
  /**
   * Records that `path` now holds the stored document `docId`; drops the document it held before
   * when that one is left with no path. NOT_FOUND when `docId` is not stored (removed meanwhile).
   */
  recordPath(record: PathRecord): Promise<{ replacedDocId: string | null }>;
  /**
   * Stores a document, its blocks, its path and its parse-cache entry in one transaction, or, when
   * the document is already stored with the same configuration hash, only its path (`written:
   * false`): two processes writing the same bytes end with one document.
   */
  writeDocument(write: DocumentWrite): Promise<WriteResult>;
  /**
   * `writeDocument` for a document too big to hold whole: the blocks are written as they are given
   * (`DocumentWriter`), into a staging area or the open transaction, and become visible at
   * `commit`, atomically, with the same rules. With `concurrentWriters: false`, `commit` is a write
   * that takes its turn like any other; `beginDocument` and `addBlocks` need no turn.
   */
  beginDocument(head: DocumentHead): Promise<DocumentWriter>;
  /** Sets (or clears, with null) a document's kept original; false when the document is not stored. */
  setOriginal(docId: string, original: string | null): Promise<boolean>;
  /** Deletes a document with its blocks, index rows, paths and parse-cache entries. */
  removeDocument(docId: string): Promise<boolean>;

  cachedParse(key: string): Promise<Document | undefined>;

  listDocuments(): Promise<StoredDocument[]>;
  /**
   * The tokens of each document's blocks, summed (the inspector's library view and
   * `GET /v1/documents`): every id asked for is in the map, 0 for one without blocks or unknown.
   */
  documentTokens(docIds: readonly string[]): Promise<Map<string, number>>;
  /** By exact path, exact id, or unique id prefix (INVALID_OPTIONS when a prefix matches several). */
  getDocument(idOrPath: string): Promise<StoredDocument | undefined>;
  blocksOf(docId: string): Promise<Block[]>;
  /**
   * What a document's outline is built from (`outlineFromBlocks`, src/retrieval/outline.ts), by
   * ordinal: every block's span, first page, heading path and strategy, and its text only when it
   * contains `# ` (which every canonical heading line does; null otherwise). A long document's
   * texts, boxes and tables are not read into the process.
   */
  outlineBlocks(docId: string): Promise<OutlineBlock[]>;
  /** One block by its id. */
  getBlock(blockId: string): Promise<Block | undefined>;
  /** The blocks of a document with `from <= ordinal <= to`, by ordinal (neighbours of a block). */
  blockRange(docId: string, from: number, to: number): Promise<Block[]>;
  /** Every block, by document id then ordinal, fetched in pages (memory stays bounded). */
  iterateBlocks(): AsyncIterable<BlockWithPath>;

  /**
   * The best `k` blocks for `query` by BM25, best first, with every filter applied inside the store:
   * `k` results of the filter whenever that many blocks match. Empty for a query with no searchable term.
   */
  searchText(query: string, k: number, filter?: SearchFilter): Promise<TextCandidate[]>;
  /** The ranking of `searchText(query, k)` (same order, same scores) without loading the blocks. */
  rankText(query: string, k: number): Promise<RankedBlock[]>;
  /**
   * Optional: a store whose text ranking can be made faster in memory for a long-lived reader
   * (SQLite with `memoryIndex`) builds it and resolves true once searches use it; false when it
   * has none. The results are the same either way.
   */
  memoryIndexReady?(): Promise<boolean>;

  /**
   * Stores vectors and links blocks to them, in one transaction. An entry without a vector links
   * its block to the vector already stored for its hash (INVALID_OPTIONS when there is none); a
   * vector for a hash already stored is not stored again. A block that no longer exists (replaced
   * since) is skipped. `linked` counts the blocks linked, `stored` the new vectors.
   */
  putVectors(space: VectorSpace, entries: readonly VectorEntry[]): Promise<{ stored: number; linked: number }>;
  /** Which of these text hashes have a vector of this model. */
  knownVectors(space: VectorSpace, hashes: readonly string[]): Promise<Set<string>>;
  /**
   * Up to `limit` blocks with no vector of this model, by document id then ordinal, after the block
   * `after` (exclusive): page through them, or ask again from the start once the page is embedded.
   */
  missingVectors(space: VectorSpace, limit: number, after?: { docId: string; ordinal: number }): Promise<BlockWithPath[]>;
  /**
   * The `k` blocks whose vectors are nearest `vector` (cosine), best first, with `filter` applied
   * before ranking: k results of the filter whenever that many blocks with vectors match. Exact,
   * or through the model's quantized index and rescored exactly (`setQuantization`). A block whose
   * text equals another's shares its vector and its score.
   */
  vectorCandidates(space: VectorSpace, vector: Float32Array, k: number, filter?: VectorFilter): Promise<VectorCandidate[]>;
  /** How each model's vectors are indexed; builds or drops the quantized copies. */
  setQuantization(space: VectorSpace, quantization: VectorQuantization): Promise<void>;
  /** Every model the store has vectors of. */
  vectorStats(): Promise<VectorStats[]>;
  /** Deletes the vectors of a model no block links to any more (removed or re-chunked blocks); how many. */
  pruneVectors(space: VectorSpace): Promise<number>;
  /** Deletes every vector of a model and its links; how many vectors. */
  dropVectors(model: string): Promise<number>;

  stats(): Promise<StoreStats>;
  /**
   * Checks the store's own data (its integrity, the index against the blocks, orphans) and, with
   * `repair`, rebuilds what can be rebuilt, then checks again (src/store/check.ts). Safe while
   * other processes read and write.
   */
  check(options: ResolvedCheckOptions): Promise<CheckReport>;

  /** Stores a new job (INVALID_OPTIONS when its id is taken). */
  createJob(job: JobRecord): Promise<void>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** Jobs newest first (by creation), optionally only some states. */
  listJobs(query?: JobQuery): Promise<JobRecord[]>;
  /**
   * Applies `patch` (and a new `updatedAt`) and returns the job as it is now; undefined when there is
   * no such job or, with `ifState`, when it is not in one of those states (nothing changed): a
   * compare-and-set, so two processes cannot both start one queued job.
   */
  updateJob(id: string, patch: JobPatch, options?: { ifState?: readonly JobState[] }): Promise<JobRecord | undefined>;

  close(): Promise<void>;

  /**
   * Stores that keep originals themselves (a server database, where no folder is shared) have these
   * two; the Library then keeps originals through them, and copies them into a folder otherwise.
   * `putOriginal` streams the file at `path` into the store as the original of `docId` (a no-op when
   * it is there) and returns what the document's `original` records; `openOriginal` streams it back.
   * `removeDocument` removes a document's original with it; `dropOriginal` removes one that no
   * document keeps (put for a write that then failed), and does nothing when a document keeps it.
   */
  putOriginal?(docId: string, path: string): Promise<string>;
  openOriginal?(docId: string): Promise<Readable | undefined>;
  dropOriginal?(docId: string): Promise<void>;

  /**
   * Copying a library between stores (`groundwork migrate`): every setting; every document with its
   * paths, blocks and parse cache, in the order it was stored, read in pages; and writing one such document in one
   * transaction (replacing what the store held under its id; the index is built from the blocks).
   * A store that can be migrated from has the first two, one that can be migrated to the third.
   */
  listSettings?(): Promise<Record<string, string>>;
  dumpDocuments?(): AsyncIterable<DocumentDump>;
  importDocument?(dump: DocumentDump): Promise<void>;
  /**
   * Every block link of a model's vectors, for copying them (`groundwork migrate`) with
   * `putVectors` on the target: pages of at most `pageSize` entries, by vector in storage order
   * then block, each vector's float copy given with its first block only (the rest link to it).
   */
  dumpVectors?(space: VectorSpace, pageSize?: number): AsyncIterable<VectorEntry[]>;
}

/** Options of opening a store that are not data (callbacks): they stay in the opening process. */
export interface StoreOpenOptions {
  /** Hears of a one-time re-indexing on upgrade (SQLite): blocks done of the total. */
  onIndexRebuild?: (done: number, total: number) => void;
}

/**
 * A kind of store, as the registry (src/store/registry.ts) knows it: its spec's schema and how to
 * open one. A backend is a folder of like-named files (src/store/sqlite/) plus one registration.
 */
export interface StoreDefinition<S extends StoreSpec = StoreSpec> {
  readonly kind: S['kind'];
  /** Validates a plain object into this kind's spec (zod). */
  readonly spec: z.ZodType<S>;
  open(spec: S, options: StoreOpenOptions): Promise<LibraryStore>;
}

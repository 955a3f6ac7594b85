import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { ChunkKind } from '../chunkers/types.js';
import type { BBox, Document, Format, TableData } from '../document/types.js';

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
  /** Records that `path` now holds the (already stored) document `docId`; drops orphans. */
  recordPath(record: PathRecord): Promise<{ replacedDocId: string | null }>;
  /** Stores a document, its blocks, its path and its parse-cache entry in one transaction. */
  writeDocument(write: DocumentWrite): Promise<{ replacedDocId: string | null }>;
  /** Deletes a document with its blocks, index rows, paths and parse-cache entries. */
  removeDocument(docId: string): Promise<boolean>;

  cachedParse(key: string): Promise<Document | undefined>;

  listDocuments(): Promise<StoredDocument[]>;
  /** By exact path, exact id, or unique id prefix (INVALID_OPTIONS when a prefix matches several). */
  getDocument(idOrPath: string): Promise<StoredDocument | undefined>;
  blocksOf(docId: string): Promise<Block[]>;
  /** Every block, by document id then ordinal, fetched in pages (memory stays bounded). */
  iterateBlocks(): AsyncIterable<BlockWithPath>;

  /**
   * The best `k` blocks for `query` by BM25, best first, with every filter applied inside the store:
   * `k` results of the filter whenever that many blocks match. Empty for a query with no searchable term.
   */
  searchText(query: string, k: number, filter?: SearchFilter): Promise<TextCandidate[]>;
  /** The ranking of `searchText(query, k)` (same order, same scores) without loading the blocks. */
  rankText(query: string, k: number): Promise<RankedBlock[]>;

  stats(): Promise<StoreStats>;
  close(): Promise<void>;

  /**
   * Stores that keep originals themselves (a server database, where no folder is shared) have these
   * two; the Library then keeps originals through them, and copies them into a folder otherwise.
   * `putOriginal` streams the file at `path` into the store as the original of `docId` (a no-op when
   * it is there) and returns what the document's `original` records; `openOriginal` streams it back.
   * `removeDocument` removes a document's original with it.
   */
  putOriginal?(docId: string, path: string): Promise<string>;
  openOriginal?(docId: string): Promise<Readable | undefined>;
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

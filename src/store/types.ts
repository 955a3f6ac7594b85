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
  /** The kept original, relative to the library folder, when `copyFiles` was on. */
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

/**
 * The storage backend. SQLite is the embedded default; a Postgres backend implements the same
 * interface later. The Library speaks only this interface: no SQL outside the backend.
 */
export interface LibraryStore {
  readonly location: string;
  getSetting(key: string): string | undefined;
  setSetting(key: string, value: string): void;

  pathRecord(path: string): PathRecord | undefined;
  /** The document stored for this content hash, if any. */
  documentInfo(docId: string): { configHash: string } | undefined;
  /** Records that `path` now holds the (already stored) document `docId`; drops orphans. */
  recordPath(record: PathRecord): { replacedDocId: string | null };
  /** Stores a document, its blocks, its path and its parse-cache entry in one transaction. */
  writeDocument(write: DocumentWrite): { replacedDocId: string | null };
  removeDocument(docId: string): boolean;

  cachedParse(key: string): Document | undefined;

  listDocuments(): StoredDocument[];
  getDocument(idOrPath: string): StoredDocument | undefined;
  blocksOf(docId: string): Block[];
  iterateBlocks(): IterableIterator<Block & { path: string | null }>;
  search(query: string, k: number, filter?: SearchFilter): SearchHit[];
  stats(): StoreStats;
  close(): void;
}

/** Groundwork's public API: parse documents into one model, chunk them, count tokens exactly. */
export { parse, DEFAULT_MAX_BYTES } from './parse.js';
export { chunk, chunkText, type ChunkOptions } from './chunk.js';
export { ERROR_CODES, GroundworkError, isGroundworkError, type ErrorCode, type LimitInfo } from './errors.js';
export { CHUNK_LIMITS_SCHEMA, DEFAULT_CHUNK_LIMITS, DEFAULT_PARSE_LIMITS, PARSE_LIMITS_SCHEMA, type ChunkLimits, type ParseLimits } from './limits.js';
export { countTokens, encodeWithOffsets, getTokenizer } from './tokens/index.js';
export type { TokenOffsets, Tokenizer, TokenizerName } from './tokens/types.js';
export { getChunker, listChunkers, registerChunker, DEFAULT_STRATEGY } from './chunkers/registry.js';
export type { Chunk, ChunkKind, ChunkerDefinition, CommonChunkOptions } from './chunkers/types.js';
export { getParser, parserVersion, registerParser, supportedFormats } from './parsers/registry.js';
export type { LazyParser, ParseInput, ParseOptions, ParserDefinition } from './parsers/types.js';
export { detect } from './detect/detect.js';
export type { Detection } from './detect/types.js';
export { buildDocument, contentHash, headingPaths } from './document/build.js';
export { renderElement, renderTable } from './document/canonical.js';
export type * from './document/types.js';
export {
  Library, defaultLibraryDir, DEFAULT_MAX_FILE_SIZE, type IngestOptions, type IngestReport, type IngestProgress, type LibraryOpenOptions, type RejectedFile, type SearchOptions,
} from './library/library.js';
export { exportBlock, EXPORT_FORMATS, type ExportFormat } from './library/export.js';
export type {
  Block, BlockWithPath, DocumentWrite, PathRecord, RankedBlock, StoredDocument, SearchFilter, SearchHit, StoreCapabilities, StoreDefinition, StoreOpenOptions, StoreSpec,
  StoreStats, LibraryStore, TextCandidate, WriteResult,
} from './store/types.js';
export {
  CheckOptionsSchema, resolveCheckOptions, type CheckFinding, type CheckOptions, type CheckRepair, type CheckReport, type CheckScope, type CheckSeverity,
  type ResolvedCheckOptions,
} from './store/check.js';
export { openStore, registerStore, storeKinds } from './store/registry.js';
export { SqliteStore, type SqliteStoreOptions, type SqliteStoreSpec } from './store/sqlite/sqlite-store.js';
export { analyze as analyzeForSearch } from './search/analyze.js';
export * from './embed/index.js';
export * from './retrieval/index.js';
// Distributed ingestion (src/queue/): files queued as pg-boss jobs beside a Postgres library, workers anywhere.
export {
  enqueueFiles,
  ENQUEUE_OPTIONS_SCHEMA,
  jobId,
  openQueue,
  QUEUE_OPTIONS_SCHEMA,
  queueStatus,
  retryFailed,
  runWorker,
  WORKER_OPTIONS_SCHEMA,
  type EnqueueOptions,
  type EnqueueProgress,
  type EnqueueReport,
  type FailedJob,
  type IngestJob,
  type QueueConnection,
  type QueueCounts,
  type QueueOptions,
  type QueueStatus,
  type RunWorkerOptions,
  type WorkerEvent,
  type WorkerHandle,
  type WorkerOptions,
  type WorkerRow,
  type WorkerStats,
} from './queue/index.js';
export * from './mcp/index.js';
export {
  serve, buildServer, ServeOptionsSchema, registerServePlugin, loadKeys as loadApiKeys, newKey as newApiKey, KEY_SCOPES, STATUS_OF as HTTP_STATUS_OF,
  type ServeOptions, type ServeHandle, type ServeContext, type ServePlugin, type ApiKey, type KeyScope,
} from './serve/index.js';
export {
  IngestRequestOptionsSchema, ParseRequestOptionsSchema, ChunkRequestOptionsSchema, type IngestRequestOptions, type ParseRequestOptions, type ChunkRequestOptions,
} from './options/ingest.js';

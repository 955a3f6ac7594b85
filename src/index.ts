/** Groundwork's public API: parse documents into one model, chunk them, count tokens exactly. */
export { parse, DEFAULT_MAX_BYTES } from './parse.js';
export { chunk, chunkText, type ChunkOptions } from './chunk.js';
export { GroundworkError, isGroundworkError, type ErrorCode } from './errors.js';
export { getTokenizer } from './tokens/index.js';
export type { Tokenizer, TokenizerName } from './tokens/types.js';
export { getChunker, listChunkers, registerChunker, DEFAULT_STRATEGY } from './chunkers/registry.js';
export type { Chunk, ChunkKind, ChunkerDefinition, CommonChunkOptions } from './chunkers/types.js';
export { getParser, registerParser, supportedFormats } from './parsers/registry.js';
export type { ParseInput, ParseOptions, ParserDefinition } from './parsers/types.js';
export { detect } from './detect/detect.js';
export type { Detection } from './detect/types.js';
export { buildDocument, contentHash, headingPaths } from './document/build.js';
export { renderElement, renderTable } from './document/canonical.js';
export type * from './document/types.js';

import { getChunker, DEFAULT_STRATEGY } from './chunkers/registry.js';
import type { Chunk } from './chunkers/types.js';
import type { Document } from './document/types.js';
import { getTokenizer } from './tokens/index.js';
import type { TokenizerName } from './tokens/types.js';

/** Options for `chunk`/`chunkText`: `strategy` picks the chunker, the rest are its options. */
export interface ChunkOptions {
  strategy?: string;
  tokenizer?: TokenizerName;
  [option: string]: unknown;
}

function prepare(options: ChunkOptions) {
  const { strategy = DEFAULT_STRATEGY, tokenizer, ...rest } = options;
  const chunker = getChunker(strategy);
  const resolved = chunker.resolveOptions(rest);
  return { chunker, resolved, tokenizer: getTokenizer(tokenizer ?? chunker.defaultTokenizer ?? 'cl100k_base') };
}

/** Chunks a parsed Document; offsets refer to `doc.canonical`. */
export function chunk(doc: Document, options: ChunkOptions = {}): Chunk[] {
  const { chunker, resolved, tokenizer } = prepare(options);
  return chunker.chunkDocument(doc, resolved, tokenizer);
}

/** Chunks a plain string; offsets refer to `text` itself. */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const { chunker, resolved, tokenizer } = prepare(options);
  return chunker.chunkText(text, resolved, tokenizer);
}

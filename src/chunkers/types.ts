import type { Document, TableData } from '../document/types.js';
import type { Tokenizer, TokenizerName } from '../tokens/types.js';

export type ChunkKind = 'text' | 'table' | 'code' | 'image' | 'turn';

/**
 * One chunk. `start`/`end` is its span in the chunked text (a Document's canonical text, or the
 * string given to `chunkText`). For `structure`, `sentence` and `token`, `text === (prefix ?? '') +
 * source.slice(start, end)`; `recursive` and `chisel` chunks are LangChain's / llmware's exact
 * strings (substrings of the source); `qwen` chunks are Qwen-Agent's exact strings (with
 * `[page: N]` markers and `\n` joins), their span covering the source text they came from.
 */
export interface Chunk {
  /** Position in the chunk list, from 0. */
  index: number;
  /** What is embedded and shown to a model. */
  text: string;
  start: number;
  end: number;
  /** Length of `text` in UTF-16 code units (JavaScript string length). */
  chars: number;
  /** Exact token count of `text` with the tokenizer in use. */
  tokens: number;
  headingPath: string[];
  pageStart?: number;
  pageEnd?: number;
  kind: ChunkKind;
  strategy: string;
  /** Context prepended to the body (heading breadcrumb, repeated table header), not part of the span. */
  prefix?: string;
  /**
   * `structure` with `chunkOverlap`: where the overlap text in `prefix` starts in the source. The
   * prefix ends with `source.slice(contextStart, start)` verbatim (the previous chunk's last sentences
   * and the whitespace after them), so `[contextStart, end)` is all the source text the chunk shows.
   */
  contextStart?: number;
  /** Table chunks: the rows in this chunk (header rows included). */
  table?: TableData;
  /** Dialog chunks. */
  speaker?: string;
  startTime?: number;
  endTime?: number;
}

/** Options every strategy accepts. */
export interface CommonChunkOptions {
  /** Vocabulary for token counts and token-sized limits. Default `cl100k_base`. */
  tokenizer?: TokenizerName;
}

/**
 * A chunking strategy: one file in `src/chunkers/`, one entry in the registry.
 * `resolveOptions` validates user options (throwing INVALID_OPTIONS) and fills defaults.
 */
export interface ChunkerDefinition<O = Record<string, unknown>> {
  readonly name: string;
  readonly description: string;
  /** Vocabulary used when the caller names none (e.g. `qwen` counts with Qwen's own). Default cl100k_base. */
  readonly defaultTokenizer?: TokenizerName;
  resolveOptions(input: Record<string, unknown>): O;
  chunkDocument(doc: Document, options: O, tokenizer: Tokenizer): Chunk[];
  chunkText(text: string, options: O, tokenizer: Tokenizer): Chunk[];
}

/**
 * What chunking may store: for every strategy, the texts of a document's chunks together hold at
 * most this many times the chunked text (`doc.canonical`, or the string given to `chunkText`) plus
 * the overlap they declare (text a chunk repeats from the one before it: `structure`'s
 * `[contextStart, start)`, the shared span of `recursive`, `sentence` and `token` windows, `qwen`'s
 * 150-character tail) and a few characters of fixed overhead (`qwen`'s `[page: N]` markers in a tiny
 * document). The prefixes that repeat context are what the factor pays for: a breadcrumb (at most a
 * quarter of the limit), a table header (at most half the limit, and before a piece of a row split by
 * columns at most three times that piece), a row's key cell. Asserted over every strategy, the
 * pathological generators and random documents in test/chunkers/output-bound.test.ts.
 */
export const CHUNK_OUTPUT_FACTOR = 4;

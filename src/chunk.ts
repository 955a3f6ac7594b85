import { getChunker, DEFAULT_STRATEGY } from './chunkers/registry.js';
import type { Chunk } from './chunkers/types.js';
import type { Document } from './document/types.js';
import { isGroundworkError } from './errors.js';
import { CHUNK_LIMITS_SCHEMA, engineLimitError, limitExceeded, resolveChunkLimits, type ChunkLimits } from './limits.js';
import { getTokenizer } from './tokens/index.js';
import type { TokenizerName } from './tokens/types.js';

/**
 * Options for `chunk`/`chunkText`: `strategy` picks the chunker, `maxExpansion` bounds its output
 * (src/limits.ts), the rest are the strategy's own options.
 */
export interface ChunkOptions extends Partial<ChunkLimits> {
  strategy?: string;
  tokenizer?: TokenizerName;
  [option: string]: unknown;
}

const LIMIT_KEYS = Object.keys(CHUNK_LIMITS_SCHEMA.shape);

/** The options without the chunk limits: what a strategy's `resolveOptions` is given. */
export function withoutChunkLimits(options: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...options };
  for (const key of LIMIT_KEYS) delete rest[key];
  return rest;
}

function prepare(options: ChunkOptions) {
  const { strategy = DEFAULT_STRATEGY, tokenizer, ...rest } = options;
  const limits = resolveChunkLimits(rest);
  for (const key of LIMIT_KEYS) delete rest[key];
  const chunker = getChunker(strategy);
  const resolved = chunker.resolveOptions(rest);
  return { chunker, resolved, limits, tokenizer: getTokenizer(tokenizer ?? chunker.defaultTokenizer ?? 'cl100k_base') };
}

/** Chunks a parsed Document; offsets refer to `doc.canonical`. */
export function chunk(doc: Document, options: ChunkOptions = {}): Chunk[] {
  const { chunker, resolved, limits, tokenizer } = prepare(options);
  return bounded(() => chunker.chunkDocument(doc, resolved, tokenizer), doc.canonical.length, limits);
}

/** Chunks a plain string; offsets refer to `text` itself. */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const { chunker, resolved, limits, tokenizer } = prepare(options);
  return bounded(() => chunker.chunkText(text, resolved, tokenizer), text.length, limits);
}

/**
 * Runs a chunker under the chunk limits. The engine's own limits (stack, string length) are
 * LIMIT_EXCEEDED, never a crash; and the chunks may hold at most `maxExpansion` times the text they
 * cover: the source length plus each chunk's overlap with the one before (so the declared overlap
 * is always allowed), with 1 KiB of slack for tiny texts. What can exceed it is what a chunk adds
 * to its body (heading breadcrumbs, repeated table headers), repeated without bound.
 */
function bounded(run: () => Chunk[], sourceLength: number, limits: ChunkLimits): Chunk[] {
  let chunks: Chunk[];
  try {
    chunks = run();
  } catch (error) {
    if (isGroundworkError(error)) throw error;
    throw engineLimitError(error, undefined, 'chunk') ?? error;
  }
  let stored = 0;
  let overlap = 0;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    stored += c.text.length;
    if (i > 0) overlap += Math.max(0, chunks[i - 1]!.end - c.start);
  }
  const allowed = limits.maxExpansion * (sourceLength + overlap) + 1024;
  if (stored > allowed) {
    throw limitExceeded('maxExpansion', limits.maxExpansion, `the ${chunks.length} chunks would hold ${stored} characters for ${sourceLength} characters of text (${overlap} of overlap): more than ${limits.maxExpansion} times as much`);
  }
  return chunks;
}

import type { Chunk } from './types.js';
import type { Tokenizer } from '../tokens/types.js';

/**
 * Gives a chunk its `tokens` as an enumerable getter that counts on first read and then becomes a
 * plain value. Splitters that need no counts to decide where to cut (recursive in chars mode) stay
 * as fast as the splitting itself for callers that never read the count; JSON, spreads and
 * structured clones read it like any field.
 */
export function withLazyTokens(chunk: Omit<Chunk, 'tokens'>, tokenizer: Tokenizer): Chunk {
  return Object.defineProperty(chunk, 'tokens', {
    enumerable: true,
    configurable: true,
    get(this: Chunk): number {
      const tokens = tokenizer.count(this.text);
      Object.defineProperty(this, 'tokens', { value: tokens, enumerable: true, writable: true, configurable: true });
      return tokens;
    },
  }) as Chunk;
}

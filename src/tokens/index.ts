// INTERIM (replaced by the fast BPE engine): exact counts through gpt-tokenizer.
import { createRequire } from 'node:module';
import { GroundworkError } from '../errors.js';
import type { Tokenizer, TokenizerName } from './types.js';

const require = createRequire(import.meta.url);
const cache = new Map<TokenizerName, Tokenizer>();

export function getTokenizer(name: TokenizerName = 'cl100k_base'): Tokenizer {
  let tokenizer = cache.get(name);
  if (tokenizer) return tokenizer;
  if (name !== 'cl100k_base' && name !== 'o200k_base') {
    throw new GroundworkError('INVALID_OPTIONS', `tokenizer '${name}' is not available yet`);
  }
  const mod = require(`gpt-tokenizer/cjs/encoding/${name}`) as {
    encode(text: string, opts?: unknown): number[];
    decode(tokens: readonly number[]): string;
  };
  tokenizer = {
    name,
    encode: (text) => mod.encode(text, { disallowedSpecial: new Set() }),
    decode: (tokens) => mod.decode(tokens),
    count: (text) => mod.encode(text, { disallowedSpecial: new Set() }).length,
  };
  cache.set(name, tokenizer);
  return tokenizer;
}

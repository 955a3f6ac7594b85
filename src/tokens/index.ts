import { GroundworkError } from '../errors.js';
import { cl100kPieceEnd, o200kPieceEnd, qwenPieceEnd } from './scanner.js';
import { BpeTokenizer, type EncodingSpec } from './tokenizer.js';
import type { TokenOffsets, Tokenizer, TokenizerName } from './types.js';
import { buildVocabulary, loadOpenAiRanks, loadQwenRanks, QWEN_RANKS } from './vocab.js';

export type { TokenOffsets, Tokenizer, TokenizerName } from './types.js';
export { BpeTokenizer } from './tokenizer.js';

/** Qwen-Agent's qwen.tiktoken specials: <|endoftext|>, <|im_start|>, <|im_end|>, <|extra_0..204|>. */
function qwenSpecials(): Map<string, number> {
  const specials = new Map<string, number>([
    ['<|endoftext|>', QWEN_RANKS],
    ['<|im_start|>', QWEN_RANKS + 1],
    ['<|im_end|>', QWEN_RANKS + 2],
  ]);
  for (let i = 0; i < 205; i++) specials.set(`<|extra_${i}|>`, QWEN_RANKS + 3 + i);
  return specials;
}

const SPECS: Record<TokenizerName, EncodingSpec> = {
  cl100k_base: {
    name: 'cl100k_base',
    pieceEnd: cl100kPieceEnd,
    specials: new Map([
      ['<|endoftext|>', 100257],
      ['<|fim_prefix|>', 100258],
      ['<|fim_middle|>', 100259],
      ['<|fim_suffix|>', 100260],
      ['<|endofprompt|>', 100276],
    ]),
    allowSpecials: false,
    nfc: false,
    loadVocabulary: () => buildVocabulary(loadOpenAiRanks('cl100k_base')),
  },
  o200k_base: {
    name: 'o200k_base',
    pieceEnd: o200kPieceEnd,
    specials: new Map([
      ['<|endoftext|>', 199999],
      ['<|endofprompt|>', 200018],
    ]),
    allowSpecials: false,
    nfc: false,
    loadVocabulary: () => buildVocabulary(loadOpenAiRanks('o200k_base')),
  },
  qwen: {
    name: 'qwen',
    pieceEnd: qwenPieceEnd,
    specials: qwenSpecials(),
    allowSpecials: true,
    nfc: true,
    loadVocabulary: () => buildVocabulary(loadQwenRanks()),
  },
};

const cache = new Map<TokenizerName, BpeTokenizer>();

/**
 * The tokenizer for a vocabulary. Cheap to call: the vocabulary loads on the first encode/count
 * (synchronously, once per process) and is shared by every later call.
 */
export function getTokenizer(name: TokenizerName = 'cl100k_base'): Tokenizer {
  let tokenizer = cache.get(name);
  if (tokenizer) return tokenizer;
  const spec = Object.hasOwn(SPECS, name) ? SPECS[name] : undefined;
  if (!spec) {
    throw new GroundworkError('INVALID_OPTIONS', `unknown tokenizer '${String(name)}': use one of ${Object.keys(SPECS).join(', ')}`);
  }
  tokenizer = new BpeTokenizer(spec);
  cache.set(name, tokenizer);
  return tokenizer;
}

/** Exact token count of `text` (cl100k_base unless named). */
export function countTokens(text: string, name: TokenizerName = 'cl100k_base'): number {
  return getTokenizer(name).count(text);
}

/** Tokens of `text` and the UTF-16 offset where each ends (see TokenOffsets). */
export function encodeWithOffsets(text: string, name: TokenizerName = 'cl100k_base'): TokenOffsets {
  return getTokenizer(name).encodeWithOffsets(text);
}

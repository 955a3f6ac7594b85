/**
 * Pre-tokenizer patterns, rewritten from tiktoken's so that V8 (Node 20) matches exactly what
 * tiktoken's Rust regex engine matches:
 * - `(?i:...)` inline modifiers are spelled out as case alternatives. Unicode case-insensitive
 *   matching also folds `s` with U+017F (ſ, long s), so `[sSſ]`.
 * - `\s` is Rust's Unicode White_Space, which differs from JavaScript's `\s`: Rust includes U+0085
 *   (NEL), JavaScript includes U+FEFF (BOM). Both are spelled out here.
 * - Possessive quantifiers (cl100k's current pattern) are dropped: in these alternatives
 *   backtracking into them can never produce another match, so the result is the same.
 * Every character is matched by some alternative, so matches tile the text and a sticky (`y`)
 * regex can walk it without allocating match arrays.
 */
const WS = String.raw`\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;
const S = `[${WS}]`;
const NOT_S = `[^${WS}]`;
const PUNCT = `[^${WS}\\p{L}\\p{N}]`;
const CONTRACTION = String.raw`'(?:[sSſ]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`;

/** tiktoken cl100k_base: `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s` */
export const CL100K_PATTERN = [
  CONTRACTION,
  String.raw`[^\r\n\p{L}\p{N}]?\p{L}+`,
  String.raw`\p{N}{1,3}`,
  ` ?${PUNCT}+[\\r\\n]*`,
  `${S}+$`,
  `${S}*[\\r\\n]`,
  `${S}+(?!${NOT_S})`,
  S,
].join('|');

/** tiktoken o200k_base (letters split by case, contractions attached, `/` kept after punctuation). */
export const O200K_PATTERN = [
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:${CONTRACTION})?`,
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:${CONTRACTION})?`,
  String.raw`\p{N}{1,3}`,
  ` ?${PUNCT}+[\\r\\n/]*`,
  `${S}*[\\r\\n]+`,
  `${S}+(?!${NOT_S})`,
  `${S}+`,
].join('|');

/** Qwen-Agent's PAT_STR: cl100k's older pattern with single digits (`\p{N}`). */
export const QWEN_PATTERN = [
  CONTRACTION,
  String.raw`[^\r\n\p{L}\p{N}]?\p{L}+`,
  String.raw`\p{N}`,
  ` ?${PUNCT}+[\\r\\n]*`,
  `${S}*[\\r\\n]+`,
  `${S}+(?!${NOT_S})`,
  `${S}+`,
].join('|');

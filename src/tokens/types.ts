/** The BPE vocabularies Groundwork counts with. Counts are exact, never estimated. */
export type TokenizerName = 'cl100k_base' | 'o200k_base' | 'qwen';

/**
 * Tokens with their positions in the encoded string, for cutting text at token boundaries.
 * Token i spans `text.slice(i === 0 ? 0 : ends[i - 1], ends[i])`.
 */
export interface TokenOffsets {
  /** The ids `encode(text)` returns. */
  readonly tokens: number[];
  /**
   * UTF-16 offset in `text` just after each token, non-decreasing, the last one `text.length`.
   * A token that ends inside a character (BPE works on UTF-8 bytes, so a CJK character or an emoji
   * can be split over several tokens) is reported as ending after that character: such tokens
   * share one end offset and the later ones span the empty string. Cutting at any `ends[i]` never
   * splits a character or a surrogate pair.
   */
  readonly ends: number[];
}

export interface Tokenizer {
  readonly name: TokenizerName;
  encode(text: string): number[];
  /** Text of the tokens; bytes that are not valid UTF-8 on their own decode to U+FFFD. */
  decode(tokens: readonly number[]): string;
  /** Exact token count, without materialising the token array. */
  count(text: string): number;
  /** The tokens of `text` and where each ends in it (see TokenOffsets). */
  encodeWithOffsets(text: string): TokenOffsets;
  /**
   * Only `encodeWithOffsets(text).ends`, in a typed array (4 bytes a token, no id array): what
   * chunkers that cut a whole text at token boundaries hold while they cut. Optional: without it
   * callers copy `encodeWithOffsets(text).ends` (see `tokenEndsOf` in src/chunkers/token.ts).
   */
  tokenEnds?(text: string): Uint32Array;
}

/** The BPE vocabularies Groundwork counts with. Counts are exact, never estimated. */
export type TokenizerName = 'cl100k_base' | 'o200k_base' | 'qwen';

export interface Tokenizer {
  readonly name: TokenizerName;
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
  /** Exact token count, without materialising the token array. */
  count(text: string): number;
}

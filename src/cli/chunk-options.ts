import type { ChunkOptions } from '../chunk.js';
import { DEFAULT_STRATEGY, getChunker } from '../chunkers/registry.js';
import type { TokenizerName } from '../tokens/types.js';
import { camelCase, UsageError } from './args.js';

export const TOKENIZERS: readonly TokenizerName[] = ['cl100k_base', 'o200k_base', 'qwen'];
export const LENGTH_UNITS = ['tokens', 'chars'] as const;
export type LengthUnit = (typeof LENGTH_UNITS)[number];

/** The generic chunk flags, before they are mapped onto one strategy's own option names. */
export interface ChunkFlags {
  strategy: string;
  chunkSize?: number | undefined;
  chunkOverlap?: number | undefined;
  unit?: string | undefined;
  tokenizer?: string | undefined;
  /** Raw `--opt key=value` strings, passed through to the strategy. */
  opts: readonly string[];
}

/** Where a generic flag goes for one strategy: an option name, or why the flag does not apply. */
type Target = { option: string } | { reject: string };

interface StrategyFlagMap {
  size: Target;
  overlap: Target;
  /** `lengthUnit` option, or the one unit the strategy measures in (the other is rejected). */
  unit: { option: string } | { only: LengthUnit; why: string };
}

/**
 * The generic flags mapped onto each built-in strategy's contract option names (issue 2). A strategy
 * an application registers itself gets the plain names (`chunkSize`, `chunkOverlap`, `lengthUnit`).
 */
const FLAG_MAPS: Record<string, StrategyFlagMap> = {
  structure: {
    size: { option: 'chunkSize' },
    overlap: { option: 'chunkOverlap' },
    unit: { only: 'tokens', why: 'structure sizes chunks in tokens' },
  },
  recursive: {
    size: { option: 'chunkSize' },
    overlap: { option: 'chunkOverlap' },
    unit: { option: 'lengthUnit' },
  },
  sentence: {
    size: { option: 'chunkSize' },
    overlap: { option: 'chunkOverlap' },
    unit: { option: 'lengthUnit' },
  },
  token: {
    size: { option: 'chunkSize' },
    overlap: { option: 'chunkOverlap' },
    unit: { only: 'tokens', why: 'token sizes chunks in tokens' },
  },
  chisel: {
    size: { option: 'maxCharSize' },
    overlap: { reject: "chisel does not overlap chunks; it looks back for a clean stop instead (--opt lookBackCharRange=N)" },
    unit: { only: 'chars', why: "chisel measures in characters (code points), like llmware's TextChunker" },
  },
  qwen: {
    size: { option: 'parserPageSize' },
    overlap: { reject: "qwen's overlap is fixed by Qwen-Agent (the previous chunk's last sentences, up to 150 characters)" },
    unit: { only: 'tokens', why: 'qwen sizes chunks in tokens, like Qwen-Agent' },
  },
};

const GENERIC_MAP: StrategyFlagMap = {
  size: { option: 'chunkSize' },
  overlap: { option: 'chunkOverlap' },
  unit: { option: 'lengthUnit' },
};

/** Option names the CLI sets itself; `--opt` may not set them a second time. */
const RESERVED_OPTS = new Set(['strategy']);

/**
 * Turns the generic flags into the options `chunk()` takes for `flags.strategy`. Flags that make no
 * sense for the strategy are usage errors that say why; whether the strategy exists and whether its
 * own options are valid is decided by the strategy itself (INVALID_OPTIONS).
 */
export function buildChunkOptions(flags: ChunkFlags): ChunkOptions {
  const map = FLAG_MAPS[flags.strategy] ?? GENERIC_MAP;
  const options: ChunkOptions = { strategy: flags.strategy };
  const setBy = new Map<string, string>();
  const set = (key: string, value: unknown, source: string): void => {
    const earlier = setBy.get(key);
    if (earlier) throw new UsageError(`option '${key}' is given twice (${earlier} and ${source})`);
    setBy.set(key, source);
    options[key] = value;
  };

  if (flags.chunkSize !== undefined) set(targetOption(map.size, '--chunk-size'), flags.chunkSize, '--chunk-size');
  if (flags.chunkOverlap !== undefined) set(targetOption(map.overlap, '--chunk-overlap'), flags.chunkOverlap, '--chunk-overlap');
  if (flags.unit !== undefined) {
    if (!(LENGTH_UNITS as readonly string[]).includes(flags.unit)) {
      throw new UsageError(`--unit must be one of ${LENGTH_UNITS.join(', ')}, got '${flags.unit}'`);
    }
    if ('option' in map.unit) set(map.unit.option, flags.unit, '--unit');
    else if (flags.unit !== map.unit.only) throw new UsageError(`--unit ${flags.unit} does not apply: ${map.unit.why}`);
  }
  if (flags.tokenizer !== undefined) {
    if (!(TOKENIZERS as readonly string[]).includes(flags.tokenizer)) {
      throw new UsageError(`--tokenizer must be one of ${TOKENIZERS.join(', ')}, got '${flags.tokenizer}'`);
    }
    set('tokenizer', flags.tokenizer, '--tokenizer');
  }
  for (const raw of flags.opts) {
    const { key, value } = parseOpt(raw);
    if (RESERVED_OPTS.has(key)) throw new UsageError(`use --${key} instead of --opt ${key}=...`);
    set(key, value, `--opt ${key}`);
  }
  return options;
}

function targetOption(target: Target, flagName: string): string {
  if ('reject' in target) throw new UsageError(`${flagName} does not apply: ${target.reject}`);
  return target.option;
}

/**
 * `key=value`: the key may be camelCase or kebab-case; the value is JSON when it parses as JSON
 * (numbers, true/false, null, arrays, quoted strings), else the raw string, so `--opt language=python`
 * and `--opt 'separators=["\n\n","\n"]'` both work.
 */
export function parseOpt(raw: string): { key: string; value: unknown } {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new UsageError(`--opt expects key=value, got '${raw}'`);
  const key = camelCase(raw.slice(0, eq).trim());
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(key)) throw new UsageError(`--opt key '${raw.slice(0, eq)}' is not an option name`);
  const text = raw.slice(eq + 1);
  try {
    return { key, value: JSON.parse(text) as unknown };
  } catch {
    return { key, value: text };
  }
}

/** The vocabulary a run counts with, for summaries: the flag, else the strategy's own default. */
export function effectiveTokenizer(options: ChunkOptions, strategyDefault: TokenizerName | undefined): TokenizerName {
  return (options.tokenizer as TokenizerName | undefined) ?? strategyDefault ?? 'cl100k_base';
}

/**
 * Checks the strategy name and its options the way `chunk()` will (INVALID_OPTIONS on a bad one),
 * so a typo fails before any input is read. Returns the strategy's definition.
 */
export function validateChunkOptions(options: ChunkOptions) {
  const { strategy = DEFAULT_STRATEGY, tokenizer: _tokenizer, ...rest } = options;
  const chunker = getChunker(strategy);
  chunker.resolveOptions(rest);
  return chunker;
}

import type { ChunkOptions } from '../chunk.js';
import { buildChunkOptions, parseOpt, validateChunkOptions } from '../cli/chunk-options.js';
import { UsageError } from '../cli/args.js';

/** One chunking configuration under evaluation: the string that names it and the options it means. */
export interface EvalConfig {
  /** `name:key=value,...`, as given to `--strategy` (the JSON report's `config`). */
  config: string;
  /** Short name for tables. */
  label: string;
  options: ChunkOptions;
}

/** Chroma chunking_evaluation's RecursiveTokenChunker separators (its default list). */
export const CHROMA_SEPARATORS: readonly string[] = ['\n\n', '\n', '.', '?', '!', ' ', ''];

const CHROMA_SEPARATORS_JSON = JSON.stringify(CHROMA_SEPARATORS);

/**
 * The peers every report shows (issue 6): LangChain's defaults, Chroma's four recursive token
 * configurations, llmware's chisel, Qwen-Agent's 500-token chunker; `structure` with its defaults
 * is listed first.
 */
export const BASELINE_SPECS: readonly { label: string; config: string }[] = [
  { label: 'structure (default)', config: 'structure' },
  { label: 'LangChain 1000/200 chars', config: 'recursive:chunkSize=1000,chunkOverlap=200,unit=chars' },
  ...[
    [800, 400],
    [400, 200],
    [400, 0],
    [200, 0],
  ].map(([size, overlap]) => ({
    label: `Chroma recursive ${size}/${overlap} tokens`,
    config: `recursive:chunkSize=${size},chunkOverlap=${overlap},unit=tokens,separators=${CHROMA_SEPARATORS_JSON}`,
  })),
  { label: 'chisel 600/300', config: 'chisel:maxCharSize=600,lookBackCharRange=300' },
  { label: 'qwen 500', config: 'qwen:parserPageSize=500' },
];

export function baselineConfigs(): EvalConfig[] {
  return BASELINE_SPECS.map(({ label, config }) => ({ ...parseStrategySpec(config), label }));
}

/** Generic keys map onto each strategy's own option names exactly as the chunk command's flags do. */
const GENERIC_KEYS = new Set(['chunkSize', 'chunkOverlap', 'unit', 'tokenizer']);

/**
 * `recursive:chunkSize=800,chunkOverlap=400,unit=tokens` -> options. Values are JSON when they
 * parse as JSON (numbers, booleans, arrays), else strings; commas inside `[...]`, `{...}` or quotes
 * do not separate options, so `separators=["\n\n","."]` works. Invalid options are usage errors.
 */
export function parseStrategySpec(spec: string): EvalConfig {
  const colon = spec.indexOf(':');
  const strategy = (colon < 0 ? spec : spec.slice(0, colon)).trim();
  if (strategy === '') throw new UsageError(`--strategy needs a strategy name, got '${spec}'`);
  const flags: { strategy: string; chunkSize?: number; chunkOverlap?: number; unit?: string; tokenizer?: string; opts: string[] } = { strategy, opts: [] };
  for (const item of colon < 0 ? [] : splitTopLevel(spec.slice(colon + 1))) {
    const { key, value } = parseOpt(item);
    if (!GENERIC_KEYS.has(key)) {
      flags.opts.push(item);
      continue;
    }
    if (key === 'unit' || key === 'tokenizer') flags[key] = String(value);
    else if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) flags[key as 'chunkSize' | 'chunkOverlap'] = value;
    else throw new UsageError(`--strategy ${spec}: ${key} must be a non-negative integer`);
  }
  const options = buildChunkOptions(flags);
  validateChunkOptions(options);
  return { config: spec, label: spec, options };
}

/** Splits `a=1,b=[x,y],c="p,q"` at the commas outside brackets and quotes; empty items dropped. */
function splitTopLevel(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quoted = false;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '[' || ch === '{') depth++;
    else if (ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      items.push(text.slice(from, i));
      from = i + 1;
    }
  }
  items.push(text.slice(from));
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

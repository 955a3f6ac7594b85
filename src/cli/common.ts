import { parse } from '../parse.js';
import { supportedFormats } from '../parsers/registry.js';
import type { ParseOptions } from '../parsers/types.js';
import type { Document, Format } from '../document/types.js';
import { commaList, integerValue, stringValue, flag, UsageError, type OptionSpecs, type ParsedArgs } from './args.js';
import { STDIN_NAME, type CliIO } from './io.js';

/** Flags every command that parses documents accepts. */
export const PARSE_FLAG_SPECS = {
  format: { type: 'string' },
  'json-keys': { type: 'string' },
  'keep-boilerplate': { type: 'boolean' },
  'max-bytes': { type: 'string' },
} as const satisfies OptionSpecs;

export const HELP_FLAG_SPEC = { help: { type: 'boolean', short: 'h' } } as const satisfies OptionSpecs;

export const CHUNK_FLAG_SPECS = {
  strategy: { type: 'string', short: 's' },
  'chunk-size': { type: 'string' },
  'chunk-overlap': { type: 'string' },
  unit: { type: 'string' },
  tokenizer: { type: 'string' },
  opt: { type: 'string', short: 'o', multiple: true },
} as const satisfies OptionSpecs;

export const PARSE_FLAGS_HELP = `Parse options:
  --format F            force the format instead of detecting it (${supportedFormats().join(', ')})
  --json-keys a,b       JSON/JSONL: keys whose values become each record's text (default: text)
  --keep-boilerplate    HTML: keep navigation, headers and footers (default: main content only)
  --max-bytes N         refuse inputs larger than N bytes (default: 512 MiB)`;

export function parseOptionsFrom(args: ParsedArgs): ParseOptions {
  const options: ParseOptions = {};
  const format = stringValue(args, 'format');
  if (format !== undefined) {
    const known = supportedFormats();
    if (!known.includes(format as Format)) throw new UsageError(`--format must be one of ${known.join(', ')}, got '${format}'`);
    options.format = format as Format;
  }
  const keys = stringValue(args, 'json-keys');
  if (keys !== undefined) {
    const list = commaList(keys);
    if (list.length === 0) throw new UsageError('--json-keys needs at least one key name');
    options.jsonKeys = list;
  }
  if (flag(args, 'keep-boilerplate')) options.htmlMainContent = false;
  const maxBytes = integerValue(args, 'max-bytes', 1);
  if (maxBytes !== undefined) options.maxBytes = maxBytes;
  return options;
}

/** Exactly one FILE (or `-`) positional, else a usage error. */
export function singleFile(args: ParsedArgs): string {
  if (args.positionals.length === 0) throw new UsageError('missing FILE (a path, or - for stdin)');
  if (args.positionals.length > 1) throw new UsageError(`expected one FILE, got ${args.positionals.length}: ${args.positionals.join(' ')}`);
  return args.positionals[0]!;
}

/** Parses a path, or stdin's bytes for `-` (detected like any file; `--format` forces). */
export async function parseFileArg(io: CliIO, file: string, options: ParseOptions): Promise<Document> {
  if (file !== '-') return parse(file, options);
  const bytes = await io.readStdin();
  return parse(bytes, { name: STDIN_NAME, ...options });
}

/** Parser warnings go to stderr so stdout stays the document or the chunks. */
export function printWarnings(io: CliIO, label: string, doc: Document): void {
  for (const warning of doc.warnings) io.err(`groundwork: ${label}: warning: ${warning}\n`);
}

import type { z } from 'zod';
import { CHUNK_LIMITS_SCHEMA, limitFlag, PARSE_LIMITS_SCHEMA } from '../limits.js';
import { integerValue, type OptionSpecs, type ParsedArgs } from './args.js';

/**
 * CLI flags for the limit options, derived from their schemas in src/limits.ts: `maxNesting`
 * becomes `--max-nesting N`, with the schema's description and default as its help.
 */
type LimitSchema = z.ZodObject<Record<string, z.ZodDefault<z.ZodNumber>>>;

function specs(schema: LimitSchema): OptionSpecs {
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [limitFlag(name).slice(2), { type: 'string' as const }]));
}

function help(schema: LimitSchema): string {
  return Object.entries(schema.shape)
    .map(([name, field]) => {
      const usage = `  ${limitFlag(name)} N`.padEnd(24);
      const fallback = (field.parse(undefined) as number).toLocaleString('en-US');
      return wrap(`${usage}${field.description ?? name} (default: ${fallback})`);
    })
    .join('\n');
}

/** Help lines wrapped at 100 columns, continuations under the description (column 24). */
function wrap(line: string): string {
  const lines: string[] = [];
  let current = '';
  for (const word of line.split(/(?<=\S) (?=\S)/)) {
    if (current && current.length + 1 + word.length > 100) {
      lines.push(current);
      current = ' '.repeat(24) + word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  lines.push(current);
  return lines.join('\n');
}

function values(schema: LimitSchema, args: ParsedArgs): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = integerValue(args, limitFlag(name).slice(2), 1);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export const PARSE_LIMIT_FLAG_SPECS = specs(PARSE_LIMITS_SCHEMA);
export const CHUNK_LIMIT_FLAG_SPECS = specs(CHUNK_LIMITS_SCHEMA);
export const PARSE_LIMIT_FLAGS_HELP = help(PARSE_LIMITS_SCHEMA);
export const CHUNK_LIMIT_FLAGS_HELP = help(CHUNK_LIMITS_SCHEMA);

/** `{ maxNesting: 64 }` for `--max-nesting 64`; only the flags given. */
export function parseLimitsFrom(args: ParsedArgs): Record<string, number> {
  return values(PARSE_LIMITS_SCHEMA, args);
}

export function chunkLimitsFrom(args: ParsedArgs): Record<string, number> {
  return values(CHUNK_LIMITS_SCHEMA, args);
}

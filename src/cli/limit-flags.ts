import type { z } from 'zod';
import { CHUNK_LIMITS_SCHEMA, FILE_LIMITS_SCHEMA, limitFlag, PARSE_LIMITS_SCHEMA, type FileLimits } from '../limits.js';
import { integerValue, stringValue, UsageError, type OptionSpecs, type ParsedArgs } from './args.js';

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

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?$/i;
const DURATION_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
const MEGABYTES = /^(\d+(?:\.\d+)?)\s*(m|mb|mib|g|gb|gib)?$/i;

/** `90`, `90s`, `2m`, `500ms`, `1h` -> milliseconds (a bare number is seconds). */
export function parseDuration(raw: string, flagName: string): number {
  const match = DURATION.exec(raw.trim());
  const ms = match ? Math.round(Number(match[1]) * DURATION_MS[(match[2] ?? 's').toLowerCase()]!) : NaN;
  if (!Number.isSafeInteger(ms) || ms < 1) throw new UsageError(`${flagName} must be a duration: seconds, or with a unit (500ms, 90s, 2m, 1h), got '${raw}'`);
  return ms;
}

/** `512`, `512MB`, `1GB`, `1.5G` -> megabytes (a bare number is MB; binary units). */
export function parseMegabytes(raw: string, flagName: string): number {
  const match = MEGABYTES.exec(raw.trim());
  const unit = match?.[2]?.toLowerCase().startsWith('g') ? 1024 : 1;
  const mb = match ? Math.round(Number(match[1]) * unit) : NaN;
  if (!Number.isSafeInteger(mb) || mb < 1) throw new UsageError(`${flagName} must be a size in MB, or with a unit (512MB, 1GB), got '${raw}'`);
  return mb;
}

const FILE_LIMIT_UNITS: Record<keyof FileLimits, { usage: string; parse: (raw: string, flag: string) => number; show: (value: number) => string }> = {
  fileTimeoutMs: { usage: 'DURATION', parse: parseDuration, show: (ms) => `${ms / 1000}s` },
  fileMemoryMb: { usage: 'SIZE', parse: parseMegabytes, show: (mb) => `${mb}MB` },
};

export const FILE_LIMIT_FLAG_SPECS: OptionSpecs = Object.fromEntries(Object.keys(FILE_LIMITS_SCHEMA.shape).map((name) => [limitFlag(name).slice(2), { type: 'string' as const }]));

export const FILE_LIMIT_FLAGS_HELP = Object.entries(FILE_LIMITS_SCHEMA.shape)
  .map(([name, field]) => {
    const unit = FILE_LIMIT_UNITS[name as keyof FileLimits];
    const usage = `  ${limitFlag(name)} ${unit.usage}`;
    const text = `${field.description ?? name} (default: ${unit.show(field.parse(undefined) as number)})`;
    // A usage too long for its column gets a line of its own, as the other long flags do.
    return usage.length < 23 ? wrap(`${usage.padEnd(24)}${text}`) : `${usage}\n${wrap(`${' '.repeat(24)}${text}`)}`;
  })
  .join('\n');

/** `{ fileTimeoutMs: 300000 }` for `--file-timeout 5m`; only the flags given. */
export function fileLimitsFrom(args: ParsedArgs): Partial<FileLimits> {
  const out: Partial<FileLimits> = {};
  for (const name of Object.keys(FILE_LIMITS_SCHEMA.shape) as (keyof FileLimits)[]) {
    const flag = limitFlag(name);
    const raw = stringValue(args, flag.slice(2));
    if (raw !== undefined) out[name] = FILE_LIMIT_UNITS[name].parse(raw, flag);
  }
  return out;
}

import { parseArgs } from 'node:util';

/** A mistake in how the command was called: exit code 2, message plus a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The option shapes `util.parseArgs` accepts, narrowed to what the commands use. */
export type OptionSpecs = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

/**
 * Strict parsing: unknown flags, missing values and flags given a value they cannot take are usage
 * errors. A lone `-` stays a positional (stdin).
 */
export function parseCommandArgs(argv: readonly string[], options: OptionSpecs): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (error) {
    throw new UsageError(shortParseArgsMessage(error as Error & { code?: string }));
  }
}

/** Node's messages explain `--` escaping at length; keep the part a user needs. */
function shortParseArgsMessage(error: Error & { code?: string }): string {
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(error.message)?.[1];
    return flag ? `unknown option '${flag}'` : error.message;
  }
  return error.message.replace(/^Option/, 'option');
}

export function stringValue(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function stringValues(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function flag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}

/** A non-negative integer flag value (`min` 1 for sizes), or a usage error naming the flag. */
export function integerValue(args: ParsedArgs, name: string, min: number): number | undefined {
  const raw = stringValue(args, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`--${name} must be an integer >= ${min}, got '${raw}'`);
  }
  return Number(raw);
}

/** `--a` and `--b` together make no sense (e.g. `--json --md`). */
export function exclusive(args: ParsedArgs, names: readonly string[]): void {
  const given = names.filter((n) => args.values[n] !== undefined && args.values[n] !== false);
  if (given.length > 1) throw new UsageError(`${given.map((n) => `--${n}`).join(' and ')} cannot be used together`);
}

/** `a,b , c` -> ['a', 'b', 'c']; empty items dropped. */
export function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `max-char-size` -> `maxCharSize`. */
export function camelCase(name: string): string {
  return name.replace(/[-_]+([a-z0-9])/gi, (_, c: string) => c.toUpperCase());
}

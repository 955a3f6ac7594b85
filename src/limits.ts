import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod';
import { GroundworkError, type LimitInfo } from './errors.js';

/**
 * The limits `parse()` and `chunk()` enforce in process, so a library user gets the same answers
 * (LIMIT_EXCEEDED naming the limit) as an ingest that runs them in workers. Defined once here: the
 * options, their defaults, the CLI flags that raise them and the help text all come from these
 * schemas. Documented in docs/library.md ("Limits").
 */

const positive = (description: string, fallback: number) => z.number().int().min(1).default(fallback).describe(description);

export const PARSE_LIMITS_SCHEMA = z.object({
  maxNesting: positive(
    'most levels structure may nest: JSON values, Markdown quotes and lists, XML elements in Office/ODF/EPUB parts, RTF groups; deeper HTML is flattened into its ancestor at this depth',
    256,
  ),
  maxTableColumns: positive('most columns a table row may have (CSV, spreadsheets, HTML, Markdown...); Excel holds 16,384', 16_384),
});

export const CHUNK_LIMITS_SCHEMA = z.object({
  maxExpansion: positive(
    "most characters a document's chunks may hold, as a multiple of its text plus the chunks' overlap with each other (breadcrumbs and repeated table headers are what can grow)",
    8,
  ),
});

/**
 * Per-file limits of an ingest (`IngestOptions`), held by killing the worker process that breaks
 * them (src/library/process-pool.ts): the file is rejected, nothing of it is stored, the batch goes on.
 */
export const FILE_LIMITS_SCHEMA = z.object({
  fileTimeoutMs: positive('wall time one file may take to parse and chunk in its worker (TIMEOUT past it)', 120_000),
  fileMemoryMb: positive(
    "memory one worker process may use while it parses and chunks a file: its resident set, Node's own ~90 MB and PDFium's WASM memory included (LIMIT_EXCEEDED past it)",
    512,
  ),
});

export type ParseLimits = z.infer<typeof PARSE_LIMITS_SCHEMA>;
export type ChunkLimits = z.infer<typeof CHUNK_LIMITS_SCHEMA>;
export type FileLimits = z.infer<typeof FILE_LIMITS_SCHEMA>;

export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = Object.freeze(PARSE_LIMITS_SCHEMA.parse({}));
export const DEFAULT_CHUNK_LIMITS: Readonly<ChunkLimits> = Object.freeze(CHUNK_LIMITS_SCHEMA.parse({}));
export const DEFAULT_FILE_LIMITS: Readonly<FileLimits> = Object.freeze(FILE_LIMITS_SCHEMA.parse({}));

/** Flags that do not follow the rule below: they take a unit (`--file-timeout 90s`, `--file-memory 1GB`). */
const FLAG_NAMES: Record<string, string> = { fileTimeoutMs: '--file-timeout', fileMemoryMb: '--file-memory' };

/** `maxNesting` -> `--max-nesting`: the CLI flag of a limit option is its kebab-cased name, unless FLAG_NAMES says otherwise. */
export function limitFlag(name: string): string {
  return FLAG_NAMES[name] ?? `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Limits as given by a caller (any subset), validated: INVALID_OPTIONS names the bad one. */
function resolve<S extends z.ZodObject>(schema: S, given: Record<string, unknown>, what: string): z.infer<S> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) if (given[key] !== undefined) picked[key] = given[key];
  const result = schema.safeParse(picked);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new GroundworkError('INVALID_OPTIONS', `${what}: ${issue.path.join('.')} ${issue.message.replace(/^Too small: expected number to be /, 'must be ')}`);
  }
  return result.data;
}

export function resolveParseLimits(options: Record<string, unknown>): ParseLimits {
  return resolve(PARSE_LIMITS_SCHEMA, options, 'parse options');
}

export function resolveChunkLimits(options: Record<string, unknown>): ChunkLimits {
  return resolve(CHUNK_LIMITS_SCHEMA, options, 'chunk options');
}

export function resolveFileLimits(options: Record<string, unknown>): FileLimits {
  return resolve(FILE_LIMITS_SCHEMA, options, 'ingest options');
}

/**
 * The parse limits in force. `parse()` runs each parser inside `withParseLimits`, so code deep in
 * a parser (the XML reader, the HTML builder) reads them without every caller passing them down;
 * a parser called directly gets the defaults.
 */
const current = new AsyncLocalStorage<ParseLimits>();

export function withParseLimits<T>(limits: ParseLimits, run: () => T): T {
  return current.run(limits, run);
}

export function parseLimits(): ParseLimits {
  return current.getStore() ?? DEFAULT_PARSE_LIMITS;
}

/** The LIMIT_EXCEEDED error for the limit `name` at `value`: the message names the option and the flag that raises it. */
export function limitExceeded(name: string, value: number, message: string, options: { cause?: unknown; flag?: string | null } = {}): GroundworkError {
  const flag = options.flag === null ? undefined : options.flag ?? limitFlag(name);
  const limit: LimitInfo = { name, value, ...(flag && { flag }) };
  const raise = flag ? `; raise it with ${flag}` : '';
  return new GroundworkError('LIMIT_EXCEEDED', `${message} (${name} ${value}${raise})`, { limit, ...(options.cause !== undefined && { cause: options.cause }) });
}

/** Throws LIMIT_EXCEEDED for structure nested deeper than `maxNesting`; `what` names it ("JSON values"). */
export function nestingExceeded(what: string, maxNesting = parseLimits().maxNesting, cause?: unknown): never {
  throw limitExceeded('maxNesting', maxNesting, `${what} nest more than ${maxNesting} levels deep`, { cause });
}

/** True for V8's stack overflow (what deep recursion in a parser ends in). */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack size/i.test(error.message);
}

/**
 * True for V8's refusals to allocate (a string over its maximum length of about 2^29 characters,
 * an array or buffer too large): the input is too big to hold, not damaged.
 */
export function isAllocationFailure(error: unknown): boolean {
  return error instanceof RangeError && /invalid (?:string|array|typed array) length|allocation failed|out of memory/i.test(error.message);
}

/**
 * The error a parser or chunker's own failure becomes when it is a limit of the engine rather
 * than a fault of the input: stack overflow (nesting too deep for a parser; for a chunker, a
 * limit it should not have) and failed allocations (size). Undefined for any other error.
 */
export function engineLimitError(error: unknown, maxNesting = parseLimits().maxNesting, stage: 'parse' | 'chunk' = 'parse'): GroundworkError | undefined {
  if (isStackOverflow(error)) {
    if (stage === 'chunk') {
      return limitExceeded('stackSize', STACK_SIZE_KB, 'the chunker ran out of stack on this document (please report it); Node\'s --stack-size=KB raises the stack', { cause: error, flag: null });
    }
    return limitExceeded('maxNesting', maxNesting, 'the document nests structure too deeply to process (the parser ran out of stack)', { cause: error });
  }
  if (isAllocationFailure(error)) {
    return limitExceeded('maxStringLength', MAX_STRING_LENGTH, `the document is too large to hold in memory (${(error as Error).message}); split it into smaller files`, { cause: error, flag: null });
  }
  return undefined;
}

/** V8's longest string on 64-bit platforms ((1 << 29) - 24 characters), and Node's default stack (KB). */
const MAX_STRING_LENGTH = 2 ** 29 - 24;
const STACK_SIZE_KB = 984;

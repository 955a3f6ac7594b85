import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { GroundworkError } from '../errors.js';
import { defaultLibraryDir, Library } from '../library/library.js';
import { parse } from '../parse.js';
import { supportedFormats } from '../parsers/registry.js';
import { reviewFlagChoices, reviewFlagsHelp, reviewOptionsSchema, type ReviewOptions } from '../parsers/review-options.js';
import type { ParseOptions } from '../parsers/types.js';
import type { Document, Format } from '../document/types.js';
import type { StoreSpec } from '../store/types.js';
import { commaList, integerValue, stringValue, flag, UsageError, type OptionSpecs, type ParsedArgs } from './args.js';
import { STDIN_NAME, type CliIO } from './io.js';
import { indexRebuildReporter } from './progress.js';
import { PARSE_LIMIT_FLAG_SPECS, PARSE_LIMIT_FLAGS_HELP, parseLimitsFrom } from './limit-flags.js';

/** Flags every command that parses documents accepts. */
/** Parse flags shared by `parse`, `chunk` and `ingest` (ingest takes all but --format/--max-bytes). */
export const CONTENT_FLAG_SPECS = {
  'json-keys': { type: 'string' },
  'keep-boilerplate': { type: 'boolean' },
  password: { type: 'string' },
  ocr: { type: 'string' },
  'ocr-lang': { type: 'string' },
  comments: { type: 'string' },
  revisions: { type: 'string' },
  ...PARSE_LIMIT_FLAG_SPECS,
} as const satisfies OptionSpecs;

export const PARSE_FLAG_SPECS = {
  ...CONTENT_FLAG_SPECS,
  format: { type: 'string' },
  'max-bytes': { type: 'string' },
} as const satisfies OptionSpecs;

export const CONTENT_FLAGS_HELP = `  --json-keys a,b       JSON/JSONL: keys whose values become each record's text (default: text)
  --keep-boilerplate    HTML: keep navigation, headers and footers (default: main content only)
  --password P          password for encrypted PDFs
  --ocr auto|on|off     OCR scanned pages and images: auto = pages without usable text (default)
  --ocr-lang L          Tesseract languages, e.g. eng, chi_sim, eng+chi_sim (default: eng+chi_sim)
${reviewFlagsHelp()}
${PARSE_LIMIT_FLAGS_HELP}`;

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
${CONTENT_FLAGS_HELP}
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
  const password = stringValue(args, 'password');
  if (password !== undefined) options.password = password;
  const ocr = stringValue(args, 'ocr');
  if (ocr !== undefined) {
    if (ocr !== 'auto' && ocr !== 'on' && ocr !== 'off') throw new UsageError(`--ocr must be auto, on or off, got '${ocr}'`);
    options.ocr = ocr;
  }
  const ocrLang = stringValue(args, 'ocr-lang');
  if (ocrLang !== undefined) {
    if (!/^[A-Za-z_]+(\+[A-Za-z_]+)*$/.test(ocrLang)) throw new UsageError(`--ocr-lang takes Tesseract language codes joined by '+', e.g. eng+chi_sim; got '${ocrLang}'`);
    options.ocrLang = ocrLang;
  }
  for (const name of Object.keys(reviewOptionsSchema.shape) as (keyof ReviewOptions)[]) {
    const value = stringValue(args, name);
    if (value === undefined) continue;
    const parsed = reviewOptionsSchema.shape[name].safeParse(value);
    if (!parsed.success) throw new UsageError(`--${name} must be ${reviewFlagChoices(name).join(' or ')}, got '${value}'`);
    (options as Record<string, unknown>)[name] = parsed.data;
  }
  const maxBytes = integerValue(args, 'max-bytes', 1);
  if (maxBytes !== undefined) options.maxBytes = maxBytes;
  Object.assign(options, parseLimitsFrom(args));
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

/**
 * `--library DIR`, accepted by every command that reads or writes a library, with `--postgres URL`
 * (the library in a PostgreSQL database instead of DIR/library.sqlite) and `--postgres-schema NAME`.
 */
export const LIBRARY_FLAG_SPEC = {
  library: { type: 'string', short: 'L' },
  postgres: { type: 'string' },
  'postgres-schema': { type: 'string' },
} as const satisfies OptionSpecs;

export const LIBRARY_FLAG_HELP = `  -L, --library DIR     the library folder (default: $GROUNDWORK_HOME, else ./.groundwork)
  --postgres URL        keep the library in PostgreSQL (postgres://user:pass@host:port/db; default
                        $GROUNDWORK_DATABASE_URL): documents, blocks, index, parse cache and kept
                        originals live in the database, nothing under --library; docs/scale-out.md
  --postgres-schema S   the schema holding the library (default $GROUNDWORK_DATABASE_SCHEMA, else
                        groundwork): one database holds several libraries`;

/** The environment variables naming a Postgres library when no flag does. */
export const DATABASE_URL_ENV = 'GROUNDWORK_DATABASE_URL';
export const DATABASE_SCHEMA_ENV = 'GROUNDWORK_DATABASE_SCHEMA';

/**
 * The store the flags (else the environment) name: a Postgres spec for `--postgres URL` or
 * $GROUNDWORK_DATABASE_URL, undefined for the default SQLite file in the library folder. An
 * explicit `--library` with no `--postgres` means the folder, whatever the environment says.
 */
export function libraryStoreFrom(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): StoreSpec | undefined {
  const flagged = stringValue(args, 'postgres');
  if (flagged !== undefined && flagged.trim() === '') throw new UsageError('--postgres needs a URL (postgres://user:password@host:port/database)');
  const url = flagged ?? (stringValue(args, 'library') === undefined ? nonEmpty(env[DATABASE_URL_ENV]) : undefined);
  const schema = stringValue(args, 'postgres-schema') ?? nonEmpty(env[DATABASE_SCHEMA_ENV]);
  if (url === undefined) {
    if (stringValue(args, 'postgres-schema') !== undefined) throw new UsageError(`--postgres-schema needs --postgres URL (or $${DATABASE_URL_ENV})`);
    return undefined;
  }
  return { kind: 'postgres', url, ...(schema !== undefined && { schema }) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

/** The folder `--library` names, else the library default ($GROUNDWORK_HOME or ./.groundwork). */
export function libraryDirFrom(args: ParsedArgs): string {
  const dir = stringValue(args, 'library');
  if (dir !== undefined && dir.trim() === '') throw new UsageError('--library needs a folder');
  return dir !== undefined ? resolve(dir) : defaultLibraryDir();
}

/**
 * Opens an existing library for the commands that only read or remove: they must not create an
 * empty library where the user mistyped a folder (or a schema).
 */
export async function openExistingLibrary(args: ParsedArgs, io: CliIO): Promise<Library> {
  const dir = libraryDirFrom(args);
  const store = libraryStoreFrom(args);
  if (store) return openLibrary(dir, io, { ...store, create: false });
  if (!existsSync(join(dir, LIBRARY_FILE))) {
    throw new GroundworkError('IO', `no library here (no ${LIBRARY_FILE}); create one with 'groundwork ingest PATH --library ${dir}'`, { file: dir });
  }
  return openLibrary(dir, io);
}

/**
 * Opens (or creates) a library, telling the user on stderr when an upgrade re-indexes it; in `store`
 * when given (libraryStoreFrom), else in DIR/library.sqlite.
 */
export function openLibrary(dir: string, io: CliIO, store?: StoreSpec): Promise<Library> {
  return Library.open(dir, { ...(store && { store }), onIndexRebuild: indexRebuildReporter(io) });
}

/** How messages name a library: its folder, or where its store is (a server, without credentials). */
export function libraryLabel(library: Library): string {
  return library.storeKind === undefined || library.storeKind === 'sqlite' ? displayPath(library.dir) : library.location;
}

const LIBRARY_FILE = 'library.sqlite';

/** A path as a user would type it: relative to the working folder when it is inside it. */
export function displayPath(path: string | null): string {
  if (path === null) return '(no path)';
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** Terminal columns a string takes: CJK and full-width characters take two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += WIDE.test(ch) ? 2 : 1;
  return width;
}
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1faff}]|[\u{20000}-\u{3fffd}]/u;

/** Cuts `text` to at most `width` columns, marking a cut with `…` (never splits a code point). */
export function truncateToWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let used = 1;
  let out = '';
  for (const ch of text) {
    const w = WIDE.test(ch) ? 2 : 1;
    if (used + w > width) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/**
 * A pipe table (readable in a terminal and valid Markdown); columns listed in `right` are
 * right-aligned, for numbers.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], right: readonly number[] = []): string {
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.map((row) => displayWidth(row[i] ?? ''))));
  const pad = (cell: string, i: number) => {
    const fill = ' '.repeat(widths[i]! - displayWidth(cell));
    return right.includes(i) ? fill + cell : cell + fill;
  };
  const line = (cells: readonly string[]) => `| ${header.map((_, i) => pad(cells[i] ?? '', i)).join(' | ')} |\n`;
  const rule = `|${widths.map((w, i) => ` ${'-'.repeat(Math.max(1, w - (right.includes(i) ? 1 : 0)))}${right.includes(i) ? ':' : ''} |`).join('')}\n`;
  return line(header) + rule + rows.map(line).join('');
}

/** `1536` -> `1.5 KB`; binary units (1 KB = 1024 bytes), as `--max-file-size` reads them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** `n noun(s)`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

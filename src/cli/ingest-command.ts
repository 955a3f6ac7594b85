import { stat } from 'node:fs/promises';
import { DEFAULT_STRATEGY } from '../chunkers/registry.js';
import { GroundworkError, type LimitInfo } from '../errors.js';
import { type Library, type IngestOptions, type IngestReport, type RejectedFile } from '../library/library.js';
import type { EmbeddingReport } from '../library/vectors.js';
import { flag, integerValue, parseCommandArgs, stringValue, stringValues, UsageError, type ParsedArgs } from './args.js';
import { chunkOptionsFrom, CHUNK_FLAGS_HELP } from './chunk-command.js';
import { validateChunkOptions } from './chunk-options.js';
import {
  CHUNK_FLAG_SPECS,
  CONTENT_FLAG_SPECS,
  CONTENT_FLAGS_HELP,
  count,
  displayPath,
  formatBytes,
  formatTable,
  HELP_FLAG_SPEC,
  LIBRARY_FLAG_HELP,
  LIBRARY_FLAG_SPEC,
  libraryDirFrom,
  libraryLabel,
  libraryStoreFrom,
  openLibrary,
  parseOptionsFrom,
} from './common.js';
import { EMBED_FLAG_SPECS, EMBED_FLAGS_HELP, embedFlagsFrom } from './embed-options.js';
import { EXIT_FAILED, EXIT_OK, reportError, type CliIO } from './io.js';
import { CHUNK_LIMIT_FLAG_SPECS, CHUNK_LIMIT_FLAGS_HELP, chunkLimitsFrom, FILE_LIMIT_FLAG_SPECS, FILE_LIMIT_FLAGS_HELP, fileLimitsFrom } from './limit-flags.js';
import { ProgressLine, terminalOf } from './progress.js';
import { queueFrom } from './queue-common.js';
import { enqueueFiles } from '../queue/enqueue.js';
import { redactUrl } from '../queue/connection.js';

export const INGEST_HELP = `Usage: groundwork ingest PATH... [options]

Adds files and folders (recursively; hidden files and the library's own folder are skipped) to the
library: each file is detected, parsed, chunked into blocks and indexed for search. Content is
deduplicated by hash, never by name; unchanged files are skipped without being read again, and a
changed file replaces its old blocks. A file that fails is rejected with its reason and the batch
goes on.

Options:
${LIBRARY_FLAG_HELP}
  --include GLOB        only files whose path (relative to the folder given) matches; repeatable
  --exclude GLOB        skip files whose path matches; repeatable (e.g. --exclude '**/drafts/**')
  --max-file-size SIZE  reject larger files with TOO_LARGE: bytes, or with a unit: 10MB, 512KB, 1GB
                        (binary units: 1MB = 1024 KB; default 512MB)
  --no-copy             do not keep a copy of each original (under the library's files/ folder,
                        or in the database with --postgres)
  --dry-run             parse and chunk, report what would change, write nothing
  --workers N           worker processes that parse and chunk (default: cores - 1, at least
                        1, at most 8; 0 = all in this process, without the per-file limits)
${FILE_LIMIT_FLAGS_HELP}
  --json                print the report as JSON instead of a table
  --queue               record the files as jobs in the library's queue and return (needs
                        --postgres); 'groundwork worker' processes ingest them, on any machine
                        that reads the same paths (or any machine, with --upload);
                        'groundwork jobs' shows progress
  --retry-limit N       with --queue: attempts after the first when a worker is lost (default 3)
  --upload              with --queue: store each file's bytes with its job, so workers on machines
                        that do not see PATH ingest it from the database (deleted once stored)
  --max-upload-size SIZE  with --upload: reject larger files with LIMIT_EXCEEDED (default 64MB)
  --no-embed            store blocks only, even when an embedder is configured (groundwork embed
                        adds the vectors later)
${CONTENT_FLAGS_HELP}

${CHUNK_FLAGS_HELP}
${CHUNK_LIMIT_FLAGS_HELP}

${EMBED_FLAGS_HELP}
  When an embedder is configured (flags, environment, or the library's settings from an earlier
  run), new blocks are embedded as they are stored, in batches across documents: blocks land first,
  vectors follow. A document whose embedding fails stays stored without vectors and is listed with
  EMBEDDER; groundwork embed adds them later. The library keeps one model: an embedder of another
  model is refused (use groundwork embed --model to switch).

On a terminal, a progress line (files, MB, rate, ETA, current file) is drawn on stderr.
The report lists documents added, updated and unchanged, blocks, pages, tables, images, the number
of files parsed, the duration, and every rejected file with its code, reason and what to do.

Exit codes: 0 the batch ran (even if some files were rejected); 1 a PATH does not exist (nothing is
ingested), or files were found but none could be stored; 2 usage error.
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...LIBRARY_FLAG_SPEC,
  ...CHUNK_FLAG_SPECS,
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'max-file-size': { type: 'string' },
  'no-copy': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  workers: { type: 'string' },
  json: { type: 'boolean' },
  queue: { type: 'boolean' },
  'retry-limit': { type: 'string' },
  upload: { type: 'boolean' },
  'max-upload-size': { type: 'string' },
  'no-embed': { type: 'boolean' },
  ...CONTENT_FLAG_SPECS,
  ...FILE_LIMIT_FLAG_SPECS,
  ...CHUNK_LIMIT_FLAG_SPECS,
  ...EMBED_FLAG_SPECS,
} as const;

export async function ingestCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let library: Library | undefined;
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(INGEST_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length === 0) throw new UsageError('missing PATH (files or folders to add)');
    const options = ingestOptionsFrom(args, DEFAULT_STRATEGY);
    const dir = libraryDirFrom(args);
    const store = libraryStoreFrom(args);
    // A mistyped path fails before anything is written: an ingest of half the intended set is
    // easy to miss in a long report.
    for (const path of args.positionals) await mustExist(path);

    library = await openLibrary(dir, io, store);
    // Without --strategy, the library's own default strategy applies (a setting of the library).
    const stored = (await library.settings()).strategy;
    const finalOptions = stringValue(args, 'strategy') === undefined && stored !== DEFAULT_STRATEGY ? ingestOptionsFrom(args, stored) : options;

    if (flag(args, 'queue')) return await queueFiles(args, finalOptions, io);
    for (const name of ['retry-limit', 'upload', 'max-upload-size']) {
      if (args.values[name] !== undefined) throw new UsageError(`--${name} needs --queue`);
    }
    if (!flag(args, 'no-embed') && !finalOptions.dryRun) await library.useEmbedder({ flags: embedFlagsFrom(args) });

    const terminal = terminalOf(io);
    const progress = terminal?.errIsTTY ? new ProgressLine(io.err, terminal.columns) : undefined;
    // Ctrl-C stops the batch cleanly (workers killed, what has committed kept, the report printed);
    // a second Ctrl-C quits at once.
    const stop = new AbortController();
    const onInterrupt = () => {
      if (stop.signal.aborted) process.exit(130);
      stop.abort();
      io.err('\nstopping: the documents already written are kept (Ctrl-C again to quit now)\n');
    };
    process.on('SIGINT', onInterrupt);
    let report: IngestReport;
    try {
      report = await library.addFiles(args.positionals, { ...finalOptions, signal: stop.signal, ...(progress && { onProgress: (p) => progress.update(p) }) });
    } finally {
      process.off('SIGINT', onInterrupt);
      progress?.finish();
    }

    if (flag(args, 'json')) io.out(`${JSON.stringify(report, null, 2)}\n`);
    else io.out(formatReport(report, libraryLabel(library), finalOptions.strategy ?? DEFAULT_STRATEGY));
    const landed = report.docsAdded + report.docsUpdated + report.docsSkipped;
    return landed === 0 && report.rejected.length > 0 ? EXIT_FAILED : EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'ingest');
  } finally {
    await library?.close();
  }
}

/** `ingest --queue`: the files become jobs for `groundwork worker`; nothing is parsed here. */
async function queueFiles(args: ParsedArgs, options: IngestOptions, io: CliIO): Promise<number> {
  const queue = queueFrom(args, 'ingest --queue');
  if (options.dryRun) throw new UsageError('--dry-run and --queue cannot be used together');
  const retryLimit = integerValue(args, 'retry-limit', 0);
  const upload = flag(args, 'upload');
  const maxUpload = stringValue(args, 'max-upload-size');
  if (maxUpload !== undefined && !upload) throw new UsageError('--max-upload-size needs --upload');
  const { onProgress: _unused, ...carried } = options;
  const report = await enqueueFiles(args.positionals, queue, {
    ...carried,
    ...(retryLimit !== undefined && { retryLimit }),
    ...(upload && { upload: true }),
    ...(maxUpload !== undefined && { maxUploadSize: parseSize(maxUpload, '--max-upload-size') }),
  });
  if (flag(args, 'json')) {
    io.out(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const rows: [string, string][] = [
      ['files queued', String(report.queued)],
      ['already queued or done', String(report.alreadyQueued)],
      ['bytes queued', formatBytes(report.bytesQueued)],
      ...(upload ? [['bytes uploaded', formatBytes(report.bytesUploaded)] as [string, string]] : []),
      ['files rejected', String(report.rejected.length)],
      ['duration', `${(report.durationMs / 1000).toFixed(1)} s`],
    ];
    let text = `Queue ${report.schema}.${report.queue} on ${redactUrl(queue.url)}\n\n${formatTable(['', 'count'], rows, [1])}`;
    if (report.rejected.length > 0) {
      text += `\n${count(report.rejected.length, 'file')} rejected:\n`;
      for (const r of report.rejected) text += formatRejected(r);
    }
    text += `\nRun 'groundwork worker --postgres URL' on each ingest machine${upload ? '' : ' (one that reads these paths)'}; 'groundwork jobs --postgres URL' shows progress.\n`;
    io.out(text);
  }
  return report.queued + report.alreadyQueued === 0 && report.rejected.length > 0 ? EXIT_FAILED : EXIT_OK;
}

/** The library's ingest options from the flags; the chunk flags are mapped as `chunk` maps them. */
export function ingestOptionsFrom(args: ParsedArgs, defaultStrategy: string): IngestOptions & { strategy: string } {
  const flags = args.values.strategy === undefined ? { ...args, values: { ...args.values, strategy: defaultStrategy } } : args;
  const chunkOptions = chunkOptionsFrom(flags);
  validateChunkOptions(chunkOptions);
  const { strategy = defaultStrategy, tokenizer, ...strategyOptions } = chunkOptions;
  const options: IngestOptions & { strategy: string } = { strategy, chunkOptions: { ...strategyOptions, ...chunkLimitsFrom(args) }, ...fileLimitsFrom(args) };
  if (tokenizer !== undefined) options.tokenizer = tokenizer;
  const parseOptions = parseOptionsFrom(args);
  if (Object.keys(parseOptions).length > 0) options.parseOptions = parseOptions;
  const include = stringValues(args, 'include');
  const exclude = stringValues(args, 'exclude');
  if (include.length > 0) options.include = include;
  if (exclude.length > 0) options.exclude = exclude;
  const maxSize = stringValue(args, 'max-file-size');
  if (maxSize !== undefined) options.maxFileSize = parseSize(maxSize, '--max-file-size');
  if (flag(args, 'no-copy')) options.copyFiles = false;
  if (flag(args, 'dry-run')) options.dryRun = true;
  const workers = integerValue(args, 'workers', 0);
  if (workers !== undefined) options.workers = workers;
  return options;
}


const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 };
const SIZE = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;

/** `10MB` -> 10485760: bytes, or a number with a binary unit (K, KB, KiB, M, MB, MiB, G, GB, GiB). */
export function parseSize(raw: string, flagName: string): number {
  const match = SIZE.exec(raw.trim());
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new UsageError(`${flagName} must be a size in bytes or with a unit (e.g. 1048576, 512KB, 10MB, 1GB), got '${raw}'`);
  }
  return bytes;
}

async function mustExist(path: string): Promise<void> {
  try {
    await stat(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or folder' : (cause as Error).message;
    throw new GroundworkError('IO', `${reason}; nothing was ingested`, { file: path, cause });
  }
}

/** The readable report: what changed, then every rejected file with what to do about it. */
/** `library` is how the library is named (libraryLabel). */
export function formatReport(report: IngestReport, library: string, strategy: string): string {
  const rows: [string, string][] = [
    ['documents added', String(report.docsAdded)],
    ['documents updated', String(report.docsUpdated)],
    ['documents unchanged', String(report.docsSkipped)],
    ['blocks', String(report.blocksAdded)],
    ['pages', String(report.pagesAdded)],
    ['tables', String(report.tablesAdded)],
    ['images', String(report.imagesAdded)],
    ['files parsed', String(report.parsed)],
    ['files rejected', String(report.rejected.length)],
    ['duration', `${(report.durationMs / 1000).toFixed(1)} s`],
  ];
  const title = report.dryRun
    ? `Dry run (nothing written) for ${library}, strategy ${strategy}`
    : `Library ${library}, strategy ${strategy}`;
  let text = `${title}${report.aborted ? ' (stopped before every file was done)' : ''}\n\n${formatTable(['', 'count'], rows, [1])}`;
  if (report.embedding) text += `\n${formatEmbedding(report.embedding)}`;
  if (report.rejected.length > 0) {
    text += `\n${count(report.rejected.length, 'file')} rejected:\n`;
    for (const r of report.rejected) text += formatRejected(r);
  }
  return text;
}

/** Vectors: blocks embedded, reused, split; documents whose embedding failed. */
export function formatEmbedding(e: EmbeddingReport): string {
  const rows: [string, string][] = [
    ['blocks with vectors', String(e.blocks)],
    ['texts embedded', String(e.embedded)],
    ['blocks reused', String(e.reused)],
    ['blocks split (too long)', String(e.split)],
    ['tokens sent', String(e.tokens)],
  ];
  let text = `Vectors (${e.model})\n\n${formatTable(['', 'count'], rows, [1])}`;
  if (e.failed.length > 0) {
    text += `\n${count(e.failed.length, 'document')} stored without vectors:\n`;
    for (const f of e.failed) text += `  ${displayPath(f.path)} [${f.code}]: ${f.reason.startsWith(`${f.path}: `) ? f.reason.slice(f.path.length + 2) : f.reason}\n`;
  }
  return text;
}

function formatRejected(r: RejectedFile): string {
  // Reasons usually start with the path; it is already on the line.
  const reason = r.reason.startsWith(`${r.path}: `) ? r.reason.slice(r.path.length + 2) : r.reason;
  return `  ${displayPath(r.path)} [${r.code}]: ${reason}\n    -> ${rejectionHint(r.code, r.path, r.limit)}\n`;
}

/** What a user can do about a rejected file, by its code (and the limit it hit, when it names one). */
export function rejectionHint(code: string, path: string, limit?: LimitInfo): string {
  if (limit?.flag && (code === 'LIMIT_EXCEEDED' || code === 'TIMEOUT' || code === 'TOO_LARGE')) {
    return `the file is over a limit (${limit.name} ${limit.value}): if you trust it, raise the limit with ${limit.flag}; otherwise --exclude it`;
  }
  switch (code) {
    case 'ENCRYPTED':
      return /\.pdf$/i.test(path)
        ? 'the file is password-protected: pass --password, or save a copy without the password'
        : 'the file is password-protected: save a copy without the password and ingest that';
    case 'UNSUPPORTED':
      return 'Groundwork cannot read this format yet (or needs what the reason names): convert the file (to PDF, DOCX, HTML, Markdown or text) or --exclude it';
    case 'TOO_LARGE':
      return 'raise the limit with --max-file-size (e.g. --max-file-size 2GB)';
    case 'CORRUPT':
      return 'the file is damaged or truncated: open and re-save it, or get a fresh copy';
    case 'EMPTY':
      return 'nothing to index (no text in the file): remove it or --exclude it';
    case 'LIMIT_EXCEEDED':
      return 'the file exceeds a safety limit (nesting, entries or expansion): check where it came from';
    case 'TIMEOUT':
      return 'the file took longer than --file-timeout to parse and chunk: raise it (e.g. --file-timeout 10m) or --exclude the file';
    case 'CRASHED':
      return 'the parser crashed on this file (a fault of Groundwork or a library it uses, not proof the file is damaged): please report it, and --exclude the file meanwhile';
    case 'IO':
      return 'the file could not be read: check that it exists and that you may read it';
    default:
      return 'see the reason above';
  }
}

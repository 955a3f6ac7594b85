import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { GroundworkError } from '../errors.js';
import { EXPORT_FORMATS, exportBlock, type ExportFormat } from '../library/export.js';
import type { Library } from '../library/library.js';
import type { Block, StoredDocument } from '../store/types.js';
import { flag, parseCommandArgs, stringValue, UsageError, type OptionSpecs, type ParsedArgs } from './args.js';
import { count, displayPath, formatBytes, formatTable, HELP_FLAG_SPEC, libraryLabel, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC, openExistingLibrary, truncateToWidth } from './common.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { pageLabel } from './search-command.js';

const JSON_SPECS = { ...HELP_FLAG_SPEC, ...LIBRARY_FLAG_SPEC, json: { type: 'boolean' } } as const;

export const LS_HELP = `Usage: groundwork ls [--json] [--library DIR]

Lists the library's documents, oldest first: id (first 12 characters; any unique prefix works in
show, rm and search --doc), format, pages, blocks, size, title and path.

Options:
${LIBRARY_FLAG_HELP}
  --json                a JSON array of documents: id, path (the first), paths (every path the same
                        content was found at), format, title, pages, blocks, bytes, addedAt, and the
                        other stored fields (mime, language, tables, images, strategy, ...)
`;

export const SHOW_HELP = `Usage: groundwork show DOC [--json] [--blocks] [--library DIR]

Prints one document's stored fields; DOC is its id, a unique id prefix, or one of its paths.

Options:
${LIBRARY_FLAG_HELP}
  --blocks              also print its blocks (text, kind, heading path, pages, offsets, tokens)
  --json                the document as JSON (the fields of ls --json plus metadata and warnings;
                        with --blocks, a "blocks" array)
Exit codes: 0 ok, 1 no such document, 2 usage error (or an id prefix that matches several).
`;

export const RM_HELP = `Usage: groundwork rm DOC [--json] [--library DIR]

Removes one document (id, unique id prefix, or path) with its blocks, search entries, paths and
parse-cache entry, and its kept copy (under files/, or in the database). Your own files are not
touched.

Options:
${LIBRARY_FLAG_HELP}
  --json                print the removed document as JSON
Exit codes: 0 removed, 1 no such document, 2 usage error.
`;

export const STATS_HELP = `Usage: groundwork stats [--json] [--library DIR]

Prints the library's folder, its default strategy and tokenizer, and the number of documents,
blocks, paths, tokens, source bytes, parse-cache entries and documents per format.

Options:
${LIBRARY_FLAG_HELP}
  --json                the same as one JSON object
`;

export const EXPORT_HELP = `Usage: groundwork export [--format F] [--output FILE] [--library DIR]

Writes every block of the library, one JSON object per line (JSONL), document by document in
block order; streamed, so the export's size does not matter.

Options:
${LIBRARY_FLAG_HELP}
  --format F            jsonl (default): the block with all its fields plus the document's path;
                        langchain: LangChain's Document ({ pageContent, metadata, id });
                        llamaindex: LlamaIndex's TextNode ({ id_, text, metadata, relationships,
                        start_char_idx, end_char_idx, class_name: "TextNode", ... })
  -o, --output FILE     write to FILE instead of stdout
`;

/** A document by id, unique id prefix or path (a relative path is taken from the working folder). */
export async function findDocument(library: Library, ref: string): Promise<StoredDocument> {
  const doc = (await library.document(ref)) ?? (existsSync(ref) ? await library.document(resolve(ref)) : undefined);
  if (!doc) {
    throw new GroundworkError('IO', `no document with this id, id prefix or path in ${libraryLabel(library)} (see 'groundwork ls')`, { file: ref });
  }
  return doc;
}

/** A stored document as `ls --json` and `show --json` print it. */
export function documentJson(doc: StoredDocument): Record<string, unknown> {
  const { id, paths, format, title, pageCount, blocks, bytes, addedAt, ...rest } = doc;
  return { id, path: paths[0] ?? null, paths, format, title, pages: pageCount, blocks, bytes, addedAt, ...rest };
}

function singleDoc(args: ParsedArgs): string {
  if (args.positionals.length === 0) throw new UsageError('missing DOC (a document id, id prefix or path)');
  if (args.positionals.length > 1) throw new UsageError(`expected one DOC, got ${args.positionals.length}: ${args.positionals.join(' ')}`);
  return args.positionals[0]!;
}

function noPositionals(args: ParsedArgs): void {
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
}

/** Parses the flags, answers --help, opens the library, runs `body`, closes; errors the usual way. */
async function withLibrary(
  name: string,
  help: string,
  specs: OptionSpecs,
  argv: readonly string[],
  io: CliIO,
  body: (library: Library, args: ParsedArgs) => Promise<void> | void,
  check: (args: ParsedArgs) => void = noPositionals,
): Promise<number> {
  let library: Library | undefined;
  try {
    const args = parseCommandArgs(argv, specs);
    if (flag(args, 'help')) {
      io.out(help);
      return EXIT_OK;
    }
    // Usage is checked before the library is opened: a usage error is exit 2 wherever it is run.
    check(args);
    library = await openExistingLibrary(args, io);
    await body(library, args);
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, name);
  } finally {
    await library?.close();
  }
}

export function lsCommand(argv: readonly string[], io: CliIO): Promise<number> {
  return withLibrary('ls', LS_HELP, JSON_SPECS, argv, io, async (library, args) => {
    const docs = await library.documents();
    if (flag(args, 'json')) {
      io.out(`${JSON.stringify(docs.map(documentJson), null, 2)}\n`);
      return;
    }
    if (docs.length === 0) {
      io.out(`The library ${libraryLabel(library)} is empty: add files with 'groundwork ingest PATH'.\n`);
      return;
    }
    const rows = docs.map((d) => [
      d.id.slice(0, 12),
      d.format,
      d.pageCount === null ? '' : String(d.pageCount),
      String(d.blocks),
      formatBytes(d.bytes),
      truncateToWidth(d.title ?? '', 40),
      d.paths.map(displayPath).join(', '),
    ]);
    io.out(formatTable(['id', 'format', 'pages', 'blocks', 'size', 'title', 'path'], rows, [2, 3, 4]));
    io.out(`\n${count(docs.length, 'document')}\n`);
  });
}

const SHOW_SPECS = { ...JSON_SPECS, blocks: { type: 'boolean' } } as const;

export function showCommand(argv: readonly string[], io: CliIO): Promise<number> {
  return withLibrary('show', SHOW_HELP, SHOW_SPECS, argv, io, async (library, args) => {
    const doc = await findDocument(library, singleDoc(args));
    const blocks = flag(args, 'blocks') ? await library.blocks(doc.id) : undefined;
    if (flag(args, 'json')) {
      io.out(`${JSON.stringify({ ...documentJson(doc), ...(blocks && { blocks }) }, null, 2)}\n`);
      return;
    }
    io.out(formatDocument(doc));
    if (blocks) io.out(`\n${blocks.map(formatBlock).join('\n')}`);
  }, singleDoc);
}

function formatDocument(doc: StoredDocument): string {
  const fields: [string, string][] = [
    ['id', doc.id],
    ['title', doc.title ?? ''],
    ['format', `${doc.format} (${doc.mime})`],
    ['language', doc.language ?? ''],
    ['pages', doc.pageCount === null ? '' : String(doc.pageCount)],
    ['size', `${formatBytes(doc.bytes)} (${doc.bytes} bytes)`],
    ['blocks', `${doc.blocks} (strategy ${doc.strategy}, config ${doc.configHash.slice(0, 12)})`],
    ['tables', String(doc.tables)],
    ['images', String(doc.images)],
    ['added', doc.addedAt],
    ['original', doc.original ?? '(not kept)'],
  ];
  const width = Math.max(...fields.map(([k]) => k.length), 'paths'.length);
  let text = fields.filter(([, v]) => v !== '').map(([k, v]) => `${k.padEnd(width)}  ${v}\n`).join('');
  text += doc.paths.map((p, i) => `${(i === 0 ? 'paths' : '').padEnd(width)}  ${p}\n`).join('');
  const metadata = Object.entries(doc.metadata);
  if (metadata.length > 0) text += `metadata\n${metadata.map(([k, v]) => `  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`).join('')}`;
  if (doc.warnings.length > 0) text += `warnings\n${doc.warnings.map((w) => `  ${w}\n`).join('')}`;
  return text;
}

/** One block in `show --blocks`: a header line with its provenance, the heading path, the text. */
function formatBlock(b: Block): string {
  const parts = [`#${b.ordinal}`, b.kind, `${b.tokens} tokens`, `${b.chars} chars`];
  const pages = pageLabel(b.pageStart, b.pageEnd);
  if (pages) parts.push(pages);
  parts.push(`[${b.start}, ${b.end})`);
  const path = b.headingPath.length > 0 ? `\n   ${b.headingPath.join(' > ')}` : '';
  return `--- ${parts.join(' | ')}${path}\n${b.text}\n`;
}

export function rmCommand(argv: readonly string[], io: CliIO): Promise<number> {
  return withLibrary('rm', RM_HELP, JSON_SPECS, argv, io, async (library, args) => {
    const doc = await findDocument(library, singleDoc(args));
    await library.remove(doc.id);
    if (flag(args, 'json')) io.out(`${JSON.stringify(documentJson(doc), null, 2)}\n`);
    else io.out(`Removed ${doc.id.slice(0, 12)} (${doc.paths.map(displayPath).join(', ') || doc.title || doc.format}): ${count(doc.blocks, 'block')}.\n`);
  }, singleDoc);
}

export function statsCommand(argv: readonly string[], io: CliIO): Promise<number> {
  return withLibrary('stats', STATS_HELP, JSON_SPECS, argv, io, async (library, args) => {
    const stats = await library.stats();
    if (flag(args, 'json')) {
      io.out(`${JSON.stringify(stats, null, 2)}\n`);
      return;
    }
    const rows: [string, string][] = [
      ['documents', String(stats.documents)],
      ['blocks', String(stats.blocks)],
      ['paths', String(stats.paths)],
      ['tokens', String(stats.tokens)],
      ['source size', formatBytes(stats.bytes)],
      ['parse cache entries', String(stats.parseCacheEntries)],
      ...Object.entries(stats.byFormat).map(([format, n]): [string, string] => [`  ${format}`, String(n)]),
    ];
    io.out(`Library ${libraryLabel(library)} (strategy ${stats.strategy}, tokenizer ${stats.tokenizer})\n\n`);
    io.out(formatTable(['', 'count'], rows, [1]));
  });
}

const EXPORT_SPECS = { ...HELP_FLAG_SPEC, ...LIBRARY_FLAG_SPEC, format: { type: 'string' }, output: { type: 'string', short: 'o' } } as const;

/** Lines are gathered into pieces of about this size before a write: fewer syscalls, flat memory. */
const EXPORT_PIECE = 64 * 1024;

export function exportCommand(argv: readonly string[], io: CliIO): Promise<number> {
  return withLibrary('export', EXPORT_HELP, EXPORT_SPECS, argv, io, async (library, args) => {
    const format = exportFormatFrom(args);
    const output = stringValue(args, 'output');
    if (output === undefined) {
      let piece = '';
      for await (const block of library.allBlocks()) {
        piece += `${JSON.stringify(exportBlock(block, format))}\n`;
        if (piece.length >= EXPORT_PIECE) {
          io.out(piece);
          piece = '';
        }
      }
      if (piece !== '') io.out(piece);
      return;
    }
    const written = await exportToFile(library, format, output);
    io.out(`Exported ${count(written, 'block')} (${format}) to ${output}\n`);
  }, (args) => {
    noPositionals(args);
    exportFormatFrom(args);
  });
}

function exportFormatFrom(args: ParsedArgs): ExportFormat {
  const format = stringValue(args, 'format') ?? 'jsonl';
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}, got '${format}'`);
  }
  return format as ExportFormat;
}

/** Streams the export into `path`, waiting for the disk when it falls behind. */
async function exportToFile(library: Library, format: ExportFormat, path: string): Promise<number> {
  const stream = createWriteStream(path);
  let failure: Error | undefined;
  stream.on('error', (error) => (failure = error));
  let written = 0;
  try {
    await once(stream, 'open');
    let piece = '';
    for await (const block of library.allBlocks()) {
      piece += `${JSON.stringify(exportBlock(block, format))}\n`;
      written++;
      if (piece.length >= EXPORT_PIECE) {
        await writePiece(stream, piece);
        piece = '';
      }
      if (failure) break;
    }
    if (piece !== '' && !failure) await writePiece(stream, piece);
    stream.end();
    if (!failure) await once(stream, 'finish');
  } catch (error) {
    failure ??= error as Error;
  }
  if (failure) {
    stream.destroy();
    throw new GroundworkError('IO', `cannot write the export: ${failure.message}`, { file: path, cause: failure });
  }
  return written;
}

async function writePiece(stream: WriteStream, piece: string): Promise<void> {
  if (!stream.write(piece)) await once(stream, 'drain');
}

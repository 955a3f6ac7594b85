import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunk, type ChunkOptions } from '../chunk.js';
import type { Chunk } from '../chunkers/types.js';
import { GroundworkError } from '../errors.js';
import { parse } from '../parse.js';
import type { ParseOptions } from '../parsers/types.js';
import { flag, parseCommandArgs, stringValue, stringValues, UsageError, type ParsedArgs } from './args.js';
import { chunkOptionsFrom, CHUNK_FLAGS_HELP } from './chunk-command.js';
import { effectiveTokenizer, validateChunkOptions } from './chunk-options.js';
import {
  CHUNK_FLAG_SPECS,
  count,
  formatTable,
  HELP_FLAG_SPEC,
  LIBRARY_FLAG_SPEC,
  libraryLabel,
  openLibrary,
  PARSE_FLAG_SPECS,
  PARSE_FLAGS_HELP,
  parseOptionsFrom,
} from './common.js';
import { formatReport, ingestOptionsFrom } from './ingest-command.js';
import { EXIT_FAILED, EXIT_OK, reportError, type CliIO } from './io.js';
import { formatHit } from './search-command.js';

/** The bundled samples sit two levels above this module, in src/cli/ and in dist/cli/ alike. */
export const SAMPLES_DIR = fileURLToPath(new URL('../../samples/', import.meta.url));

/** Queries that find real content in the bundled samples: one English, one Chinese 2-character word. */
export const DEMO_QUERIES = ['late returns', '充电'];
const DEMO_HITS = 3;

export const DEMO_HELP = `Usage: groundwork demo [DIR] [--library DIR] [--query Q ...] [chunk options] [parse options]

A tour in two parts. First it parses and chunks every file in DIR (default: the bundled samples,
English and Chinese, in several formats and text encodings) and prints, per file, what was found and
one sample chunk, then a table. Then it ingests the same files into a library and runs searches
(default: ${DEMO_QUERIES.map((q) => JSON.stringify(q)).join(' and ')}), printing the top ${DEMO_HITS} hits of each.
A file that fails is reported with its reason and the run goes on (exit code 1 at the end).

  --library DIR         ingest into DIR and keep it (default: a temporary library, deleted after)
  --query Q             search for Q instead of the default queries; repeatable

${CHUNK_FLAGS_HELP}

${PARSE_FLAGS_HELP}
`;

const SPECS = { ...HELP_FLAG_SPEC, ...PARSE_FLAG_SPECS, ...CHUNK_FLAG_SPECS, library: LIBRARY_FLAG_SPEC.library, query: { type: 'string', multiple: true } } as const;

interface FileResult {
  file: string;
  format: string;
  encoding: string;
  elements: number;
  chunks: number;
  tokens: number;
  error?: string;
}

export async function demoCommand(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(DEMO_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length > 1) throw new UsageError(`expected at most one DIR, got ${args.positionals.length}`);
    const options = chunkOptionsFrom(args);
    const chunker = validateChunkOptions(options);
    const parseOptions = parseOptionsFrom(args);
    const dir = args.positionals[0] ?? SAMPLES_DIR;
    const files = await listFiles(dir);
    const shownDir = relative(process.cwd(), dir) || '.';

    io.out(`Groundwork demo: ${files.length} files in ${shownDir}, strategy ${chunker.name}, tokens by ${effectiveTokenizer(options, chunker.defaultTokenizer)}\n`);
    const results: FileResult[] = [];
    for (const file of files) results.push(await demoFile(io, join(dir, file), file, parseOptions, options));

    io.out(`\n${summaryTable(results)}`);
    const failed = results.filter((r) => r.error !== undefined).length;
    io.out(`\n${results.length - failed} of ${results.length} files parsed and chunked${failed ? `, ${failed} failed (reasons above)` : ''}.\n`);
    await demoLibrary(io, args, dir, parseOptions);
    return failed > 0 ? EXIT_FAILED : EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'demo');
  }
}

/** Part two: the same files ingested into a library, then searched. */
async function demoLibrary(io: CliIO, args: ParsedArgs, dir: string, parseOptions: ParseOptions): Promise<void> {
  const kept = stringValue(args, 'library');
  const libraryDir = kept ?? (await mkdtemp(join(tmpdir(), 'groundwork-demo-')));
  const library = await openLibrary(libraryDir, io);
  try {
    const options = ingestOptionsFrom(args, (await library.settings()).strategy);
    // Only the folder's own files, as the tour above listed them (not its subfolders).
    const report = await library.addFiles(dir, { ...options, parseOptions, include: ['*'] });
    io.out(`\nIngested into a ${kept === undefined ? 'temporary library (pass --library DIR to keep one)' : 'library'}:\n${formatReport(report, libraryLabel(library), options.strategy)}`);
    const queries = stringValues(args, 'query');
    for (const query of queries.length > 0 ? queries : DEMO_QUERIES) {
      // The library's own search: hybrid when a kept library has vectors and an embedder, else BM25.
      const { hits } = await library.search(query, { k: DEMO_HITS });
      io.out(`\nSearch ${JSON.stringify(query)}: ${hits.length === 0 ? 'no results' : `top ${count(hits.length, 'hit')}`}\n`);
      io.out(hits.map((hit, i) => formatHit(hit, i + 1, false)).join('\n'));
    }
  } finally {
    await library.close();
    if (kept === undefined) await rm(libraryDir, { recursive: true, force: true });
  }
}

/** Regular, non-hidden files of `dir`, sorted by name so runs print the same order everywhere. */
async function listFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name).sort();
  } catch (cause) {
    throw new GroundworkError('IO', `cannot list the folder: ${(cause as Error).message}`, { file: dir, cause });
  }
}

async function demoFile(io: CliIO, path: string, name: string, parseOptions: ParseOptions, options: ChunkOptions): Promise<FileResult> {
  try {
    const doc = await parse(path, parseOptions);
    const chunks = chunk(doc, options);
    const tokens = chunks.reduce((sum, c) => sum + c.tokens, 0);
    const title = doc.title ? ` "${doc.title}"` : '';
    io.out(`\n${name}${title}: ${doc.format}${doc.encoding ? `, ${doc.encoding}` : ''}, ${count(doc.elements.length, 'element')}, ${count(chunks.length, 'chunk')}, ${count(tokens, 'token')}\n`);
    for (const warning of doc.warnings) io.out(`  warning: ${warning}\n`);
    const sample = chunks[Math.floor(chunks.length / 2)];
    if (sample) io.out(chunkPreview(sample, chunks.length));
    return { file: name, format: doc.format, encoding: doc.encoding ?? '', elements: doc.elements.length, chunks: chunks.length, tokens };
  } catch (error) {
    io.out(`\n${name}: failed\n`);
    reportError(io, error, 'demo', path);
    const reason = error instanceof GroundworkError ? error.code : 'internal error';
    return { file: name, format: '', encoding: '', elements: 0, chunks: 0, tokens: 0, error: reason };
  }
}

const PREVIEW_LINES = 6;
const PREVIEW_WIDTH = 96;

/** A few lines of one chunk, cut by code points so no surrogate pair is split. */
export function chunkPreview(c: Chunk, total: number): string {
  const path = c.headingPath.length > 0 ? ` | ${c.headingPath.join(' > ')}` : '';
  const pages = c.pageStart !== undefined ? ` | page ${c.pageStart}${c.pageEnd !== undefined && c.pageEnd !== c.pageStart ? `-${c.pageEnd}` : ''}` : '';
  const lines = c.text.split('\n');
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => {
    const points = Array.from(line);
    return `    ${points.length > PREVIEW_WIDTH ? `${points.slice(0, PREVIEW_WIDTH - 1).join('')}…` : line}`;
  });
  if (lines.length > PREVIEW_LINES) shown.push(`    … (${count(lines.length - PREVIEW_LINES, 'more line')})`);
  return `  sample: chunk ${c.index + 1} of ${total} | ${c.tokens} tokens | ${c.kind}${pages}${path}\n${shown.join('\n')}\n`;
}

function summaryTable(results: readonly FileResult[]): string {
  const header = ['file', 'format', 'encoding', 'elements', 'chunks', 'tokens'];
  const rows = results.map((r) =>
    r.error !== undefined
      ? [r.file, `failed: ${r.error}`, '', '', '', '']
      : [r.file, r.format, r.encoding, String(r.elements), String(r.chunks), String(r.tokens)],
  );
  return formatTable(header, rows);
}

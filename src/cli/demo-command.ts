import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunk, type ChunkOptions } from '../chunk.js';
import type { Chunk } from '../chunkers/types.js';
import { GroundworkError } from '../errors.js';
import { parse } from '../parse.js';
import type { ParseOptions } from '../parsers/types.js';
import { flag, parseCommandArgs, UsageError } from './args.js';
import { chunkOptionsFrom, CHUNK_FLAGS_HELP } from './chunk-command.js';
import { effectiveTokenizer, validateChunkOptions } from './chunk-options.js';
import { CHUNK_FLAG_SPECS, HELP_FLAG_SPEC, PARSE_FLAG_SPECS, PARSE_FLAGS_HELP, parseOptionsFrom } from './common.js';
import { EXIT_FAILED, EXIT_OK, reportError, type CliIO } from './io.js';

/** The bundled samples sit two levels above this module, in src/cli/ and in dist/cli/ alike. */
export const SAMPLES_DIR = fileURLToPath(new URL('../../samples/', import.meta.url));

export const DEMO_HELP = `Usage: groundwork demo [DIR] [chunk options] [parse options]

Parses and chunks every file in DIR (default: the bundled samples, English and Chinese, in several
formats and text encodings) and prints, per file, what was found and one sample chunk, then a table.
A file that fails is reported with its reason and the run goes on (exit code 1 at the end).

${CHUNK_FLAGS_HELP}

${PARSE_FLAGS_HELP}
`;

const SPECS = { ...HELP_FLAG_SPEC, ...PARSE_FLAG_SPECS, ...CHUNK_FLAG_SPECS } as const;

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
    return failed > 0 ? EXIT_FAILED : EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'demo');
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

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function summaryTable(results: readonly FileResult[]): string {
  const header = ['file', 'format', 'encoding', 'elements', 'chunks', 'tokens'];
  const rows = results.map((r) =>
    r.error !== undefined
      ? [r.file, `failed: ${r.error}`, '', '', '', '']
      : [r.file, r.format, r.encoding, String(r.elements), String(r.chunks), String(r.tokens)],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => displayWidth(row[i]!))));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell + ' '.repeat(widths[i]! - displayWidth(cell))).join(' | ')} |\n`;
  return line(header) + `|${widths.map((w) => ` ${'-'.repeat(w)} |`).join('')}\n` + rows.map(line).join('');
}

/** Terminal columns: CJK and full-width characters take two. */
function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += WIDE.test(ch) ? 2 : 1;
  return width;
}
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{20000}-\u{3fffd}]/u;

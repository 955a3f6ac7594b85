import type { Format } from '../document/types.js';
import type { Library } from '../library/library.js';
import { supportedFormats } from '../parsers/registry.js';
import type { SearchFilter, SearchHit } from '../store/types.js';
import { commaList, flag, integerValue, parseCommandArgs, stringValue, stringValues, UsageError, type ParsedArgs } from './args.js';
import { count, displayPath, HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC, openExistingLibrary } from './common.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { findDocument } from './library-commands.js';
import { terminalOf } from './progress.js';

export const SEARCH_HELP = `Usage: groundwork search QUERY [options]

Full-text search (BM25) over the library's blocks. QUERY is plain text in any language: Chinese is
segmented into words, English is case-folded and stemmed; quotes, AND/OR/NOT, -, *, : and other
punctuation are ordinary characters, never query syntax (they cannot cause an error). Several words
after the command are joined into one query; a query that starts with - goes after -- (as in
groundwork search -- -budget), or it would read as an option.

Options:
${LIBRARY_FLAG_HELP}
  -k, --limit N         at most N hits (default 10)
  --json                a JSON array of hits: score, docId, path, snippet and block (id, docId,
                        ordinal, kind, text, headingPath, pageStart, pageEnd, start, end, ...)
  --doc ID              only in this document (id, id prefix or path); repeatable
  --format F            only documents of these formats, e.g. --format pdf,docx; repeatable
  --path GLOB           only documents whose path matches; a relative glob matches at any depth
                        (--path 'contracts/*.pdf' is '**/contracts/*.pdf'), an absolute one as is
  --pages A-B           only blocks on pages A to B (also A, A- or -B)

Readable output: rank, score, path, page(s), heading path, and the snippet with the matched words
highlighted (bold on a terminal, between « » otherwise).
Exit codes: 0 (also when nothing matches), 1 no library or no such document, 2 usage error.
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...LIBRARY_FLAG_SPEC,
  limit: { type: 'string', short: 'k' },
  json: { type: 'boolean' },
  doc: { type: 'string', multiple: true },
  format: { type: 'string', multiple: true },
  path: { type: 'string' },
  pages: { type: 'string' },
} as const;

export async function searchCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let library: Library | undefined;
  try {
    const args = parseSearchArgs(argv);
    if (flag(args, 'help')) {
      io.out(SEARCH_HELP);
      return EXIT_OK;
    }
    const query = args.positionals.join(' ');
    if (query.trim() === '') throw new UsageError('missing QUERY');
    const k = integerValue(args, 'limit', 1) ?? 10;
    const filter = filterFrom(args);
    library = await openExistingLibrary(args, io);
    const docIds: string[] = [];
    for (const ref of stringValues(args, 'doc')) docIds.push((await findDocument(library, ref)).id);
    if (docIds.length > 0) filter.docId = docIds;

    const hits = await library.search(query, { k, filter });
    if (flag(args, 'json')) {
      io.out(`${JSON.stringify(hits.map(hitJson), null, 2)}\n`);
    } else if (hits.length === 0) {
      io.out(`No results for ${JSON.stringify(query)}.\n`);
    } else {
      const terminal = terminalOf(io);
      const highlight = terminal?.outIsTTY === true && terminal.color;
      io.out(`${count(hits.length, 'hit')} for ${JSON.stringify(query)}:\n\n`);
      io.out(hits.map((hit, i) => formatHit(hit, i + 1, highlight)).join('\n'));
    }
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'search');
  } finally {
    await library?.close();
  }
}

/** A query that starts with `-` reads as an option: say how to search for it. */
function parseSearchArgs(argv: readonly string[]): ParsedArgs {
  try {
    return parseCommandArgs(argv, SPECS);
  } catch (error) {
    if (error instanceof UsageError && error.message.startsWith('unknown option')) {
      throw new UsageError(`${error.message}; to search for text that starts with -, put -- before the query: groundwork search -- '-text'`);
    }
    throw error;
  }
}

/** The flag-only part of the filter (documents are resolved once the library is open). */
export function filterFrom(args: ParsedArgs): SearchFilter {
  const filter: SearchFilter = {};
  const formats = stringValues(args, 'format').flatMap(commaList);
  if (formats.length > 0) {
    const known = supportedFormats();
    const unknown = formats.find((f) => !known.includes(f as Format));
    if (unknown !== undefined) throw new UsageError(`--format must be among ${known.join(', ')}, got '${unknown}'`);
    filter.format = formats as Format[];
  }
  const path = stringValue(args, 'path');
  if (path !== undefined) {
    if (path.trim() === '') throw new UsageError('--path needs a glob');
    filter.path = path.startsWith('/') || path.startsWith('**') ? path : `**/${path.replace(/^\.\//, '')}`;
  }
  const pages = stringValue(args, 'pages');
  if (pages !== undefined) Object.assign(filter, pageRange(pages));
  return filter;
}

const PAGE_RANGE = /^\s*(\d*)\s*(-?)\s*(\d*)\s*$/;

/** `3-7` -> pages 3 to 7; `3` -> page 3; `3-` -> from 3; `-7` -> up to 7. */
export function pageRange(raw: string): { pageFrom?: number; pageTo?: number } {
  const match = PAGE_RANGE.exec(raw);
  const [from, dash, to] = match ? [match[1]!, match[2]!, match[3]!] : ['', '', ''];
  if (!match || (from === '' && to === '') || (dash === '' && to !== '')) {
    throw new UsageError(`--pages must be A-B, A, A- or -B (page numbers from 1), got '${raw}'`);
  }
  const range: { pageFrom?: number; pageTo?: number } = {};
  if (from !== '') range.pageFrom = Number(from);
  if (dash === '') range.pageTo = Number(from);
  else if (to !== '') range.pageTo = Number(to);
  if (range.pageFrom !== undefined && range.pageTo !== undefined && range.pageFrom > range.pageTo) {
    throw new UsageError(`--pages ${raw}: the first page comes after the last`);
  }
  return range;
}

/** A hit as `--json` prints it: score and the document first, then the snippet and the block. */
export function hitJson(hit: SearchHit): Record<string, unknown> {
  return { score: hit.score, docId: hit.docId, path: hit.path, snippet: hit.snippet, block: hit.block };
}

const MARKED = /«([^«»]*)»/g;
const WHITESPACE = /\s+/g;

/** One readable hit: `1. 7.42  path  p. 3  (table)`, the heading path, then the snippet. */
export function formatHit(hit: SearchHit, rank: number, highlight: boolean): string {
  const { block } = hit;
  const parts = [`${rank}.`, hit.score.toFixed(2), displayPath(hit.path)];
  const pages = pageLabel(block.pageStart, block.pageEnd);
  if (pages) parts.push(pages);
  if (block.kind !== 'text') parts.push(`(${block.kind})`);
  const heading = block.headingPath.length > 0 ? `   ${block.headingPath.join(' > ')}\n` : '';
  const flat = hit.snippet.replace(WHITESPACE, ' ').trim();
  const snippet = highlight ? flat.replace(MARKED, '\x1b[1;33m$1\x1b[0m') : flat;
  return `${parts.join('  ')}\n${heading}   ${snippet}\n`;
}

export function pageLabel(start: number | null, end: number | null): string {
  if (start === null) return '';
  return end !== null && end !== start ? `pp. ${start}-${end}` : `p. ${start}`;
}

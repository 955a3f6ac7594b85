import type { Format } from '../document/types.js';
import type { Library } from '../library/library.js';
import { supportedFormats } from '../parsers/registry.js';
import { SEARCH_MODES, type RetrievalOptionsInput, type SearchMode } from '../retrieval/options.js';
import type { RetrievalResult, RetrievedHit } from '../retrieval/pipeline.js';
import type { SearchFilter } from '../store/types.js';
import { openReranker } from '../embed/config.js';
import { EMBED_FLAG_SPECS, EMBED_FLAGS_HELP, embedFlagsFrom, RERANK_FLAG_SPECS, RERANK_FLAGS_HELP, rerankFlagsFrom } from './embed-options.js';
import { commaList, flag, integerValue, parseCommandArgs, stringValue, stringValues, UsageError, type ParsedArgs } from './args.js';
import { count, displayPath, HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC, openExistingLibrary } from './common.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { findDocument } from './library-commands.js';
import { terminalOf } from './progress.js';

export const SEARCH_HELP = `Usage: groundwork search QUERY [options]

Searches the library's blocks by keywords (BM25), by meaning (vectors: the query is embedded with the
library's model and compared with the blocks' vectors), or both (hybrid: the two rankings fused by
reciprocal rank fusion, k = 60, with optional --weights). The default is hybrid when the library has
vectors of its model and an embedder is configured (flags, GROUNDWORK_EMBEDDINGS_*, or the library's
settings), else bm25. Filters apply before ranking in every mode: k hits are k hits of the filter.

Keywords: QUERY is plain text in any language: Chinese is
segmented into words, English is case-folded and stemmed; quotes, AND/OR/NOT, -, *, : and other
punctuation are ordinary characters, never query syntax (they cannot cause an error). Several words
after the command are joined into one query; a query that starts with - goes after -- (as in
groundwork search -- -budget), or it would read as an option.

A section named in the query (第三章第二节, 第二部分, （二）, 3.2节, 附件二, Section 3.2, chapter 4,
§ 4.1, Part II, Appendix B, the fourth part) is looked up in the documents' headings, taken out of
the keywords, and the search keeps to that section (or, when several sections match, ranks hits
inside them first). Hits of one document that overlap are merged into one passage; hits with the
same text in several documents are shown once, with the other places listed.

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
  --section S           only this section: a numbering (3.2, 第三章第二节, Appendix B) or heading
                        texts joined by > ("二、建设内容 > （二）"); best with --doc
  --literal             search the query as written (section references are not looked up)
  --neighbors N         add N blocks before and after each hit (default 0)
  --mode M              ${SEARCH_MODES.join(', ')} (default hybrid when the library has vectors, else
                        bm25); vector and hybrid need the embedder of the library's model
  --weights W           fusion weights, e.g. --weights bm25=1,vector=2 (0 leaves one out)
  --explain             show how each hit was found: scores and ranks per retriever, the section
                        the query named and how it was resolved; with --json, an object
                        { hits, keywords, section, explanation } instead of the array
  --rerank              rerank the best candidates with the reranker configured below (or by the
                        GROUNDWORK_RERANK_* environment); its score is added to each hit's scores

${RERANK_FLAGS_HELP}

${EMBED_FLAGS_HELP}

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
  section: { type: 'string' },
  literal: { type: 'boolean' },
  neighbors: { type: 'string' },
  mode: { type: 'string' },
  explain: { type: 'boolean' },
  rerank: { type: 'boolean' },
  weights: { type: 'string' },
  ...RERANK_FLAG_SPECS,
  ...EMBED_FLAG_SPECS,
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

    const options = searchOptions(args, k, filter);
    const reranker = options.rerank ? openReranker({ flags: rerankFlagsFrom(args) })?.reranker : undefined;
    const embedFlags = embedFlagsFrom(args);
    // Flags name the embedder for this search only; without them the library's settings and the environment do.
    if (Object.keys(embedFlags).length > 0 && options.mode !== 'bm25') await library.useEmbedder({ flags: embedFlags, persist: false });
    const result = await library.search(query, options, { ...(reranker && { reranker }) });
    const { hits } = result;
    const explain = flag(args, 'explain');
    if (flag(args, 'json')) {
      const json = explain ? { hits: hits.map(hitJson), keywords: result.keywords, section: result.section ?? null, explanation: result.explanation } : hits.map(hitJson);
      io.out(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      const terminal = terminalOf(io);
      const highlight = terminal?.outIsTTY === true && terminal.color;
      if (explain) io.out(explainHeader(result));
      if (hits.length === 0) io.out(`No results for ${JSON.stringify(query)}.\n`);
      else {
        io.out(`${count(hits.length, 'hit')} for ${JSON.stringify(query)}:\n\n`);
        io.out(hits.map((hit, i) => formatHit(hit, i + 1, highlight, explain)).join('\n'));
      }
    }
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'search');
  } finally {
    await library?.close();
  }
}

/** The flags as search options (validated by the options schema, like every other caller's). */
function searchOptions(args: ParsedArgs, k: number, filter: SearchFilter): RetrievalOptionsInput {
  const options: RetrievalOptionsInput = { k, filter, explain: flag(args, 'explain') };
  const section = stringValue(args, 'section');
  if (section !== undefined) {
    if (section.trim() === '') throw new UsageError('--section needs a section, e.g. --section 3.2');
    options.section = section;
  }
  if (flag(args, 'literal')) options.sectionReferences = false;
  if (flag(args, 'rerank')) options.rerank = true;
  const neighbors = integerValue(args, 'neighbors', 0);
  if (neighbors !== undefined) {
    if (neighbors > 20) throw new UsageError(`--neighbors must be at most 20, got ${neighbors}`);
    options.neighbors = neighbors;
  }
  const weights = stringValue(args, 'weights');
  if (weights !== undefined) options.weights = weightsFrom(weights);
  const mode = stringValue(args, 'mode');
  if (mode !== undefined) {
    if (!(SEARCH_MODES as readonly string[]).includes(mode)) throw new UsageError(`--mode must be one of ${SEARCH_MODES.join(', ')}, got '${mode}'`);
    options.mode = mode as SearchMode;
  }
  return options;
}

/** `bm25=1,vector=2` -> { bm25: 1, vector: 2 }. */
export function weightsFrom(raw: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of commaList(raw)) {
    const match = /^([a-z0-9_-]+)\s*[=:]\s*(\d+(?:\.\d+)?)$/i.exec(part.trim());
    if (!match) throw new UsageError(`--weights must be name=weight pairs, e.g. bm25=1,vector=2; got '${part}'`);
    out[match[1]!] = Number(match[2]);
  }
  if (Object.keys(out).length === 0) throw new UsageError('--weights needs name=weight pairs, e.g. bm25=1,vector=2');
  return out;
}

/** `--explain` before the hits: what was searched for and the section the query named. */
function explainHeader(result: RetrievalResult): string {
  const lines = [`Searched (${result.mode}) for ${JSON.stringify(result.keywords)}`];
  const section = result.section;
  if (section) {
    const named = section.source === 'selector' ? `--section ${JSON.stringify(section.selector)}` : section.references.map((r) => JSON.stringify(r.text)).join(', ');
    const action = { restrict: 'only hits inside', boost: 'hits inside first', none: 'the query searched as written' }[section.action];
    const matched = section.sections.length === 0 ? 'no heading matches' : `${count(section.sections.length, 'section')} ${section.sections.length === 1 ? 'matches' : 'match'}`;
    lines.push(`Section ${named}: ${matched} in the ${count(section.documents, 'document')} searched (${section.status}); ${action}${section.listed ? ' (no keyword inside: its blocks in order)' : ''}`);
    for (const s of section.sections) lines.push(`  ${s.headingPath.join(' > ')}  [${s.how.join(', ')}]`);
  }
  return `${lines.join('\n')}\n\n`;
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

/** A hit as `--json` prints it: score and the document first, then the snippet and the block, then the passage. */
export function hitJson(hit: RetrievedHit): Record<string, unknown> {
  return {
    score: hit.score, docId: hit.docId, path: hit.path, snippet: hit.snippet, block: hit.block,
    scores: hit.scores, text: hit.text, start: hit.start, end: hit.end, headingPath: hit.headingPath, pageStart: hit.pageStart, pageEnd: hit.pageEnd,
    blockIds: hit.blockIds, matched: hit.matched, duplicates: hit.duplicates, ...(hit.section && { section: hit.section }),
  };
}

const MARKED = /«([^«»]*)»/g;
const WHITESPACE = /\s+/g;

/** One readable hit: `1. 7.42  path  p. 3  (table)`, the heading path, then the snippet. */
export function formatHit(hit: RetrievedHit, rank: number, highlight: boolean, explain = false): string {
  const { block } = hit;
  const parts = [`${rank}.`, hit.score.toFixed(2), displayPath(hit.path)];
  const pages = pageLabel(hit.pageStart, hit.pageEnd);
  if (pages) parts.push(pages);
  if (block.kind !== 'text') parts.push(`(${block.kind})`);
  if (hit.matched.length > 1) parts.push(`(${hit.matched.length} hits merged)`);
  const heading = hit.headingPath.length > 0 ? `   ${hit.headingPath.join(' > ')}\n` : '';
  const flat = hit.snippet.replace(WHITESPACE, ' ').trim();
  const snippet = highlight ? flat.replace(MARKED, '\x1b[1;33m$1\x1b[0m') : flat;
  const also = hit.duplicates.length > 0 ? `   also in: ${hit.duplicates.map((d) => displayPath(d.path)).join(', ')}\n` : '';
  const scores = explain ? `   scores: ${scoreLine(hit)}\n` : '';
  return `${parts.join('  ')}\n${heading}   ${snippet}\n${also}${scores}`;
}

/** `bm25 7.42 (#1)  vector 0.831 (#3)  fused 0.0325`: each retriever's score and rank, then fusion and rerank. */
function scoreLine(hit: RetrievedHit): string {
  const s = hit.scores;
  const parts: string[] = [];
  for (const name of Object.keys(s)) {
    if (name.endsWith('Rank') || name === 'fused' || name === 'rerank') continue;
    const rank = s[`${name}Rank`];
    parts.push(`${name} ${formatScore(s[name]!)}${rank !== undefined ? ` (#${rank})` : ''}`);
  }
  if (s.fused !== undefined) parts.push(`fused ${s.fused.toFixed(4)}`);
  if (s.rerank !== undefined) parts.push(`rerank ${formatScore(s.rerank)}`);
  return parts.length > 0 ? parts.join('  ') : 'none (listed in document order)';
}

function formatScore(n: number): string {
  return Math.abs(n) >= 10 ? n.toFixed(2) : n.toPrecision(3);
}

export function pageLabel(start: number | null, end: number | null): string {
  if (start === null) return '';
  return end !== null && end !== start ? `pp. ${start}-${end}` : `p. ${start}`;
}

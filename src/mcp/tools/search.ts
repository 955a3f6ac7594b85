import { z } from 'zod';
import { asList } from '../../retrieval/filter.js';
import { RetrievalOptionsSchema } from '../../retrieval/options.js';
import type { RetrievalResult, RetrievedHit } from '../../retrieval/pipeline.js';
import { citationLine, citationOf } from '../citations.js';
import { documentOf } from '../documents.js';
import { CitationSchema, SectionOutputSchema } from '../schemas.js';
import { defineTool } from './tool.js';

/** The search options an agent sets: those of the library API and the CLI, from the same schema. */
const options = RetrievalOptionsSchema.pick({ k: true, mode: true, filter: true, section: true, sectionReferences: true, neighbors: true, weights: true, rerank: true, explain: true }).shape;

export const SearchInput = z.object({
  query: z.string().trim().min(1).max(4000)
    .describe('what to look for, in any language; a section named in it (第三章第二节, Section 3.2, 附件二) is looked up in the headings and searched'),
  ...options,
}).strict();

const HitOutput = z.object({
  rank: z.number().int(),
  score: z.number(),
  text: z.string().describe('the passage: the matched block(s), merged where they overlap, with neighbours when asked'),
  snippet: z.string().describe('around the first matched keyword, matches between « »'),
  citation: CitationSchema,
  blockIds: z.array(z.string()).describe('every block of the passage, in document order'),
  alsoIn: z.array(CitationSchema).describe('other places with exactly this text (the same content in another file or format)'),
  section: SectionOutputSchema.omit({ docId: true }).optional().describe('the section the query named, when the hit lies in it'),
  scores: z.record(z.string(), z.number()).optional()
    .describe('with explain: each retriever\'s score and rank (bm25, bm25Rank, vector, vectorRank), the fused and rerank scores'),
});

export const SearchOutput = z.object({
  query: z.string(),
  keywords: z.string().describe('what was searched for: the query without its section references'),
  mode: z.string(),
  hits: z.array(HitOutput),
  section: z.object({
    status: z.enum(['unique', 'ambiguous', 'unresolved']),
    action: z.enum(['restrict', 'boost', 'none']),
    sections: z.array(SectionOutputSchema),
    unresolved: z.array(z.string()),
  }).optional().describe('the section the query or `section` named and how it was resolved'),
  explanation: z.record(z.string(), z.unknown()).optional().describe('with explain: retriever runs, fusion, section resolution, merging'),
});
type SearchOutput = z.output<typeof SearchOutput>;

export const searchTool = defineTool({
  name: 'search',
  title: 'Search the library',
  readOnly: true,
  idempotent: true,
  description: (ctx) => [
    ctx.options.describe ? `Search ${ctx.options.describe}.` : 'Search the documents in this Groundwork library.',
    'Returns passages with their citation (file, pages, heading path, block id) and text: cite them when you answer.',
    'It searches by keywords (bm25, Chinese and English), by meaning (vector) or both (hybrid, the default when the library has vectors); a section named in the query (第三章第二节, 3.2节, Section 3.2, chapter 4, Appendix B) keeps the search inside that section.',
    'Use `section` for an explicit heading ("3.2" or "第三章 > 3.2 前提条件"), `filter` to keep to documents, formats, paths, pages or headings,',
    '`neighbors` for the blocks around each hit, `explain` for each hit\'s scores; get_block, get_outline and read_section read further.',
  ].join(' '),
  input: SearchInput,
  output: SearchOutput,
  async run(args, ctx, extra) {
    const { query, ...rest } = args;
    const filter = rest.filter ? { ...rest.filter } : undefined;
    if (filter?.docId !== undefined) {
      // Ids, id prefixes or paths, as list_documents shows them.
      filter.docId = await Promise.all(asList(filter.docId).map(async (ref) => (await documentOf(ctx.library, ref)).id));
    }
    const search = ctx.search ?? ((q, o, c) => ctx.library.search(q, o, c));
    const result = await search(query, { ...rest, ...(filter && { filter }) }, { ...(ctx.reranker && { reranker: ctx.reranker }), signal: extra.signal });
    const titles = new Map<string, string | null>();
    for (const docId of result.hits.flatMap((h) => [h.docId, ...h.duplicates.map((d) => d.docId)])) {
      if (!titles.has(docId)) titles.set(docId, (await ctx.library.document(docId))?.title ?? null);
    }
    const structured = searchOutput(query, result, titles, args.explain);
    return { structured, text: renderSearch(structured) };
  },
});

function searchOutput(query: string, result: RetrievalResult, titles: ReadonlyMap<string, string | null>, explain: boolean): SearchOutput {
  const out: SearchOutput = {
    query,
    keywords: result.keywords,
    mode: result.mode,
    hits: result.hits.map((hit, i) => hitOutput(hit, i + 1, titles, explain)),
  };
  if (result.section) {
    out.section = {
      status: result.section.status,
      action: result.section.action,
      sections: result.section.sections.map((s) => ({ docId: s.docId, headingPath: s.headingPath, title: s.title, ...(s.label !== undefined && { label: s.label }) })),
      unresolved: result.section.unresolved,
    };
  }
  if (explain && result.explanation) out.explanation = result.explanation as unknown as Record<string, unknown>;
  return out;
}

function hitOutput(hit: RetrievedHit, rank: number, titles: ReadonlyMap<string, string | null>, explain: boolean): SearchOutput['hits'][number] {
  return {
    rank,
    score: hit.score,
    text: hit.text,
    snippet: hit.snippet,
    citation: citationOf(hit, hit.block.id, titles.get(hit.docId) ?? null),
    blockIds: hit.blockIds,
    alsoIn: hit.duplicates.map((d) => citationOf(d, d.blockId, titles.get(d.docId) ?? null)),
    ...(hit.section && { section: hit.section }),
    ...(explain && { scores: hit.scores as Record<string, number> }),
  };
}

/** The readable rendering: what was searched, then each passage under its citation. */
export function renderSearch(out: SearchOutput): string {
  const lines: string[] = [];
  const head = out.hits.length === 0 ? `No passages found for ${JSON.stringify(out.query)}` : `${out.hits.length} passage${out.hits.length === 1 ? '' : 's'} for ${JSON.stringify(out.query)}`;
  lines.push(`${head} (${out.mode}${out.keywords !== out.query ? `, keywords ${JSON.stringify(out.keywords)}` : ''}).`);
  if (out.section) {
    const where = out.section.sections.map((s) => s.headingPath.join(' > ')).join('; ');
    const action = { restrict: 'searched only inside', boost: 'ranked hits inside first', none: 'no heading matched; searched everywhere' }[out.section.action];
    lines.push(out.section.sections.length > 0 ? `Section: ${where} (${out.section.status}; ${action}).` : `Section: ${action}${out.section.unresolved.length > 0 ? ` (${out.section.unresolved.join(', ')})` : ''}.`);
  }
  for (const hit of out.hits) {
    lines.push('', `[${hit.rank}] ${citationLine(hit.citation)}`);
    if (hit.scores) lines.push(`    scores: ${Object.entries(hit.scores).map(([name, value]) => `${name} ${Number.isInteger(value) ? value : value.toPrecision(4)}`).join(', ')}`);
    for (const other of hit.alsoIn) lines.push(`    also in ${citationLine(other)}`);
    lines.push(hit.text);
  }
  return `${lines.join('\n')}\n`;
}

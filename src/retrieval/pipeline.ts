import { GroundworkError } from '../errors.js';
import { Highlighter } from '../search/snippet.js';
import type { Block } from '../store/types.js';
import { collapseDuplicates, mergeOverlapping, neighborRanges, neighborWindows, type DuplicateSource, type Passage } from './clean.js';
import { asList, compileFilter, inSection, scopeOf, withinSections, type RetrievalFilter } from './filter.js';
import { rankedScores, reciprocalRankFusion, RRF_K } from './fusion.js';
import { parseRetrievalOptions, type RetrievalOptions, type RetrievalOptionsInput, type SearchMode } from './options.js';
import { hasPathPrefix, outlineFromBlocks, type Outline } from './outline.js';
import { findSectionReferences, type SectionReference } from './references.js';
import { resolveReference, resolveSelector, type ResolvedSection } from './resolve.js';
import type { BlockFetcher, Candidate, HitScores, PassageReranker, Retriever } from './types.js';

/** What a search runs on: retrievers by name (`bm25`, `vector`, …), a block fetcher, a reranker. */
export interface RetrievalSources {
  retrievers: readonly Retriever[];
  fetcher: BlockFetcher;
  reranker?: PassageReranker;
}

/** A clean, explained hit: one passage of one document. */
export interface RetrievedHit {
  /** The ranking score: rerank, else fused, else the retriever's (0 for a section's blocks listed in order). */
  score: number;
  scores: HitScores;
  docId: string;
  path: string | null;
  /** The passage: the matched block(s), merged with overlapping hits and widened by neighbours. */
  text: string;
  /** Around the first matched keyword, matches between « ». */
  snippet: string;
  /** The passage's span in the document's canonical text. */
  start: number;
  end: number;
  /**
   * Where the passage is: the resolved section's heading path when the hit lies in one (a block that
   * packs sections 3.1 and 3.2 is reported in 3.2 when 3.2 was asked for), else the best block's.
   */
  headingPath: string[];
  pageStart: number | null;
  pageEnd: number | null;
  /** The best matched block. */
  block: Block;
  /** Every block of the passage, in document order, and those of them that matched. */
  blockIds: string[];
  matched: string[];
  /** Other places with exactly this text. */
  duplicates: DuplicateSource[];
  /** The resolved section the hit lies in, when the search had one. */
  section?: { headingPath: string[]; title: string; label?: string };
}

export interface SectionResolution {
  /** `query`: references found in the query; `selector`: the `section` option. */
  source: 'query' | 'selector';
  selector?: string;
  references: SectionReference[];
  /** `unique`: one section per reference; `ambiguous`: several (documents or sections); `unresolved`: none. */
  status: 'unique' | 'ambiguous' | 'unresolved';
  /**
   * `restrict`: only hits inside the sections; `boost`: hits inside them first (ranked among
   * themselves), then the others; `none`: the query searched as written.
   */
  action: 'restrict' | 'boost' | 'none';
  sections: ResolvedSection[];
  /** References that matched no heading. */
  unresolved: string[];
  /** Documents whose outlines were consulted. */
  documents: number;
  /** No keyword matched inside the section (or there were none): its blocks are listed in order. */
  listed?: boolean;
}

export interface RetrieverRun {
  purpose: 'discover' | 'search' | 'inside' | 'outside';
  query: string;
  filter: RetrievalFilter;
  lists: { name: string; weight: number; returned: number }[];
}

export interface RetrievalExplanation {
  query: string;
  keywords: string;
  mode: SearchMode;
  k: number;
  depth: number;
  runs: RetrieverRun[];
  fusion?: { method: 'rrf'; k: number; weights: Record<string, number> };
  rerank?: { name: string; reranked: number };
  clean: { candidates: number; considered: number; passages: number; mergedBlocks: number; duplicates: number; neighbors: number };
}

export interface RetrievalResult {
  hits: RetrievedHit[];
  /** What the retrievers searched for: the query without its section references. */
  keywords: string;
  mode: SearchMode;
  section?: SectionResolution;
  explanation?: RetrievalExplanation;
}

/** The retrievers each mode uses. */
const MODE_RETRIEVERS: Record<SearchMode, (names: string[]) => string[]> = {
  bm25: () => ['bm25'],
  vector: () => ['vector'],
  hybrid: (names) => names,
};

/**
 * A search: section references understood, retrievers run with the filter, lists fused, reranked
 * when asked, overlapping hits merged, neighbours added, duplicates collapsed, every hit explained.
 */
export async function retrieve(query: string, input: RetrievalOptionsInput, sources: RetrievalSources): Promise<RetrievalResult> {
  const options = parseRetrievalOptions(input);
  return new Search(query, options, sources).run();
}

class Search {
  private readonly mode: SearchMode;
  private readonly active: { retriever: Retriever; weight: number }[];
  private readonly depth: number;
  private readonly filter: RetrievalFilter;
  private readonly runs: RetrieverRun[] = [];
  private readonly blockCache = new Map<string, Promise<Block[]>>();

  constructor(
    private readonly query: string,
    private readonly options: RetrievalOptions,
    private readonly sources: RetrievalSources,
  ) {
    const names = sources.retrievers.map((r) => r.name);
    this.mode = options.mode ?? (names.includes('vector') ? 'hybrid' : 'bm25');
    const wanted = MODE_RETRIEVERS[this.mode](names);
    const missing = wanted.filter((n) => !names.includes(n));
    if (missing.length > 0) {
      throw new GroundworkError('INVALID_OPTIONS', `search mode ${this.mode} needs a ${missing.join(' and ')} retriever, and none is configured${missing.includes('vector') ? ' (configure an embedder and embed the library first)' : ''}`);
    }
    for (const name of Object.keys(options.weights ?? {})) {
      if (!names.includes(name)) throw new GroundworkError('INVALID_OPTIONS', `weights: no retriever named ${name} (there are ${names.join(', ')})`);
    }
    this.active = sources.retrievers
      .filter((r) => wanted.includes(r.name))
      .map((retriever) => ({ retriever, weight: options.weights?.[retriever.name] ?? 1 }))
      .filter((a) => a.weight > 0);
    if (this.active.length === 0) throw new GroundworkError('INVALID_OPTIONS', `weights leave no retriever for mode ${this.mode}`);
    if (options.rerank && !sources.reranker) throw new GroundworkError('INVALID_OPTIONS', 'rerank was asked for, and no reranker is configured (a /rerank endpoint: --rerank-url or GROUNDWORK_RERANK_URL)');
    const k = options.k;
    this.depth = options.depth ?? (this.active.length > 1 ? Math.max(4 * k, 50) : Math.max(2 * k, 20));
    this.filter = options.filter ?? {};
  }

  async run(): Promise<RetrievalResult> {
    const { options } = this;
    const scan = options.sectionReferences ? findSectionReferences(this.query) : { references: [], keywords: this.query.trim() };
    let keywords = scan.keywords;
    let section: SectionResolution | undefined;
    let groups: Candidate[][];
    if (options.section !== undefined || scan.references.length > 0) {
      section = await this.resolve(scan.references, options.section);
      if (section.action === 'none') keywords = this.query.trim();
      groups = await this.sectionSearch(section, keywords);
    } else {
      groups = [await this.search('search', keywords, this.filter)];
    }
    let rerank: RetrievalExplanation['rerank'];
    if (options.rerank && this.sources.reranker) {
      const reranked = await this.rerank(groups, keywords || this.query);
      groups = reranked.groups;
      rerank = { name: rerankerName(this.sources.reranker), reranked: reranked.count };
    }
    const pool = groups.flat();
    const { passages, considered } = await this.clean(pool);
    const highlighter = new Highlighter(keywords || this.query);
    const hits = passages.map((p) => toHit(p, highlighter, section));
    const result: RetrievalResult = { hits, keywords, mode: this.mode };
    if (section) result.section = section;
    if (options.explain) {
      const explanation: RetrievalExplanation = {
        query: this.query, keywords, mode: this.mode, k: options.k, depth: this.depth, runs: this.runs,
        clean: {
          candidates: pool.length,
          considered,
          passages: passages.length,
          mergedBlocks: passages.reduce((n, p) => n + p.matched.length - 1, 0),
          duplicates: passages.reduce((n, p) => n + p.duplicates.length, 0),
          neighbors: options.neighbors,
        },
      };
      if (this.active.length > 1) explanation.fusion = { method: 'rrf', k: RRF_K, weights: Object.fromEntries(this.active.map((a) => [a.retriever.name, a.weight])) };
      if (rerank) explanation.rerank = rerank;
      result.explanation = explanation;
    }
    return result;
  }

  /** Runs the active retrievers and fuses their lists (one list: its ranks, no fusion). */
  private async search(purpose: RetrieverRun['purpose'], query: string, filter: RetrievalFilter): Promise<Candidate[]> {
    if (query.trim() === '') return [];
    const lists = await Promise.all(this.active.map(async ({ retriever, weight }) => ({
      name: retriever.name, weight, items: await retriever.search(query, this.depth, filter),
    })));
    this.runs.push({ purpose, query, filter, lists: lists.map((l) => ({ name: l.name, weight: l.weight, returned: l.items.length })) });
    if (lists.length === 1) return rankedScores(lists[0]!.name, lists[0]!.items);
    return reciprocalRankFusion(lists);
  }

  private async resolve(references: SectionReference[], selector: string | undefined): Promise<SectionResolution> {
    const docIds = await this.candidateDocuments();
    const outlines = await Promise.all(docIds.map((id) => this.outline(id)));
    const base = { references, documents: outlines.length, unresolved: [] as string[] };
    if (selector !== undefined) {
      const sections = resolveSelector(selector, outlines);
      if (sections.length === 0) {
        throw new GroundworkError('NOT_FOUND', `no section matches ${JSON.stringify(selector)} in ${outlines.length === 1 ? 'the document' : `the ${outlines.length} documents`} searched`);
      }
      return { ...base, source: 'selector', selector, status: sections.length === 1 ? 'unique' : 'ambiguous', action: 'restrict', sections };
    }
    const sections: ResolvedSection[] = [];
    let ambiguous = false;
    for (const reference of references) {
      const matches = resolveReference(reference, outlines);
      if (matches.length === 0) base.unresolved.push(reference.text);
      if (matches.length > 1) ambiguous = true;
      sections.push(...matches);
    }
    if (sections.length === 0) return { ...base, source: 'query', status: 'unresolved', action: 'none', sections };
    return { ...base, source: 'query', status: ambiguous ? 'ambiguous' : 'unique', action: ambiguous ? 'boost' : 'restrict', sections };
  }

  /** The documents a reference is resolved in: those named by the filter, else the best for the query. */
  private async candidateDocuments(): Promise<string[]> {
    const limit = this.options.sectionDocuments;
    const { fetcher } = this.sources;
    const named = [...new Set([...asList(this.filter.docId), ...(this.filter.sections ?? []).map((s) => s.docId)])];
    if (named.length > 0) {
      // Named documents are the candidates; the fetcher checks the document-level fields when there are some.
      const documentLevel = this.filter.format !== undefined || this.filter.path !== undefined || this.filter.metadata !== undefined;
      return documentLevel && fetcher.documents ? fetcher.documents(this.filter, Math.max(limit, named.length)) : named;
    }
    const pool = await this.search('discover', this.query, this.filter);
    const ids: string[] = [];
    for (const c of pool) {
      if (!ids.includes(c.block.docId)) ids.push(c.block.docId);
      if (ids.length >= limit) break;
    }
    if (ids.length === 0 && fetcher.documents) return fetcher.documents(this.filter, limit);
    return ids;
  }

  private async outline(docId: string): Promise<Outline> {
    return (await this.sources.fetcher.outline?.(docId)) ?? outlineFromBlocks(docId, await this.blocks(docId));
  }

  private blocks(docId: string): Promise<Block[]> {
    let blocks = this.blockCache.get(docId);
    if (!blocks) this.blockCache.set(docId, (blocks = this.sources.fetcher.blocks(docId)));
    return blocks;
  }

  /** Ranked groups: [inside] when restricted, [inside, outside] when boosted, [all] otherwise. */
  private async sectionSearch(section: SectionResolution, keywords: string): Promise<Candidate[][]> {
    if (section.action === 'none') return [await this.search('search', keywords, this.filter)];
    const inFilter = withinSections(this.filter, section.sections);
    let inside = await this.search('inside', keywords, inFilter);
    if (inside.length === 0) {
      inside = await this.listSections(section.sections, inFilter);
      section.listed = true;
    }
    if (section.action === 'restrict') return [inside];
    const seen = new Set(inside.map((c) => c.block.id));
    const outside = (await this.search('outside', keywords, this.filter)).filter((c) => !seen.has(c.block.id));
    return [inside, outside];
  }

  /** The blocks of the sections in document order (a query that names only a section). */
  private async listSections(sections: readonly ResolvedSection[], filter: RetrievalFilter): Promise<Candidate[]> {
    const passes = compileFilter({ ...filter, docId: undefined, format: undefined, path: undefined, metadata: undefined });
    const out: Candidate[] = [];
    const seen = new Set<string>();
    for (const s of sections) {
      const path = (await this.sources.fetcher.documentPath?.(s.docId)) ?? null;
      const scope = scopeOf(s);
      for (const block of await this.blocks(s.docId)) {
        if (seen.has(block.id) || !inSection(block, scope) || !passes(block, { format: '', paths: [], metadata: {} })) continue;
        seen.add(block.id);
        out.push({ block, path, score: 0, scores: {} });
        if (out.length >= this.depth) return out;
      }
    }
    return out;
  }

  /** Reranks the head of each group (a boost keeps inside before outside). */
  private async rerank(groups: Candidate[][], query: string): Promise<{ groups: Candidate[][]; count: number }> {
    const reranker = this.sources.reranker!;
    const depth = Math.max(3 * this.options.k, 20);
    let count = 0;
    const out: Candidate[][] = [];
    for (const group of groups) {
      const head = group.slice(0, depth);
      if (head.length === 0) {
        out.push(group);
        continue;
      }
      const scores = await reranker.rerank(query, head.map((c) => c.block.text));
      if (scores.length !== head.length || scores.some((s) => typeof s !== 'number' || Number.isNaN(s))) {
        throw new GroundworkError('EMBEDDER', `reranker ${rerankerName(reranker)} returned ${scores.length} scores for ${head.length} passages`);
      }
      count += head.length;
      const reranked = head
        .map((c, i) => ({ c, s: scores[i]!, i }))
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .map(({ c, s }) => ({ ...c, score: s, scores: { ...(c.scores ?? {}), rerank: s } }));
      out.push([...reranked, ...group.slice(depth)]);
    }
    return { groups: out, count };
  }

  /**
   * Passages from the head of the pool: merged, widened and deduplicated, taking more candidates
   * while merging leaves fewer than k passages.
   */
  private async clean(pool: readonly Candidate[]): Promise<{ passages: Passage[]; considered: number }> {
    const { k, neighbors, merge, dedupe } = this.options;
    const fetched = new Map<string, Block[]>();
    const fetchedRanges = new Map<string, Set<string>>();
    let m = Math.min(k, pool.length);
    for (;;) {
      const head = pool.slice(0, m);
      let windows: Map<string, Block[]> | undefined;
      if (neighbors > 0) {
        await this.fetchNeighbors(head, fetched, fetchedRanges);
        windows = neighborWindows(head, fetched, neighbors);
      }
      let passages = merge ? mergeOverlapping(head, windows) : head.flatMap((c) => mergeOverlapping([c], windows));
      if (dedupe) passages = collapseDuplicates(passages);
      if (passages.length >= k || m >= pool.length) return { passages: passages.slice(0, k), considered: m };
      m = Math.min(pool.length, m + (k - passages.length));
    }
  }

  private async fetchNeighbors(head: readonly Candidate[], fetched: Map<string, Block[]>, done: Map<string, Set<string>>): Promise<void> {
    const { fetcher } = this.sources;
    for (const [docId, ranges] of neighborRanges(head, this.options.neighbors)) {
      const seen = done.get(docId) ?? new Set<string>();
      done.set(docId, seen);
      for (const [from, to] of ranges) {
        const key = `${from}:${to}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const blocks = fetcher.blockRange ? await fetcher.blockRange(docId, from, to) : (await this.blocks(docId)).filter((b) => b.ordinal >= from && b.ordinal <= to);
        const have = fetched.get(docId) ?? [];
        const ids = new Set(have.map((b) => b.id));
        fetched.set(docId, [...have, ...blocks.filter((b) => !ids.has(b.id))]);
      }
    }
  }
}

function rerankerName(reranker: PassageReranker): string {
  return reranker.name ?? reranker.model ?? 'reranker';
}

function toHit(p: Passage, highlighter: Highlighter, section: SectionResolution | undefined): RetrievedHit {
  const pages = p.blocks.flatMap((b) => [b.pageStart, b.pageEnd]).filter((n): n is number => n !== null);
  const hit: RetrievedHit = {
    score: p.score,
    scores: p.scores,
    docId: p.docId,
    path: p.path,
    text: p.text,
    snippet: highlighter.snippet(p.text),
    start: p.start,
    end: p.end,
    headingPath: p.block.headingPath,
    pageStart: pages.length > 0 ? Math.min(...pages) : null,
    pageEnd: pages.length > 0 ? Math.max(...pages) : null,
    block: p.block,
    blockIds: p.blocks.map((b) => b.id),
    matched: p.matched,
    duplicates: p.duplicates,
  };
  const within = section?.action !== 'none' ? section?.sections.find((s) => inSection(p.block, scopeOf(s))) : undefined;
  if (within) {
    hit.section = { headingPath: within.headingPath, title: within.title, ...(within.label !== undefined && { label: within.label }) };
    // The block's own path names where it starts; inside the section, the section's is the answer.
    if (!hasPathPrefix(p.block.headingPath, within.headingPath)) hit.headingPath = within.headingPath;
  }
  return hit;
}

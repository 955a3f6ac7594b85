import type { Block, OutlineBlock, SearchFilter, SearchHit, StoredDocument } from '../store/types.js';
import { asList, compileFilter, type RetrievalFilter } from './filter.js';
import type { RetrievalSources } from './pipeline.js';
import { outlineFromBlocks, type Outline } from './outline.js';
import type { BlockFetcher, Candidate, Retriever } from './types.js';

/**
 * What the adapter needs of a library: today's `Library` (synchronous store) and the asynchronous
 * one being built both fit, since every call is awaited.
 */
export interface LibraryLike {
  /** BM25 hits (the Library's `searchText`). */
  searchText(query: string, options: { k: number; filter: SearchFilter }): SearchHit[] | Promise<SearchHit[]>;
  /**
   * The same ranking without snippets (the Library's `searchCandidates`), used when there is one:
   * the pipeline highlights only the passages it returns, so a snippet per candidate is wasted.
   */
  searchCandidates?(query: string, options: { k: number; filter: SearchFilter }): Promise<Candidate[]>;
  blocks(docId: string): Block[] | Promise<Block[]>;
  /** What an outline is built from without most of the texts (`LibraryStore.outlineBlocks`), when there is such a read. */
  outlineBlocks?(docId: string): Promise<OutlineBlock[]>;
  documents(): StoredDocument[] | Promise<StoredDocument[]>;
  document(idOrPath: string): StoredDocument | undefined | Promise<StoredDocument | undefined>;
}

/** Most candidates asked of a store that cannot filter by heading path or metadata itself. */
const MAX_POST_FILTER = 100_000;

/**
 * Retrieval sources over a library: its BM25 search as the `bm25` retriever and its blocks as the
 * fetcher. The store filters by document, format, path and pages before ranking; heading-path,
 * section and metadata filters, which it does not know yet, are applied here on a widening window
 * of its ranking (4k, 16k, … candidates, within the documents those filters allow) until k pass or
 * the ranking is exhausted, so k results are still k results of the filter.
 */
export function librarySources(library: LibraryLike): RetrievalSources {
  const ranked = (query: string, k: number, filter: SearchFilter): Promise<Candidate[]> =>
    library.searchCandidates
      ? library.searchCandidates(query, { k, filter })
      : Promise.resolve(library.searchText(query, { k, filter })).then((hits) => hits.map(toCandidate));
  // Outlines are rebuilt from the document's blocks (their spans, and the texts that may hold a
  // heading line, when the library has that read): keep the last ones, each valid while its
  // document has the same chunking (configHash) and block count (checked on every use).
  const outlines = new Map<string, { key: string; outline: Outline }>();

  const bm25: Retriever = {
    name: 'bm25',
    async search(query: string, k: number, filter: RetrievalFilter): Promise<Candidate[]> {
      const { storeFilter, needsPostFilter, empty } = splitFilter(filter);
      if (empty) return [];
      if (!needsPostFilter) return ranked(query, k, storeFilter);
      const passes = compileFilter(filter);
      // Documents looked up once per search (never kept past it: they change as files are added).
      const docs = new Map<string, Promise<StoredDocument | undefined>>();
      const stored = (docId: string) => {
        let doc = docs.get(docId);
        if (!doc) docs.set(docId, (doc = Promise.resolve(library.document(docId))));
        return doc;
      };
      for (let ask = Math.max(4 * k, 50); ; ask *= 4) {
        const hits = await ranked(query, ask, storeFilter);
        const kept: Candidate[] = [];
        for (const hit of hits) {
          const doc = await stored(hit.block.docId);
          if (doc && passes(hit.block, doc)) kept.push(hit);
          if (kept.length >= k) return kept;
        }
        if (hits.length < ask || ask >= MAX_POST_FILTER) return kept;
      }
    },
  };

  const fetcher: BlockFetcher = {
    blocks: async (docId) => library.blocks(docId),
    async outline(docId) {
      const doc = await library.document(docId);
      if (!doc) return undefined;
      const key = `${doc.configHash}:${doc.blocks}`;
      const cached = outlines.get(docId);
      if (cached?.key === key) return cached.outline;
      const outline = outlineFromBlocks(docId, library.outlineBlocks ? await library.outlineBlocks(docId) : await library.blocks(docId));
      outlines.delete(docId);
      outlines.set(docId, { key, outline });
      if (outlines.size > OUTLINE_CACHE) outlines.delete(outlines.keys().next().value!);
      return outline;
    },
    async documents(filter, limit) {
      const passes = compileFilter({ ...filter, pageFrom: undefined, pageTo: undefined, headingPrefix: undefined, sections: undefined });
      const ids = new Set(asList(filter.docId));
      const inSections = filter.sections ? new Set(filter.sections.map((s) => s.docId)) : undefined;
      const out: string[] = [];
      for (const doc of await library.documents()) {
        if ((ids.size > 0 && !ids.has(doc.id)) || (inSections && !inSections.has(doc.id))) continue;
        if (!passes({ docId: doc.id, headingPath: [], pageStart: null, pageEnd: null, start: 0, end: 0 }, doc)) continue;
        out.push(doc.id);
        if (out.length >= limit) break;
      }
      return out;
    },
    documentPath: async (docId) => (await library.document(docId))?.paths[0] ?? null,
  };
  return { retrievers: [bm25], fetcher };
}

/** Outlines kept by one `librarySources` (the most recently used). */
const OUTLINE_CACHE = 256;

function toCandidate(hit: SearchHit): Candidate {
  return { block: hit.block, path: hit.path, score: hit.score };
}

/**
 * The part of the filter the store applies, and whether the rest must be applied here. Sections
 * narrow the store's documents to theirs (`empty` when that leaves none).
 */
function splitFilter(filter: RetrievalFilter): { storeFilter: SearchFilter; needsPostFilter: boolean; empty: boolean } {
  const storeFilter: SearchFilter = {};
  let docIds = asList(filter.docId);
  if (filter.sections) {
    const sectionDocs = new Set(filter.sections.map((s) => s.docId));
    docIds = docIds.length > 0 ? docIds.filter((id) => sectionDocs.has(id)) : [...sectionDocs];
    if (docIds.length === 0) return { storeFilter, needsPostFilter: false, empty: true };
  }
  if (docIds.length > 0) storeFilter.docId = docIds;
  if (filter.format !== undefined) storeFilter.format = filter.format as SearchFilter['format'];
  if (filter.path !== undefined) storeFilter.path = filter.path;
  if (filter.pageFrom !== undefined) storeFilter.pageFrom = filter.pageFrom;
  if (filter.pageTo !== undefined) storeFilter.pageTo = filter.pageTo;
  const needsPostFilter = filter.sections !== undefined || filter.headingPrefix !== undefined || filter.metadata !== undefined;
  return { storeFilter, needsPostFilter, empty: false };
}

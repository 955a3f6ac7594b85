import type { Block } from '../store/types.js';
import type { RetrievalFilter } from './filter.js';
import type { Outline } from './outline.js';

/**
 * The retriever contract (STYLE.md, example 4). A store yields candidates; fusion, section
 * resolution, snippets, merging and neighbours happen above it, in `src/retrieval/`, the same for
 * every store and every mode.
 */

/** One ranked block from a retriever. */
export interface Candidate {
  block: Block;
  /** A path of the block's document (null for documents added as bytes). */
  path: string | null;
  /** The retriever's own score, higher is better (BM25 score, cosine similarity, fused score …). */
  score: number;
  /** Scores of the retrievers behind it (set by fusion). */
  scores?: HitScores;
}

/**
 * Scores a hit carries for `--explain`: for each retriever its score and 1-based rank (`bm25`,
 * `bm25Rank`, `vector`, `vectorRank`; any other retriever by its name), `fused` after fusion and
 * `rerank` after reranking: those that apply.
 */
export type HitScores = Partial<Record<'bm25' | 'bm25Rank' | 'vector' | 'vectorRank' | 'fused' | 'rerank', number>> & Record<string, number>;

/**
 * A retriever: BM25, vector and fusion alike. `search` returns at most `k` candidates that pass
 * `filter`, best first: the filter is applied before ranking, so k results are k results of the
 * filter. An empty query returns [].
 */
export interface Retriever {
  /** `bm25`, `vector`, … (the key of its scores and its weight). */
  readonly name: string;
  search(query: string, k: number, filter: RetrievalFilter): Promise<Candidate[]>;
}

/** Where blocks, outlines and documents come from (a store, a Library, or memory). */
export interface BlockFetcher {
  /** The blocks of a document, in ordinal order ([] for an unknown document). */
  blocks(docId: string): Promise<Block[]>;
  /** Blocks `from`..`to` (ordinals, inclusive) of a document; defaults to slicing `blocks`. */
  blockRange?(docId: string, from: number, to: number): Promise<Block[]>;
  /** The document's outline from its heading elements; defaults to one built from its blocks. */
  outline?(docId: string): Promise<Outline | undefined>;
  /** Documents that pass the filter, for a query that names only a section; at most `limit`. */
  documents?(filter: RetrievalFilter, limit: number): Promise<string[]>;
  /** A path of the document, for hits made from fetched blocks. */
  documentPath?(docId: string): Promise<string | null>;
}

/**
 * What the pipeline needs of a reranker: one score per passage, in order, higher is better. The
 * `/rerank` clients of `src/embed/` (TEI, Jina, Cohere) have this shape; `name` or `model` labels it
 * in explanations.
 */
export interface PassageReranker {
  readonly name?: string;
  readonly model?: string | undefined;
  rerank(query: string, passages: readonly string[]): Promise<number[]>;
}

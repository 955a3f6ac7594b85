import { z } from 'zod';
import { GroundworkError } from '../errors.js';
import { RetrievalFilterSchema } from './filter.js';

/**
 * The options of a search, defined once: the library API validates with it, the CLI maps its flags
 * onto it, the HTTP API and MCP take their request schemas from it (`z.toJSONSchema`).
 */
export const SEARCH_MODES = ['bm25', 'vector', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export const RetrievalOptionsSchema = z.object({
  mode: z.enum(SEARCH_MODES).optional()
    .describe('bm25 (keywords), vector (embeddings) or hybrid (both, fused by reciprocal rank fusion); default hybrid when vectors exist, else bm25'),
  k: z.number().int().min(1).max(1000).default(10)
    .describe('at most this many hits'),
  filter: RetrievalFilterSchema.optional()
    .describe('restrict the search (applied before ranking: k hits are k hits of the filter)'),
  section: z.string().trim().min(1).optional()
    .describe('search only this section: a numbering (3.2, 第三章第二节, Appendix B) or heading texts joined by > ("二、建设内容 > （二）")'),
  sectionReferences: z.boolean().default(true)
    .describe('understand section references in the query (第三章第二节, Section 3.2, the fourth part) and search that section'),
  neighbors: z.number().int().min(0).max(20).default(0)
    .describe('add this many blocks before and after each hit (small-to-big)'),
  rerank: z.boolean().default(false)
    .describe('rerank the fused candidates with the configured reranker'),
  weights: z.record(z.string(), z.number().min(0).max(1000)).optional()
    .describe('weight of each retriever in fusion, e.g. { "bm25": 1, "vector": 2 }; 0 leaves one out'),
  explain: z.boolean().default(false)
    .describe('return how the hits were found: retriever runs, fusion, section resolution, merging'),
  merge: z.boolean().default(true)
    .describe('merge hits of one document whose spans overlap into one passage'),
  dedupe: z.boolean().default(true)
    .describe('collapse hits with exactly the same text into one, listing the other sources'),
  depth: z.number().int().min(1).max(10000).optional()
    .describe('candidates asked of each retriever (default max(4k, 50) when fusing, max(2k, 20) otherwise)'),
  sectionDocuments: z.number().int().min(1).max(1000).default(20)
    .describe('at most this many documents (the best for the query) are searched for a referenced section'),
}).strict();

/** What callers pass (defaults optional). */
export type RetrievalOptionsInput = z.input<typeof RetrievalOptionsSchema>;
/** After validation, defaults filled. */
export type RetrievalOptions = z.output<typeof RetrievalOptionsSchema>;

/** Validates search options; bad ones are INVALID_OPTIONS naming the field. */
export function parseRetrievalOptions(input: unknown): RetrievalOptions {
  const result = RetrievalOptionsSchema.safeParse(input ?? {});
  if (!result.success) throw new GroundworkError('INVALID_OPTIONS', `invalid search options: ${z.prettifyError(result.error).replace(/\n\s*/g, '; ')}`);
  return result.data;
}

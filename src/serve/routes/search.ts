import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { librarySources } from '../../retrieval/library-source.js';
import { RetrievalOptionsSchema } from '../../retrieval/options.js';
import { retrieve, type RetrievedHit } from '../../retrieval/pipeline.js';
import { route } from '../route.js';
import { SearchResponseSchema } from '../schemas.js';
import type { ServeContext } from '../server.js';

/** The search request: the query and the retrieval options, from their one definition. */
export const SearchRequestSchema = RetrievalOptionsSchema.extend({
  query: z.string().min(1).max(10_000).describe('plain text in any language; a section named in it (3.2, 第三章第二节) is looked up'),
}).strict().meta({ id: 'SearchRequest' });

/** POST /v1/search: the retrieval pipeline, as `groundwork search` runs it. */
export function searchRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    const sources = librarySources(ctx.library);
    route(app, {
      method: 'POST', url: '/search', operationId: 'search', tags: ['search'], scope: 'read',
      summary: 'Search the library (bm25 now; vector and hybrid once a library has vectors): section-aware, merged, deduplicated passages',
      body: SearchRequestSchema,
      responses: {
        200: { description: 'hits, best first', schema: SearchResponseSchema },
        404: { description: 'the `section` option names no section (NOT_FOUND)' },
      },
      handler: async ({ body }) => {
        const { query, ...options } = body;
        const result = await retrieve(query, options, sources);
        return {
          hits: result.hits.map(hitJson),
          keywords: result.keywords,
          mode: result.mode,
          section: (result.section ?? null) as Record<string, unknown> | null,
          ...(result.explanation && { explanation: result.explanation as unknown as Record<string, unknown> }),
        };
      },
    });
  };
}

function hitJson(hit: RetrievedHit): z.output<typeof SearchResponseSchema>['hits'][number] {
  return {
    score: hit.score, scores: hit.scores as Record<string, number>, docId: hit.docId, path: hit.path, text: hit.text, snippet: hit.snippet,
    start: hit.start, end: hit.end, headingPath: hit.headingPath, pageStart: hit.pageStart, pageEnd: hit.pageEnd, block: hit.block,
    blockIds: hit.blockIds, matched: hit.matched, duplicates: hit.duplicates, ...(hit.section && { section: hit.section }),
  };
}

import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { RetrievalOptionsSchema } from '../../retrieval/options.js';
import type { RetrievalResultJson } from '../../retrieval/wire.js';
import { ErrorBodySchema } from '../errors.js';
import { route } from '../route.js';
import { SearchResponseSchema } from '../schemas.js';
import type { ServeContext } from '../server.js';

/** The search request: the query and the retrieval options, from their one definition. */
export const SearchRequestSchema = RetrievalOptionsSchema.extend({
  query: z.string().min(1).max(10_000).describe('plain text in any language; a section named in it (3.2, 第三章第二节) is looked up'),
}).strict().meta({ id: 'SearchRequest' });

/** The body the search workers serialise has the documented response's shape (a compile-time check). */
export const asSearchResponse = (body: RetrievalResultJson): z.output<typeof SearchResponseSchema> => body;

/** POST /v1/search: `library.search`, as `groundwork search` runs it (same options, same error codes). */
export function searchRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    route(app, {
      method: 'POST', url: '/search', operationId: 'search', tags: ['search'], scope: 'read',
      summary: 'Search the library by keywords (bm25), meaning (vector) or both (hybrid, the default when the library has vectors): section-aware, merged, deduplicated passages',
      body: SearchRequestSchema,
      responses: {
        200: { description: 'hits, best first', schema: SearchResponseSchema },
        400: { description: 'bad options; vector or hybrid without vectors or without the embedder of the library\'s model; rerank without a reranker (INVALID_OPTIONS)', schema: ErrorBodySchema },
        404: { description: 'the `section` option names no section (NOT_FOUND)', schema: ErrorBodySchema },
        502: { description: 'the embedder or reranker failed (EMBEDDER)', schema: ErrorBodySchema },
      },
      handler: async ({ body }, _request, reply) => {
        const { query, ...options } = body;
        // `retrievalResultJson(result)` as text, serialised where the search ran (a search worker).
        const json = await ctx.searchJson(query, options, abandonedSignal(reply));
        return reply.type('application/json').send(json);
      },
    });
  };
}

/** Aborts when the client goes away before the answer is sent (the query's embedding is then abandoned). */
export function abandonedSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}

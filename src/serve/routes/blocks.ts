import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../errors.js';
import { route } from '../route.js';
import { BlockSchema, IdParams } from '../schemas.js';
import type { ServeContext } from '../server.js';

/** One block by id, with its neighbours (small-to-big). */
export function blockRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    route(app, {
      method: 'GET', url: '/:id', operationId: 'getBlock', summary: 'A block, with `neighbors` blocks before and after it in its document', tags: ['blocks'], scope: 'read',
      params: IdParams,
      query: z.object({ neighbors: z.coerce.number().int().min(0).max(50).default(0).describe('blocks before and after') }).strict(),
      responses: {
        200: { description: 'the block and its neighbours in document order', schema: z.object({ block: BlockSchema, before: z.array(BlockSchema), after: z.array(BlockSchema) }) },
        404: { description: 'no such block (NOT_FOUND)' },
      },
      handler: async ({ params, query }) => {
        const block = await ctx.library.block(params.id);
        if (!block) throw new HttpError('NOT_FOUND', `no block ${params.id}`);
        if (query.neighbors === 0) return { block, before: [], after: [] };
        const range = await ctx.library.blockRange(block.docId, Math.max(0, block.ordinal - query.neighbors), block.ordinal + query.neighbors);
        return { block, before: range.filter((b) => b.ordinal < block.ordinal), after: range.filter((b) => b.ordinal > block.ordinal) };
      },
    });
  };
}

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { JOB_STATES } from '../../store/types.js';
import { packageVersion as version } from '../version.js';
import { openApiDocument, route } from '../route.js';
import { StatsSchema } from '../schemas.js';
import type { ServeContext } from '../server.js';

/** Health, stats, the OpenAPI document. */
export function systemRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    route(app, {
      method: 'GET', url: '/healthz', operationId: 'health', summary: 'Liveness: 200 while the server takes requests (503 once it is shutting down)', tags: ['system'], scope: 'none',
      responses: { 200: { description: 'up', schema: z.object({ status: z.literal('ok'), version: z.string() }) } },
      handler: async () => ({ status: 'ok' as const, version: version() }),
    });

    route(app, {
      method: 'GET', url: '/v1/stats', operationId: 'stats', summary: 'Counts of documents, blocks, tokens, formats, and jobs by state', tags: ['library'], scope: 'read',
      responses: { 200: { description: 'the library\'s counts', schema: StatsSchema } },
      handler: async () => {
        const stats = await ctx.library.stats();
        const jobs: Record<string, number> = {};
        for (const state of JOB_STATES) jobs[state] = (await ctx.library.jobs({ states: [state], limit: 100_000 })).length;
        return { ...stats, jobs };
      },
    });

    route(app, {
      method: 'GET', url: '/openapi.json', operationId: 'openapi', summary: 'This API as OpenAPI 3.1, generated from the route schemas', tags: ['system'], scope: 'none',
      responses: { 200: { description: 'the OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
      handler: async () => openApiDocument(ctx.routes, {
        title: 'Groundwork',
        version: version(),
        description: 'Parse, chunk, store and search documents (docs/serve.md).',
      }),
    });
  };
}

/** `GET /` when no plugin (the inspector) took it: where things are. */
export function indexRoute(app: FastifyInstance): void {
  route(app, {
    method: 'GET', url: '/', operationId: 'index', summary: 'Where the API is described (replaced by the inspector page when it is installed)', tags: ['system'], scope: 'none',
    responses: { 200: { description: 'links', schema: z.object({ name: z.string(), version: z.string(), openapi: z.string(), health: z.string(), docs: z.string() }) } },
    handler: async () => ({ name: 'groundwork', version: version(), openapi: '/openapi.json', health: '/healthz', docs: 'docs/serve.md' }),
  });
}

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { chunk, type ChunkOptions } from '../../chunk.js';
import { chunkBoxes, storableChunks } from '../../library/blocks.js';
import { IngestRequestOptionsSchema, toParseOptions } from '../../options/ingest.js';
import { HttpError } from '../errors.js';
import { route } from '../route.js';
import { BBoxesSchema, IdParams } from '../schemas.js';
import type { ServeContext } from '../server.js';

/**
 * What to chunk a stored document with: the upload's ingest options (strategy, chunkOptions,
 * tokenizer, parseOptions; the same schema `POST /v1/documents` validates), and whether to send
 * the canonical text along.
 */
export const RechunkRequestSchema = IngestRequestOptionsSchema.extend({
  canonical: z.boolean().default(false).describe('also return the document\'s canonical text (the chunks\' offsets refer to it)'),
}).strict().meta({ id: 'RechunkRequest' });

const RechunkedChunkSchema = z.object({
  index: z.number().int(),
  text: z.string().describe('what would be embedded: prefix + canonical.slice(start, end) for structure, sentence, token'),
  start: z.number().int(),
  end: z.number().int(),
  chars: z.number().int(),
  tokens: z.number().int(),
  headingPath: z.array(z.string()),
  pageStart: z.number().int().optional(),
  pageEnd: z.number().int().optional(),
  kind: z.string(),
  strategy: z.string(),
  prefix: z.string().optional(),
  bboxes: BBoxesSchema.describe('the boxes of the elements it covers, as its block would store them (the inspector draws them on the page)'),
}).catchall(z.unknown()).meta({ id: 'RechunkedChunk' });

export const RechunkResponseSchema = z.object({
  documentId: z.string(),
  strategy: z.string(),
  tokenizer: z.string(),
  from: z.enum(['cache', 'original']).describe('where the parsed document came from: the parse cache, or the kept original parsed again'),
  canonicalLength: z.number().int().describe('length of the canonical text (UTF-16 code units)'),
  chunks: z.array(RechunkedChunkSchema).describe('the chunks that would be stored (blank ones dropped, as ingest does)'),
  canonical: z.string().optional(),
});

/** `POST /v1/documents/{id}/chunk`: a stored document chunked again with other options, nothing stored. */
export function rechunkRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    route(app, {
      method: 'POST', url: '/:id/chunk', operationId: 'rechunkDocument', tags: ['documents', 'preview'], scope: 'read',
      summary: 'Chunk a stored document again with a strategy and its options, from its cached parse, without storing anything (the inspector\'s compare view)',
      params: IdParams,
      body: RechunkRequestSchema,
      responses: {
        200: { description: 'the chunks, with heading paths, pages, offsets into the canonical text and exact token counts', schema: RechunkResponseSchema },
        404: { description: 'no such document, or neither its cached parse nor its original (NOT_FOUND)' },
        422: { description: 'the kept original cannot be parsed again with these parse options (CORRUPT, ENCRYPTED, EMPTY, LIMIT_EXCEEDED)' },
      },
      handler: async ({ params, body }) => {
        if (!/^[0-9a-f]{4,64}$/.test(params.id)) throw new HttpError('NOT_FOUND', `no document ${params.id}`);
        const settings = await ctx.library.settings();
        const strategy = body.strategy ?? settings.strategy;
        // Ingest's defaults (Library.addFiles): the library's tokenizer unless the request names one.
        const tokenizer = body.tokenizer ?? settings.tokenizer;
        const { document, from } = await ctx.library.parsedDocument(params.id, toParseOptions(body.parseOptions));
        const chunks = storableChunks(document.canonical, chunk(document, { ...(body.chunkOptions ?? {}), strategy, tokenizer: tokenizer as ChunkOptions['tokenizer'] }));
        return {
          documentId: document.id, strategy, tokenizer, from, canonicalLength: document.canonical.length,
          chunks: chunks.map((c) => ({ ...c, bboxes: chunkBoxes(document, c) })) as unknown as z.output<typeof RechunkedChunkSchema>[],
          ...(body.canonical && { canonical: document.canonical }),
        };
      },
    });
  };
}

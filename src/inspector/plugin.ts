import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { contextualize } from '../embed/documents.js';
import { HttpError } from '../serve/errors.js';
import type { ServePlugin } from '../serve/plugins.js';
import { route } from '../serve/route.js';
import { BlockSchema, IdParams } from '../serve/schemas.js';

/** The inspector's static files: plain ES module + CSS beside this module (copied into dist by postbuild). */
const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/inspector/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/inspector/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/inspector/virtual-list.js': { file: 'virtual-list.js', type: 'text/javascript; charset=utf-8' },
  '/inspector/segments.js': { file: 'segments.js', type: 'text/javascript; charset=utf-8' },
};

/** Nothing remote: scripts, styles, images and fetches only from this server. */
export const INSPECTOR_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob:", "font-src 'self'",
  "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const cache = new Map<string, Buffer>();
async function staticFile(name: string): Promise<Buffer> {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = await readFile(new URL(`./static/${name}`, import.meta.url));
    cache.set(name, bytes);
  }
  return bytes;
}

/** `groundwork serve`'s page at `/` (docs/inspector.md), and the read routes it needs beyond the API's. */
export function inspectorPlugin(): ServePlugin {
  return {
    name: 'inspector',
    prefix: '/',
    register(app, ctx) {
      for (const [url, { file, type }] of Object.entries(STATIC)) {
        route(app, {
          method: 'GET', url, operationId: `inspector${file.replace(/\W/g, '')}`, summary: `The inspector page (${file})`, tags: ['inspector'], scope: 'none',
          responses: { 200: { description: file, contentType: type.split(';')[0], schema: z.string() } },
          handler: async (_input, _request, reply) => {
            reply.type(type).header('Content-Security-Policy', INSPECTOR_CSP).header('X-Content-Type-Options', 'nosniff')
              .header('Cache-Control', file === 'index.html' ? 'no-cache' : 'public, max-age=300');
            return reply.send(await staticFile(file));
          },
        });
      }
      route(app, {
        method: 'GET', url: '/v1/documents/:id/blocks', operationId: 'listDocumentBlocks', summary: 'A document\'s blocks in order, paged', tags: ['documents'], scope: 'read',
        params: IdParams,
        query: z.object({
          offset: z.coerce.number().int().min(0).default(0).describe('first ordinal'),
          limit: z.coerce.number().int().min(1).max(5000).default(1000).describe('how many blocks'),
        }).strict(),
        responses: {
          200: { description: 'blocks from `offset`, and how many the document has', schema: z.object({ blocks: z.array(BlockSchema.extend({ embedded: z.string().describe('the text that is embedded for this block (contextualize, src/embed/)') })), total: z.number().int() }) },
          404: { description: 'no such document (NOT_FOUND)' },
        },
        handler: async ({ params, query }) => {
          const doc = await ctx.library.document(params.id);
          if (!doc) throw new HttpError('NOT_FOUND', `no document ${params.id}`);
          const total = doc.blocks;
          const blocks = total === 0 ? [] : await ctx.library.blockRange(doc.id, query.offset, query.offset + query.limit - 1);
          return { blocks: blocks.map((b) => ({ ...b, embedded: contextualize(b).text })), total };
        },
      });
      route(app, {
        method: 'GET', url: '/v1/documents/:id/text', operationId: 'getDocumentText', summary: 'A document\'s canonical text (every offset of its blocks refers to it), from its cached parse', tags: ['documents'], scope: 'read',
        params: IdParams,
        responses: {
          200: { description: 'the canonical text', contentType: 'text/plain', schema: z.string() },
          404: { description: 'no such document, or neither its cached parse nor its original (NOT_FOUND)' },
        },
        handler: async ({ params }, _request, reply) => {
          if (!/^[0-9a-f]{4,64}$/.test(params.id)) throw new HttpError('NOT_FOUND', `no document ${params.id}`);
          const { document } = await ctx.library.parsedDocument(params.id);
          return reply.type('text/plain; charset=utf-8').send(document.canonical);
        },
      });
    },
  };
}

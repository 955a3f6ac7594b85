import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { chunk, type ChunkOptions } from '../../chunk.js';
import type { Document } from '../../document/types.js';
import { ChunkRequestOptionsSchema, ParseRequestOptionsSchema, toParseOptions, type ChunkRequestOptions, type ParseRequestOptions } from '../../options/ingest.js';
import { parse } from '../../parse.js';
import { HttpError, validationError } from '../errors.js';
import { route } from '../route.js';
import type { ServeContext } from '../server.js';
import { receiveUpload } from '../uploads.js';

/** A preview from JSON: the text itself, with a name (for detection) and the options. */
const TextInput = z.object({
  text: z.string().max(64 * 1024 * 1024).describe('the document\'s text (Markdown, HTML, CSV, JSON, plain text...)'),
  name: z.string().max(255).optional().describe('a file name for detection, e.g. notes.md (default: text.txt)'),
  parseOptions: ParseRequestOptionsSchema.optional(),
}).strict();

const ParseJsonSchema = TextInput.meta({ id: 'ParseRequest' });
const ChunkJsonSchema = TextInput.extend(ChunkRequestOptionsSchema.shape).strict().meta({ id: 'ChunkRequest' });

const PreviewForm = z.object({
  file: z.string().meta({ format: 'binary', contentMediaType: 'application/octet-stream' }).describe('the document'),
  options: z.string().optional().describe('JSON: { parseOptions, strategy, chunkOptions, tokenizer } as in the JSON form'),
});

const DocumentJsonSchema = z.object({
  id: z.string(),
  format: z.string(),
  title: z.string().nullable().optional(),
  canonical: z.string(),
  elements: z.array(z.record(z.string(), z.unknown())),
  warnings: z.array(z.string()),
}).catchall(z.unknown()).meta({ id: 'ParsedDocument', description: 'the Document model (docs/document-model.md)' });

const ChunkJsonOutSchema = z.object({
  text: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  tokens: z.number().int(),
  headingPath: z.array(z.string()),
}).catchall(z.unknown()).meta({ id: 'Chunk' });

/** POST /v1/parse and /v1/chunk: what a document would become, nothing stored. */
export function previewRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    route(app, {
      method: 'POST', url: '/parse', operationId: 'parsePreview', tags: ['preview'], scope: 'read',
      summary: 'Parse a document without storing it: upload it (multipart `file`) or send its text as JSON',
      body: ParseJsonSchema,
      rawBody: { contentType: 'multipart/form-data', schema: PreviewForm },
      responses: {
        200: { description: 'the parsed Document', schema: z.object({ document: DocumentJsonSchema }) },
        413: { description: 'over the upload limit (TOO_LARGE)' },
        422: { description: 'the file cannot be read (CORRUPT, ENCRYPTED, EMPTY, LIMIT_EXCEEDED)' },
        415: { description: 'a format Groundwork does not read (UNSUPPORTED)' },
      },
      handler: async ({ body }, request) => {
        const document = await withInput(ctx, request, body, (doc) => doc);
        return { document: documentJson(document) };
      },
    });

    route(app, {
      method: 'POST', url: '/chunk', operationId: 'chunkPreview', tags: ['preview'], scope: 'read',
      summary: 'Parse and chunk a document without storing it: upload it or send its text as JSON, with the strategy and its options',
      body: ChunkJsonSchema,
      rawBody: { contentType: 'multipart/form-data', schema: PreviewForm },
      responses: {
        200: { description: 'the chunks with heading paths, pages, offsets, exact token counts', schema: z.object({ chunks: z.array(ChunkJsonOutSchema), strategy: z.string() }) },
        413: { description: 'over the upload limit (TOO_LARGE)' },
        422: { description: 'the file cannot be read (CORRUPT, ENCRYPTED, EMPTY, LIMIT_EXCEEDED)' },
        415: { description: 'a format Groundwork does not read (UNSUPPORTED)' },
      },
      handler: async ({ body }, request) => {
        let options: ChunkRequestOptions = {};
        const chunks = await withInput(ctx, request, body, async (doc, raw) => {
          options = chunkOptionsOf(raw);
          const strategy = options.strategy ?? (await ctx.library.settings()).strategy;
          options = { ...options, strategy };
          return chunk(doc, { ...(options.chunkOptions ?? {}), strategy, ...(options.tokenizer && { tokenizer: options.tokenizer as ChunkOptions['tokenizer'] }) });
        });
        return { chunks: chunks as unknown as z.output<typeof ChunkJsonOutSchema>[], strategy: options.strategy! };
      },
    });
  };
}

/** Parses the request's document (an upload, streamed to a temporary file in the library, or JSON text) and hands it on. */
async function withInput<T>(ctx: ServeContext, request: FastifyRequest, body: z.output<typeof TextInput> | undefined, use: (doc: Document, raw: Record<string, unknown>) => T | Promise<T>): Promise<T> {
  if (request.isMultipart()) {
    const upload = await receiveUpload(request, ctx.library.dir, { maxFileBytes: ctx.settings.maxUploadBytes, maxFiles: 1 });
    const file = upload.files[0]!;
    try {
      let raw: Record<string, unknown> = {};
      if (upload.fields.options) {
        try {
          raw = JSON.parse(upload.fields.options) as Record<string, unknown>;
        } catch {
          throw new HttpError('INVALID_OPTIONS', 'the options part is not JSON');
        }
      }
      const parseOptions = parseOptionsOf(raw.parseOptions);
      const doc = await parse(join(ctx.library.dir, file.path), toParseOptions(parseOptions)).catch((error: unknown) => {
        throw renamed(error, join(ctx.library.dir, file.path), file.name);
      });
      return await use(doc, raw);
    } finally {
      await rm(join(ctx.library.dir, file.path), { force: true });
    }
  }
  if (!body) throw new HttpError('INVALID_OPTIONS', 'send a multipart `file` or JSON { text }');
  const { text, name, parseOptions, ...rest } = body as z.output<typeof TextInput> & Record<string, unknown>;
  const doc = await parse(new TextEncoder().encode(text), { ...toParseOptions(parseOptions), name: name ?? 'text.txt', maxBytes: ctx.settings.maxUploadBytes });
  return use(doc, rest);
}

function parseOptionsOf(raw: unknown): ParseRequestOptions {
  const result = ParseRequestOptionsSchema.safeParse(raw ?? {});
  if (!result.success) throw validationError('parse options', result.error);
  return result.data;
}

function chunkOptionsOf(raw: Record<string, unknown>): ChunkRequestOptions {
  const { parseOptions: _p, ...rest } = raw;
  const result = ChunkRequestOptionsSchema.safeParse(rest);
  if (!result.success) throw validationError('chunk options', result.error);
  return result.data;
}

/** A parse error names the generated upload path: show the client's name instead. */
function renamed(error: unknown, path: string, name: string): unknown {
  if (error instanceof Error && error.message.includes(path)) {
    error.message = error.message.split(path).join(name);
    if ('file' in error && (error as { file?: string }).file === path) Object.defineProperty(error, 'file', { value: name });
  }
  return error;
}

function documentJson(doc: Document): z.output<typeof DocumentJsonSchema> {
  return doc as unknown as z.output<typeof DocumentJsonSchema>;
}

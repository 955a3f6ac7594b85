import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { IngestRequestOptionsSchema, type IngestRequestOptions } from '../../options/ingest.js';
import { outlineFromBlocks, type OutlineNode } from '../../retrieval/outline.js';
import type { StoredDocument } from '../../store/types.js';
import { HttpError, validationError } from '../errors.js';
import { checkIngestOptions } from '../jobs/runner.js';
import { route } from '../route.js';
import { DocumentDetailSchema, DocumentSchema, IdParams, ListedDocumentSchema, JobSchema, type OutlineJson } from '../schemas.js';
import type { ServeContext } from '../server.js';
import { receiveUpload } from '../uploads.js';
import { jobJson } from './jobs.js';

const UploadFormSchema = z.object({
  file: z.string().describe('the document (repeat the part for several files)').meta({ format: 'binary', contentMediaType: 'application/octet-stream' }),
  options: z.string().optional().describe('JSON: ingest options (strategy, chunkOptions, tokenizer, parseOptions), as IngestOptions'),
  strategy: z.string().optional().describe('shortcut for options.strategy'),
});

/** Documents: upload (-> a job), list, show with outline, original, delete. */
export function documentRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    const find = async (id: string): Promise<StoredDocument> => {
      // By id or unique id prefix; never by path here (a path is not a client's to name).
      const doc = /^[0-9a-f]{4,64}$/.test(id) ? await ctx.library.document(id) : undefined;
      if (!doc) throw new HttpError('NOT_FOUND', `no document ${id}`);
      return doc;
    };

    route(app, {
      method: 'POST', url: '/', operationId: 'uploadDocuments', tags: ['documents'], scope: 'write',
      summary: 'Upload documents (multipart `file` parts, streamed to disk inside the library); 202 with the job that ingests them',
      rawBody: {
        contentType: 'multipart/form-data',
        schema: UploadFormSchema,
        description: 'Ingest options go in the `options` part as JSON: { strategy, chunkOptions, tokenizer, parseOptions } (the library API\'s IngestOptions; parseOptions: format, jsonKeys, htmlMainContent, password, ocr, ocrLang, comments, revisions).',
      },
      responses: {
        202: { description: 'queued: follow the job (Location, links.events)', schema: JobSchema },
        413: { description: 'a file over the upload limit, or too many files (TOO_LARGE)' },
        415: { description: 'not multipart/form-data (UNSUPPORTED)' },
      },
      handler: async (_input, request, reply) => {
        const upload = await receiveUpload(request, ctx.library.dir, { maxFileBytes: ctx.settings.maxUploadBytes, maxFiles: ctx.settings.maxUploadFiles });
        let options: IngestRequestOptions;
        try {
          options = uploadOptions(upload.fields);
          checkIngestOptions(options);
        } catch (error) {
          await ctx.jobs.discard(upload.files.map((f) => f.path));
          throw error;
        }
        const job = await ctx.jobs.submit({
          files: upload.files.map((f) => ({ name: f.name, path: f.path, bytes: f.bytes, docId: f.sha256 })),
          options,
        });
        reply.status(202).header('Location', `/v1/jobs/${job.id}`);
        return jobJson(job, ctx.jobs);
      },
    });

    route(app, {
      method: 'GET', url: '/', operationId: 'listDocuments', summary: 'The library\'s documents', tags: ['documents'], scope: 'read',
      query: z.object({
        limit: z.coerce.number().int().min(1).max(10_000).default(100),
        offset: z.coerce.number().int().min(0).default(0),
        format: z.string().optional().describe('only this format'),
      }).strict(),
      responses: { 200: { description: 'a page of documents (each with its tokens), and how many there are', schema: z.object({ documents: z.array(ListedDocumentSchema), total: z.number().int() }) } },
      handler: async ({ query }) => {
        const all = (await ctx.library.documents()).filter((d) => query.format === undefined || d.format === query.format);
        const page = all.slice(query.offset, query.offset + query.limit);
        // Summed for the page only: a page of a large library reads only its own documents' blocks.
        const tokens = await ctx.library.documentTokens(page.map((d) => d.id));
        return { documents: page.map((d) => ({ ...d, tokens: tokens.get(d.id) ?? 0 })), total: all.length };
      },
    });

    route(app, {
      method: 'GET', url: '/:id', operationId: 'getDocument', summary: 'A document: metadata, outline (heading tree), report (blocks, tokens, pages...), warnings', tags: ['documents'], scope: 'read',
      params: IdParams,
      responses: { 200: { description: 'the document', schema: DocumentDetailSchema }, 404: { description: 'no such document (NOT_FOUND)' } },
      handler: async ({ params }) => {
        const doc = await find(params.id);
        // From the blocks' spans and the few texts that hold heading lines (LibraryStore.outlineBlocks),
        // kept by the library's retrieval sources while the document's chunking is the same.
        const outline = (await ctx.library.retrievalSources.fetcher.outline?.(doc.id)) ?? outlineFromBlocks(doc.id, await ctx.library.outlineBlocks(doc.id));
        const tokens = (await ctx.library.documentTokens([doc.id])).get(doc.id) ?? 0;
        const report = { blocks: doc.blocks, tokens, pages: doc.pageCount, tables: doc.tables, images: doc.images, strategy: doc.strategy, configHash: doc.configHash, warnings: doc.warnings.length };
        return { document: doc, outline: outline.roots.map(outlineJson), report, warnings: doc.warnings, original: doc.original ? `/v1/documents/${doc.id}/original` : null };
      },
    });

    route(app, {
      method: 'GET', url: '/:id/original', operationId: 'getOriginal', summary: 'The original file as it was uploaded or ingested', tags: ['documents'], scope: 'read',
      params: IdParams,
      responses: {
        200: { description: 'the bytes, with the document\'s MIME type', contentType: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) },
        404: { description: 'no such document, or its original was not kept (NOT_FOUND)' },
      },
      handler: async ({ params }, _request, reply) => {
        const doc = await find(params.id);
        if (!doc.original) throw new HttpError('NOT_FOUND', `the original of ${doc.id} was not kept (ingested with copyFiles off)`);
        const file = join(ctx.library.dir, doc.original);
        const info = await stat(file).catch(() => undefined);
        if (!info) throw new HttpError('NOT_FOUND', `the original of ${doc.id} is missing from the library folder`);
        reply.type(doc.mime).header('Content-Length', String(info.size));
        return reply.send(createReadStream(file));
      },
    });

    route(app, {
      method: 'GET', url: '/:id/pages/:page.png', operationId: 'getPagePng', tags: ['documents'], scope: 'read',
      summary: 'A page as a greyscale PNG (cached in the library folder): a PDF page rendered with PDFium at `dpi`; a page of an image document (PNG, JPEG, TIFF, ...) in its own pixels, which its boxes are in (`dpi` does not apply)',
      params: z.object({ id: IdParams.shape.id, page: z.coerce.number().int().min(1).describe('1-based page number') }).strict(),
      query: z.object({ dpi: z.coerce.number().int().min(36).max(300).default(110).describe('resolution (default 110: screen size)') }).strict(),
      responses: {
        200: { description: 'the page', contentType: 'image/png', schema: z.string().meta({ format: 'binary' }) },
        404: { description: 'no such document, page, or kept original (NOT_FOUND)' },
        415: { description: 'neither a PDF nor an image (UNSUPPORTED)' },
      },
      handler: async ({ params, query }, _request, reply) => {
        const doc = await find(params.id);
        if (doc.format !== 'pdf' && doc.format !== 'image') throw new HttpError('UNSUPPORTED', `${doc.id} is ${doc.format}: only the pages of PDFs and images are served`);
        if (doc.pageCount !== null && params.page > doc.pageCount) throw new HttpError('NOT_FOUND', `${doc.id} has ${doc.pageCount} pages, not ${params.page}`);
        if (!doc.original) throw new HttpError('NOT_FOUND', `the original of ${doc.id} was not kept, so its pages cannot be rendered`);
        const png = await renderedPage(ctx.library.dir, doc, params.page, query.dpi);
        reply.type('image/png').header('Cache-Control', 'private, max-age=86400');
        return reply.send(png);
      },
    });

    route(app, {
      method: 'DELETE', url: '/:id', operationId: 'deleteDocument', summary: 'Remove a document with its blocks, index rows and kept original', tags: ['documents'], scope: 'write',
      params: IdParams,
      responses: { 200: { description: 'what was removed', schema: z.object({ removed: DocumentSchema }) }, 404: { description: 'no such document (NOT_FOUND)' } },
      handler: async ({ params }) => {
        const doc = await find(params.id);
        await ctx.library.remove(doc.id);
        return { removed: doc };
      },
    });
  };
}

/**
 * A page's PNG from the cache (`cache/pages/` in the library, keyed by document, page and dpi),
 * rendered once: written to a temporary name and renamed, so a reader never sees half a file.
 */
async function renderedPage(libraryDir: string, doc: StoredDocument, page: number, dpi: number): Promise<Buffer> {
  const dir = join(libraryDir, 'cache', 'pages');
  const file = join(dir, doc.format === 'image' ? `${doc.id}-${page}-px.png` : `${doc.id}-${page}-${dpi}.png`);
  const cached = await readFile(file).catch(() => undefined);
  if (cached) return cached;
  const bytes = await readFile(join(libraryDir, doc.original!)).catch((cause: Error) => {
    throw new HttpError('NOT_FOUND', `the original of ${doc.id} is missing from the library folder (${cause.message})`);
  });
  // PDFium and the image decoders are loaded by the first page asked for, not by every server.
  const { encodeGrayPng, renderPdfPage } = await import('../../pdf/render.js');
  let image;
  try {
    image = doc.format === 'image' ? await imagePage(bytes, page) : await renderPdfPage(bytes, page - 1, { dpi });
  } catch (error) {
    if (error instanceof RangeError) throw new HttpError('NOT_FOUND', `${doc.id}: ${error.message}`);
    throw error;
  }
  const png = Buffer.from(encodeGrayPng(image));
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, png);
  await rename(tmp, file);
  return png;
}

/** Page `page` (1-based) of an image document, grey, in the pixels its OCR boxes are in (as the image parser decodes it). */
async function imagePage(bytes: Uint8Array, page: number): Promise<{ width: number; height: number; data: Uint8Array }> {
  const { decodeImage } = await import('../../ocr/raster.js');
  const pages = await decodeImage(bytes);
  const raster = pages[page - 1];
  if (!raster) throw new RangeError(`page ${page} is out of range (1-${pages.length})`);
  if (raster.channels === 1) return raster;
  const grey = new Uint8Array(raster.width * raster.height);
  for (let i = 0, j = 0; i < grey.length; i++, j += 3) grey[i] = (raster.data[j]! * 77 + raster.data[j + 1]! * 150 + raster.data[j + 2]! * 29) >> 8;
  return { width: raster.width, height: raster.height, data: grey };
}

/** The upload's `options` (JSON) and `strategy` fields as validated ingest options. */
function uploadOptions(fields: Record<string, string>): IngestRequestOptions {
  let raw: unknown = {};
  if (fields.options !== undefined && fields.options.trim() !== '') {
    try {
      raw = JSON.parse(fields.options);
    } catch {
      throw new HttpError('INVALID_OPTIONS', 'the options part is not JSON');
    }
  }
  if (fields.strategy !== undefined) raw = { ...(raw as object), strategy: fields.strategy };
  const result = IngestRequestOptionsSchema.safeParse(raw);
  if (!result.success) throw validationError('upload options', result.error);
  return result.data;
}

export function outlineJson(node: OutlineNode): OutlineJson {
  return {
    title: node.title,
    level: node.level,
    path: node.path,
    ...(node.page !== undefined && { page: node.page }),
    ...(node.firstOrdinal !== undefined && { firstOrdinal: node.firstOrdinal }),
    ...(node.lastOrdinal !== undefined && { lastOrdinal: node.lastOrdinal }),
    children: node.children.map(outlineJson),
  };
}

import { z } from 'zod';
import { supportedFormats } from '../parsers/registry.js';
import { reviewOptionsSchema } from '../parsers/review-options.js';
import type { ParseOptions } from '../parsers/types.js';
import { GroundworkError } from '../errors.js';

/**
 * The parse and chunk options a caller may send with a document (an HTTP upload, an MCP tool call,
 * a preview), defined once: the server validates uploads and previews with these schemas and its
 * OpenAPI document is generated from them. Field names are the library API's (`ParseOptions`,
 * `IngestOptions`), so what a request says is what `parse()` / `Library.addFiles` receive.
 */
export const ParseRequestOptionsSchema = z.object({
  format: z.string().refine((f) => (supportedFormats() as string[]).includes(f), { message: 'not a supported format' }).optional()
    .describe('force the format instead of detecting it'),
  jsonKeys: z.array(z.string().min(1)).min(1).optional()
    .describe('JSON/JSONL: keys whose values become each record\'s text (default: text)'),
  htmlMainContent: z.boolean().optional()
    .describe('HTML: keep only the main content (default true)'),
  password: z.string().optional()
    .describe('password for an encrypted PDF'),
  ocr: z.enum(['auto', 'on', 'off']).optional()
    .describe('OCR scanned pages and images: auto = pages without usable text (default)'),
  ocrLang: z.string().regex(/^[A-Za-z_]+(\+[A-Za-z_]+)*$/, 'Tesseract language codes joined by +').optional()
    .describe('Tesseract languages, e.g. eng+chi_sim'),
  comments: reviewOptionsSchema.shape.comments.unwrap().optional()
    .describe(reviewOptionsSchema.shape.comments.description ?? 'review comments'),
  revisions: reviewOptionsSchema.shape.revisions.unwrap().optional()
    .describe(reviewOptionsSchema.shape.revisions.description ?? 'tracked changes'),
}).strict();

export const ChunkRequestOptionsSchema = z.object({
  strategy: z.string().min(1).optional()
    .describe('chunking strategy (default: the library\'s strategy setting, else structure)'),
  chunkOptions: z.record(z.string(), z.unknown()).optional()
    .describe('the strategy\'s options, e.g. { "chunkSize": 512 } (checked by the strategy)'),
  tokenizer: z.string().min(1).optional()
    .describe('tokenizer for token counts (default: the library\'s, else cl100k_base)'),
}).strict();

/** What an upload may say about how to ingest its files. */
export const IngestRequestOptionsSchema = ChunkRequestOptionsSchema.extend({
  parseOptions: ParseRequestOptionsSchema.optional(),
}).strict();

export type ParseRequestOptions = z.infer<typeof ParseRequestOptionsSchema>;
export type ChunkRequestOptions = z.infer<typeof ChunkRequestOptionsSchema>;
export type IngestRequestOptions = z.infer<typeof IngestRequestOptionsSchema>;

/** Validates with one of these schemas; bad input is INVALID_OPTIONS naming the fields. */
export function parseRequestOptions<S extends z.ZodType>(schema: S, input: unknown, what = 'options'): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (!result.success) throw new GroundworkError('INVALID_OPTIONS', `invalid ${what}: ${z.prettifyError(result.error).replace(/\n\s*/g, '; ')}`);
  return result.data;
}

/** Request parse options as `ParseOptions`. */
export function toParseOptions(options: ParseRequestOptions | undefined): ParseOptions {
  return { ...(options ?? {}) } as ParseOptions;
}

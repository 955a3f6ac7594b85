import { z } from 'zod';
import { DEFAULT_MAX_FILE_SIZE } from '../library/library.js';
import { GroundworkError } from '../errors.js';

/**
 * `groundwork serve`'s settings, defined once: `serve(library, options)` validates with this
 * schema and the CLI's flags map onto it (docs/serve.md lists them with their defaults).
 */
export const ServeOptionsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1')
    .describe('address to listen on; anything but loopback needs API keys'),
  port: z.number().int().min(0).max(65535).default(7700)
    .describe('port (0: any free port)'),
  corsOrigins: z.array(z.string().min(1)).default([])
    .describe('origins allowed by CORS (none by default: CORS off)'),
  maxUploadBytes: z.number().int().min(1).default(DEFAULT_MAX_FILE_SIZE)
    .describe('largest uploaded file (413 past it)'),
  maxUploadFiles: z.number().int().min(1).max(1000).default(16)
    .describe('files per upload request'),
  maxBodyBytes: z.number().int().min(1024).default(1024 * 1024)
    .describe('largest JSON request body'),
  rateLimit: z.union([z.literal(false), z.object({ perSecond: z.number().positive(), burst: z.number().int().min(1) }).strict()])
    .default({ perSecond: 50, burst: 100 })
    .describe('token bucket per key (per client address without keys); false: no limit'),
  shutdownGraceMs: z.number().int().min(0).default(10_000)
    .describe('on shutdown, how long running jobs may take to finish before they are left to resume at the next start'),
  knowledgeId: z.string().min(1).optional()
    .describe('the knowledge_id Dify sends for this library (default: the library folder\'s name)'),
  jobBatch: z.number().int().min(1).max(1000).default(16)
    .describe('queued uploads with the same options ingested together'),
  workers: z.number().int().min(1).max(64).optional()
    .describe('ingest worker threads (default: the library\'s)'),
  searchWorkers: z.number().int().min(0).max(64).optional()
    .describe('search worker threads, each reading the library (SQLite) on its own connection (default: one per core; 0: search in the server\'s thread)'),
}).strict();

export type ServeSettings = z.output<typeof ServeOptionsSchema>;
export type ServeSettingsInput = z.input<typeof ServeOptionsSchema>;

export function parseServeSettings(input: unknown): ServeSettings {
  const result = ServeOptionsSchema.safeParse(input ?? {});
  if (!result.success) throw new GroundworkError('INVALID_OPTIONS', `invalid serve options: ${z.prettifyError(result.error).replace(/\n\s*/g, '; ')}`);
  return result.data;
}

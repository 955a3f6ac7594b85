import { z } from 'zod';
import { GroundworkError } from '../errors.js';

/** An unquoted SQL identifier, as the Postgres store names its schema. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Where a queue lives: the server (a URL) and the library's schema. The jobs are kept by pg-boss in a
 * schema of their own next to the library's (`<schema>_queue`), so two libraries on one server have two
 * queues and a worker started for one never takes the other's jobs.
 */
export const QUEUE_OPTIONS_SCHEMA = z.strictObject({
  /** postgres://user:password@host:port/database */
  url: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'expected a postgres:// or postgresql:// URL'),
  /** The library's schema on the server (the Postgres store's `schema`). Default `groundwork`. */
  schema: z.string().regex(IDENTIFIER, 'expected an unquoted SQL identifier').default('groundwork'),
});
export type QueueOptions = z.input<typeof QUEUE_OPTIONS_SCHEMA>;
export type ResolvedQueueOptions = z.output<typeof QUEUE_OPTIONS_SCHEMA>;

/** The largest file `upload` stores in the queue by default. */
export const DEFAULT_MAX_UPLOAD_SIZE = 64 * 1024 * 1024;

/** How jobs are retried, and whether their bytes travel with them (set when files are queued). */
export const ENQUEUE_OPTIONS_SCHEMA = z.strictObject({
  /** Attempts after the first when a worker is lost (killed, crashed, cut off). Default 3. */
  retryLimit: z.number().int().min(0).max(100).default(3),
  /**
   * pg-boss's own expiry of an active job, a backstop behind the workers' heartbeats (a worker that
   * stops beating loses its jobs within `staleAfterMs`). Default one hour: longer than any file's limit.
   */
  expireInSeconds: z.number().int().min(30).max(86_400 * 7).default(3600),
  /**
   * Store each file's bytes with its job (in the queue's schema), so workers on machines that do
   * not see the path ingest it from the database; the bytes are deleted when the job completes.
   * Default false: the workers read the path (a shared folder).
   */
  upload: z.boolean().default(false),
  /** With `upload`: a larger file is rejected with LIMIT_EXCEEDED (`--max-upload-size`). Default 64 MiB. */
  maxUploadSize: z.number().int().min(1).max(1024 ** 3).default(DEFAULT_MAX_UPLOAD_SIZE),
});
export type EnqueueOptions = z.input<typeof ENQUEUE_OPTIONS_SCHEMA>;

/** A worker process: how many files at once, how often it polls and beats, when it gives up on others. */
export const WORKER_OPTIONS_SCHEMA = z.strictObject({
  /** Files parsed at once by this worker (the parsing workers of each batch's Library ingest). Default 1. */
  concurrency: z.number().int().min(1).max(64).default(1),
  /** Jobs taken per fetch, per unit of concurrency. Default 4: each batch's ingest start-up is shared by its files. */
  batchSize: z.number().int().min(1).max(100).default(4),
  /** How long an idle worker waits before asking for jobs again. Default 1 s. */
  pollIntervalMs: z.number().int().min(50).max(60_000).default(1000),
  /** How often a worker writes its heartbeat and looks for lost workers. Default 5 s. */
  heartbeatMs: z.number().int().min(100).max(60_000).default(5000),
  /** A worker whose heartbeat is older than this is lost: its jobs go back to the queue. Default 20 s. */
  staleAfterMs: z.number().int().min(500).max(3_600_000).default(20_000),
  /** Stop when the queue has been empty for one poll (for batch runs and tests). Default false. */
  exitWhenIdle: z.boolean().default(false),
}).refine((o) => o.staleAfterMs > o.heartbeatMs * 2, { message: 'staleAfterMs must be more than twice heartbeatMs', path: ['staleAfterMs'] });
export type WorkerOptions = z.input<typeof WORKER_OPTIONS_SCHEMA>;
export type ResolvedWorkerOptions = z.output<typeof WORKER_OPTIONS_SCHEMA>;

/** Validates options with a schema; a bad value is INVALID_OPTIONS naming the field. */
export function parseOptions<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(options)'}: ${issue.message}`);
  throw new GroundworkError('INVALID_OPTIONS', `invalid ${what}: ${issues.join('; ')}`);
}

/** The pg-boss schema of a library's queue. */
export function queueSchema(librarySchema: string): string {
  return `${librarySchema}_queue`.slice(0, 63);
}

/** The one queue name in a library's queue schema. */
export const INGEST_QUEUE = 'ingest';

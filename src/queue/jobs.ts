import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { IngestOptions } from '../library/library.js';

/**
 * The ingest options a job carries: what decides the blocks (strategy, chunk options, tokenizer,
 * parse options) and what the Library needs per file (copies, size and per-file limits). Callbacks,
 * signals, globs (applied when the files were queued) and dry runs stay with the caller.
 */
export type JobIngestOptions = Omit<IngestOptions, 'onProgress' | 'include' | 'exclude' | 'dryRun' | 'workers' | 'signal'>;

const NOT_CARRIED = new Set(['onProgress', 'include', 'exclude', 'dryRun', 'workers', 'signal']);

/** The JSON-safe part of ingest options that travels with each job. */
export function jobIngestOptions(options: IngestOptions): JobIngestOptions {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (NOT_CARRIED.has(key) || value === undefined || typeof value === 'function') continue;
    out[key] = value;
  }
  return JSON.parse(JSON.stringify(out)) as JobIngestOptions;
}

/** One queued file, as pg-boss stores it in the job's `data`. */
export const INGEST_JOB_SCHEMA = z.strictObject({
  /** Absolute path: where the workers read it (a shared folder), or, uploaded, what it is stored as. */
  path: z.string().min(1),
  size: z.number().int().min(0),
  mtimeMs: z.number(),
  /** sha256 of the bytes when queued: the document id the file becomes. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  options: z.record(z.string(), z.unknown()),
  /** Present when the bytes were uploaded with the job (`enqueueFiles` with `upload`): their size and parts. */
  upload: z.strictObject({ bytes: z.number().int().min(0), parts: z.number().int().min(0) }).optional(),
});
export type IngestJob = z.infer<typeof INGEST_JOB_SCHEMA>;

/**
 * The job id of a file: a UUID made from the path, its content hash, the options and whether its
 * bytes are uploaded, so queueing
 * the same files again adds nothing while their jobs are kept (pg-boss inserts ignore known ids),
 * and a changed file or a new chunk configuration is a new job.
 */
export function jobId(job: Pick<IngestJob, 'path' | 'hash' | 'options'> & { upload?: unknown }): string {
  // An uploaded file is another job than the same file read from its path (queued again with
  // --upload after workers could not read it, it is taken again).
  const digest = createHash('sha256').update(`${job.path}\0${job.hash}\0${stableJson(job.options)}${job.upload ? '\0upload' : ''}`).digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50; // version 5-style (name-based, SHA)
  digest[8] = (digest[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** JSON with object keys sorted, so equal options give equal ids whatever their key order. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

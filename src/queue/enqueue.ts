import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IngestOptions, RejectedFile } from '../library/library.js';
import { DEFAULT_MAX_FILE_SIZE } from '../library/library.js';
import { walkFiles } from '../library/walk.js';
import { openQueue, quoteIdent, type QueueConnection } from './connection.js';
import { jobId, jobIngestOptions, type IngestJob } from './jobs.js';
import { ENQUEUE_OPTIONS_SCHEMA, parseOptions, type EnqueueOptions, type QueueOptions } from './options.js';

export interface EnqueueProgress {
  filesSeen: number;
  bytesSeen: number;
  path: string;
}

export interface EnqueueReport {
  /** New jobs recorded. */
  queued: number;
  /** Files whose job (same path, content and options) is already queued, running or done. */
  alreadyQueued: number;
  bytesQueued: number;
  /** Files that could not be read or are over the size limit: never queued. */
  rejected: RejectedFile[];
  queue: string;
  schema: string;
  durationMs: number;
}

const INSERT_BATCH = 200;

/**
 * Records files as ingest jobs and returns: workers (`runWorker`, `groundwork worker`) on any
 * machine that reads the same paths take them. Files are walked as `ingest` walks them (globs,
 * hidden files skipped) and hashed; each becomes one job whose id is derived from its path, content
 * and options (`jobId`), so queueing a folder twice queues it once.
 */
export async function enqueueFiles(
  paths: string | string[],
  queue: QueueOptions | QueueConnection,
  options: Omit<IngestOptions, 'onProgress'> & EnqueueOptions & { onProgress?: (p: EnqueueProgress) => void } = {},
): Promise<EnqueueReport> {
  const started = performance.now();
  const { retryLimit, expireInSeconds, onProgress, ...ingest } = options;
  const settings = parseOptions(ENQUEUE_OPTIONS_SCHEMA, { retryLimit, expireInSeconds }, 'enqueue options');
  const owned = !('boss' in queue);
  const connection = owned ? await openQueue(queue as QueueOptions, settings) : (queue as QueueConnection);
  const carried = jobIngestOptions(ingest);
  const maxFileSize = ingest.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
  const report: EnqueueReport = { queued: 0, alreadyQueued: 0, bytesQueued: 0, rejected: [], queue: connection.queue, schema: connection.schema, durationMs: 0 };
  const progress: EnqueueProgress = { filesSeen: 0, bytesSeen: 0, path: '' };
  let batch: { id: string; job: IngestJob }[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    await insertNew(connection, rows, settings, report);
  };
  try {
    const roots = Array.isArray(paths) ? paths : [paths];
    const walkOptions = { ...(ingest.include && { include: ingest.include }), ...(ingest.exclude && { exclude: ingest.exclude }) };
    for await (const entry of walkFiles(roots, walkOptions)) {
      progress.filesSeen++;
      progress.path = entry.path;
      if ('error' in entry) {
        report.rejected.push({ path: entry.path, code: 'IO', reason: `${entry.path}: ${entry.error.message}` });
      } else if (entry.size > maxFileSize) {
        report.rejected.push({ path: entry.path, code: 'TOO_LARGE', reason: `${entry.path}: ${entry.size} bytes exceeds the limit of ${maxFileSize} bytes (maxFileSize; raise it with --max-file-size)` });
      } else {
        let hash: string;
        try {
          hash = await hashFile(entry.path);
        } catch (error) {
          report.rejected.push({ path: entry.path, code: 'IO', reason: `${entry.path}: ${(error as Error).message}` });
          continue;
        }
        const job: IngestJob = { path: entry.path, size: entry.size, mtimeMs: entry.mtimeMs, hash, options: carried as Record<string, unknown> };
        batch.push({ id: jobId(job), job });
        progress.bytesSeen += entry.size;
        if (batch.length >= INSERT_BATCH) await flush();
      }
      onProgress?.({ ...progress });
    }
    await flush();
  } finally {
    if (owned) await connection.close();
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

/** Inserts the jobs whose ids are not known yet (in the live table or the archive), counting the rest. */
async function insertNew(
  connection: QueueConnection,
  rows: { id: string; job: IngestJob }[],
  settings: { retryLimit: number; expireInSeconds: number },
  report: EnqueueReport,
): Promise<void> {
  const s = quoteIdent(connection.schema);
  const ids = rows.map((r) => r.id);
  const known = await connection.pool.query<{ id: string }>(
    `SELECT id FROM ${s}.job WHERE name = $1 AND id = ANY($2::uuid[]) UNION SELECT id FROM ${s}.archive WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'completed'`,
    [connection.queue, ids],
  );
  const seen = new Set(known.rows.map((r) => r.id));
  const fresh = rows.filter((r) => !seen.has(r.id));
  // The same file given twice in one call (two overlapping roots) is one job.
  const unique = [...new Map(fresh.map((r) => [r.id, r])).values()];
  report.alreadyQueued += rows.length - unique.length;
  if (unique.length === 0) return;
  await connection.boss.insert(
    unique.map((r) => ({
      id: r.id,
      name: connection.queue,
      data: r.job,
      retryLimit: settings.retryLimit,
      retryDelay: 0,
      expireInSeconds: settings.expireInSeconds,
    })),
  );
  report.queued += unique.length;
  for (const r of unique) report.bytesQueued += r.job.size;
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

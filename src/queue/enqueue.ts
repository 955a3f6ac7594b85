import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IngestOptions, RejectedFile } from '../library/library.js';
import { DEFAULT_MAX_FILE_SIZE } from '../library/library.js';
import { walkFiles } from '../library/walk.js';
import { bossDb, openQueue, quoteIdent, type QueueConnection } from './connection.js';
import { jobId, jobIngestOptions, type IngestJob } from './jobs.js';
import { ENQUEUE_OPTIONS_SCHEMA, parseOptions, type EnqueueOptions, type QueueOptions } from './options.js';
import { writeUpload } from './uploads.js';

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
  /** Of those, bytes stored in the queue with their jobs (`upload`). */
  bytesUploaded: number;
  /** Files that could not be read or are over the size limit: never queued. */
  rejected: RejectedFile[];
  queue: string;
  schema: string;
  durationMs: number;
}

const INSERT_BATCH = 200;
/** With `upload`, a batch is inserted (one transaction) once its files hold this many bytes. */
const UPLOAD_BATCH_BYTES = 32 * 1024 * 1024;

type Settings = { retryLimit: number; expireInSeconds: number; upload: boolean; maxUploadSize: number };

/**
 * Records files as ingest jobs and returns: workers (`runWorker`, `groundwork worker`) on any
 * machine that reads the same paths take them. Files are walked as `ingest` walks them (globs,
 * hidden files skipped) and hashed; each becomes one job whose id is derived from its path, content
 * and options (`jobId`), so queueing a folder twice queues it once. With `upload`, each new job's
 * bytes are stored with it (up to `maxUploadSize` per file, else LIMIT_EXCEEDED), so workers need
 * not see the path.
 */
export async function enqueueFiles(
  paths: string | string[],
  queue: QueueOptions | QueueConnection,
  options: Omit<IngestOptions, 'onProgress'> & EnqueueOptions & { onProgress?: (p: EnqueueProgress) => void } = {},
): Promise<EnqueueReport> {
  const started = performance.now();
  const { retryLimit, expireInSeconds, upload, maxUploadSize, onProgress, ...ingest } = options;
  const settings: Settings = parseOptions(ENQUEUE_OPTIONS_SCHEMA, { retryLimit, expireInSeconds, upload, maxUploadSize }, 'enqueue options');
  const owned = !('boss' in queue);
  const connection = owned ? await openQueue(queue as QueueOptions, settings) : (queue as QueueConnection);
  const carried = jobIngestOptions(ingest);
  const maxFileSize = ingest.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
  const report: EnqueueReport = { queued: 0, alreadyQueued: 0, bytesQueued: 0, bytesUploaded: 0, rejected: [], queue: connection.queue, schema: connection.schema, durationMs: 0 };
  const progress: EnqueueProgress = { filesSeen: 0, bytesSeen: 0, path: '' };
  let batch: { id: string; job: IngestJob }[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    batchBytes = 0;
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
      } else if (settings.upload && entry.size > settings.maxUploadSize) {
        report.rejected.push({
          path: entry.path,
          code: 'LIMIT_EXCEEDED',
          reason: `${entry.path}: ${entry.size} bytes exceeds the upload limit of ${settings.maxUploadSize} bytes (maxUploadSize; raise it with --max-upload-size, or queue it without --upload from a folder the workers read)`,
          limit: { name: 'maxUploadSize', value: settings.maxUploadSize, flag: '--max-upload-size' },
        });
      } else {
        let hash: string;
        try {
          hash = await hashFile(entry.path);
        } catch (error) {
          report.rejected.push({ path: entry.path, code: 'IO', reason: `${entry.path}: ${(error as Error).message}` });
          continue;
        }
        const job: IngestJob = { path: entry.path, size: entry.size, mtimeMs: entry.mtimeMs, hash, options: carried as Record<string, unknown> };
        // The part count is known once the bytes are stored (insertNew).
        if (settings.upload) job.upload = { bytes: entry.size, parts: 0 };
        batch.push({ id: jobId(job), job });
        progress.bytesSeen += entry.size;
        batchBytes += settings.upload ? entry.size : 0;
        if (batch.length >= INSERT_BATCH || batchBytes >= UPLOAD_BATCH_BYTES) await flush();
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

/**
 * Inserts the jobs whose ids are not known yet (in the live table or the archive), counting the
 * rest; with `upload`, their bytes first, in the same transaction (a job is never there without
 * its bytes, nor bytes without their job). A file that changed since it was hashed is rejected.
 */
async function insertNew(
  connection: QueueConnection,
  rows: { id: string; job: IngestJob }[],
  settings: Settings,
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
  const inserted = await connection.transaction(async (client) => {
    const ready: typeof unique = [];
    for (const r of unique) {
      if (!r.job.upload) {
        ready.push(r);
        continue;
      }
      try {
        await client.query('SAVEPOINT upload');
        r.job.upload = await writeUpload(client, connection.schema, r.id, r.job.path, r.job.hash);
        await client.query('RELEASE SAVEPOINT upload');
        ready.push(r);
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT upload');
        const reason = (error as Error).message;
        report.rejected.push({ path: r.job.path, code: 'IO', reason: reason.startsWith(r.job.path) ? reason : `${r.job.path}: ${reason}` });
      }
    }
    if (ready.length === 0) return ready;
    await connection.boss.insert(
      ready.map((r) => ({
        id: r.id,
        name: connection.queue,
        data: r.job,
        retryLimit: settings.retryLimit,
        retryDelay: 0,
        expireInSeconds: settings.expireInSeconds,
      })),
      { db: bossDb(client) },
    );
    return ready;
  });
  report.queued += inserted.length;
  for (const r of inserted) {
    report.bytesQueued += r.job.size;
    if (r.job.upload) report.bytesUploaded += r.job.upload.bytes;
  }
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Pool, PoolClient } from 'pg';
import { GroundworkError } from '../errors.js';
import { quoteIdent } from './connection.js';

/**
 * Uploaded files' bytes in the queue's schema (`gw_upload_parts`), for workers that cannot read the
 * queued path: written in parts as the file is streamed (never the whole file in memory), in the
 * transaction that inserts the job, read back part by part into a temporary file by the worker
 * that takes it, and deleted when the job completes (or, for jobs that ended otherwise, once
 * pg-boss no longer keeps them live: `purgeUploads`).
 */

/** The uploaded bytes of a job are not (all) there: the job cannot be done, by any worker. */
export class UploadGone extends GroundworkError {
  constructor(message: string) {
    super('IO', message);
  }
}

/** Bytes per stored part. */
export const UPLOAD_PART_BYTES = 1024 * 1024;

/**
 * Streams the file at `path` into the parts of `jobId` and checks that its bytes still hash to
 * `hash` (what the job says it is). IO when the file changed since it was hashed.
 */
export async function writeUpload(client: PoolClient, schema: string, jobId: string, path: string, hash: string): Promise<{ bytes: number; parts: number }> {
  const s = quoteIdent(schema);
  await client.query(`DELETE FROM ${s}.gw_upload_parts WHERE job_id = $1`, [jobId]);
  const digest = createHash('sha256');
  let part = 0;
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: UPLOAD_PART_BYTES })) {
    const data = chunk as Buffer;
    digest.update(data);
    await client.query(`INSERT INTO ${s}.gw_upload_parts (job_id, part, data) VALUES ($1, $2, $3)`, [jobId, part++, data]);
    bytes += data.length;
  }
  if (digest.digest('hex') !== hash) {
    throw new GroundworkError('IO', 'the file changed while it was being queued: queue it again', { file: path });
  }
  return { bytes, parts: part };
}

/** Writes the uploaded bytes of `jobId` into the file `to`; IO when parts are missing. */
export async function readUpload(pool: Pool, schema: string, jobId: string, upload: { bytes: number; parts: number }, to: string): Promise<void> {
  const s = quoteIdent(schema);
  const out = createWriteStream(to);
  const failed = once(out, 'error').then(([error]) => Promise.reject(error as Error));
  failed.catch(() => undefined);
  let bytes = 0;
  try {
    for (let part = 0; part < upload.parts; part++) {
      const { rows } = await pool.query<{ data: Buffer }>(`SELECT data FROM ${s}.gw_upload_parts WHERE job_id = $1 AND part = $2`, [jobId, part]);
      const data = rows[0]?.data;
      if (!data) throw new UploadGone(`the uploaded bytes of job ${jobId} are gone (part ${part} of ${upload.parts}): queue the file again`);
      bytes += data.length;
      if (!out.write(data)) await Promise.race([once(out, 'drain'), failed]);
    }
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
  } catch (error) {
    out.destroy();
    throw error;
  }
  if (bytes !== upload.bytes) throw new UploadGone(`the uploaded bytes of job ${jobId} are ${bytes}, not ${upload.bytes}: queue the file again`);
}

/** Deletes the uploaded bytes of these jobs (in the caller's transaction). */
export async function deleteUploads(client: PoolClient | Pool, schema: string, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await client.query(`DELETE FROM ${quoteIdent(schema)}.gw_upload_parts WHERE job_id = ANY($1::uuid[])`, [[...jobIds]]);
}

/**
 * Deletes the bytes of jobs that are no longer waiting, running or failed-but-retryable in the
 * live job table (cancelled, archived, deleted). A job and its parts are inserted in one
 * transaction, so parts of a job being queued are never seen here without it. How many parts.
 */
export async function purgeUploads(pool: Pool, schema: string, queue: string): Promise<number> {
  const s = quoteIdent(schema);
  const result = await pool.query(
    `DELETE FROM ${s}.gw_upload_parts p WHERE NOT EXISTS (
       SELECT 1 FROM ${s}.job j WHERE j.name = $1 AND j.id = p.job_id AND j.state IN ('created', 'retry', 'active', 'failed'))`,
    [queue],
  );
  return result.rowCount ?? 0;
}

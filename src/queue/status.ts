import { openQueue, quoteIdent, type QueueConnection } from './connection.js';
import type { QueueOptions } from './options.js';

export interface QueueCounts {
  created: number;
  retry: number;
  active: number;
  completed: number;
  failed: number;
  cancelled: number;
}

export interface FailedJob {
  jobId: string;
  path: string;
  code: string;
  reason: string;
  attempts: number;
  failedAt: string;
}

export interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  state: 'running' | 'stopped' | 'lost';
  concurrency: number;
  startedAt: string;
  heartbeatAt: string;
  jobsDone: number;
  jobsFailed: number;
  bytesDone: number;
  /** Jobs per second over the worker's life (start to last heartbeat or stop). */
  jobsPerSecond: number;
  /** Bytes per second over the same span. */
  bytesPerSecond: number;
  /** Jobs this worker holds right now. */
  active: number;
}

export interface QueueStatus {
  schema: string;
  queue: string;
  counts: QueueCounts;
  /** Bytes of the files waiting or running, and done (from the jobs' sizes). */
  bytesPending: number;
  bytesDone: number;
  failures: FailedJob[];
  workers: WorkerRow[];
}

/**
 * The state of a library's queue: jobs by state (live and archived), the failed ones with their
 * reasons (newest first, at most `failures`), and every worker seen in the last day with its
 * throughput. Read-only.
 */
export async function queueStatus(queue: QueueOptions | QueueConnection, options: { failures?: number } = {}): Promise<QueueStatus> {
  const owned = !('boss' in queue);
  const q = owned ? await openQueue(queue as QueueOptions, { supervise: false }) : (queue as QueueConnection);
  const s = quoteIdent(q.schema);
  try {
    const counts: QueueCounts = { created: 0, retry: 0, active: 0, completed: 0, failed: 0, cancelled: 0 };
    let bytesPending = 0;
    let bytesDone = 0;
    const byState = await q.pool.query<{ state: keyof QueueCounts; n: string; bytes: string | null }>(
      `SELECT state, count(*) AS n, sum((data->>'size')::bigint) AS bytes FROM (
         SELECT state, data FROM ${s}.job WHERE name = $1
         UNION ALL SELECT state, data FROM ${s}.archive WHERE name = $1
       ) j GROUP BY state`,
      [q.queue],
    );
    for (const row of byState.rows) {
      counts[row.state] = Number(row.n);
      const bytes = Number(row.bytes ?? 0);
      if (row.state === 'completed') bytesDone += bytes;
      else if (row.state === 'created' || row.state === 'retry' || row.state === 'active') bytesPending += bytes;
    }
    const failed = await q.pool.query<{ id: string; data: { path?: string }; output: { code?: string; reason?: string; message?: string } | null; retry_count: number; completed_on: Date | null }>(
      `SELECT id, data, output, retry_count, completed_on FROM (
         SELECT id, data, output, retry_count, completed_on FROM ${s}.job WHERE name = $1 AND state = 'failed'
         UNION ALL SELECT id, data, output, retry_count, completed_on FROM ${s}.archive WHERE name = $1 AND state = 'failed'
       ) f ORDER BY completed_on DESC NULLS LAST LIMIT $2`,
      [q.queue, options.failures ?? 50],
    );
    const failures = failed.rows.map((r) => ({
      jobId: r.id,
      path: r.data?.path ?? '',
      code: r.output?.code ?? 'IO',
      reason: r.output?.reason ?? r.output?.message ?? 'failed',
      attempts: r.retry_count + 1,
      failedAt: (r.completed_on ?? new Date(0)).toISOString(),
    }));
    const rows = await q.pool.query<{
      id: string; host: string; pid: number; state: WorkerRow['state']; concurrency: number; started_at: Date; heartbeat_at: Date;
      stopped_at: Date | null; jobs_done: string; jobs_failed: string; bytes_done: string; active: string;
    }>(
      `SELECT w.*, (SELECT count(*) FROM ${s}.gw_job_owners o WHERE o.worker_id = w.id) AS active
       FROM ${s}.gw_workers w WHERE w.heartbeat_at > now() - interval '1 day' ORDER BY w.started_at`,
    );
    const workers = rows.rows.map((w): WorkerRow => {
      const end = (w.stopped_at ?? w.heartbeat_at).getTime();
      const seconds = Math.max(0.001, (end - w.started_at.getTime()) / 1000);
      return {
        id: w.id, host: w.host, pid: w.pid, state: w.state, concurrency: w.concurrency,
        startedAt: w.started_at.toISOString(), heartbeatAt: w.heartbeat_at.toISOString(),
        jobsDone: Number(w.jobs_done), jobsFailed: Number(w.jobs_failed), bytesDone: Number(w.bytes_done),
        jobsPerSecond: Number(w.jobs_done) / seconds, bytesPerSecond: Number(w.bytes_done) / seconds, active: Number(w.active),
      };
    });
    return { schema: q.schema, queue: q.queue, counts, bytesPending, bytesDone, failures, workers };
  } finally {
    if (owned) await q.close();
  }
}

/** Puts failed jobs back in the queue (all, or those whose ids are given); returns how many. */
export async function retryFailed(queue: QueueOptions | QueueConnection, ids?: string[]): Promise<number> {
  const owned = !('boss' in queue);
  const q = owned ? await openQueue(queue as QueueOptions, { supervise: false }) : (queue as QueueConnection);
  const s = quoteIdent(q.schema);
  try {
    const result = await q.pool.query(
      `UPDATE ${s}.job SET state = 'retry', retry_limit = retry_count + 1, completed_on = NULL, start_after = now()
       WHERE name = $1 AND state = 'failed' AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))`,
      [q.queue, ids ?? null],
    );
    return result.rowCount ?? 0;
  } finally {
    if (owned) await q.close();
  }
}

import { hostname } from 'node:os';
import type PgBoss from 'pg-boss';
import type { Pool, PoolClient } from 'pg';
import { GroundworkError } from '../errors.js';
import { INGEST_QUEUE, parseOptions, QUEUE_OPTIONS_SCHEMA, queueSchema, type QueueOptions, type ResolvedQueueOptions } from './options.js';

/**
 * A library's queue on a Postgres server: pg-boss for the jobs (fetched with SKIP LOCKED, retried,
 * expired, archived) and two tables of ours beside its own, in the same schema:
 * - `gw_workers`: one row per worker process (host, pid, heartbeat, jobs and bytes done), so lost
 *   workers are found in seconds and `groundwork jobs` shows each worker's throughput;
 * - `gw_job_owners`: which worker holds which active job, written in the transaction that fetches it;
 * - `gw_upload_parts`: the bytes of uploaded files (`enqueueFiles` with `upload`) in parts of
 *   UPLOAD_PART_BYTES, written in the transaction that inserts their job, deleted with its completion.
 */
export interface QueueConnection {
  readonly options: ResolvedQueueOptions;
  /** The pg-boss schema (`<library schema>_queue`). */
  readonly schema: string;
  readonly queue: string;
  readonly boss: PgBoss;
  /** A small pool of our own for the tables above and for transactions around fetches. */
  readonly pool: Pool;
  /** Runs `task` in a transaction on one client; pg-boss calls made with `db(client)` join it. */
  transaction<T>(task: (client: PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** pg-boss's `db` option over one client, so its statements run inside our transaction. */
export function bossDb(client: PoolClient): PgBoss.Db {
  return { executeSql: async (text, values) => ({ rows: (await client.query(text, values)).rows }) };
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/, '$1:***@');
}

const TABLES = (s: string) => `
  CREATE TABLE IF NOT EXISTS ${s}.gw_workers (
    id text PRIMARY KEY,
    host text NOT NULL,
    pid integer NOT NULL,
    concurrency integer NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    stopped_at timestamptz,
    state text NOT NULL DEFAULT 'running',
    jobs_done bigint NOT NULL DEFAULT 0,
    jobs_failed bigint NOT NULL DEFAULT 0,
    bytes_done bigint NOT NULL DEFAULT 0,
    busy_ms bigint NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS ${s}.gw_job_owners (
    job_id uuid PRIMARY KEY,
    worker_id text NOT NULL,
    taken_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX IF NOT EXISTS gw_job_owners_worker ON ${s}.gw_job_owners (worker_id);
  CREATE TABLE IF NOT EXISTS ${s}.gw_upload_parts (
    job_id uuid NOT NULL,
    part integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (job_id, part)
  );
`;

/**
 * Connects to a library's queue, creating pg-boss's schema, the queue and our tables when missing
 * (safe when several processes start at once: pg-boss migrates under an advisory lock, ours are
 * IF NOT EXISTS under one too).
 */
export async function openQueue(options: QueueOptions, settings: { retryLimit?: number; expireInSeconds?: number; supervise?: boolean } = {}): Promise<QueueConnection> {
  const resolved = parseOptions(QUEUE_OPTIONS_SCHEMA, options, 'queue options');
  const schema = queueSchema(resolved.schema);
  const [{ default: PgBossClass }, pg] = await Promise.all([import('pg-boss'), import('pg')]);
  const pool = new pg.default.Pool({ connectionString: resolved.url, max: 4, application_name: `groundwork-queue@${hostname()}` });
  pool.on('error', () => undefined); // an idle client's lost connection surfaces on the next query
  const boss = new PgBossClass({
    connectionString: resolved.url,
    schema,
    max: 4,
    application_name: `groundwork-pgboss@${hostname()}`,
    supervise: settings.supervise ?? true,
    // Expired active jobs are found by the maintenance loop: every 10 s rather than every 2 min.
    maintenanceIntervalSeconds: 10,
    // A worker's jobs are never silently lost: completed and failed jobs are kept for a week.
    archiveCompletedAfterSeconds: 7 * 86_400,
    archiveFailedAfterSeconds: 7 * 86_400,
  });
  // pg-boss reports its background failures (maintenance, supervision) as events; an unheard
  // 'error' event would end the process. A failing query surfaces on our next call anyway.
  boss.on('error', () => undefined);
  try {
    await boss.start();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`groundwork-queue:${schema}`]);
      await client.query(TABLES(quoteIdent(schema)));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    if (!(await boss.getQueue(INGEST_QUEUE))) {
      await boss.createQueue(INGEST_QUEUE, {
        name: INGEST_QUEUE,
        policy: 'standard',
        retryLimit: settings.retryLimit ?? 3,
        retryDelay: 0,
        expireInSeconds: settings.expireInSeconds ?? 3600,
      }).catch(async (error: unknown) => {
        // Two processes creating it at once: the loser sees it now.
        if (!(await boss.getQueue(INGEST_QUEUE))) throw error;
      });
    }
  } catch (error) {
    await boss.stop({ graceful: false, close: true, wait: false }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    const cause = error as Error;
    throw new GroundworkError('IO', `cannot open the queue on ${redactUrl(resolved.url)} (schema ${schema}): ${cause.message}`, { cause });
  }
  return {
    options: resolved,
    schema,
    queue: INGEST_QUEUE,
    boss,
    pool,
    async transaction(task) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await task(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await boss.stop({ graceful: false, close: true, wait: true, timeout: 5000 }).catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}

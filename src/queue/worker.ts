import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type PgBoss from 'pg-boss';
import type { PoolClient } from 'pg';
import { defaultLibraryDir, Library, type FileCopy, type IngestOptions } from '../library/library.js';
import type { LibraryStore, StoreSpec } from '../store/types.js';
import { bossDb, openQueue, quoteIdent, type QueueConnection } from './connection.js';
import { INGEST_JOB_SCHEMA, stableJson, type IngestJob } from './jobs.js';
import { parseOptions, WORKER_OPTIONS_SCHEMA, type QueueOptions, type ResolvedWorkerOptions, type WorkerOptions } from './options.js';
import { deleteUploads, purgeUploads, readUpload, UploadGone } from './uploads.js';

/** What a worker did, for progress lines and logs. */
export type WorkerEvent =
  | { type: 'stored'; jobId: string; path: string; attempt: number }
  | { type: 'rejected'; jobId: string; path: string; code: string; reason: string }
  | { type: 'retry'; jobIds: string[]; reason: string }
  | { type: 'reclaimed'; jobIds: string[]; workers: string[] }
  | { type: 'idle' }
  | { type: 'error'; error: Error };

export interface RunWorkerOptions extends WorkerOptions {
  /**
   * The library the jobs are stored into. Default: the Postgres store on the queue's server and
   * schema (`{ kind: 'postgres', url, schema }`); any store spec or open store may be named instead.
   */
  store?: StoreSpec | LibraryStore;
  /** The Library's folder (its originals when the store keeps none). Default: $GROUNDWORK_HOME or ./.groundwork. */
  libraryDir?: string;
  /**
   * Embed the new blocks with the library's embedder (its stored settings, else GROUNDWORK_EMBEDDINGS_*
   * in this process's environment; none configured: blocks only). Default true.
   */
  embed?: boolean;
  /** Ends the worker gracefully: no new jobs; the batches running finish first. */
  signal?: AbortSignal;
  onEvent?: (event: WorkerEvent) => void;
}

export interface WorkerStats {
  workerId: string;
  jobsDone: number;
  jobsFailed: number;
  bytesDone: number;
  /** Jobs put back because their worker was lost (by this worker's reaper). */
  jobsReclaimed: number;
}

export interface WorkerHandle {
  readonly id: string;
  /** Resolves when the worker has stopped (after `stop()`, the signal, or an idle queue with `exitWhenIdle`). */
  readonly done: Promise<WorkerStats>;
  /** Stops taking jobs, lets running batches finish, marks the worker stopped. */
  stop(): Promise<WorkerStats>;
}

/**
 * Starts a worker on a library's queue: it takes jobs (`enqueueFiles`) in batches, ingests each
 * batch through one Library (parse, chunk, embed when configured, store: each document in its own
 * transaction, deduplicated by content hash, so a job done twice stores its file once), and
 * completes or fails each job. A file the Library rejects (CORRUPT, EMPTY, LIMIT_EXCEEDED, ...) fails
 * once with its code and reason and is not retried; a worker that is killed or cut off stops
 * beating, and the first other worker to notice (after `staleAfterMs`) puts its jobs back.
 */
export async function runWorker(queue: QueueOptions | QueueConnection, options: RunWorkerOptions = {}): Promise<WorkerHandle> {
  const { store, libraryDir, signal, onEvent, embed, ...rest } = options;
  const settings = parseOptions(WORKER_OPTIONS_SCHEMA, rest, 'worker options');
  const owned = !('boss' in queue);
  const connection = owned ? await openQueue(queue as QueueOptions) : (queue as QueueConnection);
  const spec = store ?? { kind: 'postgres', url: connection.options.url, schema: connection.options.schema };
  let library: Library;
  try {
    // One pool of parsing processes for the worker's life (closed with the library): a batch does
    // not pay their start-up (loading parsers, tokenizer and dictionary) again.
    library = await Library.open(libraryDir ?? defaultLibraryDir(), { store: spec, keepIngestPools: true });
    // Every worker embeds with the library's one model (an endpoint that does not answer stops the
    // worker here, before it takes a job).
    if (embed !== false) await library.useEmbedder({ persist: false }).catch(async (error: unknown) => {
      await library.close();
      throw error;
    });
  } catch (error) {
    if (owned) await connection.close();
    throw error;
  }
  const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const worker = new QueueWorker(id, connection, library, settings, onEvent);
  await worker.register();
  const finish = async () => {
    await library.close().catch(() => undefined);
    if (owned) await connection.close();
  };
  const done = worker.run().finally(finish);
  if (signal) {
    if (signal.aborted) worker.requestStop();
    else signal.addEventListener('abort', () => worker.requestStop(), { once: true });
  }
  return {
    id,
    done,
    async stop() {
      worker.requestStop();
      return done;
    },
  };
}

class QueueWorker {
  private stopping = false;
  private wake: (() => void) | undefined;
  private readonly stats: WorkerStats;
  private readonly s: string;

  constructor(
    readonly id: string,
    private readonly q: QueueConnection,
    private readonly library: Library,
    private readonly settings: ResolvedWorkerOptions,
    private readonly onEvent: ((event: WorkerEvent) => void) | undefined,
  ) {
    this.stats = { workerId: id, jobsDone: 0, jobsFailed: 0, bytesDone: 0, jobsReclaimed: 0 };
    this.s = quoteIdent(q.schema);
  }

  requestStop(): void {
    this.stopping = true;
    this.wake?.();
  }

  async register(): Promise<void> {
    await this.q.pool.query(`INSERT INTO ${this.s}.gw_workers (id, host, pid, concurrency) VALUES ($1, $2, $3, $4)`, [this.id, hostname(), process.pid, this.settings.concurrency]);
    await this.purge();
  }

  private lastPurge = 0;

  /** Deletes uploaded bytes no live job needs any more (cancelled, archived): at start, then hourly. */
  private async purge(): Promise<void> {
    if (Date.now() - this.lastPurge < 3_600_000) return;
    this.lastPurge = Date.now();
    await purgeUploads(this.q.pool, this.q.schema, this.q.queue);
  }

  async run(): Promise<WorkerStats> {
    const beat = setInterval(() => void this.heartbeat().catch((error: Error) => this.emit({ type: 'error', error })), this.settings.heartbeatMs);
    try {
      await this.heartbeat();
      await this.loop();
    } finally {
      clearInterval(beat);
      await this.q.pool
        .query(`UPDATE ${this.s}.gw_workers SET state = 'stopped', stopped_at = now(), heartbeat_at = now() WHERE id = $1`, [this.id])
        .catch(() => undefined);
    }
    return { ...this.stats };
  }

  /**
   * Fetch a batch, ingest it, settle its jobs; sleep when the queue is empty. A batch is
   * `batchSize` jobs per unit of concurrency, ingested by one Library call whose parsing workers
   * are `concurrency` (the Library keeps them from batch to batch: one pool for the worker's life).
   */
  private async loop(): Promise<void> {
    while (!this.stopping) {
      let jobs: PgBoss.JobWithMetadata<IngestJob>[];
      try {
        jobs = await this.take();
      } catch (error) {
        this.emit({ type: 'error', error: error as Error });
        await this.sleep(this.settings.pollIntervalMs);
        continue;
      }
      if (jobs.length === 0) {
        this.emit({ type: 'idle' });
        if (this.settings.exitWhenIdle && (await this.queueEmpty())) {
          this.stopping = true;
          break;
        }
        await this.sleep(this.settings.pollIntervalMs);
        continue;
      }
      await this.ingest(jobs);
    }
  }

  /** Fetches jobs and records this worker as their owner in one transaction (a crash in between takes nothing). */
  private take(): Promise<PgBoss.JobWithMetadata<IngestJob>[]> {
    return this.q.transaction(async (client) => {
      const jobs = await this.q.boss.fetch<IngestJob>(this.q.queue, { batchSize: this.settings.batchSize * this.settings.concurrency, includeMetadata: true, db: bossDb(client) });
      if (jobs.length > 0) {
        await client.query(
          `INSERT INTO ${this.s}.gw_job_owners (job_id, worker_id) SELECT unnest($1::uuid[]), $2
           ON CONFLICT (job_id) DO UPDATE SET worker_id = excluded.worker_id, taken_at = now()`,
          [jobs.map((j) => j.id), this.id],
        );
      }
      return jobs;
    });
  }

  private async ingest(jobs: PgBoss.JobWithMetadata<IngestJob>[]): Promise<void> {
    const started = performance.now();
    const valid: { job: PgBoss.JobWithMetadata<IngestJob>; data: IngestJob }[] = [];
    for (const job of jobs) {
      const parsed = INGEST_JOB_SCHEMA.safeParse(job.data);
      if (parsed.success) valid.push({ job, data: parsed.data });
      else await this.reject(job, '', 'INVALID_OPTIONS', `job ${job.id} does not describe a file: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    // One Library ingest per set of equal options (a batch usually has one).
    const groups = new Map<string, typeof valid>();
    for (const v of valid) {
      const key = stableJson(v.data.options);
      groups.set(key, [...(groups.get(key) ?? []), v]);
    }
    for (const files of groups.values()) {
      const options = { ...(files[0]!.data.options as IngestOptions), workers: this.settings.concurrency };
      let report;
      let stash: string | undefined;
      let group = files;
      try {
        // Uploaded bytes go into a temporary folder; the Library stores each as its queued path.
        const copies: FileCopy[] = [];
        const present: typeof files = [];
        for (const [i, g] of files.entries()) {
          if (!g.data.upload) {
            copies.push({ path: g.data.path, from: g.data.path });
            present.push(g);
            continue;
          }
          stash ??= await mkdtemp(join(tmpdir(), 'gw-worker-'));
          const to = join(stash, String(i), basename(g.data.path));
          await mkdir(join(stash, String(i)));
          try {
            await readUpload(this.q.pool, this.q.schema, g.job.id, g.data.upload, to);
          } catch (error) {
            if (!(error instanceof UploadGone)) throw error;
            await this.reject(g.job, g.data.path, 'IO', `${g.data.path}: ${(error as Error).message}`);
            continue;
          }
          copies.push({ path: g.data.path, from: to, mtimeMs: g.data.mtimeMs });
          present.push(g);
        }
        group = present;
        if (group.length === 0) continue;
        report = await this.library.addCopies(copies, options);
      } catch (error) {
        // The store or the machine failed, not the file: the jobs go back for another try.
        const reason = (error as Error).message;
        await this.retry(group.map((g) => g.job), reason);
        continue;
      } finally {
        if (stash) await rm(stash, { recursive: true, force: true }).catch(() => undefined);
      }
      const rejected = new Map(report.rejected.map((r) => [r.path, r]));
      const stored = group.filter((g) => !rejected.has(g.data.path));
      for (const g of group) {
        const r = rejected.get(g.data.path);
        if (r) await this.reject(g.job, g.data.path, r.code, r.reason);
      }
      if (stored.length > 0) {
        // Completed with its uploaded bytes deleted, in one transaction.
        await this.settle(stored.map((g) => g.job), async (client) => {
          await this.completeMany(client, stored.map((g) => g.job.id), { outcome: 'stored', worker: this.id });
          await deleteUploads(client, this.q.schema, stored.filter((g) => g.data.upload).map((g) => g.job.id));
        });
        this.stats.jobsDone += stored.length;
        for (const g of stored) {
          this.stats.bytesDone += g.data.size;
          this.emit({ type: 'stored', jobId: g.job.id, path: g.data.path, attempt: g.job.retryCount + 1 });
        }
      }
      await this.q.pool.query(
        `UPDATE ${this.s}.gw_workers SET jobs_done = jobs_done + $2, jobs_failed = jobs_failed + $3, bytes_done = bytes_done + $4 WHERE id = $1`,
        [this.id, stored.length, files.length - stored.length, stored.reduce((n, g) => n + g.data.size, 0)],
      );
    }
    await this.q.pool.query(`UPDATE ${this.s}.gw_workers SET busy_ms = busy_ms + $2 WHERE id = $1`, [this.id, Math.round(performance.now() - started)]);
  }

  /** Fails a job for good: the file itself was refused, so another attempt would refuse it again. */
  private async reject(job: PgBoss.Job, path: string, code: string, reason: string): Promise<void> {
    await this.settle([job], async (client) => {
      await client.query(`UPDATE ${this.s}.job SET retry_limit = retry_count WHERE name = $1 AND id = $2`, [this.q.queue, job.id]);
      await this.q.boss.fail(this.q.queue, job.id, { code, reason, path, worker: this.id }, { db: bossDb(client) });
    });
    this.stats.jobsFailed++;
    this.emit({ type: 'rejected', jobId: job.id, path, code, reason });
  }

  /** Fails jobs for another attempt (pg-boss retries them while attempts remain). */
  private async retry(jobs: PgBoss.Job[], reason: string): Promise<void> {
    await this.settle(jobs, (client) => this.failMany(client, jobs.map((j) => j.id), { code: 'IO', reason, worker: this.id })).catch((error: Error) =>
      this.emit({ type: 'error', error }),
    );
    this.emit({ type: 'retry', jobIds: jobs.map((j) => j.id), reason });
  }

  /** Settles jobs and drops their owner rows in one transaction. */
  private settle(jobs: PgBoss.Job[], task: (client: PoolClient) => Promise<unknown>): Promise<void> {
    return this.q.transaction(async (client) => {
      await task(client);
      await client.query(`DELETE FROM ${this.s}.gw_job_owners WHERE job_id = ANY($1::uuid[]) AND worker_id = $2`, [jobs.map((j) => j.id), this.id]);
    });
  }

  private completeMany(client: PoolClient, ids: string[], data: object): Promise<unknown> {
    const complete = this.q.boss.complete.bind(this.q.boss) as unknown as (name: string, id: string[], data: object, options: { db: PgBoss.Db }) => Promise<unknown>;
    return complete(this.q.queue, ids, data, { db: bossDb(client) });
  }

  /** pg-boss's `fail` over several ids with an output (its types name the data only for one id). */
  private failMany(client: PoolClient, ids: string[], data: object): Promise<unknown> {
    const fail = this.q.boss.fail.bind(this.q.boss) as unknown as (name: string, id: string[], data: object, options: { db: PgBoss.Db }) => Promise<unknown>;
    return fail(this.q.queue, ids, data, { db: bossDb(client) });
  }

  /** Writes this worker's heartbeat, then puts back the active jobs of workers that stopped beating. */
  private async heartbeat(): Promise<void> {
    await this.q.pool.query(`UPDATE ${this.s}.gw_workers SET heartbeat_at = now(), state = 'running' WHERE id = $1`, [this.id]);
    await this.purge();
    const staleSeconds = this.settings.staleAfterMs / 1000;
    const reclaimed = await this.q.transaction(async (client) => {
      const lost = await client.query<{ id: string }>(
        `UPDATE ${this.s}.gw_workers SET state = 'lost', stopped_at = heartbeat_at
         WHERE state = 'running' AND id <> $1 AND heartbeat_at < now() - make_interval(secs => $2) RETURNING id`,
        [this.id, staleSeconds],
      );
      const owned = await client.query<{ job_id: string; worker_id: string }>(
        `DELETE FROM ${this.s}.gw_job_owners o USING ${this.s}.gw_workers w
         WHERE o.worker_id = w.id AND w.state <> 'running' RETURNING o.job_id, o.worker_id`,
      );
      if (owned.rows.length === 0) return { jobs: [] as string[], workers: lost.rows.map((r) => r.id) };
      const ids = owned.rows.map((r) => r.job_id);
      const workers = [...new Set(owned.rows.map((r) => r.worker_id))];
      await this.failMany(client, ids, { code: 'IO', reason: `worker ${workers.join(', ')} was lost (no heartbeat for ${staleSeconds} s): the job goes back to the queue`, worker: this.id });
      return { jobs: ids, workers };
    });
    if (reclaimed.jobs.length > 0) {
      this.stats.jobsReclaimed += reclaimed.jobs.length;
      this.emit({ type: 'reclaimed', jobIds: reclaimed.jobs, workers: reclaimed.workers });
      this.wake?.();
    }
  }

  /** True when nothing is waiting, retrying or running in the queue. */
  private async queueEmpty(): Promise<boolean> {
    const result = await this.q.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.s}.job WHERE name = $1 AND state IN ('created', 'retry', 'active')`, [this.q.queue]);
    return Number(result.rows[0]!.n) === 0;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const previous = this.wake;
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        done();
        previous?.();
      };
    });
  }

  private emit(event: WorkerEvent): void {
    this.onEvent?.(event);
  }
}


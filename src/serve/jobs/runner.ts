import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { getChunker } from '../../chunkers/registry.js';
import { GroundworkError, isGroundworkError } from '../../errors.js';
import type { IngestOptions, IngestReport, Library } from '../../library/library.js';
import { toParseOptions, type IngestRequestOptions } from '../../options/ingest.js';
import type { JobRecord, JobState } from '../../store/types.js';

/** One uploaded file of a job: where the server put it (a generated name) and what the client called it. */
export interface JobFile {
  /** The client's file name, for display only. */
  name: string;
  /** Relative to the library folder: `uploads/<generated>`. */
  path: string;
  bytes: number;
  /** SHA-256 of the bytes: the document id it gets. */
  docId: string;
}

export interface FileOutcome {
  name: string;
  bytes: number;
  docId: string;
  outcome: 'pending' | 'added' | 'unchanged' | 'rejected' | 'cancelled';
  blocks?: number;
  code?: string;
  reason?: string;
}

export interface IngestJobInput {
  files: JobFile[];
  options: IngestRequestOptions;
}

export interface JobProgress {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export const INGEST_JOB = 'ingest';
const TERMINAL: readonly JobState[] = ['done', 'failed', 'cancelled'];

export function isTerminal(state: JobState): boolean {
  return TERMINAL.includes(state);
}

export interface JobRunnerOptions {
  /** Jobs with the same options ingested together in one `addFiles` (one worker pool for all). Default 16. */
  maxBatch?: number;
  /** A job interrupted this many times (restarts while it ran) fails instead of running again. Default 3. */
  maxAttempts?: number;
  /** Ingest worker threads per batch (IngestOptions.workers). */
  workers?: number;
  /** Largest file accepted (IngestOptions.maxFileSize). */
  maxFileSize?: number;
  onError?: (error: unknown) => void;
}

type Listener = (job: JobRecord) => void;

/**
 * Runs upload jobs in the background, one batch at a time, with every state change kept in the
 * library's jobs (so a restart finds them) and told to listeners (SSE). Ingest goes through the
 * public `Library.addFiles`. Cancelling a running job takes effect when its batch's files are
 * done: what the job added is removed again and it ends `cancelled` (the ingest has no abort
 * signal to stop a file half way; each document is stored whole or not at all either way).
 */
export class JobRunner {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly cancelRequested = new Set<string>();
  private active: Promise<void> | undefined;
  private stopping = false;
  private readonly maxBatch: number;
  private readonly maxAttempts: number;

  constructor(private readonly library: Library, private readonly options: JobRunnerOptions = {}) {
    this.maxBatch = options.maxBatch ?? 16;
    this.maxAttempts = options.maxAttempts ?? 3;
  }

  /**
   * Picks up where a previous server stopped: jobs it left running are queued again (attempts
   * tells how often they started), or failed once they were interrupted `maxAttempts` times;
   * then runs what is queued.
   */
  async start(): Promise<{ resumed: number; failed: number }> {
    let resumed = 0;
    let failed = 0;
    for (const job of await this.library.jobs({ states: ['running'], limit: 100_000 })) {
      if (job.attempts >= this.maxAttempts) {
        const error = { code: 'IO', message: `interrupted ${job.attempts} times (the server stopped while it ran); not retried` };
        const done = await this.library.updateJob(job.id, { state: 'failed', error, finishedAt: now() }, { ifState: ['running'] });
        if (done) {
          failed++;
          await this.removeUploads(job);
        }
      } else if (await this.library.updateJob(job.id, { state: 'queued' }, { ifState: ['running'] })) resumed++;
    }
    this.kick();
    return { resumed, failed };
  }

  /** Queues an ingest of uploaded files; the job is stored before this returns. */
  async submit(input: IngestJobInput): Promise<JobRecord> {
    const at = now();
    const job: JobRecord = {
      id: randomUUID(),
      kind: INGEST_JOB,
      state: 'queued',
      input: input as unknown as Record<string, unknown>,
      progress: { filesDone: 0, filesTotal: input.files.length, bytesDone: 0, bytesTotal: input.files.reduce((n, f) => n + f.bytes, 0) },
      result: null,
      error: null,
      attempts: 0,
      createdAt: at,
      updatedAt: at,
      startedAt: null,
      finishedAt: null,
    };
    await this.library.createJob(job);
    this.kick();
    return job;
  }

  /** Deletes uploads that never became a job (a request refused after its files arrived). */
  async discard(paths: readonly string[]): Promise<void> {
    for (const path of paths) await rm(this.absolute(path), { force: true }).catch(() => undefined);
  }

  /** Whether a cancel is pending for a running job. */
  isCancelRequested(id: string): boolean {
    return this.cancelRequested.has(id);
  }

  /**
   * Cancels a job: a queued one at once (its uploads deleted); a running one when its files are
   * done (see the class). Undefined when there is no such job; a finished job is returned as it is.
   */
  async cancel(id: string): Promise<JobRecord | undefined> {
    const cancelled = await this.library.updateJob(id, { state: 'cancelled', finishedAt: now() }, { ifState: ['queued'] });
    if (cancelled) {
      await this.removeUploads(cancelled);
      this.tell(cancelled);
      return cancelled;
    }
    const job = await this.library.job(id);
    if (job?.state === 'running') {
      this.cancelRequested.add(id);
      this.tell(job);
    }
    return job;
  }

  /** Hears every change of job `id` until the returned function is called. */
  subscribe(id: string, listener: Listener): () => void {
    let set = this.listeners.get(id);
    if (!set) this.listeners.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  /**
   * Stops taking jobs and waits up to `graceMs` for the running batch. A batch still running
   * then stays `running` in the library and is resumed by the next `start()`.
   */
  async stop(graceMs: number): Promise<boolean> {
    this.stopping = true;
    const active = this.active;
    if (!active) return true;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      active.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs))),
    ]);
    clearTimeout(timer);
    return finished;
  }

  /** Resolves once nothing is queued or running here (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.active) await this.active;
  }

  private kick(): void {
    if (this.active || this.stopping) return;
    this.active = this.drain()
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.active = undefined;
      });
  }

  private async drain(): Promise<void> {
    while (!this.stopping) {
      const batch = await this.claim();
      if (batch.length === 0) return;
      await this.runBatch(batch);
    }
  }

  /** The oldest queued job and the queued jobs with the same options after it, moved to running. */
  private async claim(): Promise<JobRecord[]> {
    const queued = (await this.library.jobs({ states: ['queued'], limit: 1000 })).reverse();
    const first = queued[0];
    if (!first) return [];
    const key = JSON.stringify((first.input as unknown as IngestJobInput).options ?? {});
    const claimed: JobRecord[] = [];
    for (const job of queued) {
      if (claimed.length >= this.maxBatch) break;
      if (JSON.stringify((job.input as unknown as IngestJobInput).options ?? {}) !== key) continue;
      const running = await this.library.updateJob(job.id, { state: 'running', attempts: job.attempts + 1, startedAt: now() }, { ifState: ['queued'] });
      if (running) {
        claimed.push(running);
        this.tell(running);
      }
    }
    return claimed;
  }

  private async runBatch(jobs: JobRecord[]): Promise<void> {
    const inputs = new Map(jobs.map((j) => [j.id, j.input as unknown as IngestJobInput]));
    const byPath = new Map<string, { job: JobRecord; file: JobFile }>();
    for (const job of jobs) for (const file of inputs.get(job.id)!.files) byPath.set(this.absolute(file.path), { job, file });
    const existed = new Set<string>();
    for (const { file } of byPath.values()) if (await this.library.document(file.docId)) existed.add(file.docId);

    const progress = new Map(jobs.map((j) => [j.id, { ...(j.progress as unknown as JobProgress), filesDone: 0, bytesDone: 0 }]));
    const options = inputs.get(jobs[0]!.id)!.options;
    const ingest: IngestOptions = {
      ...(options.strategy && { strategy: options.strategy }),
      ...(options.chunkOptions && { chunkOptions: options.chunkOptions }),
      ...(options.tokenizer && { tokenizer: options.tokenizer }),
      ...(options.parseOptions && { parseOptions: toParseOptions(options.parseOptions) }),
      ...(this.options.workers !== undefined && { workers: this.options.workers }),
      ...(this.options.maxFileSize !== undefined && { maxFileSize: this.options.maxFileSize }),
      onProgress: (p) => {
        const owner = byPath.get(resolve(p.path));
        if (!owner) return;
        const mine = progress.get(owner.job.id)!;
        mine.filesDone++;
        mine.bytesDone += owner.file.bytes;
        void this.library.updateJob(owner.job.id, { progress: { ...mine } }, { ifState: ['running'] })
          .then((job) => job && this.tell(job), (error: unknown) => this.options.onError?.(error));
      },
    };
    let report: IngestReport | undefined;
    let failure: { code: string; message: string } | undefined;
    try {
      report = await this.library.addFiles([...byPath.keys()], ingest);
    } catch (error) {
      failure = isGroundworkError(error) ? { code: error.code, message: error.message } : { code: 'IO', message: (error as Error).message };
    }
    const claimedAdds = new Set<string>();
    for (const job of jobs) {
      try {
        await this.finish(job, inputs.get(job.id)!, report, failure, existed, claimedAdds, progress.get(job.id)!);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }

  private async finish(
    job: JobRecord,
    input: IngestJobInput,
    report: IngestReport | undefined,
    failure: { code: string; message: string } | undefined,
    existed: Set<string>,
    claimedAdds: Set<string>,
    progress: JobProgress,
  ): Promise<void> {
    const cancel = this.cancelRequested.has(job.id);
    const files: FileOutcome[] = [];
    for (const file of input.files) {
      const base = { name: file.name, bytes: file.bytes, docId: file.docId };
      const rejected = report?.rejected.find((r) => resolve(r.path) === this.absolute(file.path));
      if (failure) files.push({ ...base, outcome: 'rejected', code: failure.code, reason: failure.message });
      else if (rejected) files.push({ ...base, outcome: 'rejected', code: rejected.code, reason: rejected.reason.replace(this.absolute(file.path), file.name) });
      else {
        const doc = await this.library.document(file.docId);
        if (!doc) files.push({ ...base, outcome: 'rejected', code: 'IO', reason: `${file.name}: not stored` });
        else {
          const added = !existed.has(file.docId) && !claimedAdds.has(file.docId);
          if (added) claimedAdds.add(file.docId);
          files.push({ ...base, outcome: added ? 'added' : 'unchanged', blocks: doc.blocks });
        }
      }
    }
    if (cancel) {
      // What this job added goes again: a cancelled upload leaves the library as it was.
      for (const f of files) {
        if (f.outcome === 'added') await this.library.remove(f.docId);
        if (f.outcome !== 'rejected') f.outcome = 'cancelled';
      }
    }
    const stored = files.filter((f) => f.outcome === 'added' || f.outcome === 'unchanged');
    const firstRejected = files.find((f) => f.outcome === 'rejected');
    const state: JobState = cancel ? 'cancelled' : stored.length === 0 && firstRejected ? 'failed' : 'done';
    const result = {
      files,
      report: {
        docsAdded: files.filter((f) => f.outcome === 'added').length,
        docsUnchanged: files.filter((f) => f.outcome === 'unchanged').length,
        blocksAdded: files.reduce((n, f) => n + (f.outcome === 'added' ? (f.blocks ?? 0) : 0), 0),
        rejected: files.filter((f) => f.outcome === 'rejected').map((f) => ({ name: f.name, code: f.code, reason: f.reason })),
        batchDurationMs: report?.durationMs ?? null,
      },
    };
    const error = state === 'failed' && firstRejected ? { code: firstRejected.code ?? 'IO', message: firstRejected.reason ?? 'rejected' } : null;
    const done = await this.library.updateJob(
      job.id,
      { state, result, error, progress: { ...progress, filesDone: progress.filesTotal, bytesDone: progress.bytesTotal }, finishedAt: now() },
      { ifState: ['running'] },
    );
    this.cancelRequested.delete(job.id);
    await this.removeUploads(job);
    if (done) this.tell(done);
  }

  private absolute(rel: string): string {
    const abs = resolve(this.library.dir, rel);
    // Inputs are written by this server, but a job row is data: never follow one outside the library.
    if (isAbsolute(rel) || relative(this.library.dir, abs).startsWith(`..${sep}`)) {
      throw new GroundworkError('INVALID_OPTIONS', `job file ${JSON.stringify(rel)} is outside the library`);
    }
    return abs;
  }

  private async removeUploads(job: JobRecord): Promise<void> {
    for (const file of (job.input as unknown as IngestJobInput).files ?? []) {
      await rm(this.absolute(file.path), { force: true }).catch(() => undefined);
    }
  }

  private tell(job: JobRecord): void {
    for (const listener of this.listeners.get(job.id) ?? []) listener(job);
  }
}

/** Throws INVALID_OPTIONS now (400 at upload) for options the ingest would refuse later. */
export function checkIngestOptions(options: IngestRequestOptions): void {
  if (options.strategy !== undefined) {
    const chunker = getChunker(options.strategy);
    chunker.resolveOptions({ ...(options.chunkOptions ?? {}) });
  }
}

/** Where uploads wait for their job, inside the library. */
export function uploadsDir(library: Library): string {
  return join(library.dir, 'uploads');
}

function now(): string {
  return new Date().toISOString();
}

import type Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { GroundworkError } from '../../errors.js';

/**
 * Many processes on one SQLite library: who waits for whom.
 *
 * - Writers take turns on SQLite's one write lock. Every write transaction starts with
 *   `BEGIN IMMEDIATE`, so the lock is taken before anything is read: a transaction never reads
 *   under a snapshot that another writer then makes stale (that upgrade fails at once with
 *   SQLITE_BUSY_SNAPSHOT, whatever the busy timeout). While another process holds the lock, the
 *   attempt is repeated after a jittered, growing pause (1 ms doubling to 100 ms, times 0.5..1),
 *   waiting on a timer, never in SQLite's busy handler: the process's event loop (its searches, its
 *   workers' results) goes on meanwhile. Up to `lockTimeoutMs` (default 10 minutes), then TIMEOUT.
 *   A transaction holds the lock only while it runs (better-sqlite3 runs it synchronously), so
 *   waits are bounded by the other writers' documents, never by a reader.
 * - Readers never take the lock: WAL gives each read transaction a snapshot while writers go on.
 *   The connection's busy timeout (5 s) covers the rare moments a reader must wait (a WAL recovery
 *   after a crash).
 * - Checkpoints: SQLite copies the WAL back into the database every 1000 pages (wal_autocheckpoint)
 *   without waiting for anyone, but it can only start the WAL file over when no reader is still
 *   using it. Readers that always overlap (a server searching all the time) would let the file grow
 *   for ever, so after a commit that leaves the WAL above WAL_RESTART_BYTES the writer runs
 *   `wal_checkpoint(RESTART)`, waiting at most RESTART_WAIT_MS for the readers of older snapshots to
 *   finish (new readers start from the database file and do not hold it), and `journal_size_limit`
 *   truncates the file when it starts over. A reader that holds one snapshot for minutes (an export)
 *   keeps the WAL growing until it ends; the next write after that restarts it.
 */

/** Default wait for the write lock before a write fails with TIMEOUT. */
export const DEFAULT_LOCK_TIMEOUT_MS = 600_000;
/** The connection's busy timeout for what is not a write: readers waiting out a WAL recovery. */
export const READ_BUSY_TIMEOUT_MS = 5_000;
/** A WAL larger than this after a commit makes the writer try to start it over (RESTART). */
export const WAL_RESTART_BYTES = 64 * 1024 * 1024;
/** How long a RESTART checkpoint waits for readers of older snapshots, holding the write lock. */
const RESTART_WAIT_MS = 200;
/** What the WAL file is truncated to when it starts over. */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

const FIRST_PAUSE_MS = 1;
const MAX_PAUSE_MS = 100;

/** How long writes waited for the lock, for benchmarks and tests. */
export interface LockStats {
  /** Write transactions run. */
  writes: number;
  /** Of which had to wait for another connection. */
  waited: number;
  /** Attempts that found the lock taken. */
  busyAttempts: number;
  totalWaitMs: number;
  maxWaitMs: number;
  /** RESTART checkpoints tried after a commit, and how many started the WAL over. */
  restarts: number;
  restartsDone: number;
}

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED');
}

/**
 * Runs write transactions on one connection under SQLite's write lock, taking turns with every
 * other connection to the file (see the module comment), and keeps the WAL from growing without
 * bound afterwards.
 */
export class WriteLock {
  readonly stats: LockStats = { writes: 0, waited: 0, busyAttempts: 0, totalWaitMs: 0, maxWaitMs: 0, restarts: 0, restartsDone: 0 };
  private readonly walFile: string | undefined;
  /** The WAL size at the last RESTART that could not finish (a long reader): wait for growth before the next. */
  private restartBlockedAt = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly timeoutMs: number,
    private readonly location: string,
  ) {
    this.walFile = db.memory ? undefined : `${db.name}-wal`;
  }

  /** `fn` in one `BEGIN IMMEDIATE` transaction, waiting (asynchronously) for its turn. */
  async run<T>(fn: () => T): Promise<T> {
    const started = performance.now();
    let pause = FIRST_PAUSE_MS;
    let waited = false;
    for (;;) {
      // No waiting inside SQLite: a taken lock is answered at once and waited for on a timer.
      this.busyTimeout(0);
      let attempt: ReturnType<WriteLock['attempt']>;
      try {
        attempt = this.attempt(fn);
      } finally {
        this.busyTimeout(READ_BUSY_TIMEOUT_MS);
      }
      if (attempt.done) {
        this.finish(started, waited);
        return attempt.value as T;
      }
      waited = true;
      this.stats.busyAttempts++;
      if (performance.now() - started > this.timeoutMs) throw this.timeout();
      await new Promise((r) => setTimeout(r, pause * (0.5 + Math.random() / 2)));
      pause = Math.min(MAX_PAUSE_MS, pause * 2);
    }
  }

  /**
   * `fn` in one `BEGIN IMMEDIATE` transaction, waiting in SQLite's busy handler (blocking this
   * thread): for synchronous callers only (a store constructed with `new`).
   */
  runSync<T>(fn: () => T): T {
    const started = performance.now();
    this.busyTimeout(this.timeoutMs);
    let attempt: ReturnType<WriteLock['attempt']>;
    try {
      attempt = this.attempt(fn);
    } finally {
      this.busyTimeout(READ_BUSY_TIMEOUT_MS);
    }
    if (!attempt.done) throw this.timeout();
    this.finish(started, performance.now() - started > 1);
    return attempt.value as T;
  }

  private busyTimeout(ms: number): void {
    let statement = this.busyStatements.get(ms);
    if (!statement) this.busyStatements.set(ms, (statement = this.db.prepare(`PRAGMA busy_timeout = ${ms}`)));
    statement.get();
  }

  private readonly busyStatements = new Map<number, Database.Statement>();

  /** One try: the transaction's result, or not done when another connection holds the lock. */
  private attempt<T>(fn: () => T): { done: true; value: T } | { done: false } {
    let entered = false;
    try {
      const value = this.db.transaction(() => {
        entered = true;
        return fn();
      }).immediate();
      return { done: true, value };
    } catch (error) {
      // Busy before the transaction began: nothing ran, try again. Busy inside it is a real failure
      // (it was rolled back), reported as it is.
      if (!entered && isBusy(error)) return { done: false };
      throw error;
    }
  }

  private finish(started: number, waited: boolean): void {
    const ms = performance.now() - started;
    this.stats.writes++;
    if (waited) {
      this.stats.waited++;
      this.stats.totalWaitMs += ms;
      this.stats.maxWaitMs = Math.max(this.stats.maxWaitMs, ms);
    }
    this.bound();
  }

  /** After a commit: start an oversized WAL over when the readers let it (see the module comment). */
  private bound(): void {
    if (!this.walFile) return;
    let size: number;
    try {
      size = statSync(this.walFile).size;
    } catch {
      return;
    }
    if (size <= WAL_RESTART_BYTES || (this.restartBlockedAt > 0 && size < this.restartBlockedAt + WAL_RESTART_BYTES / 2)) return;
    this.stats.restarts++;
    this.busyTimeout(RESTART_WAIT_MS);
    try {
      const [result] = this.db.pragma('wal_checkpoint(RESTART)') as { busy: number; log: number; checkpointed: number }[];
      if (result && result.busy === 0) {
        this.stats.restartsDone++;
        this.restartBlockedAt = 0;
      } else {
        this.restartBlockedAt = size;
      }
    } catch (error) {
      // Another writer or checkpointer was at it: the next commit tries again.
      if (!isBusy(error)) throw error;
      this.restartBlockedAt = size;
    } finally {
      this.busyTimeout(READ_BUSY_TIMEOUT_MS);
    }
  }

  private timeout(): GroundworkError {
    return new GroundworkError('TIMEOUT', `another process held the library's write lock for more than ${Math.round(this.timeoutMs / 1000)} s`, {
      file: this.location,
      limit: { name: 'lockTimeoutMs', value: this.timeoutMs },
    });
  }
}

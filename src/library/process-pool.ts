import { type ChildProcess, fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { limitFlag, type FileLimits } from '../limits.js';
import type { ChildMessage, ParentMessage, TaskFailure } from './task-host.js';

/**
 * A fixed number of worker processes, one task each at a time, each task under the per-file limits
 * (`FileLimits`): a wall-time limit and a memory ceiling. A worker that breaks one is killed
 * (SIGKILL, with the processes it started) and replaced; its task fails with
 * TIMEOUT or LIMIT_EXCEEDED naming the limit, its value and the flag that raises it. Every other
 * task goes on.
 *
 * Processes, not threads, because a thread's memory cannot be bounded: `resourceLimits` caps the
 * V8 heap only, and PDFium's WASM memory (and every Buffer) lives outside it. A worker thread capped
 * at a 64 MB heap held 1 GB of WebAssembly.Memory without complaint (docs/library.md, "Per-file
 * limits"). A process's resident set is what the ceiling measures: its heap is capped at the ceiling
 * (`--max-old-space-size`), and its RSS is sampled every `RSS_SAMPLE_MS` from /proc (Linux; elsewhere
 * only the heap cap holds). A process also contains a native crash to its own file.
 */

export interface PoolOutcomeOk<R> {
  ok: true;
  result: R;
  /** The pieces the task sent ahead of its result (`TaskContext.part`), in order. */
  parts: unknown[];
}
export interface PoolOutcomeFailed {
  ok: false;
  failure: TaskFailure;
  /** Set when the task did not fail but was stopped: the pool was closed while it ran (an abort). */
  cancelled?: true;
}
export type PoolOutcome<R> = PoolOutcomeOk<R> | PoolOutcomeFailed;

export interface ProcessPoolOptions {
  /** Worker processes (at least 1). */
  size: number;
  limits: FileLimits;
  /** Command-line arguments of every worker (`process.argv.slice(2)` there): its start-up configuration. */
  args?: string[];
  /** Answers a worker's `ctx.ask(what, payload)`. */
  onAsk?: (what: string, payload: unknown, task: AskingTask) => Promise<unknown> | unknown;
  /**
   * A worker whose resident set is over this many MB once its task is done is retired (its channel
   * closed, so it exits) and a fresh one takes the next task. Default: half the memory ceiling, at
   * least `MIN_RECYCLE_MB`. Memory a process got does not all go back when a task ends: PDFium's
   * WebAssembly memory only grows, and V8 and malloc keep pages; a worker that kept its biggest
   * file's memory for the rest of a batch made a soak's RSS climb towards the ceiling.
   */
  recycleOverMb?: number;
}

/** The least resident set at which a worker is retired after its task (`recycleOverMb`). */
export const MIN_RECYCLE_MB = 256;

/** The task a worker asks for, as `onAsk` sees it. */
export interface AskingTask {
  id: number;
  /** Registers cleanup for when the task ends, however it ends. */
  release(fn: () => void): void;
}

/** How often a busy worker's resident set is read. */
export const RSS_SAMPLE_MS = 100;

interface Running {
  id: number;
  settle: (outcome: PoolOutcome<unknown>) => void;
  timer: NodeJS.Timeout | undefined;
  /** Set when the pool killed the worker: the outcome it decided. */
  verdict?: TaskFailure;
  /** Cleanup registered by `onAsk` handlers (a write slot to give back). */
  releases: (() => void)[];
  /** Pieces of the result received so far (`TaskContext.part`), when the task has no `onPart`. */
  parts: unknown[];
  /** Hears each piece as it arrives (`RunOptions.onPart`). */
  onPart: ((part: unknown) => Promise<void> | void) | undefined;
  /** The pieces handed to `onPart` so far, in order. */
  partChain: Promise<void>;
}

/** How one task is run. */
export interface RunOptions {
  /**
   * Takes each piece of the result (`TaskContext.part`) as it arrives, in order, instead of
   * collecting them into `PoolOutcomeOk.parts`: the worker's next piece waits until the promise
   * returned settles. What it throws fails the task's piece in the worker.
   */
  onPart?: (part: unknown) => Promise<void> | void;
  /**
   * The task starts in a worker whose resident set is at most this many MB: an idle worker over it
   * is retired first and a fresh one takes the task. For a task known to need memory beside the
   * worker's own (an image's OCR runs a tesseract process next to it): what a worker kept from
   * earlier files is dropped before that task only, not after every task.
   */
  freshOverMb?: number;
}

interface Slot {
  child: ChildProcess;
  ready: Promise<boolean>;
  /** True once the worker said it is ready. */
  started: boolean;
  running: Running | undefined;
  /** The last few KB of the worker's stderr: how a heap overflow is told from other crashes. */
  stderr: string;
}

const STDERR_TAIL = 4096;
const HEAP_EXHAUSTED = /heap out of memory|reached heap limit|allocation failed/i;

export class ProcessPool<T, R> {
  private readonly idle: Slot[] = [];
  private readonly live = new Set<Slot>();
  private readonly waiting: { start: (slot: Slot) => void; settle: (outcome: PoolOutcome<unknown>) => void }[] = [];
  private readonly options: ProcessPoolOptions;
  private readonly entry: URL;
  private nextId = 0;
  private sampler: NodeJS.Timeout | undefined;
  private closed = false;

  /** `entry`: the worker module, which calls `serveTasks(handler)` (src/library/task-host.ts). */
  constructor(entry: URL, options: ProcessPoolOptions) {
    this.entry = entry;
    this.options = { ...options, size: Math.max(1, options.size) };
  }

  get size(): number {
    return this.options.size;
  }

  /** Workers retired so far for the memory they kept after a task (`recycleOverMb`). */
  retired = 0;
  /** Retired workers not yet exited: close() waits for them too. */
  private readonly retiring = new Set<ChildProcess>();

  private get recycleOverMb(): number {
    return this.options.recycleOverMb ?? Math.max(MIN_RECYCLE_MB, this.options.limits.fileMemoryMb / 2);
  }

  /** Runs one task in a worker; never rejects: a failure, limits included, is an outcome. */
  run(task: T, options: RunOptions = {}): Promise<PoolOutcome<R>> {
    if (this.closed) return Promise.resolve({ ok: false, cancelled: true, failure: { code: 'IO', message: 'stopped: the worker pool is closed' } });
    return new Promise((resolve) => {
      const start = (slot: Slot) => {
        const over = options.freshOverMb;
        if (over !== undefined && slot.started && slot.child.pid !== undefined && residentMb(slot.child.pid) > over) {
          this.retire(slot);
          slot = this.spawn();
        }
        void this.start(slot, task, resolve as (o: PoolOutcome<unknown>) => void, options.onPart);
      };
      const slot = this.idle.pop() ?? (this.live.size < this.options.size ? this.spawn() : undefined);
      if (slot) start(slot);
      else this.waiting.push({ start, settle: resolve as (o: PoolOutcome<unknown>) => void });
    });
  }

  /**
   * Stops every worker: idle ones exit when their channel closes, busy ones are killed and their
   * tasks settle as `cancelled`, as do tasks still waiting for a worker. Resolves once every worker
   * process has exited, so none outlives the pool. Safe to call more than once.
   */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private closing: Promise<void> | undefined;

  private async stop(): Promise<void> {
    this.closed = true;
    if (this.sampler) clearInterval(this.sampler);
    this.sampler = undefined;
    const slots = [...this.live];
    this.live.clear();
    this.idle.length = 0;
    livePools.delete(this as unknown as ProcessPool<unknown, unknown>);
    const cancelled: PoolOutcome<unknown> = { ok: false, cancelled: true, failure: { code: 'IO', message: 'stopped: the worker pool was closed while the task ran' } };
    for (const waiter of this.waiting.splice(0)) waiter.settle(cancelled);
    const retiring = [...this.retiring].map((child) => new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.ref();
    }));
    await Promise.all([...retiring, ...slots.map((slot) => new Promise<void>((done) => {
      const busy = slot.running !== undefined;
      if (busy) this.finish(slot, cancelled);
      if (slot.child.exitCode !== null || slot.child.signalCode !== null) return done();
      slot.child.once('exit', () => done());
      // An idle worker is unref'd; waiting for its exit must keep this process alive.
      slot.child.ref();
      // Closing the channel makes an idle worker exit by itself (task-host.ts); a busy one is killed.
      if (busy || !slot.child.connected) killTree(slot.child);
      else slot.child.disconnect();
    }))]);
  }

  /** Kills every worker at once, synchronously (the parent is exiting). */
  killAll(): void {
    for (const slot of this.live) killTree(slot.child);
  }

  private spawn(): Slot {
    const { file, execArgv } = workerCommand(this.entry);
    const child = fork(file, this.options.args ?? [], {
      // --expose-gc: a worker collects after a big task (serveTasks' afterTask), see ingest-process.ts.
      execArgv: [...execArgv, `--max-old-space-size=${this.options.limits.fileMemoryMb}`, '--max-semi-space-size=4', '--expose-gc'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    const slot: Slot = { child, ready: Promise.resolve(false), started: false, running: undefined, stderr: '' };
    child.stderr?.setEncoding('utf8');
    // Kept, not echoed: a crashing worker's native stack trace is no message for a user; its last
    // line goes into the rejection reason.
    child.stderr?.on('data', (text: string) => {
      slot.stderr = (slot.stderr + text).slice(-STDERR_TAIL);
    });
    slot.ready = new Promise((resolve) => {
      const onMessage = (message: ChildMessage<R>) => {
        if (message.type === 'ready') {
          slot.started = true;
          resolve(true);
        }
        else this.onMessage(slot, message);
      };
      child.on('message', onMessage);
      child.once('exit', () => resolve(false));
      child.once('error', () => resolve(false));
    });
    child.on('exit', (code, signal) => this.onExit(slot, code, signal));
    child.on('error', () => this.onExit(slot, null, null));
    this.live.add(slot);
    watchExit(this as unknown as ProcessPool<unknown, unknown>);
    this.idleRefs(slot, true);
    return slot;
  }

  private async start(slot: Slot, task: T, settle: (outcome: PoolOutcome<unknown>) => void, onPart?: (part: unknown) => Promise<void> | void): Promise<void> {
    const id = this.nextId++;
    const running: Running = { id, settle, releases: [], parts: [], timer: undefined, onPart, partChain: Promise.resolve() };
    slot.running = running;
    this.idleRefs(slot, false);
    // A worker that dies before it is ready settles the task in onExit.
    if (!(await slot.ready) || slot.running !== running) return;
    // The clock starts when the file does, not while a fresh worker loads.
    running.timer = setTimeout(() => {
      const timeoutMs = this.options.limits.fileTimeoutMs;
      const flag = limitFlag('fileTimeoutMs');
      running.verdict = {
        code: 'TIMEOUT',
        message: `parsing and chunking took longer than ${timeoutMs / 1000} s (fileTimeoutMs ${timeoutMs}; raise it with ${flag})`,
        limit: { name: 'fileTimeoutMs', value: timeoutMs, flag },
      };
      killTree(slot.child);
    }, this.options.limits.fileTimeoutMs);
    this.sample();
    slot.child.send({ type: 'task', id, task } satisfies ParentMessage<T>);
  }

  private onMessage(slot: Slot, message: ChildMessage<R>): void {
    const running = slot.running;
    if (!running || message.type === 'ready' || message.id !== running.id) return;
    if (message.type === 'part') {
      const { part, askId } = message;
      const take = running.onPart ?? ((p: unknown) => void running.parts.push(p));
      running.partChain = running.partChain
        .then(() => take(part))
        .then(
          () => undefined,
          (error: unknown) => ({ error }),
        )
        .then((failed) => {
          if (slot.running !== running || !slot.child.connected) return;
          slot.child.send({ type: 'answer', askId, ...(failed ? { error: (failed.error as Error)?.message ?? String(failed.error) } : {}) } satisfies ParentMessage<T>);
        });
      return;
    }
    if (message.type === 'ask') {
      const answer = (value: unknown, error?: unknown) => {
        if (slot.running !== running || !slot.child.connected) return;
        slot.child.send({ type: 'answer', askId: message.askId, ...(error !== undefined ? { error: (error as Error)?.message ?? String(error) } : { value }) } satisfies ParentMessage<T>);
      };
      const task: AskingTask = {
        id: running.id,
        release: (fn) => void running.releases.push(fn),
      };
      Promise.resolve()
        .then(() => this.options.onAsk?.(message.what, message.payload, task))
        .then((value) => answer(value), (error: unknown) => answer(undefined, error));
      return;
    }
    // Every piece was taken before the worker answered (each piece waits for its answer).
    this.finish(slot, message.type === 'result' ? { ok: true, result: message.result, parts: running.parts } : { ok: false, failure: message.failure });
    this.release(slot);
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    if (!this.live.delete(slot)) return;
    const idleAt = this.idle.indexOf(slot);
    if (idleAt !== -1) this.idle.splice(idleAt, 1);
    const running = slot.running;
    if (running && !slot.started) {
      this.finish(slot, { ok: false, failure: { code: 'IO', message: `a worker process could not start (exited with ${signal ?? `code ${code}`})${crashLine(slot.stderr)}` } });
    } else if (running) {
      this.finish(slot, { ok: false, failure: running.verdict ?? this.crashFailure(slot, code, signal) });
    }
    // Replace it for whoever waits.
    if (!this.closed && this.waiting.length > 0) this.waiting.shift()!.start(this.spawn());
  }

  /** Why a worker died on its own: its heap or the system's kill (LIMIT_EXCEEDED), or a crash (CRASHED). */
  private crashFailure(slot: Slot, code: number | null, signal: NodeJS.Signals | null): TaskFailure {
    const memoryMb = this.options.limits.fileMemoryMb;
    const flag = limitFlag('fileMemoryMb');
    if (HEAP_EXHAUSTED.test(slot.stderr) || signal === 'SIGKILL') {
      const why = signal === 'SIGKILL' ? 'was killed by the system (most likely for memory)' : `ran out of its ${memoryMb} MB heap`;
      return { code: 'LIMIT_EXCEEDED', message: `the worker parsing this file ${why} (fileMemoryMb ${memoryMb}; raise it with ${flag})`, limit: { name: 'fileMemoryMb', value: memoryMb, flag } };
    }
    // A crash says nothing about the file's bytes: CRASHED, never CORRUPT.
    return { code: 'CRASHED', message: `the worker parsing this file crashed (it exited with ${signal ?? `code ${code}`})${crashLine(slot.stderr)}` };
  }

  private finish(slot: Slot, outcome: PoolOutcome<unknown>): void {
    const running = slot.running;
    if (!running) return;
    slot.running = undefined;
    if (running.timer) clearTimeout(running.timer);
    running.timer = undefined;
    for (const fn of running.releases.splice(0)) fn();
    running.settle(outcome);
  }

  private release(slot: Slot): void {
    if (!this.live.has(slot)) return;
    if (slot.child.pid !== undefined && residentMb(slot.child.pid) > this.recycleOverMb) {
      this.retire(slot);
      const waiter = this.waiting.shift();
      if (waiter && !this.closed) waiter.start(this.spawn());
      return;
    }
    const next = this.waiting.shift();
    if (next) return next.start(slot);
    this.idle.push(slot);
    this.idleRefs(slot, true);
  }

  /** Takes an idle worker out of the pool: it exits once its channel closes (task-host.ts). */
  private retire(slot: Slot): void {
    this.live.delete(slot);
    this.retiring.add(slot.child);
    slot.child.once('exit', () => this.retiring.delete(slot.child));
    if (slot.child.connected) slot.child.disconnect();
    else killTree(slot.child);
    this.idleRefs(slot, true);
    this.retired++;
  }

  /** Idle workers must not keep the parent alive; busy ones must. */
  private idleRefs(slot: Slot, idle: boolean): void {
    const channel = slot.child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (idle) {
      slot.child.unref();
      channel?.unref?.();
      (slot.child.stderr as { unref?: () => void } | null)?.unref?.();
    } else {
      slot.child.ref();
      channel?.ref?.();
      (slot.child.stderr as { ref?: () => void } | null)?.ref?.();
    }
  }

  /** Samples busy workers' resident sets; a worker over the ceiling is killed and its file rejected. */
  private sample(): void {
    if (this.sampler || process.platform !== 'linux') return;
    this.sampler = setInterval(() => {
      let busy = 0;
      for (const slot of this.live) {
        const running = slot.running;
        if (!running || running.verdict || slot.child.pid === undefined) continue;
        busy++;
        const rssMb = residentMb(slot.child.pid);
        const memoryMb = this.options.limits.fileMemoryMb;
        if (rssMb > memoryMb) {
          const flag = limitFlag('fileMemoryMb');
          running.verdict = {
            code: 'LIMIT_EXCEEDED',
            message: `parsing and chunking this file took more than ${memoryMb} MB of memory (${Math.round(rssMb)} MB resident; fileMemoryMb ${memoryMb}; raise it with ${flag})`,
            limit: { name: 'fileMemoryMb', value: memoryMb, flag },
          };
          killTree(slot.child);
        }
      }
      if (busy === 0) {
        clearInterval(this.sampler);
        this.sampler = undefined;
      }
    }, RSS_SAMPLE_MS);
    this.sampler.unref();
  }
}

/**
 * Pools with live workers. When this process exits (process.exit, an uncaught error) their workers
 * are killed with it: an idle worker would exit by itself once its channel closes, but a busy one
 * does not read its channel until its file is done.
 */
const livePools = new Set<ProcessPool<unknown, unknown>>();
let exitHooked = false;

function watchExit(pool: ProcessPool<unknown, unknown>): void {
  livePools.add(pool);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const p of livePools) p.killAll();
  });
}

const PAGE_BYTES = 4096;

/** A process's resident set in MB, from /proc/PID/statm (0 when it is gone). */
export function residentMb(pid: number): number {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]);
    return (pages * PAGE_BYTES) / (1024 * 1024);
  } catch {
    return 0;
  }
}

/**
 * Kills a worker and what it started (tesseract): its descendants are found in /proc on Linux.
 * Workers stay in the parent's process group, so Ctrl-C in a terminal still stops all of them.
 */
function killTree(child: ChildProcess): void {
  if (child.pid === undefined) return;
  for (const pid of [...descendants(child.pid), child.pid]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

function descendants(pid: number): number[] {
  if (process.platform !== 'linux') return [];
  const out: number[] = [];
  const visit = (parent: number, depth: number) => {
    if (depth > 16) return;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      let children: string;
      try {
        children = readFileSync(`/proc/${parent}/task/${task}/children`, 'latin1');
      } catch {
        continue;
      }
      for (const id of children.split(' ')) {
        const n = Number(id);
        if (Number.isInteger(n) && n > 0) {
          out.push(n);
          visit(n, depth + 1);
        }
      }
    }
  };
  visit(pid, 0);
  return out;
}

/** The line of a dead worker's stderr that says what happened (`FATAL ERROR: ...`, `Error: ...`), if any. */
function crashLine(text: string): string {
  const line = text.split('\n').find((l) => /^\s*(?:FATAL ERROR|#|[A-Za-z]*Error\b)/.test(l));
  return line ? `: ${line.trim().slice(0, 300)}` : '';
}

/**
 * How to start the worker module: built code runs the .js file directly; from sources (tests, tsx)
 * the worker loads tsx's loader first, resolved from here so it does not depend on the cwd.
 */
function workerCommand(entry: URL): { file: string; execArgv: string[] } {
  if (!entry.pathname.endsWith('.ts')) return { file: fileURLToPath(entry), execArgv: [] };
  const tsx = pathToFileURL(createRequire(entry).resolve('tsx/esm')).href;
  return { file: fileURLToPath(entry), execArgv: ['--import', tsx] };
}

/**
 * Fuzz workers with a watchdog. Each task runs in a worker thread started with a heap ceiling
 * (resourceLimits); a wall-clock timer per task and a sampler of the process RSS terminate the
 * worker when a task hangs or blows up, and the outcome says which (`timeout`, `memory`, `died`)
 * instead of the run getting stuck. A terminated worker is replaced before its slot takes the next
 * task; a worker that cannot even start is a harness error, not a finding.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../src/util/worker.js';
import type { FuzzTask, TargetResult } from './target.js';
import type { WorkerReply } from './worker.js';

export interface PoolOptions {
  workers: number;
  /** Wall-clock limit of one task. */
  timeoutMs: number;
  /** Old-generation heap ceiling of each worker. */
  heapMb: number;
  /** Process RSS (every worker together) above which the running tasks are stopped as blow-ups. */
  rssMb: number;
}

export type RunOutcome =
  | TargetResult
  | { status: 'timeout'; limitMs: number }
  | { status: 'memory'; detail: string }
  | { status: 'died'; detail: string };

export interface RunResult {
  outcome: RunOutcome;
  ms: number;
  heapMb?: number;
  externalMb?: number;
  /** The worker's last stderr lines while the task ran (warnings, a crash report). */
  stderr?: string;
}

interface Busy {
  id: number;
  task: FuzzTask;
  started: number;
  timer: NodeJS.Timeout;
  resolve: (r: RunResult) => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  busy?: Busy;
  stderr: string;
  /** Set once the slot's worker is being replaced: its late events are ignored. */
  dead: boolean;
}

const STDERR_KEEP = 4000;

export class FuzzPool {
  private readonly slots: Slot[] = [];
  private readonly queue: { task: FuzzTask; resolve: (r: RunResult) => void }[] = [];
  private readonly sampler: NodeJS.Timeout;
  private nextId = 1;
  private closed = false;
  private startFailures = 0;
  /** Set when workers cannot start at all (a broken build): every task then ends 'died' with it. */
  fatal: Error | undefined;
  /** Highest process RSS seen, in MB. */
  peakRssMb = 0;

  constructor(readonly options: PoolOptions) {
    for (let i = 0; i < options.workers; i++) {
      const slot = this.spawn();
      this.slots.push(slot);
      slot.ready.catch((error: Error) => this.startFailed(slot, error));
    }
    this.sampler = setInterval(() => this.sample(), 200);
    this.sampler.unref();
  }

  private spawn(): Slot {
    const worker = startWorker(import.meta.url, 'worker', {
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    let markReady!: () => void;
    let failStart!: (e: Error) => void;
    const slot: Slot = { worker, ready: new Promise<void>((res, rej) => ((markReady = res), (failStart = rej))), stderr: '', dead: false };
    let started = false;
    worker.stdout.resume();
    worker.stderr.on('data', (chunk: Buffer) => {
      slot.stderr = (slot.stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    worker.on('message', (message: WorkerReply | 'ready') => {
      if (message === 'ready') {
        started = true;
        this.startFailures = 0;
        markReady();
        return;
      }
      const busy = slot.busy;
      if (!busy || busy.id !== message.id) return;
      this.finish(slot, { outcome: message.result, ms: message.ms, heapMb: message.heapMb, externalMb: message.externalMb, ...(slot.stderr && { stderr: slot.stderr }) });
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (slot.dead) return;
      if (!started) return failStart(error);
      const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.replace(slot, memory ? { status: 'memory', detail: `worker heap past ${this.options.heapMb} MB: ${error.message}` } : { status: 'died', detail: `${error.name}: ${error.message}` });
    });
    worker.on('exit', (code) => {
      if (slot.dead || this.closed) return;
      if (!started) return failStart(new Error(`fuzz worker exited with code ${code} before it was ready`));
      this.replace(slot, { status: 'died', detail: `worker exited with code ${code}` });
    });
    return slot;
  }

  /** Ends the slot's task with `outcome` (if any), terminates its worker and puts a fresh one in its place. */
  private replace(slot: Slot, outcome: RunOutcome): void {
    if (slot.dead) return;
    slot.dead = true;
    const busy = slot.busy;
    const stderr = slot.stderr;
    slot.busy = undefined;
    if (busy) clearTimeout(busy.timer);
    void slot.worker.terminate();
    const at = this.slots.indexOf(slot);
    if (!this.closed && at >= 0) {
      const fresh = this.spawn();
      this.slots[at] = fresh;
      fresh.ready.then(
        () => this.pump(),
        (error: Error) => this.startFailed(fresh, error),
      );
    }
    busy?.resolve({ outcome, ms: performance.now() - busy.started, ...(stderr && { stderr }) });
  }

  private startFailed(slot: Slot, error: Error): void {
    slot.dead = true;
    const busy = slot.busy;
    slot.busy = undefined;
    if (busy) this.queue.unshift({ task: busy.task, resolve: busy.resolve });
    if (++this.startFailures > 3 || this.closed) {
      this.fatal = new Error(`fuzz workers fail to start: ${error.message}`);
      for (const q of this.queue.splice(0)) q.resolve({ outcome: { status: 'died', detail: this.fatal.message }, ms: 0 });
      return;
    }
    const at = this.slots.indexOf(slot);
    if (at >= 0) {
      const fresh = this.spawn();
      this.slots[at] = fresh;
      fresh.ready.then(() => this.pump(), (e: Error) => this.startFailed(fresh, e));
    }
  }

  private finish(slot: Slot, result: RunResult): void {
    const busy = slot.busy!;
    clearTimeout(busy.timer);
    slot.busy = undefined;
    slot.stderr = '';
    busy.resolve(result);
    this.pump();
  }

  private sample(): void {
    const rss = process.memoryUsage.rss() / 1048576;
    this.peakRssMb = Math.max(this.peakRssMb, rss);
    if (rss <= this.options.rssMb) return;
    const busy = this.slots.filter((s) => s.busy);
    for (const slot of busy) this.replace(slot, { status: 'memory', detail: `process RSS ${rss.toFixed(0)} MB past ${this.options.rssMb} MB while this task ran${busy.length > 1 ? ` (with ${busy.length - 1} other)` : ''}` });
  }

  run(task: FuzzTask): Promise<RunResult> {
    if (this.closed) throw new Error('the fuzz pool is closed');
    if (this.fatal) return Promise.resolve({ outcome: { status: 'died', detail: this.fatal.message }, ms: 0 });
    return new Promise((resolve) => {
      this.queue.push({ task, resolve });
      this.pump();
    });
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy || slot.dead) continue;
      const next = this.queue[0]!;
      // Claim the slot now; post once its worker is up.
      const id = this.nextId++;
      this.queue.shift();
      const busy: Busy = { id, task: next.task, started: 0, timer: undefined as unknown as NodeJS.Timeout, resolve: next.resolve };
      slot.busy = busy;
      void slot.ready.then(() => {
        if (slot.busy !== busy) return;
        busy.started = performance.now();
        busy.timer = setTimeout(() => this.replace(slot, { status: 'timeout', limitMs: this.options.timeoutMs }), this.options.timeoutMs);
        slot.worker.postMessage({ id, task: next.task });
      }, () => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sampler);
    await Promise.all(this.slots.map((s) => ((s.dead = true), s.worker.terminate())));
  }
}

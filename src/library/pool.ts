import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../util/worker.js';
import { runTask, type IngestResult, type IngestTask } from './worker.js';

/**
 * A fixed set of worker threads running ingest tasks, one task per worker at a time, so at most
 * `size` documents are in memory at once. With size 0 tasks run on the calling thread. A worker
 * that dies fails only its own task; when none are left, tasks run on the calling thread.
 */
export class TaskPool {
  private readonly idle: Worker[] = [];
  private readonly live = new Set<Worker>();
  private readonly waiting: ((w: Worker | undefined) => void)[] = [];
  private readonly current = new Map<Worker, { id: number; resolve: (r: IngestResult) => void }>();

  constructor(readonly size: number = availableParallelism()) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  private spawn(): void {
    // A young-generation cap makes V8 collect short-lived parse garbage early instead of letting each
    // worker's heap drift upward with the corpus (RSS stays flat; see bench/library.ts).
    const worker = startWorker(import.meta.url, 'worker', { resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 320 } });
    worker.on('message', (result: IngestResult) => {
      const task = this.current.get(worker);
      this.current.delete(worker);
      worker.unref();
      this.release(worker);
      task?.resolve(result);
    });
    const fail = (message: string) => {
      if (!this.live.delete(worker)) return;
      const task = this.current.get(worker);
      this.current.delete(worker);
      task?.resolve({ id: task.id, ok: false, code: 'CORRUPT', reason: `the parser crashed: ${message}` });
      const idleAt = this.idle.indexOf(worker);
      if (idleAt !== -1) this.idle.splice(idleAt, 1);
      // Nobody left to take queued tasks: run them here rather than hang.
      if (this.live.size === 0) for (const next of this.waiting.splice(0)) next(undefined);
    };
    worker.on('error', (error) => fail(error.message));
    worker.on('exit', (code) => fail(`worker exited with code ${code}`));
    worker.unref();
    this.live.add(worker);
    this.idle.push(worker);
  }

  run(task: IngestTask): Promise<IngestResult> {
    if (this.live.size === 0) return runTask(task);
    return new Promise((resolve) => {
      const start = (worker: Worker | undefined) => {
        if (!worker) return void runTask(task).then(resolve);
        this.current.set(worker, { id: task.id, resolve });
        // Busy workers keep the process alive; idle ones must not (see spawn).
        worker.ref();
        worker.postMessage(task);
      };
      const worker = this.idle.pop();
      if (worker) start(worker);
      else this.waiting.push(start);
    });
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) next(worker);
    else this.idle.push(worker);
  }

  async close(): Promise<void> {
    const workers = [...this.live];
    this.live.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

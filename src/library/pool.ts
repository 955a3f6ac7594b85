import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { runTask, type IngestResult, type IngestTask } from './worker.js';

/**
 * A fixed set of worker threads running ingest tasks, one task per worker at a time, so at most
 * `size` documents are in memory at once. With size 0 tasks run on the calling thread (used for
 * tiny batches and where workers are unwanted).
 */
export class TaskPool {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly waiting: ((w: Worker) => void)[] = [];
  private readonly pending = new Map<number, (r: IngestResult) => void>();
  private readonly taskOf = new Map<Worker, number>();

  constructor(readonly size: number = availableParallelism()) {
    const here = new URL(import.meta.url);
    const isTs = here.pathname.endsWith('.ts');
    const workerUrl = new URL(isTs ? './worker.ts' : './worker.js', here);
    for (let i = 0; i < size; i++) {
      // Running from sources (tests, tsx): the worker needs the same TypeScript loader.
      const worker = new Worker(workerUrl, isTs ? { execArgv: ['--import', 'tsx'] } : {});
      worker.on('message', (result: IngestResult) => {
        const resolve = this.pending.get(result.id);
        this.pending.delete(result.id);
        this.release(worker);
        resolve?.(result);
      });
      worker.on('error', (error) => {
        // A worker that dies (e.g. out of memory on a hostile file) fails only its own task.
        const id = this.taskOf.get(worker);
        const resolve = id === undefined ? undefined : this.pending.get(id);
        if (id !== undefined && resolve) {
          this.pending.delete(id);
          resolve({ id, ok: false, code: 'CORRUPT', reason: `the parser crashed: ${error.message}` });
        }
      });
      worker.unref();
      this.all.push(worker);
      this.idle.push(worker);
    }
  }

  run(task: IngestTask): Promise<IngestResult> {
    if (this.size === 0) return runTask(task);
    return new Promise((resolve) => {
      const start = (worker: Worker) => {
        this.pending.set(task.id, resolve);
        this.taskOf.set(worker, task.id);
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
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}

import { availableParallelism, loadavg } from 'node:os';
import { isMainThread, Worker } from 'node:worker_threads';
import type { PageRangeResult, PageRangeTask } from './page-range.js';
import { startWorker } from '../util/worker.js';

const PAGE_WORKER_MARK = 'groundwork-pdf-pages';

/**
 * Worker threads that analyse page ranges of one document in parallel, each with its own PDFium
 * (PDFium is single-threaded). Only the main thread uses them: inside a library worker (already
 * one document per core) pages are analysed in place. Idle workers do not keep the process alive.
 */

const MAX_WORKERS = 3;
let pool: PagePool | undefined;

/**
 * Extra threads for page analysis: $GROUNDWORK_PDF_WORKERS when set; otherwise one per idle core
 * beyond this one (a saturated machine gains nothing from more threads: measured slower), and 0
 * inside worker threads.
 */
export function pageWorkerCount(): number {
  if (!isMainThread) return 0;
  const forced = process.env.GROUNDWORK_PDF_WORKERS;
  if (forced !== undefined && forced !== '') return Math.min(8, Math.max(0, Number.parseInt(forced, 10) || 0));
  const idle = availableParallelism() - Math.ceil(loadavg()[0] ?? 0);
  return Math.min(MAX_WORKERS, Math.max(0, idle - 1));
}

/** The shared pool, grown to at least `size` workers. */
export function pagePool(size: number): PagePool {
  if (!pool || pool.size < size) {
    pool?.close();
    pool = new PagePool(size);
  }
  return pool;
}

export class PagePool {
  private readonly idle: Worker[] = [];
  private readonly waiting: { start: (w: Worker) => void; fail: () => void }[] = [];
  private readonly live = new Set<Worker>();
  private readonly pending = new Map<number, (r: PageRangeResult) => void>();
  private nextId = 1;

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  private spawn(): void {
    const worker = createWorker();
    worker.on('message', (result: PageRangeResult) => {
      const resolve = this.pending.get(result.id);
      this.pending.delete(result.id);
      worker.unref();
      const next = this.waiting.shift();
      if (next) next.start(worker);
      else this.idle.push(worker);
      resolve?.(result);
    });
    worker.on('error', () => this.retire(worker));
    worker.on('exit', () => this.retire(worker));
    worker.unref();
    this.live.add(worker);
    this.idle.push(worker);
  }

  private retire(worker: Worker): void {
    if (!this.live.delete(worker)) return;
    const at = this.idle.indexOf(worker);
    if (at !== -1) this.idle.splice(at, 1);
    // Tasks in flight on a dead worker fail; the caller analyses those pages itself.
    for (const [id, resolve] of this.pending) {
      if ((worker as Worker & { taskId?: number }).taskId === id) {
        this.pending.delete(id);
        resolve({ id, ok: false, message: 'page worker exited' });
      }
    }
    if (this.live.size === 0) for (const next of this.waiting.splice(0)) next.fail();
  }

  /** Stops the workers (idle ones at once; busy ones finish their range first and fail over). */
  close(): void {
    for (const worker of this.live) void worker.terminate();
  }

  run(task: Omit<PageRangeTask, 'id'>): Promise<PageRangeResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (this.live.size === 0) return resolve({ id, ok: false, message: 'no page workers' });
      this.pending.set(id, resolve);
      const start = (worker: Worker): void => {
        (worker as Worker & { taskId?: number }).taskId = id;
        worker.ref();
        worker.postMessage({ ...task, id });
      };
      const worker = this.idle.pop();
      if (worker) start(worker);
      else
        this.waiting.push({
          start,
          fail: () => {
            this.pending.delete(id);
            resolve({ id, ok: false, message: 'no page workers' });
          },
        });
    });
  }
}

function createWorker(): Worker {
  return startWorker(import.meta.url, 'page-worker', { workerData: PAGE_WORKER_MARK });
}

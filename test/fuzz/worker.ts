/**
 * The fuzz worker thread: runs each task it is sent through the target (target.ts) and answers
 * with the result, the time it took and its heap afterwards. The pool (pool.ts) watches it from
 * outside: a task that runs too long, or a heap or process RSS past its ceiling, gets the worker
 * terminated, which is the only thing that stops a synchronous loop.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { runTarget, type FuzzTask } from './target.js';

export interface WorkerRequest {
  id: number;
  task: FuzzTask;
}

export interface WorkerReply {
  id: number;
  result: Awaited<ReturnType<typeof runTarget>>;
  ms: number;
  heapMb: number;
  externalMb: number;
}

parentPort!.on('message', (request: WorkerRequest) => {
  const t0 = performance.now();
  void runTarget(request.task).then((result) => {
    const heap = getHeapStatistics();
    const reply: WorkerReply = { id: request.id, result, ms: performance.now() - t0, heapMb: heap.used_heap_size / 1048576, externalMb: heap.external_memory / 1048576 };
    parentPort!.postMessage(reply);
  });
});
parentPort!.postMessage('ready');

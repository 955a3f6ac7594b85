import type { LimitInfo } from '../errors.js';
import { isGroundworkError } from '../errors.js';
import { engineLimitError } from '../limits.js';

/**
 * The child-process side of `ProcessPool` (src/library/process-pool.ts): receives one task at a
 * time over IPC, runs the handler, answers with its result or its error (code, message, limit).
 * The handler may ask the parent for something and wait for the answer (`ctx.ask`), e.g. its turn
 * to write. When the parent goes away (closed, crashed, killed) the channel closes and this
 * process exits, so a worker never outlives its pool.
 */

export interface TaskContext {
  /** Asks the parent's `onAsk(what, payload)` and resolves with its answer. */
  ask(what: string, payload?: unknown): Promise<unknown>;
  /**
   * Sends one piece of the task's result ahead of it; the parent hands the pieces, in order, to
   * whoever ran the task (its `onPart` as each arrives, else `PoolOutcomeOk.parts`). Resolves once
   * the parent has taken the piece (its `onPart` done), so a sender that awaits each piece holds
   * at most one serialized piece at a time and never outruns the receiver: a big result crosses in
   * pieces instead of one message that both sides would hold whole (twice, on the receiving side,
   * while it is reassembled), and a receiver that writes each piece away holds one at a time.
   */
  part(value: unknown): Promise<void>;
}

export type TaskHandler<T, R> = (task: T, ctx: TaskContext) => Promise<R>;

/** What a task failed with, as it crosses the process boundary. */
export interface TaskFailure {
  code: string;
  message: string;
  limit?: LimitInfo;
}

export type ParentMessage<T> = { type: 'task'; id: number; task: T } | { type: 'answer'; askId: number; value?: unknown; error?: string };

export type ChildMessage<R> =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: R }
  | { type: 'part'; id: number; part: unknown; askId: number }
  | { type: 'failure'; id: number; failure: TaskFailure }
  | { type: 'ask'; id: number; askId: number; what: string; payload?: unknown };

/** The failure a task's error becomes: its own code, an engine limit, or (anything else) a fault of the file. */
export function toFailure(error: unknown): TaskFailure {
  if (isGroundworkError(error)) return { code: error.code, message: error.message, ...(error.limit && { limit: error.limit }) };
  const limit = engineLimitError(error);
  if (limit) return { code: limit.code, message: limit.message, ...(limit.limit && { limit: limit.limit }) };
  return { code: 'CORRUPT', message: (error as Error)?.message ?? String(error) };
}

/**
 * Serves tasks over this process's IPC channel. `warmUp` runs before the worker says it is ready:
 * what every task would load on first use (a tokenizer's vocabulary, a dictionary) is loaded there,
 * so the first file is not charged for it against its time limit. A failed warm-up is ignored (the
 * task then loads it and reports what fails). `afterTask` runs once a task's answer is written (the
 * ingest worker collects its garbage there, so an idle worker does not sit on a big file's memory).
 */
export function serveTasks<T, R>(handler: TaskHandler<T, R>, options: { warmUp?: () => Promise<void> | void; afterTask?: () => void } = {}): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('serveTasks: this process was not started with an IPC channel (ProcessPool forks it)');
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextAsk = 0;
  process.on('disconnect', () => process.exit(0));
  // Ctrl-C in a terminal reaches the whole process group: the parent decides (it stops the batch
  // and kills busy workers), so a worker is never taken for crashed on a parse it was told to drop.
  process.on('SIGINT', () => undefined);
  process.on('message', (message: ParentMessage<T>) => {
    if (message.type === 'answer') {
      const waiting = pending.get(message.askId);
      pending.delete(message.askId);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.value);
      return;
    }
    const { id, task } = message;
    const ctx: TaskContext = {
      ask: (what, payload) =>
        new Promise((resolve, reject) => {
          const askId = nextAsk++;
          pending.set(askId, { resolve, reject });
          send({ type: 'ask', id, askId, what, payload } satisfies ChildMessage<R>);
        }),
      part: (value) =>
        new Promise((resolve, reject) => {
          // Answered like an ask, once the parent has taken the piece.
          const askId = nextAsk++;
          pending.set(askId, { resolve: () => resolve(), reject });
          send({ type: 'part', id, part: value, askId } satisfies ChildMessage<R>, undefined, undefined, (error: Error | null) => {
            if (!error) return;
            pending.delete(askId);
            reject(error);
          });
        }),
    };
    const after = () => options.afterTask?.();
    handler(task, ctx).then(
      (result) => send({ type: 'result', id, result } satisfies ChildMessage<R>, undefined, undefined, after),
      (error: unknown) => send({ type: 'failure', id, failure: toFailure(error) } satisfies ChildMessage<R>, undefined, undefined, after),
    );
  });
  void Promise.resolve()
    .then(() => options.warmUp?.())
    .catch(() => undefined)
    .then(() => send({ type: 'ready' } satisfies ChildMessage<R>));
}

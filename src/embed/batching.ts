/** Batching and bounded concurrency for the embedders: pure planning, plus one small task runner. */

export interface BatchLimits {
  /** Most texts in one request. */
  maxTexts: number;
  /** Most tokens (summed over the texts) in one request; a single text over it goes alone. */
  maxTokens: number;
}

/** A batch: texts `[start, end)` of the call's list, and their summed tokens. */
export interface Batch {
  start: number;
  end: number;
  tokens: number;
}

/**
 * Cuts `tokens.length` texts, in order, into consecutive batches of at most `maxTexts` texts and
 * `maxTokens` tokens. Greedy, so every batch but the last is as full as the limits allow; a text
 * with more than `maxTokens` tokens on its own makes a batch of one. Covers every index once.
 */
export function planBatches(tokens: readonly number[], limits: BatchLimits): Batch[] {
  const batches: Batch[] = [];
  let start = 0;
  let sum = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (i > start && (i - start >= limits.maxTexts || sum + t > limits.maxTokens)) {
      batches.push({ start, end: i, tokens: sum });
      start = i;
      sum = 0;
    }
    sum += t;
  }
  if (start < tokens.length) batches.push({ start, end: tokens.length, tokens: sum });
  return batches;
}

/**
 * Runs `tasks` with at most `limit` in flight, answering their results in task order. The first
 * failure stops new tasks from starting, aborts `controller` (so requests in flight are cancelled)
 * and is the rejection; a caller's abort rejects with its reason.
 */
export async function runLimited<T>(tasks: readonly ((signal: AbortSignal) => Promise<T>)[], limit: number, outer?: AbortSignal): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  if (tasks.length === 0) return results;
  const controller = new AbortController();
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < tasks.length) {
      if (outer?.aborted) {
        failure ??= { error: outer.reason };
        break;
      }
      const i = next++;
      try {
        results[i] = await tasks[i]!(signal);
      } catch (error) {
        if (failure === undefined) {
          // The caller's abort wins over the errors it causes in the other tasks.
          failure = { error: outer?.aborted ? outer.reason : error };
          controller.abort(error);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}

/**
 * At most `size` holders at once, across every call that shares it (an embedder's requests, from
 * however many concurrent `embed` calls). Waiters are served in arrival order; an abort while
 * waiting rejects with the signal's reason.
 */
export class Semaphore {
  #free: number;
  readonly #waiting: { grant: () => void; signal: AbortSignal | undefined; onAbort: () => void }[] = [];

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = {
        signal,
        grant: () => {
          signal?.removeEventListener('abort', waiter.onAbort);
          resolve();
        },
        onAbort: () => {
          const at = this.#waiting.indexOf(waiter);
          if (at >= 0) this.#waiting.splice(at, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next.grant();
    else this.#free++;
  }

  /** Runs `fn` holding one place. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}

import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { ERROR_CODES, GroundworkError, isGroundworkError, type ErrorCode } from '../errors.js';
import type { RetrievalOptionsInput } from '../retrieval/options.js';
import type { RetrievalResult } from '../retrieval/pipeline.js';
import type { PassageReranker } from '../retrieval/types.js';
import { retrievalResultJson } from '../retrieval/wire.js';
import type { StoreSpec } from '../store/types.js';
import { startWorker } from '../util/worker.js';
import type { Library, LibrarySearchContext, QueryEmbedding } from './library.js';

/**
 * Searches on more than one thread. A synchronous store (SQLite: better-sqlite3 answers on the
 * thread that asks) makes every search wait for the ones before it; the pool opens the same store
 * read-only in each of `size` worker threads (WAL: readers read their own snapshot per statement
 * and never wait for the writer, so what the server's ingest jobs and deletes commit is seen by the
 * next search) and sends each search to the least busy one.
 *
 * Query embedding and reranking stay on the main thread: the worker asks for a query's vector and
 * for rerank scores by message, and the main thread answers with the library's embedder (the one
 * `useEmbedder` chose, or the one its settings and the environment configure) and the search's
 * reranker. So keys and model sessions never leave the main thread, and a local model is loaded
 * once, not once per worker.
 *
 * Stores the pool does not take (searched in process, `SearchPool.for` gives an in-process
 * searcher): one without a spec (in memory) and one that answers many at once by itself
 * (`capabilities.concurrentWriters`: Postgres, a connection pool).
 */
export interface Searcher {
  /** Worker threads searching (0: searches run in this thread). */
  readonly size: number;
  search(query: string, options?: RetrievalOptionsInput, context?: LibrarySearchContext): Promise<RetrievalResult>;
  /**
   * The same search as the JSON text of `retrievalResultJson(result)` (the HTTP API's response),
   * serialised where it ran: a worker sends a string, not an object graph to copy and serialise again.
   */
  searchJson(query: string, options?: RetrievalOptionsInput, context?: LibrarySearchContext): Promise<string>;
  /** Lets the searches under way finish, then stops the threads (they exit; the process may then too). */
  close(): Promise<void>;
}

/** The default pool size: one worker per core. */
export function defaultSearchWorkers(): number {
  return availableParallelism();
}

/** What the main thread sends a worker. */
export type PoolRequest =
  | { type: 'search'; id: number; query: string; options: RetrievalOptionsInput; json: boolean; embedding: { model: string; dimensions: number } | null | undefined; reranker: { name?: string; model?: string } | undefined }
  | { type: 'answer'; call: number; value?: unknown; error?: WireError }
  | { type: 'close' };

/** What a worker sends back. */
export type PoolReply =
  | { type: 'ready' }
  | { type: 'failed'; error: WireError }
  | { type: 'result'; id: number; result: RetrievalResult }
  | { type: 'json'; id: number; json: string }
  | { type: 'error'; id: number; error: WireError }
  | { type: 'embed'; id: number; call: number; query: string }
  | { type: 'rerank'; id: number; call: number; query: string; passages: string[] };

export interface WireError {
  code?: ErrorCode;
  message: string;
  file?: string;
  limit?: GroundworkError['limit'];
}

/** What a worker is started with (`workerData`): where the library is and how to open its store. */
export interface SearchWorkerData {
  dir: string;
  spec: StoreSpec;
}

export function toWireError(error: unknown): WireError {
  if (isGroundworkError(error)) return { code: error.code, message: error.message, ...(error.file !== undefined && { file: error.file }), ...(error.limit && { limit: error.limit }) };
  return { message: error instanceof Error ? error.message : String(error) };
}

export function fromWireError(wire: WireError): Error {
  if (wire.code && (ERROR_CODES as readonly string[]).includes(wire.code)) {
    return new GroundworkError(wire.code, wire.message, { ...(wire.file !== undefined && { file: wire.file }), ...(wire.limit && { limit: wire.limit }) });
  }
  return new Error(wire.message);
}

/** Searches in this thread: `library.search` itself (pool size 0, or a store the pool does not take). */
class InProcessSearcher implements Searcher {
  readonly size = 0;
  constructor(private readonly library: Library) {}
  search(query: string, options: RetrievalOptionsInput = {}, context: LibrarySearchContext = {}): Promise<RetrievalResult> {
    return this.library.search(query, options, context);
  }
  async searchJson(query: string, options: RetrievalOptionsInput = {}, context: LibrarySearchContext = {}): Promise<string> {
    return JSON.stringify(retrievalResultJson(await this.library.search(query, options, context)));
  }
  async close(): Promise<void> {}
}

interface Pending {
  /** With the result, or its JSON text for a `searchJson`. */
  resolve(result: RetrievalResult | string): void;
  reject(error: Error): void;
  context: LibrarySearchContext;
  embedding: QueryEmbedding | undefined;
  reranker: PassageReranker | undefined;
}

interface Slot {
  worker: Worker;
  /** Its searches, by id. */
  pending: Map<number, Pending>;
  /** Of those, the ones waiting for this thread (a query vector, rerank scores). */
  waiting: number;
}

export class SearchPool implements Searcher {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  /** Searches sent and not yet answered (close waits for them). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Searches no worker has taken yet, oldest first. */
  private readonly queue: { request: PoolRequest & { type: 'search' }; pending: Pending }[] = [];
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly library: Library,
    private readonly data: SearchWorkerData,
  ) {}

  get size(): number {
    return this.slots.length;
  }

  /**
   * A searcher for `library` with `size` worker threads (default: one per core); in process when
   * `size` is 0 or the store is one the pool does not take (no spec; answers many at once itself).
   * Resolves once every worker has opened the store (a worker that cannot: that error).
   */
  static async for(library: Library, size: number = defaultSearchWorkers()): Promise<Searcher> {
    const spec = library.storeSpec;
    if (size <= 0 || !spec || library.storeCapabilities.concurrentWriters) return new InProcessSearcher(library);
    // The workers live as long as the pool: each ranks BM25 from postings it holds in memory
    // (SQLite; FTS5 until they are built and whenever the library changed since).
    const workerSpec = spec.kind === 'sqlite' && !('memoryIndex' in spec) ? { ...spec, readonly: true, memoryIndex: true } : { ...spec, readonly: true };
    const pool = new SearchPool(library, { dir: library.dir, spec: workerSpec });
    try {
      await Promise.all(Array.from({ length: size }, () => pool.start()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  private start(): Promise<void> {
    const worker = startWorker(import.meta.url, 'search-worker', { workerData: this.data, env: workerEnv() });
    const slot: Slot = { worker, pending: new Map(), waiting: 0 };
    this.slots.push(slot);
    return new Promise((resolve, reject) => {
      let started = false;
      worker.on('message', (message: PoolReply) => {
        if (message.type === 'ready') {
          started = true;
          resolve();
          this.pump();
        } else if (message.type === 'failed') reject(fromWireError(message.error));
        else this.onReply(slot, message);
      });
      worker.on('error', (error) => {
        if (!started) reject(error);
        this.lost(slot, error);
      });
      worker.on('exit', (code) => {
        if (!started) reject(new GroundworkError('CRASHED', `a search worker exited (${code}) before it opened the library`, { file: this.data.dir }));
        this.lost(slot, new GroundworkError('CRASHED', `the search worker exited (${code}) during the search`));
      });
    });
  }

  /** A worker that died: its searches fail, and (unless closing) another takes its place. */
  private lost(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    for (const pending of slot.pending.values()) pending.reject(isGroundworkError(error) ? error : new GroundworkError('CRASHED', `the search worker failed: ${error.message}`));
    slot.pending.clear();
    void slot.worker.terminate();
    if (!this.closing) {
      this.start().catch((failure: Error) => {
        // No worker left to take the queue: it fails too.
        if (this.slots.length === 0) for (const job of this.queue.splice(0)) job.pending.reject(failure);
      });
    }
  }

  /**
   * Hands queued searches to workers with nothing to do. A worker takes one search at a time (two
   * interleaved would both finish late: first come, first answered keeps the tail short), and
   * another while its searches wait for this thread (an embedder or reranker call).
   */
  private pump(): void {
    while (this.queue.length > 0) {
      let free: Slot | undefined;
      for (const slot of this.slots) if (slot.pending.size - slot.waiting === 0 && (!free || slot.pending.size < free.pending.size)) free = slot;
      if (!free) return;
      const { request, pending } = this.queue.shift()!;
      free.pending.set(request.id, pending);
      free.worker.postMessage(request);
    }
  }

  search(query: string, options: RetrievalOptionsInput = {}, context: LibrarySearchContext = {}): Promise<RetrievalResult> {
    return this.send(query, options, context, false) as Promise<RetrievalResult>;
  }

  searchJson(query: string, options: RetrievalOptionsInput = {}, context: LibrarySearchContext = {}): Promise<string> {
    return this.send(query, options, context, true) as Promise<string>;
  }

  private async send(query: string, options: RetrievalOptionsInput, context: LibrarySearchContext, json: boolean): Promise<RetrievalResult | string> {
    if (this.closing || this.slots.length === 0) throw new GroundworkError('IO', 'the search pool is closed');
    // What only this thread has: the embedder (and its key) and the reranker. The same checks and
    // errors as `library.search`, before the worker runs the pipeline.
    const embedding = options.mode !== 'bm25' ? await this.library.queryEmbedding(options.mode !== undefined, context.signal) : undefined;
    const reranker = options.rerank ? await this.library.searchReranker(context.reranker) : undefined;
    const id = this.nextId++;
    const request: PoolRequest & { type: 'search' } = {
      type: 'search', id, query, options, json,
      embedding: options.mode === 'bm25' ? undefined : embedding ? { model: embedding.model, dimensions: embedding.dimensions } : null,
      reranker: reranker && { ...(reranker.name !== undefined && { name: reranker.name }), ...(reranker.model !== undefined && { model: reranker.model }) },
    };
    const answer = new Promise<RetrievalResult | string>((resolve, reject) => {
      this.queue.push({ request, pending: { resolve, reject, context, embedding, reranker } });
      this.pump();
    });
    const settled = answer.catch(() => undefined).finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
    return answer;
  }

  private onReply(slot: Slot, message: PoolReply): void {
    if (message.type === 'ready' || message.type === 'failed') return;
    const pending = slot.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'result' || message.type === 'json' || message.type === 'error') {
      slot.pending.delete(message.id);
      if (message.type === 'result') pending.resolve(message.result);
      else if (message.type === 'json') pending.resolve(message.json);
      else pending.reject(fromWireError(message.error));
      this.pump();
    } else {
      slot.waiting++;
      this.pump();
      const reply = (answer: PoolRequest) => {
        slot.waiting--;
        slot.worker.postMessage(answer);
      };
      const answer = (value: unknown) => reply({ type: 'answer', call: message.call, value });
      const fail = (error: unknown) => reply({ type: 'answer', call: message.call, error: toWireError(error) });
      if (message.type === 'embed') {
        if (!pending.embedding) return fail(new GroundworkError('EMBEDDER', 'no embedder for this search'));
        pending.embedding.embed(message.query).then(answer, fail);
      } else {
        if (!pending.reranker) return fail(new GroundworkError('INVALID_OPTIONS', 'no reranker for this search'));
        pending.reranker.rerank(message.query, message.passages).then(answer, fail);
      }
    }
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      // Searches under way finish first (the server stops taking requests before it closes the pool).
      await Promise.all([...this.inFlight]);
      const slots = this.slots.splice(0);
      await Promise.all(slots.map((slot) => new Promise<void>((resolve) => {
        slot.worker.removeAllListeners('exit');
        slot.worker.once('exit', () => resolve());
        slot.worker.postMessage({ type: 'close' } satisfies PoolRequest);
      })));
    })());
  }
}

/**
 * The environment a search worker gets: the parent's without the embedding and rerank settings
 * and keys (the main thread embeds and reranks for it, so no key crosses into a worker).
 */
function workerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^GROUNDWORK_(EMBEDDINGS|RERANK)_/.test(name) || /KEY|TOKEN|SECRET|PASSWORD/i.test(name)) continue;
    env[name] = value;
  }
  return env;
}

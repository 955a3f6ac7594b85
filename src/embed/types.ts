/**
 * The embedding stage's contracts: what an embedder is, what it is given, how providers register.
 * Everything here is the public API (re-exported from src/index.ts).
 */

/** Per-call options of `Embedder.embed` and the reranker. */
export interface EmbedCallOptions {
  /** Aborts the call: requests in flight are cancelled and the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Turns texts into vectors. Providers: `openai` (any OpenAI-compatible `/v1/embeddings` endpoint),
 * `onnx` (a local model folder), or one an application registers with `registerEmbedder`.
 *
 * Contract every provider keeps (and the built-ins test):
 * - `embed(texts)` answers one vector per text, in the order given, each of `dimensions` numbers,
 *   all finite; an answer that breaks this is an `EMBEDDER` error, never a short or reordered list.
 * - A text longer than `maxInputTokens` (as `countTokens` counts it) is refused with
 *   `LIMIT_EXCEEDED` before anything is sent: nothing is ever truncated silently. Split long
 *   texts first (`embedDocuments` does, see src/embed/documents.ts).
 * - `embed([])` answers `[]` without a request.
 */
export interface Embedder {
  /** The registry kind that made it (`openai`, `onnx`, or an application's). */
  readonly provider: string;
  /** The model name as the provider knows it (endpoint model id, or the local folder's name). */
  readonly model: string;
  /**
   * Length of every vector: from the configuration, else learned from the first answer (`onnx`
   * knows it once loaded). Every later answer is checked against it. `undefined` until known.
   */
  readonly dimensions: number | undefined;
  /** Longest input, in tokens as `countTokens` counts them (`Infinity` when the provider has no limit). */
  readonly maxInputTokens: number;
  /**
   * The key vectors are stored under: everything that changes the vectors (provider, model,
   * dimensions, and for `onnx` the pooling and normalisation), e.g. `openai:bge-m3:1024`.
   * `undefined` until `dimensions` is known (see `ensureDimensions`).
   */
  readonly id: string | undefined;
  /** Prepended to document texts by `contextualize` when the caller passes it on (e.g. `search_document: `). */
  readonly documentPrefix?: string;
  /** Prepended to queries by `embedQuery` (e.g. `search_query: `, or an instruction for instruct models). */
  readonly queryPrefix?: string;
  /** Tokens in `text` as the input limit counts them (the model's own tokenizer, or the configured BPE). */
  countTokens(text: string): number;
  embed(texts: readonly string[], options?: EmbedCallOptions): Promise<Float32Array[]>;
  /** Releases connections or the model session. Safe to call twice. */
  close(): Promise<void>;
}

/** What a provider's factory is given besides its (storable) settings. */
export interface EmbedderContext {
  /** The API key (endpoint providers): from `GROUNDWORK_EMBEDDINGS_KEY` or the caller, never from stored settings. */
  key?: string;
  /** Told before each retry (rate limits, server errors, time-outs), e.g. to show "retrying in 2 s". */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** Why: `HTTP 429`, `timeout`, `ECONNRESET`... */
  reason: string;
  /** True when `delayMs` came from the server's Retry-After (or retry-after-ms) header. */
  retryAfter: boolean;
}

/**
 * Makes an embedder from validated settings. May be async (a local model loads before it answers).
 * `settings` are what `EmbedderDefinition.settings` parsed: plain JSON, safe to store.
 */
export type EmbedderFactory<S = Record<string, unknown>> = (settings: S, context: EmbedderContext) => Embedder | Promise<Embedder>;

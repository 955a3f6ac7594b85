/**
 * The `openai` provider: any endpoint that speaks OpenAI's embeddings protocol (`POST
 * {base}/embeddings` with `{model, input: string[]}` -> `{data: [{index, embedding}]}`): OpenAI,
 * Ollama, vLLM, Hugging Face TEI, LM Studio, llama.cpp's server, LocalAI...
 *
 * Texts are counted with a Groundwork BPE tokenizer (exact for OpenAI's models with cl100k_base,
 * for Qwen's with qwen; a close proxy for the rest), batched by count and by token budget, sent
 * with bounded concurrency, retried on 429/5xx/time-outs (src/embed/http.ts), and checked: one
 * vector per text, placed by `index`, every one of the same, expected length, all numbers finite.
 */
import { inspect } from 'node:util';
import { z } from 'zod';
import { GroundworkError } from '../errors.js';
import { getTokenizer } from '../tokens/index.js';
import type { Tokenizer } from '../tokens/types.js';
import { planBatches, runLimited, Semaphore } from './batching.js';
import { badAnswer, EmbedderError, ownMessage } from './errors.js';
import { parseSettings } from './issues.js';
import { endpointFor, postJson, type HttpEndpoint, type RetryPolicy } from './http.js';
import type { EmbedCallOptions, Embedder, EmbedderContext } from './types.js';
import { decodeVector } from './vectors.js';

const TOKENIZER_NAMES = ['cl100k_base', 'o200k_base', 'qwen'] as const;

/** An http(s) URL. */
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

/** Prefixes some models want before documents and queries (nomic: `search_document: `, e5: `passage: `). */
export const prefixSettings = {
  documentPrefix: z.string().max(1000).optional().describe('text put before every document text, e.g. "search_document: " (nomic) or "passage: " (e5)'),
  queryPrefix: z.string().max(1000).optional().describe('text put before every query, e.g. "search_query: " (nomic) or "query: " (e5)'),
};

/** Retry and time-out settings shared by the endpoint embedder and the reranker. */
export const httpSettings = {
  timeoutMs: z.int().min(1).max(3_600_000).optional().describe('time allowed for one request, in milliseconds (default 60000)'),
  maxRetries: z.int().min(0).max(20).optional().describe('retries on 429, 5xx, time-outs and dropped connections (default 4)'),
  retryBaseMs: z.int().min(0).max(60_000).optional().describe('first backoff delay in milliseconds, doubled per retry, jittered (default 500)'),
  maxRetryDelayMs: z.int().min(0).max(600_000).optional().describe('longest wait between attempts; a Retry-After asking for more fails at once (default 60000)'),
};

/**
 * What `openai` settings may hold: all plain JSON and safe to store (the key is not among them).
 * Unset fields take the defaults in `OPENAI_DEFAULTS`.
 */
export const openAiSettingsSchema = z.strictObject({
  provider: z.literal('openai'),
  url: httpUrl.describe('the endpoint: a base URL (http://localhost:11434, http://host:8080/v1) or the full .../embeddings URL'),
  model: z.string().trim().min(1).max(500).describe('the model name the endpoint serves (sent as "model")'),
  dimensions: z.int().min(1).max(65_536).optional().describe('expected vector length; every answer is checked (default: learned from the first answer)'),
  sendDimensions: z.boolean().optional().describe('also send "dimensions" in the request (OpenAI text-embedding-3 shortening, vLLM Matryoshka models)'),
  maxInputTokens: z.int().min(1).max(10_000_000).optional().describe('longest input in tokens; longer texts are split, never truncated (default 512)'),
  tokenizer: z.enum(TOKENIZER_NAMES).optional().describe('how inputs are counted: cl100k_base (OpenAI), o200k_base, qwen (default cl100k_base)'),
  batchSize: z.int().min(1).max(2048).optional().describe('most texts per request (default 32, the TEI server limit)'),
  maxBatchTokens: z.int().min(1).max(10_000_000).optional().describe('most tokens per request (default 16384)'),
  concurrency: z.int().min(1).max(64).optional().describe('requests in flight at once, across concurrent calls (default 2)'),
  encodingFormat: z.enum(['float', 'base64']).optional().describe('ask for "float" arrays or "base64" float32 (smaller, faster to parse; default float)'),
  ...httpSettings,
  ...prefixSettings,
});

export type OpenAiSettings = z.infer<typeof openAiSettingsSchema>;

export const OPENAI_DEFAULTS = {
  maxInputTokens: 512,
  tokenizer: 'cl100k_base',
  batchSize: 32,
  maxBatchTokens: 16_384,
  concurrency: 2,
  encodingFormat: 'float',
  sendDimensions: false,
  timeoutMs: 60_000,
  maxRetries: 4,
  retryBaseMs: 500,
  maxRetryDelayMs: 60_000,
} as const satisfies Partial<OpenAiSettings>;

/**
 * The URL requests go to: a URL whose path ends in `/embeddings` is used as given; a bare host
 * (`http://localhost:11434`) gets `/v1/embeddings`; any other path is a base URL that gets
 * `/embeddings` (`http://host:8080/v1` -> `/v1/embeddings`, as the OpenAI SDKs join `baseURL`).
 */
export function embeddingsUrl(base: string): string {
  const u = new URL(base);
  const path = u.pathname.replace(/\/+$/, '');
  if (path.endsWith('/embeddings')) u.pathname = path;
  else if (path === '') u.pathname = '/v1/embeddings';
  else u.pathname = `${path}/embeddings`;
  return u.toString();
}

/** Counters of one embedder's work, for reports and benchmarks. */
export interface EndpointStats {
  /** Calls to `embed`. */
  calls: number;
  texts: number;
  /** Tokens sent, as `countTokens` counts them. */
  tokens: number;
  /** HTTP requests made (retries and split batches included). */
  requests: number;
  retries: number;
}

export class OpenAiEmbedder implements Embedder {
  readonly provider = 'openai';
  readonly model: string;
  readonly maxInputTokens: number;
  readonly documentPrefix?: string;
  readonly queryPrefix?: string;
  readonly endpoint: string;
  readonly stats: EndpointStats = { calls: 0, texts: 0, tokens: 0, requests: 0, retries: 0 };
  readonly #http: HttpEndpoint;
  readonly #policy: RetryPolicy;
  readonly #config: Required<Omit<OpenAiSettings, 'dimensions' | 'documentPrefix' | 'queryPrefix'>>;
  readonly #tokenizer: Tokenizer;
  readonly #context: EmbedderContext;
  /** Requests in flight for this embedder, across concurrent `embed` calls. */
  readonly #slots: Semaphore;
  #dimensions: number | undefined;
  readonly #dimensionsConfigured: boolean;

  constructor(input: OpenAiSettings, context: EmbedderContext = {}) {
    const settings = parseSettings(openAiSettingsSchema, input, 'openai embedder settings');
    const config = { ...OPENAI_DEFAULTS, ...stripUndefined(settings) };
    this.#config = config;
    this.model = config.model;
    this.maxInputTokens = config.maxInputTokens;
    if (settings.documentPrefix !== undefined) this.documentPrefix = settings.documentPrefix;
    if (settings.queryPrefix !== undefined) this.queryPrefix = settings.queryPrefix;
    this.#dimensions = settings.dimensions;
    this.#dimensionsConfigured = settings.dimensions !== undefined;
    this.#tokenizer = getTokenizer(config.tokenizer);
    this.#context = context;
    this.#http = endpointFor(embeddingsUrl(config.url), context.key?.trim(), { name: 'timeoutMs', flag: '--embed-timeout' });
    this.endpoint = this.#http.display;
    this.#slots = new Semaphore(config.concurrency);
    this.#policy = { timeoutMs: config.timeoutMs, maxRetries: config.maxRetries, retryBaseMs: config.retryBaseMs, maxRetryDelayMs: config.maxRetryDelayMs };
  }

  get dimensions(): number | undefined {
    return this.#dimensions;
  }

  get id(): string | undefined {
    return this.#dimensions === undefined ? undefined : `openai:${this.model}:${this.#dimensions}`;
  }

  countTokens(text: string): number {
    return this.#tokenizer.count(text);
  }

  async embed(texts: readonly string[], options: EmbedCallOptions = {}): Promise<Float32Array[]> {
    const tokens = checkInputs(texts, this);
    this.stats.calls++;
    if (texts.length === 0) return [];
    this.stats.texts += texts.length;
    this.stats.tokens += tokens.reduce((a, b) => a + b, 0);
    const batches = planBatches(tokens, { maxTexts: this.#config.batchSize, maxTokens: this.#config.maxBatchTokens });
    const parts = await runLimited(
      batches.map((b) => (signal: AbortSignal) => this.#request(texts.slice(b.start, b.end), signal)),
      this.#config.concurrency,
      options.signal,
    );
    return parts.flat();
  }

  async close(): Promise<void> {
    // fetch keeps no per-embedder state: idle keep-alive sockets close on their own.
  }

  /** One batch; a 413 (payload too large) splits it in two and tries each half. */
  async #request(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    const body: Record<string, unknown> = { model: this.model, input: texts, encoding_format: this.#config.encodingFormat };
    if (this.#config.sendDimensions && this.#dimensions !== undefined) body.dimensions = this.#dimensions;
    let json: unknown;
    try {
      json = await this.#slots.run(
        () =>
          postJson(this.#http, body, this.#policy, {
            signal,
            onAttempt: () => this.stats.requests++,
            onRetry: (event) => {
              this.stats.retries++;
              this.#context.onRetry?.(event);
            },
          }),
        signal,
      );
    } catch (error) {
      if (error instanceof EmbedderError && error.status === 413) {
        if (texts.length > 1) {
          const half = Math.ceil(texts.length / 2);
          return [...(await this.#request(texts.slice(0, half), signal)), ...(await this.#request(texts.slice(half), signal))];
        }
        throw new EmbedderError('EMBEDDER', `${ownMessage(error)}; the endpoint refuses even one text of ${this.countTokens(texts[0]!)} tokens: lower the input limit (--embed-max-tokens, now ${this.maxInputTokens})`, {
          endpoint: this.endpoint,
          status: 413,
          attempts: error.attempts,
          ...(error.endpointMessage !== undefined && { endpointMessage: error.endpointMessage }),
        });
      }
      throw error;
    }
    return this.#vectors(json, texts.length);
  }

  /** The answer's vectors in input order, each checked. */
  #vectors(json: unknown, n: number): Float32Array[] {
    const data = json && typeof json === 'object' ? (json as { data?: unknown }).data : undefined;
    if (!Array.isArray(data)) throw badAnswer(this.endpoint, 'no "data" array');
    if (data.length !== n) throw badAnswer(this.endpoint, `${data.length} embeddings for ${n} texts`);
    const out = new Array<Float32Array>(n);
    for (let pos = 0; pos < n; pos++) {
      const item = data[pos] as { index?: unknown; embedding?: unknown } | null;
      const index = item?.index ?? pos;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= n || out[index] !== undefined) {
        throw badAnswer(this.endpoint, `embedding ${pos} has index ${JSON.stringify(index)}: indexes must be 0..${n - 1}, each once`);
      }
      const vector = decodeVector(item?.embedding);
      if (!vector) throw badAnswer(this.endpoint, `embedding ${index} is not a vector of finite numbers (an array, or base64 float32)`);
      out[index] = this.#checkDimensions(vector);
    }
    return out;
  }

  #checkDimensions(vector: Float32Array): Float32Array {
    if (this.#dimensions === undefined) {
      if (vector.length === 0) throw badAnswer(this.endpoint, 'an empty vector');
      this.#dimensions = vector.length;
    } else if (vector.length !== this.#dimensions) {
      const expected = this.#dimensionsConfigured ? 'the configured dimensions (--embed-dimensions)' : 'its earlier answers';
      throw new EmbedderError('EMBEDDER', `the endpoint answered a ${vector.length}-dimensional vector, but ${expected} had ${this.#dimensions} for model '${this.model}': a different model answers at this URL, or the setting is wrong`, { endpoint: this.endpoint });
    }
    return vector;
  }

  toString(): string {
    return `OpenAiEmbedder(${this.endpoint}, model ${this.model})`;
  }

  toJSON(): Record<string, unknown> {
    return { provider: this.provider, model: this.model, endpoint: this.endpoint, dimensions: this.#dimensions, maxInputTokens: this.maxInputTokens };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/**
 * Checks a call's texts (non-empty strings, none over the input limit) and answers their token
 * counts. Shared by the providers so every one refuses the same way.
 */
export function checkInputs(texts: readonly string[], embedder: Pick<Embedder, 'countTokens' | 'maxInputTokens'>): number[] {
  if (!Array.isArray(texts)) throw new GroundworkError('INVALID_OPTIONS', 'embed: texts must be an array of strings');
  return texts.map((text, i) => {
    if (typeof text !== 'string' || text === '') throw new GroundworkError('INVALID_OPTIONS', `embed: text ${i} is ${typeof text === 'string' ? 'empty' : `a ${typeof text}, not a string`}`);
    const n = embedder.countTokens(text);
    if (n > embedder.maxInputTokens) throw inputTooLong(i, n, embedder.maxInputTokens);
    return n;
  });
}

export function inputTooLong(index: number, tokens: number, max: number): GroundworkError {
  return new GroundworkError(
    'LIMIT_EXCEEDED',
    `embed: text ${index} has ${tokens} tokens, more than the model's input limit of ${max}; it would be truncated, so it is refused: split it first (embedDocuments does) or raise the limit`,
    { limit: { name: 'maxInputTokens', value: max, flag: '--embed-max-tokens' } },
  );
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function createOpenAiEmbedder(settings: OpenAiSettings, context: EmbedderContext): Embedder {
  return new OpenAiEmbedder(settings, context);
}

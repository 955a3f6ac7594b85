/**
 * The reranking client: scores (query, text) pairs with a cross-encoder behind a `/rerank`
 * endpoint. Three request shapes, as data:
 *   tei     Hugging Face TEI, vLLM `/rerank`:  {query, texts} -> [{index, score}]
 *   jina    Jina, vLLM `/v1/rerank`:            {model, query, documents, top_n} -> {results: [{index, relevance_score}]}
 *   cohere  Cohere v2, vLLM `/v2/rerank`:       {model, query, documents, top_n} -> {results: [{index, relevance_score}]}
 * Texts go in batches (TEI refuses more than 32 by default) with bounded concurrency; retries,
 * time-outs and errors are the embedding client's (src/embed/http.ts). Scores come back aligned
 * with the texts given, whatever order the endpoint answered in.
 */
import { inspect } from 'node:util';
import { z } from 'zod';
import { GroundworkError } from '../errors.js';
import { planBatches, runLimited, Semaphore } from './batching.js';
import { badAnswer } from './errors.js';
import { parseSettings } from './issues.js';
import { endpointFor, postJson, type HttpEndpoint, type RetryPolicy } from './http.js';
import { httpSettings, httpUrl, OPENAI_DEFAULTS } from './openai.js';
import type { EmbedCallOptions, EmbedderContext } from './types.js';

export interface Reranker {
  readonly api: RerankApi;
  readonly model: string | undefined;
  /** One relevance score per text, in the order given (higher = more relevant; scales differ by model). */
  rerank(query: string, texts: readonly string[], options?: EmbedCallOptions): Promise<number[]>;
}

/** How one API shapes its request and answer. */
interface RerankShape {
  /** Path appended to a bare host. */
  defaultPath: string;
  needsModel: boolean;
  request(query: string, texts: readonly string[], model: string | undefined, options: { truncate: boolean }): Record<string, unknown>;
  /** `[index, score]` pairs from the answer, or undefined when it is not this shape. */
  results(json: unknown): { index: unknown; score: unknown }[] | undefined;
}

const resultsArray = (json: unknown) => {
  const results = json && typeof json === 'object' ? (json as { results?: unknown }).results : undefined;
  return Array.isArray(results) ? results.map((r) => ({ index: (r as { index?: unknown })?.index, score: (r as { relevance_score?: unknown })?.relevance_score })) : undefined;
};

export const RERANK_APIS = {
  tei: {
    defaultPath: '/rerank',
    needsModel: false,
    request: (query, texts, _model, { truncate }) => ({ query, texts, raw_scores: false, return_text: false, truncate }),
    results: (json) => (Array.isArray(json) ? json.map((r) => ({ index: (r as { index?: unknown })?.index, score: (r as { score?: unknown })?.score })) : undefined),
  },
  jina: {
    defaultPath: '/v1/rerank',
    needsModel: true,
    request: (query, texts, model) => ({ model, query, documents: texts, top_n: texts.length, return_documents: false }),
    results: resultsArray,
  },
  cohere: {
    defaultPath: '/v2/rerank',
    needsModel: true,
    request: (query, texts, model) => ({ model, query, documents: texts, top_n: texts.length }),
    results: resultsArray,
  },
} as const satisfies Record<string, RerankShape>;

export type RerankApi = keyof typeof RERANK_APIS;
const API_NAMES = Object.keys(RERANK_APIS) as [RerankApi, ...RerankApi[]];

export const rerankSettingsSchema = z.strictObject({
  url: httpUrl.describe('the rerank endpoint: a base URL or the full .../rerank URL'),
  api: z.enum(API_NAMES).optional().describe('request shape: tei ({query, texts}), jina or cohere ({model, query, documents, top_n}) (default tei)'),
  model: z.string().trim().min(1).max(500).optional().describe('the reranker model name (required by jina and cohere)'),
  batchSize: z.int().min(1).max(1000).optional().describe('most texts per request (default 32)'),
  concurrency: z.int().min(1).max(64).optional().describe('requests in flight at once (default 2)'),
  truncate: z.boolean().optional().describe('TEI: let the server cut texts longer than the model takes, instead of refusing them (default true)'),
  ...httpSettings,
});

export type RerankSettings = z.infer<typeof rerankSettingsSchema>;

export const RERANK_DEFAULTS = { api: 'tei', batchSize: 32, concurrency: 2, truncate: true, timeoutMs: 60_000, maxRetries: OPENAI_DEFAULTS.maxRetries, retryBaseMs: OPENAI_DEFAULTS.retryBaseMs, maxRetryDelayMs: OPENAI_DEFAULTS.maxRetryDelayMs } as const;

/** A URL whose path ends in `/rerank` is used as given; a bare host gets the API's path; any other path gets `/rerank`. */
export function rerankUrl(base: string, api: RerankApi): string {
  const u = new URL(base);
  const path = u.pathname.replace(/\/+$/, '');
  if (path.endsWith('/rerank')) u.pathname = path;
  else if (path === '') u.pathname = RERANK_APIS[api].defaultPath;
  else u.pathname = `${path}/rerank`;
  return u.toString();
}

export class RerankClient implements Reranker {
  readonly api: RerankApi;
  readonly model: string | undefined;
  readonly endpoint: string;
  readonly stats = { calls: 0, texts: 0, requests: 0, retries: 0 };
  readonly #shape: RerankShape;
  readonly #http: HttpEndpoint;
  readonly #policy: RetryPolicy;
  readonly #settings: typeof RERANK_DEFAULTS & RerankSettings;
  readonly #context: EmbedderContext;
  readonly #slots: Semaphore;

  constructor(settings: RerankSettings, context: EmbedderContext = {}) {
    const parsed = parseSettings(rerankSettingsSchema, settings, 'rerank settings');
    const s = { ...RERANK_DEFAULTS, ...Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined)) } as typeof RERANK_DEFAULTS & RerankSettings;
    this.#settings = s;
    this.api = s.api;
    this.model = s.model;
    this.#shape = RERANK_APIS[s.api];
    if (this.#shape.needsModel && s.model === undefined) throw new GroundworkError('INVALID_OPTIONS', `the ${s.api} rerank API needs a model name (--rerank-model or GROUNDWORK_RERANK_MODEL)`);
    this.#http = endpointFor(rerankUrl(s.url, s.api), context.key?.trim(), { name: 'timeoutMs', flag: '--rerank-timeout' });
    this.endpoint = this.#http.display;
    this.#policy = { timeoutMs: s.timeoutMs, maxRetries: s.maxRetries, retryBaseMs: s.retryBaseMs, maxRetryDelayMs: s.maxRetryDelayMs };
    this.#context = context;
    this.#slots = new Semaphore(s.concurrency);
  }

  async rerank(query: string, texts: readonly string[], options: EmbedCallOptions = {}): Promise<number[]> {
    if (typeof query !== 'string' || query.trim() === '') throw new GroundworkError('INVALID_OPTIONS', 'rerank: the query is empty');
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw new GroundworkError('INVALID_OPTIONS', 'rerank: texts must be an array of strings');
    this.stats.calls++;
    if (texts.length === 0) return [];
    this.stats.texts += texts.length;
    const batches = planBatches(texts.map(() => 1), { maxTexts: this.#settings.batchSize, maxTokens: Number.MAX_SAFE_INTEGER });
    const parts = await runLimited(
      batches.map((b) => (signal: AbortSignal) => this.#request(query, texts.slice(b.start, b.end), signal)),
      this.#settings.concurrency,
      options.signal,
    );
    return parts.flat();
  }

  async #request(query: string, texts: readonly string[], signal: AbortSignal): Promise<number[]> {
    const body = this.#shape.request(query, texts, this.model, { truncate: this.#settings.truncate });
    const json = await this.#slots.run(
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
    const results = this.#shape.results(json);
    if (!results) throw badAnswer(this.endpoint, `not a ${this.api} rerank answer (${this.api === 'tei' ? 'an array of {index, score}' : '{results: [{index, relevance_score}]}'})`);
    const scores = new Array<number>(texts.length).fill(Number.NaN);
    for (const { index, score } of results) {
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= texts.length || !Number.isNaN(scores[index]!)) {
        throw badAnswer(this.endpoint, `result index ${JSON.stringify(index)}: indexes must be 0..${texts.length - 1}, each once`);
      }
      if (typeof score !== 'number' || !Number.isFinite(score)) throw badAnswer(this.endpoint, `the score of text ${index} is ${JSON.stringify(score)}, not a finite number`);
      scores[index] = score;
    }
    const missing = scores.findIndex((s) => Number.isNaN(s));
    if (missing >= 0) throw badAnswer(this.endpoint, `${results.length} scores for ${texts.length} texts (text ${missing} has none)`);
    return scores;
  }

  toString(): string {
    return `RerankClient(${this.endpoint}, ${this.api}${this.model ? `, model ${this.model}` : ''})`;
  }

  toJSON(): Record<string, unknown> {
    return { api: this.api, model: this.model, endpoint: this.endpoint };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

export function createReranker(settings: RerankSettings, context: EmbedderContext = {}): Reranker {
  return new RerankClient(settings, context);
}

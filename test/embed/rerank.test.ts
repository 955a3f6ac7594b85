import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedderError, RerankClient, rerankUrl, type RerankApi } from '../../src/index.js';
import { errorBodies, fixtureRerankScore, startRerankServer, type FixtureServer } from './fixtures.js';

const QUERY = '合同 前提条件 budget';
const TEXTS = ['the weather today', '履约须满足三个前提条件', 'the budget review of the 合同', 'nothing relevant', '前提条件 and budget'];

async function rejection(promise: Promise<unknown>): Promise<EmbedderError> {
  try {
    await promise;
  } catch (error) {
    return error as EmbedderError;
  }
  throw new Error('expected a rejection');
}

describe.each(['tei', 'jina', 'cohere'] as RerankApi[])('rerank client: %s shape', (api) => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startRerankServer({ api, key: 'rk-secret-42' });
  });
  afterAll(() => server.close());
  const client = (extra: Partial<ConstructorParameters<typeof RerankClient>[0]> = {}) =>
    new RerankClient({ url: server.url, api, model: 'fixture-reranker', retryBaseMs: 1, ...extra }, { key: 'rk-secret-42' });

  it('sends the API’s request shape and answers one score per text, in the order given', async () => {
    server.reset();
    const scores = await client().rerank(QUERY, TEXTS);
    expect(scores).toEqual(TEXTS.map((t) => fixtureRerankScore(QUERY, t)));
    const { path, body, headers } = server.requests[0]!;
    expect(headers.authorization).toBe('Bearer rk-secret-42');
    if (api === 'tei') {
      expect(path).toBe('/rerank');
      expect(body).toEqual({ query: QUERY, texts: TEXTS, raw_scores: false, return_text: false, truncate: true });
    } else {
      expect(path).toBe(api === 'jina' ? '/v1/rerank' : '/v2/rerank');
      expect(body).toMatchObject({ model: 'fixture-reranker', query: QUERY, documents: TEXTS, top_n: TEXTS.length });
    }
  });

  it('batches texts, keeping the scores aligned across batches', async () => {
    server.reset();
    const texts = Array.from({ length: 23 }, (_, i) => `${i % 3 === 0 ? 'budget' : 'other'} text ${i}`);
    const scores = await client({ batchSize: 5, concurrency: 2 }).rerank('budget', texts);
    expect(scores).toEqual(texts.map((t) => fixtureRerankScore('budget', t)));
    expect(server.requests).toHaveLength(5);
    expect(server.maxInFlight).toBeLessThanOrEqual(2);
  });

  it('retries a 429 honouring Retry-After, then fails with the endpoint’s message after its retries', async () => {
    server.reset();
    server.next({ status: 429, headers: { 'retry-after': '0' }, body: errorBodies.cohere('too many requests') });
    expect(await client().rerank(QUERY, TEXTS.slice(0, 2))).toHaveLength(2);
    expect(server.requests).toHaveLength(2);

    server.always({ status: 503, body: api === 'tei' ? errorBodies.tei('Model is overloaded', 'Overloaded') : errorBodies.cohere('service unavailable') });
    const error = await rejection(client({ maxRetries: 1 }).rerank(QUERY, TEXTS));
    server.always(undefined);
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.code).toBe('EMBEDDER');
    expect(error.status).toBe(503);
    expect(error.endpointMessage).toBe(api === 'tei' ? 'Model is overloaded' : 'service unavailable');
    expect(error.message).not.toContain('rk-secret-42');
  });

  it('times out with TIMEOUT naming --rerank-timeout', async () => {
    server.reset();
    server.always({ delayMs: 2_000 });
    const error = await rejection(client({ timeoutMs: 80, maxRetries: 0 }).rerank(QUERY, TEXTS));
    server.always(undefined);
    expect(error.code).toBe('TIMEOUT');
    expect(error.limit).toEqual({ name: 'timeoutMs', value: 80, flag: '--rerank-timeout' });
  });

  it('refuses answers with missing, repeated or out-of-range indexes, or scores that are not numbers', async () => {
    const breakers: ((json: any) => unknown)[] =
      api === 'tei'
        ? [(j) => j.slice(1), (j) => j.map((r: any) => ({ ...r, index: 0 })), (j) => j.map((r: any) => ({ ...r, score: 'high' })), () => ({ results: [] })]
        : [(j) => ({ ...j, results: j.results.slice(1) }), (j) => ({ ...j, results: j.results.map((r: any, i: number) => ({ ...r, index: i + 10 })) }), (j) => ({ ...j, results: j.results.map((r: any) => ({ ...r, relevance_score: null })) }), () => []];
    for (const mutate of breakers) {
      server.next({ mutate });
      const error = await rejection(client().rerank(QUERY, TEXTS));
      expect(error.code).toBe('EMBEDDER');
      expect(error.message).toContain('unusable answer');
    }
  });

  it('answers [] for no texts without a request, and refuses an empty query', async () => {
    server.reset();
    expect(await client().rerank(QUERY, [])).toEqual([]);
    expect(server.requests).toHaveLength(0);
    await expect(client().rerank('  ', TEXTS)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});

describe('rerank client: URLs', () => {
  it('adds the API’s path to a bare host, /rerank to a base path, and keeps a full URL', () => {
    expect(rerankUrl('http://h:8080', 'tei')).toBe('http://h:8080/rerank');
    expect(rerankUrl('https://api.jina.ai', 'jina')).toBe('https://api.jina.ai/v1/rerank');
    expect(rerankUrl('https://api.cohere.com', 'cohere')).toBe('https://api.cohere.com/v2/rerank');
    expect(rerankUrl('http://vllm:8000/v1', 'jina')).toBe('http://vllm:8000/v1/rerank');
    expect(rerankUrl('http://h/custom/rerank/', 'cohere')).toBe('http://h/custom/rerank');
  });

  it('jina and cohere need a model name', () => {
    expect(() => new RerankClient({ url: 'http://h:1', api: 'cohere' })).toThrow(/needs a model name/);
    expect(() => new RerankClient({ url: 'http://h:1', api: 'tei' })).not.toThrow();
  });
});

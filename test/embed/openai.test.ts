import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmbedderError, GroundworkError, OpenAiEmbedder, createEmbedder, embeddingsUrl, type RetryEvent } from '../../src/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { errorBodies, fixtureVector, startEmbeddingServer, type FixtureServer } from './fixtures.js';

/** Fast retries, so the suite does not sleep for real backoffs. */
const QUICK = { retryBaseMs: 1, maxRetryDelayMs: 5_000 };

let server: FixtureServer;
beforeAll(async () => {
  server = await startEmbeddingServer({ dimensions: 8 });
});
afterAll(() => server.close());
afterEach(() => {
  server.always(undefined);
  server.reset();
});

function embedder(settings: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}, context: ConstructorParameters<typeof OpenAiEmbedder>[1] = {}) {
  return new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'fixture-embed', ...QUICK, ...settings }, context);
}

async function rejection(promise: Promise<unknown>): Promise<GroundworkError> {
  try {
    await promise;
  } catch (error) {
    return error as GroundworkError;
  }
  throw new Error('expected a rejection');
}

const texts = (n: number, word = 'text') => Array.from({ length: n }, (_, i) => `${word} number ${i}`);

describe('openai embedder: the protocol', () => {
  it('sends {model, input, encoding_format} to /v1/embeddings and answers the vectors in input order', async () => {
    const e = embedder();
    const input = ['The budget was approved.', '合同前提条件', 'a third text'];
    const vectors = await e.embed(input);
    expect(vectors.map((v) => Array.from(v))).toEqual(input.map((t) => Array.from(fixtureVector(t, 8))));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe('/v1/embeddings');
    expect(server.requests[0]!.body).toEqual({ model: 'fixture-embed', input, encoding_format: 'float' });
    expect(e.dimensions).toBe(8);
    expect(e.id).toBe('openai:fixture-embed:8');
  });

  it('places vectors by their index when the server answers out of order', async () => {
    server.next({ reverse: true });
    const input = texts(5);
    const vectors = await embedder().embed(input);
    expect(vectors.map((v) => Array.from(v))).toEqual(input.map((t) => Array.from(fixtureVector(t, 8))));
  });

  it('reads base64 float32 answers (encoding_format: base64) into the same vectors', async () => {
    const input = texts(4);
    const vectors = await embedder({ encodingFormat: 'base64' }).embed(input);
    expect(server.requests[0]!.body.encoding_format).toBe('base64');
    expect(vectors.map((v) => Array.from(v))).toEqual(input.map((t) => Array.from(fixtureVector(t, 8))));
  });

  it('answers [] for [] without a request', async () => {
    expect(await embedder().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('joins a base URL as the SDKs do', () => {
    expect(embeddingsUrl('http://localhost:11434')).toBe('http://localhost:11434/v1/embeddings');
    expect(embeddingsUrl('http://localhost:11434/')).toBe('http://localhost:11434/v1/embeddings');
    expect(embeddingsUrl('http://host:8080/v1')).toBe('http://host:8080/v1/embeddings');
    expect(embeddingsUrl('https://generativelanguage.googleapis.com/v1beta/openai/')).toBe('https://generativelanguage.googleapis.com/v1beta/openai/embeddings');
    expect(embeddingsUrl('http://host/v1/embeddings')).toBe('http://host/v1/embeddings');
  });
});

describe('openai embedder: batching and concurrency', () => {
  it('batches by count', async () => {
    const input = texts(70);
    const vectors = await embedder({ batchSize: 32, concurrency: 1 }).embed(input);
    expect(server.requests.map((r) => r.body.input.length)).toEqual([32, 32, 6]);
    expect(vectors.map((v) => Array.from(v))).toEqual(input.map((t) => Array.from(fixtureVector(t, 8))));
  });

  it('batches by token budget, counted exactly with the configured tokenizer', async () => {
    const input = texts(20, 'quarterly budget review meeting');
    const each = countTokens(input[0]!);
    const budget = each * 6;
    await embedder({ batchSize: 100, maxBatchTokens: budget, concurrency: 1 }).embed(input);
    for (const r of server.requests) {
      expect(r.body.input.reduce((n: number, t: string) => n + countTokens(t), 0)).toBeLessThanOrEqual(budget);
    }
    expect(server.requests.flatMap((r) => r.body.input)).toEqual(input);
    expect(server.requests.length).toBe(Math.ceil(20 / Math.floor(budget / each)));
  });

  it('keeps at most `concurrency` requests in flight, and the order of the results', async () => {
    server.always({ delayMs: 30 });
    const input = texts(40);
    const e = embedder({ batchSize: 4, concurrency: 3 });
    const vectors = await e.embed(input);
    expect(server.requests).toHaveLength(10);
    expect(server.maxInFlight).toBeLessThanOrEqual(3);
    expect(server.maxInFlight).toBeGreaterThan(1);
    expect(vectors.map((v) => Array.from(v))).toEqual(input.map((t) => Array.from(fixtureVector(t, 8))));
    expect(e.stats).toMatchObject({ calls: 1, texts: 40, requests: 10, retries: 0 });
  });

  it('keeps the limit across concurrent calls on one embedder (a server answering many searches)', async () => {
    server.always({ delayMs: 20 });
    const e = embedder({ batchSize: 2, concurrency: 2 });
    const calls = await Promise.all([0, 1, 2, 3].map((k) => e.embed(texts(6, `call ${k}`))));
    expect(server.requests).toHaveLength(12);
    expect(server.maxInFlight).toBeLessThanOrEqual(2);
    calls.forEach((vectors, k) => expect(vectors.map((v) => Array.from(v))).toEqual(texts(6, `call ${k}`).map((t) => Array.from(fixtureVector(t, 8)))));
  });

  it('splits a batch the server refuses as too large (413) and tries each half', async () => {
    const small = await startEmbeddingServer({ dimensions: 8, maxBatch: 8 });
    try {
      const input = texts(20);
      const e = new OpenAiEmbedder({ provider: 'openai', url: small.url, model: 'm', batchSize: 20, ...QUICK });
      const vectors = await e.embed(input);
      expect(vectors.map((v) => Array.from(v))).toEqual(input.map((t) => Array.from(fixtureVector(t, 8))));
      expect(small.requests.map((r) => r.body.input.length)).toEqual([20, 10, 5, 5, 10, 5, 5]);
    } finally {
      await small.close();
    }
  });

  it('a single text the server refuses (413) is an EMBEDDER error saying to lower the limit', async () => {
    const strict = await startEmbeddingServer({ dimensions: 8, maxInputChars: 10 });
    try {
      const e = new OpenAiEmbedder({ provider: 'openai', url: strict.url, model: 'm', ...QUICK });
      const error = await rejection(e.embed(['this text is longer than ten characters']));
      expect(error).toBeInstanceOf(EmbedderError);
      expect(error.code).toBe('EMBEDDER');
      expect((error as EmbedderError).status).toBe(413);
      expect(error.message).toContain('inputs must have less than 10 characters');
      expect(error.message).toContain('--embed-max-tokens');
    } finally {
      await strict.close();
    }
  });
});

describe('openai embedder: retries', () => {
  it('retries a 429 after the seconds its Retry-After gives', async () => {
    server.next({ status: 429, body: errorBodies.openai('Rate limit reached for requests', 'requests'), headers: { 'retry-after': '1' } });
    const events: RetryEvent[] = [];
    const e = embedder({}, { onRetry: (ev) => events.push(ev) });
    const vectors = await e.embed(['hello']);
    expect(Array.from(vectors[0]!)).toEqual(Array.from(fixtureVector('hello', 8)));
    expect(server.requests).toHaveLength(2);
    expect(events).toEqual([{ attempt: 1, delayMs: 1000, reason: 'HTTP 429', status: 429, retryAfter: true }]);
    expect(e.stats.retries).toBe(1);
  });

  it('honours a Retry-After given as an HTTP-date', async () => {
    const at = new Date(Date.now() + 2000).toUTCString();
    server.next({ status: 503, body: 'Service Unavailable', headers: { 'retry-after': at } });
    const events: RetryEvent[] = [];
    await embedder({}, { onRetry: (ev) => events.push(ev) }).embed(['hello']);
    expect(events).toHaveLength(1);
    expect(events[0]!.retryAfter).toBe(true);
    // An HTTP-date has whole seconds: the wait is what is left of them (0 if they passed already).
    expect(events[0]!.delayMs).toBeGreaterThanOrEqual(0);
    expect(events[0]!.delayMs).toBeLessThanOrEqual(2000);
  });

  it('backs off exponentially with jitter on 500s without Retry-After, then succeeds', async () => {
    server.next({ status: 500, body: errorBodies.openai('The server had an error', 'server_error') }, { status: 502, body: '<html>Bad Gateway</html>' }, { status: 500 });
    const events: RetryEvent[] = [];
    await embedder({ retryBaseMs: 10 }, { onRetry: (ev) => events.push(ev) }).embed(['hello']);
    expect(events.map((e) => e.status)).toEqual([500, 502, 500]);
    events.forEach((ev, i) => {
      const ceiling = 10 * 2 ** i;
      expect(ev.retryAfter).toBe(false);
      expect(ev.delayMs).toBeGreaterThanOrEqual(ceiling / 2);
      expect(ev.delayMs).toBeLessThanOrEqual(ceiling);
    });
  });

  it('gives up after maxRetries with EMBEDDER carrying the status and the endpoint message', async () => {
    server.always({ status: 500, body: errorBodies.openai('The server had an error while processing your request', 'server_error') });
    const error = await rejection(embedder({ maxRetries: 2 }).embed(['hello']));
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.code).toBe('EMBEDDER');
    expect((error as EmbedderError).status).toBe(500);
    expect((error as EmbedderError).attempts).toBe(3);
    expect((error as EmbedderError).endpointMessage).toBe('The server had an error while processing your request');
    expect(error.message).toBe(`${server.url}/embeddings: HTTP 500 Internal Server Error: The server had an error while processing your request (3 attempts)`);
    expect(error.file).toBe(`${server.url}/embeddings`);
    expect(server.requests).toHaveLength(3);
  });

  it('fails at once when Retry-After asks for longer than maxRetryDelayMs', async () => {
    server.next({ status: 429, body: errorBodies.openai('Rate limit reached'), headers: { 'retry-after': '3600' } });
    const error = await rejection(embedder({ maxRetryDelayMs: 10_000 }).embed(['hello']));
    expect(error.code).toBe('EMBEDDER');
    expect((error as EmbedderError).status).toBe(429);
    expect(error.message).toContain('asks to wait 3600 s');
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 400, and shows each server family’s own message', async () => {
    const cases: [unknown, string][] = [
      [errorBodies.openai("This model's maximum context length is 8192 tokens"), "This model's maximum context length is 8192 tokens"],
      [errorBodies.tei('Input validation error: `inputs` cannot be empty', 'Validation'), 'Input validation error: `inputs` cannot be empty'],
      [errorBodies.ollama('model "nomic-embed-text" not found, try pulling it first'), 'model "nomic-embed-text" not found, try pulling it first'],
      [errorBodies.cohere('invalid request: model must be set'), 'invalid request: model must be set'],
      [errorBodies.fastapi('Field required'), 'Field required'],
      [{ detail: [{ loc: ['body', 'input'], msg: 'field required', type: 'missing' }] }, 'field required'],
      ['plain text failure\n  with lines', 'plain text failure with lines'],
    ];
    for (const [body, message] of cases) {
      server.reset();
      server.next({ status: 400, body });
      const error = await rejection(embedder().embed(['hello']));
      expect(error.code).toBe('EMBEDDER');
      expect((error as EmbedderError).status).toBe(400);
      expect((error as EmbedderError).endpointMessage).toBe(message);
      expect(server.requests).toHaveLength(1);
    }
  });

  it('times out a slow answer with TIMEOUT naming the limit, after its retries', async () => {
    server.always({ delayMs: 2_000 });
    const error = await rejection(embedder({ timeoutMs: 100, maxRetries: 1 }).embed(['hello']));
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.code).toBe('TIMEOUT');
    expect(error.limit).toEqual({ name: 'timeoutMs', value: 100, flag: '--embed-timeout' });
    expect(error.message).toContain('no answer within 100 ms (2 attempts)');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a dropped connection, and reports an unreachable server as EMBEDDER', async () => {
    server.next({ destroy: true });
    const vectors = await embedder().embed(['hello']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(2);

    const gone = await startEmbeddingServer();
    const url = gone.url;
    await gone.close();
    const error = await rejection(new OpenAiEmbedder({ provider: 'openai', url, model: 'm', ...QUICK, maxRetries: 1 }).embed(['hello']));
    expect(error.code).toBe('EMBEDDER');
    expect(error.message).toContain('cannot reach the endpoint (ECONNREFUSED) (2 attempts)');
  });

  it('stops at once when the caller aborts, with the abort reason', async () => {
    server.always({ delayMs: 5_000 });
    const controller = new AbortController();
    const pending = embedder({ batchSize: 1, concurrency: 2 }).embed(texts(6), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user cancelled')), 50);
    const error = await rejection(pending);
    expect(error.message).toBe('user cancelled');
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });
});

describe('openai embedder: checking answers', () => {
  it('checks every answer against the configured dimensions', async () => {
    const error = await rejection(embedder({ dimensions: 16 }).embed(['hello']));
    expect(error.code).toBe('EMBEDDER');
    expect(error.message).toContain('answered a 8-dimensional vector, but the configured dimensions (--embed-dimensions) had 16');
  });

  it('learns the dimensions from the first answer and refuses a later one that differs', async () => {
    const e = embedder();
    await e.embed(['first']);
    server.next({ dimensions: 12 });
    const error = await rejection(e.embed(['second']));
    expect(error.code).toBe('EMBEDDER');
    expect(error.message).toContain('answered a 12-dimensional vector, but its earlier answers had 8');
  });

  it('refuses answers with the wrong count, bad indexes, or vectors that are not finite numbers', async () => {
    const broken: ((json: any) => unknown)[] = [
      (json) => ({ ...json, data: json.data.slice(1) }),
      (json) => ({ ...json, data: json.data.map((d: any) => ({ ...d, index: 0 })) }),
      (json) => ({ ...json, data: json.data.map((d: any, i: number) => ({ ...d, index: i + 5 })) }),
      (json) => ({ ...json, data: json.data.map((d: any) => ({ ...d, embedding: d.embedding.map(() => 'x') })) }),
      (json) => ({ ...json, data: json.data.map((d: any) => ({ ...d, embedding: null })) }),
      () => ({ object: 'list' }),
      () => 'not json at all',
    ];
    for (const mutate of broken) {
      server.next({ mutate });
      const error = await rejection(embedder().embed(['a', 'b']));
      expect(error.code).toBe('EMBEDDER');
      expect(error.message).toMatch(/unusable answer from the endpoint/);
    }
  });

  it('refuses a text over the input limit before sending anything (never truncates)', async () => {
    const long = 'budget '.repeat(600);
    const error = await rejection(embedder({ maxInputTokens: 512 }).embed(['short', long]));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.limit).toEqual({ name: 'maxInputTokens', value: 512, flag: '--embed-max-tokens' });
    expect(error.message).toContain(`text 1 has ${countTokens(long)} tokens`);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses empty and non-string texts with INVALID_OPTIONS', async () => {
    expect((await rejection(embedder().embed(['a', '']))).code).toBe('INVALID_OPTIONS');
    expect((await rejection(embedder().embed([42 as unknown as string]))).code).toBe('INVALID_OPTIONS');
    expect(server.requests).toHaveLength(0);
  });
});

describe('openai embedder: the key', () => {
  const KEY = 'sk-test-0123456789abcdef';

  it('sends it as a bearer token, and never shows it', async () => {
    const guarded = await startEmbeddingServer({ key: KEY });
    try {
      const e = await createEmbedder({ provider: 'openai', url: guarded.url, model: 'm' }, { key: KEY });
      await e.embed(['hello']);
      expect(guarded.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      for (const shown of [String(e), JSON.stringify(e), inspect(e, { depth: 10, showHidden: true }), JSON.stringify(Object.entries(e))]) {
        expect(shown).not.toContain(KEY);
      }
    } finally {
      await guarded.close();
    }
  });

  it('a wrong key is a 401 EMBEDDER error that names neither key, with a hint', async () => {
    const guarded = await startEmbeddingServer({ key: KEY });
    try {
      const wrong = 'sk-wrong-key-value-9999';
      const e = new OpenAiEmbedder({ provider: 'openai', url: guarded.url, model: 'm', ...QUICK }, { key: wrong });
      const error = await rejection(e.embed(['hello']));
      expect(error.code).toBe('EMBEDDER');
      expect((error as EmbedderError).status).toBe(401);
      expect(error.message).toContain('Incorrect API key provided');
      expect(error.message).toContain('GROUNDWORK_EMBEDDINGS_KEY');
      expect(`${error.message} ${error.stack} ${inspect(error)}`).not.toContain(wrong);
      expect(`${error.message} ${inspect(error)}`).not.toContain(KEY);
    } finally {
      await guarded.close();
    }
  });

  it('redacts the key when the endpoint echoes it back', async () => {
    server.next({ status: 400, body: errorBodies.openai(`Incorrect API key provided: ${KEY}`) });
    const error = await rejection(embedder({}, { key: KEY }).embed(['hello']));
    expect(error.message).toContain('Incorrect API key provided: ***');
    expect(error.message).not.toContain(KEY);
  });

  it('sends credentials in the URL as Basic auth, and strips them and the query string from messages', async () => {
    server.always({ status: 400, body: errorBodies.openai('nope') });
    const url = server.url.replace('http://', 'http://user:secretpw@') + '/embeddings?api-key=secretq';
    const error = await rejection(new OpenAiEmbedder({ provider: 'openai', url, model: 'm', ...QUICK }).embed(['x']));
    expect(server.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('user:secretpw').toString('base64')}`);
    expect(server.requests[0]!.path).toBe('/v1/embeddings?api-key=secretq');
    expect(error.code).toBe('EMBEDDER');
    expect(error.message).not.toContain('secretpw');
    expect(error.message).not.toContain('secretq');
    expect(error.file).toBe(`${server.url}/embeddings`);
  });
});

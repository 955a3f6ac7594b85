import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandArgs, UsageError } from '../../src/cli/args.js';
import { EMBED_FLAG_SPECS, EMBED_FLAGS_HELP, embedFlagsFrom, RERANK_FLAG_SPECS, RERANK_FLAGS_HELP, rerankFlagsFrom } from '../../src/cli/embed-options.js';
import {
  createEmbedder,
  EMBED_SETTING_SOURCES,
  GroundworkError,
  listEmbedders,
  openEmbedder,
  openReranker,
  registerEmbedder,
  RERANK_SETTING_SOURCES,
  resolveEmbedderSettings,
  resolveRerankSettings,
  validateEmbedderSettings,
  type Embedder,
} from '../../src/index.js';
import { z } from 'zod';
import { fixtureVector, startEmbeddingServer, startRerankServer, type FixtureServer } from './fixtures.js';

function failure(fn: () => unknown): GroundworkError {
  try {
    fn();
  } catch (error) {
    return error as GroundworkError;
  }
  throw new Error('expected an error');
}

const URL_A = 'http://127.0.0.1:9/v1';

describe('resolveEmbedderSettings: layers', () => {
  it('answers undefined when nothing is configured anywhere (a key alone configures nothing)', () => {
    expect(resolveEmbedderSettings({ env: {} })).toBeUndefined();
    expect(resolveEmbedderSettings({ env: { GROUNDWORK_EMBEDDINGS_KEY: 'sk-x' } })).toBeUndefined();
  });

  it('reads the environment; the key is returned beside the settings, never in them', () => {
    const env = { GROUNDWORK_EMBEDDINGS_URL: URL_A, GROUNDWORK_EMBEDDINGS_MODEL: 'bge-m3', GROUNDWORK_EMBEDDINGS_KEY: 'sk-secret-123', GROUNDWORK_EMBEDDINGS_BATCH_SIZE: '16' };
    const r = resolveEmbedderSettings({ env })!;
    expect(r.settings).toEqual({ provider: 'openai', url: URL_A, model: 'bge-m3', batchSize: 16 });
    expect(r.key).toBe('sk-secret-123');
    expect(JSON.stringify(r.settings)).not.toContain('sk-secret');
    expect(r.sources).toEqual({ provider: 'env', url: 'env', model: 'env', batchSize: 'env' });
  });

  it('flags beat the environment, which beats the stored settings, field by field', () => {
    const stored = { provider: 'openai', url: 'http://stored:1/v1', model: 'stored-model', maxInputTokens: 2048, concurrency: 3 };
    const env = { GROUNDWORK_EMBEDDINGS_MODEL: 'env-model', GROUNDWORK_EMBEDDINGS_MAX_TOKENS: '1024' };
    const r = resolveEmbedderSettings({ flags: { model: 'flag-model' }, env, stored })!;
    expect(r.settings).toEqual({ provider: 'openai', url: 'http://stored:1/v1', model: 'flag-model', maxInputTokens: 1024, concurrency: 3 });
    expect(r.sources).toEqual({ provider: 'stored', url: 'stored', model: 'flag', maxInputTokens: 'env', concurrency: 'stored' });
  });

  it('reads stored settings as an object or as their JSON text', () => {
    const stored = { provider: 'onnx', path: '/models/bge-small', pooling: 'cls' };
    expect(resolveEmbedderSettings({ env: {}, stored })!.settings).toEqual(stored);
    expect(resolveEmbedderSettings({ env: {}, stored: JSON.stringify(stored) })!.settings).toEqual(stored);
  });

  it('a higher layer naming another provider replaces the stored one whole', () => {
    const stored = { provider: 'onnx', path: '/models/bge-small', pooling: 'cls', model: 'bge-small' };
    const r = resolveEmbedderSettings({ flags: { url: URL_A, model: 'nomic-embed-text' }, env: {}, stored })!;
    expect(r.settings).toEqual({ provider: 'openai', url: URL_A, model: 'nomic-embed-text' });
    const local = resolveEmbedderSettings({ flags: { path: '/models/e5' }, env: { GROUNDWORK_EMBEDDINGS_URL: URL_A, GROUNDWORK_EMBEDDINGS_MODEL: 'x' } })!;
    expect(local.settings).toEqual({ provider: 'onnx', path: '/models/e5' });
  });

  it('ambient settings another provider does not take are left out; a flag it does not take is an error', () => {
    const r = resolveEmbedderSettings({ flags: { path: '/models/e5' }, env: { GROUNDWORK_EMBEDDINGS_CONCURRENCY: '4', GROUNDWORK_EMBEDDINGS_BATCH_SIZE: '8' } })!;
    expect(r.settings).toEqual({ provider: 'onnx', path: '/models/e5', batchSize: 8 });
    const error = failure(() => resolveEmbedderSettings({ flags: { path: '/models/e5', concurrency: 4 }, env: {} }));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toBe('onnx embedder: unknown setting(s) --embed-concurrency');
  });

  it('names the flag, variable or stored setting at fault', () => {
    const cases: [() => unknown, string][] = [
      [() => resolveEmbedderSettings({ flags: { url: URL_A, path: '/m' }, env: {} }), '--embed-url and --embed-model-path both name an embedder'],
      [() => resolveEmbedderSettings({ env: { GROUNDWORK_EMBEDDINGS_MODEL: 'bge-m3' } }), 'GROUNDWORK_EMBEDDINGS_MODEL given, but no embedder'],
      [() => resolveEmbedderSettings({ env: { GROUNDWORK_EMBEDDINGS_URL: URL_A } }), 'openai embedder: GROUNDWORK_EMBEDDINGS_MODEL'.replace('GROUNDWORK_EMBEDDINGS_MODEL', '--embed-model')],
      [() => resolveEmbedderSettings({ env: { GROUNDWORK_EMBEDDINGS_URL: 'ftp://host/x', GROUNDWORK_EMBEDDINGS_MODEL: 'm' } }), 'GROUNDWORK_EMBEDDINGS_URL: must be an http:// or https:// URL'],
      [() => resolveEmbedderSettings({ env: { GROUNDWORK_EMBEDDINGS_URL: URL_A, GROUNDWORK_EMBEDDINGS_MODEL: 'm', GROUNDWORK_EMBEDDINGS_BATCH_SIZE: 'lots' } }), 'GROUNDWORK_EMBEDDINGS_BATCH_SIZE must be a whole number'],
      [() => resolveEmbedderSettings({ flags: { url: URL_A, model: 'm', batchSize: 0 }, env: {} }), '--embed-batch-size: Too small'],
      [() => resolveEmbedderSettings({ env: {}, stored: { provider: 'openai', url: URL_A, model: 'm', batchSize: -1 } }), 'the library setting embedder.batchSize: Too small'],
      [() => resolveEmbedderSettings({ env: {}, stored: '{not json' }), "the library's stored embedder settings are not JSON"],
      [() => resolveEmbedderSettings({ flags: { provider: 'nope' }, env: {} }), "unknown embedder provider 'nope'"],
    ];
    for (const [fn, message] of cases) {
      const error = failure(fn);
      expect(error.code).toBe('INVALID_OPTIONS');
      expect(error.message).toContain(message);
    }
  });
});

describe('openEmbedder', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startEmbeddingServer({ dimensions: 4, key: 'sk-from-env-0001' });
  });
  afterAll(() => server.close());

  it('makes a working embedder from the environment, key included, and storable settings', async () => {
    const env = { GROUNDWORK_EMBEDDINGS_URL: server.url, GROUNDWORK_EMBEDDINGS_MODEL: 'fixture', GROUNDWORK_EMBEDDINGS_KEY: 'sk-from-env-0001' };
    const opened = (await openEmbedder({ env }))!;
    expect(opened.settings).toEqual({ provider: 'openai', url: server.url, model: 'fixture' });
    expect(Array.from((await opened.embedder.embed(['hello']))[0]!)).toEqual(Array.from(fixtureVector('hello', 4)));
    expect(opened.embedder.id).toBe('openai:fixture:4');
  });

  it('answers undefined when nothing is configured', async () => {
    expect(await openEmbedder({ env: {} })).toBeUndefined();
  });
});

describe('registerEmbedder', () => {
  /** A user's provider: letter-frequency vectors (a real, if poor, embedding). */
  function lettersEmbedder(settings: { provider: string; letters: string }): Embedder {
    const letters = settings.letters;
    return {
      provider: 'letters',
      model: `letters-${letters}`,
      dimensions: letters.length,
      maxInputTokens: Infinity,
      id: `letters:${letters}:${letters.length}`,
      countTokens: (text) => text.length,
      embed: async (texts) => texts.map((t) => Float32Array.from(letters, (l) => t.split(l).length - 1)),
      close: async () => {},
    };
  }

  it('adds a provider that the settings, the registry and the layers all know', async () => {
    registerEmbedder('letters', lettersEmbedder, { schema: z.strictObject({ provider: z.literal('letters'), letters: z.string().min(1) }), description: 'counts letters' });
    expect(listEmbedders().map((e) => e.kind)).toEqual(['openai', 'onnx', 'letters']);
    const e = await createEmbedder({ provider: 'letters', letters: 'ab' });
    expect(Array.from((await e.embed(['abba']))[0]!)).toEqual([2, 2]);
    expect(failure(() => validateEmbedderSettings({ provider: 'letters', letters: '' })).code).toBe('INVALID_OPTIONS');
    const r = resolveEmbedderSettings({ flags: { provider: 'letters' }, env: {}, stored: { provider: 'letters', letters: 'xyz' } })!;
    expect(r.settings).toEqual({ provider: 'letters', letters: 'xyz' });
  });

  it('without a schema, takes any JSON settings; refuses bad kinds and factories that break the contract', async () => {
    registerEmbedder('loose', (s: { provider: string }) => lettersEmbedder({ provider: s.provider, letters: 'e' }));
    expect((await createEmbedder({ provider: 'loose', anything: [1, 2] })).model).toBe('letters-e');
    expect(failure(() => registerEmbedder('Bad Kind', lettersEmbedder)).code).toBe('INVALID_OPTIONS');
    registerEmbedder('broken', () => ({}) as Embedder);
    await expect(createEmbedder({ provider: 'broken' })).rejects.toThrow(/without embed, countTokens, close/);
  });
});

describe('CLI flags', () => {
  it('specs and help are derived from the one table: every setting has its flag and variable', () => {
    for (const s of EMBED_SETTING_SOURCES) {
      expect(EMBED_FLAG_SPECS[s.flag]).toEqual({ type: 'string' });
      expect(EMBED_FLAGS_HELP).toContain(`--${s.flag} ${s.metavar}`);
      expect(EMBED_FLAGS_HELP).toContain(s.env);
    }
    for (const s of RERANK_SETTING_SOURCES) {
      expect(RERANK_FLAG_SPECS[s.flag]).toEqual({ type: 'string' });
      expect(RERANK_FLAGS_HELP).toContain(`--${s.flag} ${s.metavar}`);
    }
    expect(EMBED_FLAGS_HELP).toContain('GROUNDWORK_EMBEDDINGS_KEY only');
    expect(EMBED_FLAG_SPECS['embed-key']).toBeUndefined();
    for (const line of `${EMBED_FLAGS_HELP}\n${RERANK_FLAGS_HELP}`.split('\n')) expect(line.length).toBeLessThanOrEqual(112);
  });

  it('parses typed values, resolves the model folder, and keeps prefixes’ spaces', () => {
    const args = parseCommandArgs(['--embed-model-path', 'models/e5', '--embed-batch-size', '8', '--embed-normalize', 'no', '--embed-query-prefix', 'query: '], EMBED_FLAG_SPECS);
    expect(embedFlagsFrom(args)).toEqual({ path: resolve('models/e5'), batchSize: 8, normalize: false, queryPrefix: 'query: ' });
    const rerank = parseCommandArgs(['--rerank-url', 'http://h:1', '--rerank-api', 'cohere'], RERANK_FLAG_SPECS);
    expect(rerankFlagsFrom(rerank)).toEqual({ url: 'http://h:1', api: 'cohere' });
  });

  it('a bad flag value is a usage error naming the flag', () => {
    const args = parseCommandArgs(['--embed-timeout', '10s'], EMBED_FLAG_SPECS);
    expect(() => embedFlagsFrom(args)).toThrow(UsageError);
    expect(() => embedFlagsFrom(args)).toThrow('--embed-timeout must be a whole number');
  });
});

describe('resolveRerankSettings', () => {
  it('layers flags > env > stored, and needs a URL', () => {
    expect(resolveRerankSettings({ env: {} })).toBeUndefined();
    const r = resolveRerankSettings({ flags: { api: 'jina' }, env: { GROUNDWORK_RERANK_URL: 'http://r:1', GROUNDWORK_RERANK_MODEL: 'jina-reranker-v2', GROUNDWORK_RERANK_KEY: 'jk-1' }, stored: { url: 'http://old:1', api: 'tei' } })!;
    expect(r.settings).toEqual({ url: 'http://r:1', api: 'jina', model: 'jina-reranker-v2' });
    expect(r.key).toBe('jk-1');
    const error = failure(() => resolveRerankSettings({ env: { GROUNDWORK_RERANK_MODEL: 'x' } }));
    expect(error.message).toContain('GROUNDWORK_RERANK_MODEL given, but no rerank endpoint');
    expect(failure(() => resolveRerankSettings({ flags: { url: 'http://r:1', api: 'bing' }, env: {} })).message).toContain('--rerank-api');
  });

  it('openReranker makes a client that works; cohere without a model is INVALID_OPTIONS', async () => {
    const server = await startRerankServer({ api: 'tei' });
    try {
      const opened = openReranker({ env: { GROUNDWORK_RERANK_URL: server.url } })!;
      const scores = await opened.reranker.rerank('budget review', ['the weather', 'the budget review']);
      expect(scores[1]).toBeGreaterThan(scores[0]!);
    } finally {
      await server.close();
    }
    expect(failure(() => openReranker({ flags: { url: 'http://r:1', api: 'cohere' }, env: {} })).message).toContain('needs a model name');
  });
});

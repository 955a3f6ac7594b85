import { renameSync, rmSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, embedDocuments, GroundworkError, inspectModelFolder, OnnxEmbedder } from '../../src/index.js';
import { importTransformers } from '../../src/embed/onnx.js';
import { startEmbeddingServer } from './fixtures.js';
import { tableRow, TEST_VOCAB, writeTestModel, type TestModel } from './onnx-model.js';

/** What the model must answer: the pooled rows of the text's tokens (given here by hand). */
function expected(tokens: readonly string[], dims: number, pooling: 'mean' | 'cls', normalize: boolean): number[] {
  const ids = tokens.map((t) => {
    const id = TEST_VOCAB.indexOf(t);
    if (id < 0) throw new Error(`not in the test vocabulary: ${t}`);
    return id;
  });
  const rows = ids.map((id) => tableRow(id, dims));
  const pooled = pooling === 'cls' ? Array.from(rows[0]!) : Array.from({ length: dims }, (_, d) => rows.reduce((s, r) => s + r[d]!, 0) / rows.length);
  if (!normalize) return pooled;
  const n = Math.sqrt(pooled.reduce((s, x) => s + x * x, 0));
  return pooled.map((x) => x / n);
}

function close(actual: Float32Array, want: number[]): void {
  expect(actual.length).toBe(want.length);
  want.forEach((x, d) => expect(actual[d]).toBeCloseTo(x, 5));
}

async function rejection(promise: Promise<unknown>): Promise<GroundworkError> {
  try {
    await promise;
  } catch (error) {
    return error as GroundworkError;
  }
  throw new Error('expected a rejection');
}

let model: TestModel;
let embedder: OnnxEmbedder;
beforeAll(async () => {
  model = writeTestModel({ dimensions: 8, maxLength: 32 });
  embedder = await OnnxEmbedder.load({ provider: 'onnx', path: model.dir });
});
afterAll(async () => {
  await embedder?.close();
});

describe('onnx embedder: a model folder the test built', () => {
  it('loads with the folder’s limits: dimensions from a run, maxInputTokens from tokenizer_config.json', () => {
    expect(model.onnxBytes).toBeLessThan(4096);
    expect(embedder.dimensions).toBe(8);
    expect(embedder.maxInputTokens).toBe(32);
    expect(embedder.pooling).toBe('mean');
    expect(embedder.normalize).toBe(true);
    expect(embedder.model).toBe(basename(model.dir));
    expect(embedder.id).toBe(`onnx:${basename(model.dir)}:8:mean-norm`);
  });

  it('answers mean-pooled, normalised vectors of the text’s tokens, in input order', async () => {
    const texts = ['the budget review', '合同 zebra', 'Meeting approved the quarterly budget and the review of the board'];
    const vectors = await embedder.embed(texts);
    close(vectors[0]!, expected(['[CLS]', 'the', 'budget', 'review', '[SEP]'], 8, 'mean', true));
    close(vectors[1]!, expected(['[CLS]', '合', '同', '[UNK]', '[SEP]'], 8, 'mean', true));
    close(vectors[2]!, expected(['[CLS]', 'meeting', 'approved', 'the', 'quarterly', 'budget', 'and', 'the', 'review', 'of', 'the', 'board', '[SEP]'], 8, 'mean', true));
  });

  it('pads batches without changing any vector (the attention mask keeps padding out)', async () => {
    const alone = await embedder.embed(['budget']);
    const withLonger = await embedder.embed(['budget', 'the budget review of the quarterly board meeting']);
    close(withLonger[0]!, Array.from(alone[0]!));
  });

  it('counts tokens with the model’s own tokenizer, special tokens included', () => {
    expect(embedder.countTokens('the budget review')).toBe(5);
    expect(embedder.countTokens('合同前提条件')).toBe(8);
    expect(embedder.countTokens('')).toBe(2);
  });

  it('refuses a text over the model’s limit with LIMIT_EXCEEDED instead of truncating it', async () => {
    const long = Array.from({ length: 40 }, () => 'budget').join(' ');
    const error = await rejection(embedder.embed(['short', long]));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.limit).toEqual({ name: 'maxInputTokens', value: 32, flag: '--embed-max-tokens' });
    expect(error.message).toContain('text 1 has 42 tokens');
  });

  it('splits a long text into windows within the limit and averages them (embedDocuments)', async () => {
    const sentence = 'The board approved the quarterly budget. ';
    const long = sentence.repeat(12);
    const { vectors, report } = await embedDocuments(embedder, ['the budget', long]);
    expect(vectors).toHaveLength(2);
    expect(report).toMatchObject({ items: 2, split: 1, contextDropped: 0 });
    expect(report.windows).toBeGreaterThan(1);
    expect(report.splitItems).toEqual([{ index: 1, tokens: embedder.countTokens(long), windows: report.windows }]);
    // Unit length: the windows' mean is renormalised like the model's own vectors.
    expect(Math.hypot(...vectors[1]!)).toBeCloseTo(1, 5);
  });

  it('is made by the registry from stored settings', async () => {
    const made = await createEmbedder({ provider: 'onnx', path: model.dir, model: 'tiny-test' });
    try {
      expect(made.id).toBe('onnx:tiny-test:8:mean-norm');
      expect((await made.embed(['budget']))[0]).toHaveLength(8);
    } finally {
      await made.close();
    }
    await expect(made.embed(['x'])).rejects.toThrow(/closed/);
  });
});

describe('onnx embedder: pooling and normalisation', () => {
  it('reads cls pooling and no Normalize step from sentence-transformers files', async () => {
    const st = writeTestModel({ sentenceTransformers: { pooling: 'cls', normalize: false } });
    const folder = inspectModelFolder(st.dir);
    expect(folder).toMatchObject({ pooling: 'cls', normalize: false, dtype: 'fp32', subfolder: 'onnx', modelMaxTokens: 32 });
    const e = await OnnxEmbedder.load({ provider: 'onnx', path: st.dir });
    try {
      expect(e.id).toBe(`onnx:${basename(st.dir)}:8:cls`);
      const [a, b] = await e.embed(['the budget', '合同']);
      close(a!, expected(['[CLS]'], 8, 'cls', false));
      close(b!, expected(['[CLS]'], 8, 'cls', false));
    } finally {
      await e.close();
    }
  });

  it('lets settings override the folder: mean pooling, not normalised', async () => {
    const e = await OnnxEmbedder.load({ provider: 'onnx', path: model.dir, pooling: 'mean', normalize: false });
    try {
      close((await e.embed(['the budget']))[0]!, expected(['[CLS]', 'the', 'budget', '[SEP]'], 8, 'mean', false));
      expect(e.id).toBe(`onnx:${basename(model.dir)}:8:mean`);
    } finally {
      await e.close();
    }
  });

  it('finds model.onnx at the folder’s top level too', async () => {
    const flat = writeTestModel();
    renameSync(join(flat.dir, 'onnx', 'model.onnx'), join(flat.dir, 'model.onnx'));
    rmSync(join(flat.dir, 'onnx'), { recursive: true });
    expect(inspectModelFolder(flat.dir).subfolder).toBe('');
    const e = await OnnxEmbedder.load({ provider: 'onnx', path: flat.dir });
    await e.close();
  });
});

describe('onnx embedder: errors', () => {
  it('a missing folder, a file instead of a folder, and missing files are IO errors naming what is missing', async () => {
    const missing = await rejection(OnnxEmbedder.load({ provider: 'onnx', path: join(model.dir, 'nope') }));
    expect(missing.code).toBe('IO');
    expect(missing.message).toContain('no such model folder');

    const file = await rejection(OnnxEmbedder.load({ provider: 'onnx', path: join(model.dir, 'config.json') }));
    expect(file.code).toBe('IO');
    expect(file.message).toContain('not a folder');

    const partial = writeTestModel({ omit: ['tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'] });
    const error = await rejection(OnnxEmbedder.load({ provider: 'onnx', path: partial.dir }));
    expect(error.code).toBe('IO');
    expect(error.file).toBe(partial.dir);
    expect(error.message).toContain('missing tokenizer.json, tokenizer_config.json, onnx/model.onnx');
  });

  it('a limit above the model’s own is INVALID_OPTIONS (the pipeline would truncate)', async () => {
    const error = await rejection(OnnxEmbedder.load({ provider: 'onnx', path: model.dir, maxInputTokens: 64 }));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain("more than the model's own limit of 32");
  });

  it('configured dimensions the model does not make are an EMBEDDER error', async () => {
    const error = await rejection(OnnxEmbedder.load({ provider: 'onnx', path: model.dir, dimensions: 384 }));
    expect(error.code).toBe('EMBEDDER');
    expect(error.message).toContain('makes 8-dimensional vectors, but 384 were configured');
  });

  it('a corrupt ONNX file is an EMBEDDER error naming the folder', async () => {
    const bad = writeTestModel({ omit: ['onnx/model.onnx'] });
    mkdirSync(join(bad.dir, 'onnx'), { recursive: true });
    (await import('node:fs')).writeFileSync(join(bad.dir, 'onnx', 'model.onnx'), 'not a model');
    const error = await rejection(OnnxEmbedder.load({ provider: 'onnx', path: bad.dir }));
    expect(error.code).toBe('EMBEDDER');
    expect(error.file).toBe(bad.dir);
    expect(error.message).toContain('cannot load the model');
  });

  it('without @huggingface/transformers: UNSUPPORTED, saying how to install it', async () => {
    const error = await rejection(importTransformers('@huggingface/transformers-not-installed-here'));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toContain('is not installed');
    expect(error.message).toContain("'ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers@4'");
  });

  it('never asks the network for anything (the hub URL pointed at a loopback server hears nothing)', async () => {
    const hub = await startEmbeddingServer();
    const transformers = (await import('@huggingface/transformers')) as unknown as { env: { remoteHost: string; allowRemoteModels: boolean } };
    const before = transformers.env.remoteHost;
    transformers.env.remoteHost = hub.url.replace(/\/v1$/, '/');
    try {
      const e = await OnnxEmbedder.load({ provider: 'onnx', path: writeTestModel({ sentenceTransformers: { pooling: 'mean', normalize: true } }).dir });
      await e.embed(['budget']);
      await e.close();
      expect(transformers.env.allowRemoteModels).toBe(false);
      expect(hub.requests).toHaveLength(0);
    } finally {
      transformers.env.remoteHost = before;
      await hub.close();
    }
  });
});

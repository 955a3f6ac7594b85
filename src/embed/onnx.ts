/**
 * The `onnx` provider: a local embedding model from a folder the user names (a Hugging Face model
 * folder with an ONNX export: `config.json`, `tokenizer.json`, `onnx/model.onnx` or `model.onnx`),
 * run through `@huggingface/transformers` 4.x on onnxruntime-node. The package is an optional peer
 * dependency, loaded with a dynamic `import()` only when a local model is configured. Remote models
 * are switched off (`env.allowRemoteModels = false`, `local_files_only`): nothing is ever
 * downloaded, a missing file is an error naming it.
 *
 * Pooling and normalisation default to what the folder says (sentence-transformers'
 * `1_Pooling/config.json` and `modules.json`), else mean pooling, normalised. The input limit is
 * the tokenizer's `model_max_length` (else `max_position_embeddings`), counted with the model's own
 * tokenizer, special tokens included: exact.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { inspect } from 'node:util';
import { z } from 'zod';
import { GroundworkError } from '../errors.js';
import { Semaphore } from './batching.js';
import { parseSettings } from './issues.js';
import { checkInputs, prefixSettings } from './openai.js';
import type { EmbedCallOptions, Embedder } from './types.js';

export const POOLINGS = ['mean', 'cls', 'last_token'] as const;
export type Pooling = (typeof POOLINGS)[number];

/** File-name suffixes transformers.js gives each weight type (`model_quantized.onnx` is q8). */
const DTYPE_SUFFIX = { fp32: '', q8: '_quantized', fp16: '_fp16', int8: '_int8', uint8: '_uint8', q4: '_q4' } as const;
export type OnnxDtype = keyof typeof DTYPE_SUFFIX;
const DTYPES = Object.keys(DTYPE_SUFFIX) as OnnxDtype[];

export const onnxSettingsSchema = z.strictObject({
  provider: z.literal('onnx'),
  path: z.string().min(1).describe('the model folder (config.json, tokenizer.json, onnx/model.onnx)'),
  model: z.string().trim().min(1).max(500).optional().describe("the model's name in vector keys (default: the folder's name)"),
  pooling: z.enum(POOLINGS).optional().describe("mean, cls or last_token (default: the folder's 1_Pooling/config.json, else mean)"),
  normalize: z.boolean().optional().describe("scale vectors to length 1 (default: the folder's modules.json, else true)"),
  maxInputTokens: z.int().min(1).max(10_000_000).optional().describe("longest input in the model's tokens (default: tokenizer_config.json model_max_length; never above it)"),
  dimensions: z.int().min(1).max(65_536).optional().describe('expected vector length, checked when the model loads'),
  batchSize: z.int().min(1).max(1024).optional().describe('texts per model run (default 16)'),
  dtype: z.enum(DTYPES as [OnnxDtype, ...OnnxDtype[]]).optional().describe('which weights: fp32 (model.onnx), q8 (model_quantized.onnx), fp16, int8, uint8, q4 (default: the first found, in that order)'),
  threads: z.int().min(1).max(256).optional().describe('onnxruntime intra-op threads (default: its own choice)'),
  ...prefixSettings,
});

export type OnnxSettings = z.infer<typeof onnxSettingsSchema>;

export const ONNX_DEFAULTS = { batchSize: 16, pooling: 'mean', normalize: true, maxInputTokens: 512 } as const;

export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';

/** The parts of @huggingface/transformers this file uses (typed here so its types never leak into ours). */
interface Transformers {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string };
  pipeline(task: 'feature-extraction', model: string, options: Record<string, unknown>): Promise<FeatureExtractor>;
}
interface FeatureExtractor {
  (texts: string[], options: { pooling: Pooling; normalize: boolean }): Promise<{ data: ArrayLike<number>; dims: number[] }>;
  tokenizer: { encode(text: string): number[] };
  dispose(): Promise<void>;
}

/**
 * Imports the optional package; absent (or unloadable, e.g. onnxruntime's native binary missing),
 * an `UNSUPPORTED` error that says how to install it.
 */
export async function importTransformers(specifier: string = TRANSFORMERS_PACKAGE): Promise<Transformers> {
  try {
    return (await import(specifier)) as Transformers;
  } catch (cause) {
    const missing = (cause as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((cause as Error).message).includes(specifier);
    const why = missing ? `the optional package ${specifier} is not installed` : `${specifier} failed to load (${(cause as Error).message})`;
    throw new GroundworkError(
      'UNSUPPORTED',
      `local ONNX models need ${TRANSFORMERS_PACKAGE} 4.x, and ${why}: install it with ` +
        `'ONNXRUNTIME_NODE_INSTALL=skip npm install ${TRANSFORMERS_PACKAGE}@4' (the variable stops onnxruntime-node's install script from downloading GPU binaries), ` +
        'or use an embeddings endpoint instead (--embed-url)',
      { cause },
    );
  }
}

/** transformers.js's `env` is global: model loads that set `localModelPath` take turns. */
let loadQueue: Promise<unknown> = Promise.resolve();
function serialized<T>(fn: () => Promise<T>): Promise<T> {
  const run = loadQueue.then(fn);
  loadQueue = run.catch(() => undefined);
  return run;
}

/** What a model folder holds, read before anything loads, so a missing file is named. */
export interface ModelFolder {
  dir: string;
  /** Where the ONNX file is: `onnx` or `` (the folder itself). */
  subfolder: string;
  dtype: OnnxDtype;
  onnxFile: string;
  externalData: boolean;
  /** tokenizer_config.json model_max_length (when a real number), else config.json max_position_embeddings. */
  modelMaxTokens: number | undefined;
  pooling: Pooling | undefined;
  normalize: boolean | undefined;
  hiddenSize: number | undefined;
}

/** Reads a model folder's layout and configuration files (no model code runs). */
export function inspectModelFolder(path: string, dtype?: OnnxDtype): ModelFolder {
  const dir = resolve(path);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new GroundworkError('IO', 'no such model folder (--embed-model-path names a folder with config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx)', { file: dir });
  }
  if (!isDir) throw new GroundworkError('IO', 'not a folder: --embed-model-path names the model folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx), not a file', { file: dir });

  // transformers.js needs all three (without tokenizer_config.json its tokenizer does not load).
  const missing = ['config.json', 'tokenizer.json', 'tokenizer_config.json'].filter((f) => !existsSync(join(dir, f)));
  const found = findOnnx(dir, dtype);
  if (!found) missing.push(dtype ? `onnx/model${DTYPE_SUFFIX[dtype]}.onnx (dtype ${dtype})` : 'onnx/model.onnx (or model.onnx, model_quantized.onnx...)');
  if (missing.length > 0 || !found) {
    throw new GroundworkError('IO', `not a usable model folder: missing ${missing.join(', ')}; it needs a Hugging Face model exported to ONNX (e.g. an onnx-community model, or optimum-cli export onnx)`, { file: dir });
  }
  const config = readJson(join(dir, 'config.json')) as { max_position_embeddings?: unknown; hidden_size?: unknown };
  const tokenizerConfig = readJson(join(dir, 'tokenizer_config.json')) as { model_max_length?: unknown };
  const maxLength = positiveInt(tokenizerConfig.model_max_length) ?? positiveInt(config.max_position_embeddings);
  return { dir, ...found, modelMaxTokens: maxLength, ...poolingOf(dir), hiddenSize: positiveInt(config.hidden_size) };
}

/** Hugging Face writes 1e30 for "no limit": only sane integers count. */
function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 10_000_000 ? value : undefined;
}

function findOnnx(dir: string, dtype?: OnnxDtype): { subfolder: string; dtype: OnnxDtype; onnxFile: string; externalData: boolean } | undefined {
  for (const d of dtype ? [dtype] : DTYPES) {
    for (const subfolder of ['onnx', '']) {
      const onnxFile = join(dir, subfolder, `model${DTYPE_SUFFIX[d]}.onnx`);
      if (existsSync(onnxFile)) return { subfolder, dtype: d, onnxFile, externalData: existsSync(`${onnxFile}_data`) };
    }
  }
  return undefined;
}

/** sentence-transformers' pooling (1_Pooling/config.json) and whether modules.json has a Normalize step. */
function poolingOf(dir: string): { pooling: Pooling | undefined; normalize: boolean | undefined } {
  let pooling: Pooling | undefined;
  let normalize: boolean | undefined;
  const modulesFile = join(dir, 'modules.json');
  let poolingDir = join(dir, '1_Pooling');
  if (existsSync(modulesFile)) {
    const modules = readJson(modulesFile);
    if (Array.isArray(modules)) {
      const types = modules.map((m) => String((m as { type?: unknown }).type ?? ''));
      normalize = types.some((t) => t.endsWith('.Normalize'));
      const poolingModule = modules.find((m) => String((m as { type?: unknown }).type ?? '').endsWith('.Pooling')) as { path?: unknown } | undefined;
      if (typeof poolingModule?.path === 'string') poolingDir = join(dir, poolingModule.path);
    }
  }
  const poolingFile = join(poolingDir, 'config.json');
  if (existsSync(poolingFile)) {
    const p = readJson(poolingFile) as Record<string, unknown>;
    if (p.pooling_mode_cls_token === true) pooling = 'cls';
    else if (p.pooling_mode_lasttoken === true) pooling = 'last_token';
    else if (p.pooling_mode_mean_tokens === true) pooling = 'mean';
  }
  return { pooling, normalize };
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new GroundworkError('CORRUPT', `not valid JSON: ${(cause as Error).message}`, { file, cause });
  }
}

export class OnnxEmbedder implements Embedder {
  readonly provider = 'onnx';
  readonly model: string;
  readonly maxInputTokens: number;
  readonly dimensions: number;
  readonly pooling: Pooling;
  readonly normalize: boolean;
  readonly folder: string;
  readonly documentPrefix?: string;
  readonly queryPrefix?: string;
  readonly #extractor: FeatureExtractor;
  readonly #batchSize: number;
  /** One model run at a time (each already uses onnxruntime's threads). */
  readonly #runs = new Semaphore(1);
  #closed = false;

  private constructor(init: { settings: OnnxSettings; folder: ModelFolder; extractor: FeatureExtractor; dimensions: number; pooling: Pooling; normalize: boolean; maxInputTokens: number }) {
    const { settings, folder } = init;
    this.model = settings.model ?? basename(folder.dir);
    this.folder = folder.dir;
    this.dimensions = init.dimensions;
    this.pooling = init.pooling;
    this.normalize = init.normalize;
    this.maxInputTokens = init.maxInputTokens;
    this.#extractor = init.extractor;
    this.#batchSize = settings.batchSize ?? ONNX_DEFAULTS.batchSize;
    if (settings.documentPrefix !== undefined) this.documentPrefix = settings.documentPrefix;
    if (settings.queryPrefix !== undefined) this.queryPrefix = settings.queryPrefix;
  }

  /** Loads the folder's model: checks the files, imports transformers.js, builds the session, learns the dimensions. */
  static async load(input: OnnxSettings, options: { transformers?: string } = {}): Promise<OnnxEmbedder> {
    const settings = parseSettings(onnxSettingsSchema, input, 'onnx embedder settings');
    const folder = inspectModelFolder(settings.path, settings.dtype);
    const maxInputTokens = settings.maxInputTokens ?? folder.modelMaxTokens ?? ONNX_DEFAULTS.maxInputTokens;
    if (folder.modelMaxTokens !== undefined && maxInputTokens > folder.modelMaxTokens) {
      throw new GroundworkError('INVALID_OPTIONS', `maxInputTokens ${maxInputTokens} is more than the model's own limit of ${folder.modelMaxTokens} tokens (tokenizer_config.json): longer inputs would be truncated`, { file: folder.dir });
    }
    const pooling = settings.pooling ?? folder.pooling ?? ONNX_DEFAULTS.pooling;
    const normalize = settings.normalize ?? folder.normalize ?? ONNX_DEFAULTS.normalize;
    const transformers = await importTransformers(options.transformers);
    const extractor = await serialized(async () => {
      const { env } = transformers;
      const previous = env.localModelPath;
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = dirname(folder.dir) + sep;
      try {
        return await transformers.pipeline('feature-extraction', basename(folder.dir), {
          local_files_only: true,
          dtype: folder.dtype,
          subfolder: folder.subfolder,
          device: 'cpu',
          ...(folder.externalData && { use_external_data_format: true }),
          ...(settings.threads !== undefined && { session_options: { intraOpNumThreads: settings.threads } }),
        });
      } catch (cause) {
        throw new GroundworkError('EMBEDDER', `cannot load the model: ${(cause as Error).message}`, { file: folder.dir, cause });
      } finally {
        env.localModelPath = previous;
      }
    });
    // One tiny run learns the vector length (a projection head can make it differ from hidden_size).
    let dimensions: number;
    try {
      const probe = await extractor(['dimensions'], { pooling, normalize });
      dimensions = probe.dims[probe.dims.length - 1]!;
      if (probe.dims.length !== 2) throw new Error(`the model's output has shape [${probe.dims.join(', ')}] after ${pooling} pooling, not [texts, dimensions]`);
    } catch (cause) {
      await extractor.dispose().catch(() => undefined);
      throw cause instanceof GroundworkError ? cause : new GroundworkError('EMBEDDER', `the model does not run: ${(cause as Error).message}`, { file: folder.dir, cause });
    }
    if (settings.dimensions !== undefined && settings.dimensions !== dimensions) {
      await extractor.dispose().catch(() => undefined);
      throw new GroundworkError('EMBEDDER', `the model makes ${dimensions}-dimensional vectors, but ${settings.dimensions} were configured (--embed-dimensions)`, { file: folder.dir });
    }
    return new OnnxEmbedder({ settings, folder, extractor, dimensions, pooling, normalize, maxInputTokens });
  }

  get id(): string {
    return `onnx:${this.model}:${this.dimensions}:${this.pooling}${this.normalize ? '-norm' : ''}`;
  }

  /** Tokens as the model sees them, [CLS]/[SEP] or other special tokens included. */
  countTokens(text: string): number {
    return this.#extractor.tokenizer.encode(text).length;
  }

  async embed(texts: readonly string[], options: EmbedCallOptions = {}): Promise<Float32Array[]> {
    if (this.#closed) throw new GroundworkError('EMBEDDER', 'this embedder was closed', { file: this.folder });
    const tokens = checkInputs(texts, this);
    // Runs pad every text to the longest in the batch: batching texts of similar length wastes least.
    const order = texts.map((_, i) => i).sort((a, b) => tokens[a]! - tokens[b]!);
    const out = new Array<Float32Array>(texts.length);
    for (let from = 0; from < order.length; from += this.#batchSize) {
      if (options.signal?.aborted) throw options.signal.reason;
      const ids = order.slice(from, from + this.#batchSize);
      let result: { data: ArrayLike<number>; dims: number[] };
      try {
        result = await this.#runs.run(() => this.#extractor(ids.map((i) => texts[i]!), { pooling: this.pooling, normalize: this.normalize }), options.signal);
      } catch (cause) {
        if (options.signal?.aborted) throw options.signal.reason;
        throw new GroundworkError('EMBEDDER', `the model failed: ${(cause as Error).message}`, { file: this.folder, cause });
      }
      const [rows, width] = result.dims;
      if (rows !== ids.length || width !== this.dimensions || result.data.length !== ids.length * this.dimensions) {
        throw new GroundworkError('EMBEDDER', `the model answered shape [${result.dims.join(', ')}] for ${ids.length} texts of ${this.dimensions} dimensions`, { file: this.folder });
      }
      const data = result.data instanceof Float32Array ? result.data : Float32Array.from(result.data);
      const d = this.dimensions;
      ids.forEach((textIndex, row) => {
        out[textIndex] = data.slice(row * d, (row + 1) * d);
      });
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#extractor.dispose();
  }

  toString(): string {
    return `OnnxEmbedder(${this.folder}, ${this.pooling}${this.normalize ? ', normalized' : ''})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

export function createOnnxEmbedder(settings: OnnxSettings): Promise<Embedder> {
  return OnnxEmbedder.load(settings);
}

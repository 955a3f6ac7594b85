/**
 * Where embedder and reranker settings come from, defined once: each setting's CLI flag, its
 * environment variable and its type. The values are validated by the provider's zod schema
 * (src/embed/openai.ts, onnx.ts, rerank.ts), whose descriptions are also the flags' help.
 *
 * Precedence, per setting: flags > environment > the library's stored settings. The provider is
 * chosen by the highest layer that names one (`--embed-provider`, or implied: a model path means
 * `onnx`, a URL means `openai`); a lower layer that names a different provider is ignored as a
 * whole (its model and URL belong to the other provider). Keys come only from flags given by the
 * caller's code or the environment, and are never part of the settings.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { GroundworkError } from '../errors.js';
import { onnxSettingsSchema } from './onnx.js';
import { openAiSettingsSchema } from './openai.js';
import { createEmbedder, describeIssues, getEmbedderDefinition, validateEmbedderSettings, type EmbedderSettings } from './registry.js';
import { createReranker, rerankSettingsSchema, type Reranker, type RerankSettings } from './rerank.js';
import type { Embedder, EmbedderContext } from './types.js';

type ValueType = 'string' | 'int' | 'boolean' | 'path' | 'url';

export interface SettingSource {
  /** The settings field. */
  field: string;
  /** The CLI flag, without `--`. */
  flag: string;
  /** The environment variable. */
  env: string;
  type: ValueType;
  /** Placeholder in help text. */
  metavar: string;
  /** Which providers take it (for help), when not all. */
  only?: string;
  /** Help text when the providers' schema descriptions differ (shared fields). */
  help?: string;
}

/** Every embedder setting a user can give outside code. The key is separate (env only, never stored). */
export const EMBED_SETTING_SOURCES: readonly SettingSource[] = [
  { field: 'provider', flag: 'embed-provider', env: 'GROUNDWORK_EMBEDDINGS_PROVIDER', type: 'string', metavar: 'KIND' },
  { field: 'url', flag: 'embed-url', env: 'GROUNDWORK_EMBEDDINGS_URL', type: 'url', metavar: 'URL', only: 'openai' },
  { field: 'model', flag: 'embed-model', env: 'GROUNDWORK_EMBEDDINGS_MODEL', type: 'string', metavar: 'NAME', help: "the model name the endpoint serves (sent as \"model\"); for a local model, its name in vector keys (default: the folder's name)" },
  { field: 'path', flag: 'embed-model-path', env: 'GROUNDWORK_EMBEDDINGS_MODEL_PATH', type: 'path', metavar: 'DIR', only: 'onnx' },
  { field: 'dimensions', flag: 'embed-dimensions', env: 'GROUNDWORK_EMBEDDINGS_DIMENSIONS', type: 'int', metavar: 'N' },
  { field: 'maxInputTokens', flag: 'embed-max-tokens', env: 'GROUNDWORK_EMBEDDINGS_MAX_TOKENS', type: 'int', metavar: 'N', help: "longest input in tokens; longer texts are split into windows, never truncated (default: 512 for an endpoint, the tokenizer's model_max_length for a local model)" },
  { field: 'tokenizer', flag: 'embed-tokenizer', env: 'GROUNDWORK_EMBEDDINGS_TOKENIZER', type: 'string', metavar: 'NAME', only: 'openai' },
  { field: 'batchSize', flag: 'embed-batch-size', env: 'GROUNDWORK_EMBEDDINGS_BATCH_SIZE', type: 'int', metavar: 'N', help: "texts per request (default 32, TEI's limit) or per local model run (default 16)" },
  { field: 'concurrency', flag: 'embed-concurrency', env: 'GROUNDWORK_EMBEDDINGS_CONCURRENCY', type: 'int', metavar: 'N', only: 'openai' },
  { field: 'timeoutMs', flag: 'embed-timeout', env: 'GROUNDWORK_EMBEDDINGS_TIMEOUT_MS', type: 'int', metavar: 'MS', only: 'openai' },
  { field: 'maxRetries', flag: 'embed-retries', env: 'GROUNDWORK_EMBEDDINGS_RETRIES', type: 'int', metavar: 'N', only: 'openai' },
  { field: 'pooling', flag: 'embed-pooling', env: 'GROUNDWORK_EMBEDDINGS_POOLING', type: 'string', metavar: 'P', only: 'onnx' },
  { field: 'normalize', flag: 'embed-normalize', env: 'GROUNDWORK_EMBEDDINGS_NORMALIZE', type: 'boolean', metavar: 'yes|no', only: 'onnx' },
  { field: 'documentPrefix', flag: 'embed-doc-prefix', env: 'GROUNDWORK_EMBEDDINGS_DOC_PREFIX', type: 'string', metavar: 'TEXT' },
  { field: 'queryPrefix', flag: 'embed-query-prefix', env: 'GROUNDWORK_EMBEDDINGS_QUERY_PREFIX', type: 'string', metavar: 'TEXT' },
];
export const EMBED_KEY_ENV = 'GROUNDWORK_EMBEDDINGS_KEY';

export const RERANK_SETTING_SOURCES: readonly SettingSource[] = [
  { field: 'url', flag: 'rerank-url', env: 'GROUNDWORK_RERANK_URL', type: 'url', metavar: 'URL' },
  { field: 'api', flag: 'rerank-api', env: 'GROUNDWORK_RERANK_API', type: 'string', metavar: 'API' },
  { field: 'model', flag: 'rerank-model', env: 'GROUNDWORK_RERANK_MODEL', type: 'string', metavar: 'NAME' },
  { field: 'batchSize', flag: 'rerank-batch-size', env: 'GROUNDWORK_RERANK_BATCH_SIZE', type: 'int', metavar: 'N' },
  { field: 'timeoutMs', flag: 'rerank-timeout', env: 'GROUNDWORK_RERANK_TIMEOUT_MS', type: 'int', metavar: 'MS' },
];
export const RERANK_KEY_ENV = 'GROUNDWORK_RERANK_KEY';

/** Settings given by flags, by the environment, or by code: typed values, any subset. */
export type SettingsInput = Record<string, string | number | boolean | undefined>;

/** Where a value came from, for messages. */
type Layer = 'flag' | 'env' | 'stored';

/** `raw` as the setting's type, or INVALID_OPTIONS naming `where` (a flag or a variable). */
export function parseSettingValue(source: SettingSource, raw: string, where: string): string | number | boolean {
  const value = raw.trim();
  switch (source.type) {
    case 'int':
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new GroundworkError('INVALID_OPTIONS', `${where} must be a whole number, got '${raw}'`);
      return Number(value);
    case 'boolean':
      if (/^(1|true|yes|on)$/i.test(value)) return true;
      if (/^(0|false|no|off)$/i.test(value)) return false;
      throw new GroundworkError('INVALID_OPTIONS', `${where} must be yes or no, got '${raw}'`);
    case 'path':
      if (value === '') throw new GroundworkError('INVALID_OPTIONS', `${where} needs a folder`);
      return resolve(value);
    case 'url':
      if (value === '') throw new GroundworkError('INVALID_OPTIONS', `${where} needs a URL`);
      return value;
    default:
      // Prefixes keep their spaces ("search_query: "): only names are trimmed.
      return source.field.endsWith('Prefix') ? raw : value;
  }
}

/** The settings an environment gives (`process.env` by default); unset and empty variables are skipped. */
export function settingsFromEnv(sources: readonly SettingSource[], env: NodeJS.ProcessEnv = process.env): SettingsInput {
  const out: SettingsInput = {};
  for (const source of sources) {
    const raw = env[source.env];
    if (raw === undefined || raw === '') continue;
    out[source.field] = parseSettingValue(source, raw, source.env);
  }
  return out;
}

export interface ResolveInput {
  /** From the CLI (see src/cli/embed-options.ts) or code; `key` may be given here too. */
  flags?: SettingsInput & { key?: string | undefined };
  /** Default `process.env`; pass `{}` to ignore the environment. */
  env?: NodeJS.ProcessEnv;
  /** The library's stored settings: an object, its JSON text, or undefined. */
  stored?: unknown;
}

export interface ResolvedEmbedderSettings {
  /** Validated, JSON, no key: store it as is. */
  settings: EmbedderSettings;
  key: string | undefined;
  /** Where each setting came from. */
  sources: Record<string, Layer>;
}

function definedEntries(input: object | undefined): [string, unknown][] {
  return input ? Object.entries(input).filter(([, v]) => v !== undefined) : [];
}

function parseStored(stored: unknown, what: string): Record<string, unknown> | undefined {
  if (stored === undefined || stored === null || stored === '') return undefined;
  let value = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch {
      throw new GroundworkError('INVALID_OPTIONS', `the library's stored ${what} settings are not JSON`);
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new GroundworkError('INVALID_OPTIONS', `the library's stored ${what} settings are not an object`);
  return value as Record<string, unknown>;
}

/** The provider a layer names: `provider`, else implied by a model path (onnx) or a URL (openai). */
function providerOf(layer: Record<string, unknown>, describe: (field: string) => string): string | undefined {
  if (typeof layer.provider === 'string') return layer.provider;
  if (layer.path !== undefined && layer.url !== undefined) {
    throw new GroundworkError('INVALID_OPTIONS', `${describe('url')} and ${describe('path')} both name an embedder: give one (an endpoint, or a local model folder)`);
  }
  if (layer.path !== undefined) return 'onnx';
  if (layer.url !== undefined) return 'openai';
  return undefined;
}

/** The fields a provider's schema takes (all, for a schema that is not an object). */
function fieldsOf(provider: string): Set<string> | undefined {
  const schema = getEmbedderDefinition(provider).schema as unknown as { shape?: Record<string, unknown> };
  return schema.shape ? new Set(Object.keys(schema.shape)) : undefined;
}

/**
 * The embedder settings in force, or undefined when none is configured anywhere. INVALID_OPTIONS
 * names the flag, variable or stored setting at fault.
 */
export function resolveEmbedderSettings(input: ResolveInput = {}): ResolvedEmbedderSettings | undefined {
  const { key: flagKey, ...flagValues } = input.flags ?? {};
  const env = input.env ?? process.env;
  const layers: { layer: Layer; values: Record<string, unknown> }[] = [
    { layer: 'flag', values: Object.fromEntries(definedEntries(flagValues)) },
    { layer: 'env', values: settingsFromEnv(EMBED_SETTING_SOURCES, env) },
    { layer: 'stored', values: parseStored(input.stored, 'embedder') ?? {} },
  ];
  const name = (layer: Layer) => (field: string) => settingName(EMBED_SETTING_SOURCES, layer, field, 'embedder');
  const named = layers.map((l) => providerOf(l.values, name(l.layer)));
  const chosenAt = named.findIndex((p) => p !== undefined);
  if (chosenAt < 0) {
    const stray = layers.flatMap((l) => definedEntries(l.values).map(([f]) => name(l.layer)(f)));
    if (stray.length > 0) {
      throw new GroundworkError('INVALID_OPTIONS', `${stray.join(', ')} given, but no embedder: name an endpoint (--embed-url / GROUNDWORK_EMBEDDINGS_URL) or a local model folder (--embed-model-path)`);
    }
    return undefined;
  }
  const provider = named[chosenAt]!;
  const known = fieldsOf(provider);
  const merged: Record<string, unknown> = {};
  const sources: Record<string, Layer> = {};
  // Lowest layer first, so higher layers overwrite.
  for (let i = layers.length - 1; i >= 0; i--) {
    const { layer, values } = layers[i]!;
    if (named[i] !== undefined && named[i] !== provider) continue;
    for (const [field, value] of definedEntries(values)) {
      // A flag the provider does not take is a mistake worth saying; ambient settings for another provider are not.
      if (known && !known.has(field) && layer !== 'flag') continue;
      merged[field] = value;
      sources[field] = layer;
    }
  }
  merged.provider = provider;
  sources.provider = layers[chosenAt]!.layer;
  const result = getEmbedderDefinition(provider).schema.safeParse(merged);
  if (!result.success) {
    const nameOf = (path: readonly PropertyKey[]) => settingName(EMBED_SETTING_SOURCES, sources[String(path[0])] ?? 'flag', String(path[0] ?? ''), 'embedder');
    throw new GroundworkError('INVALID_OPTIONS', `${provider} embedder: ${describeIssues(result.error.issues, nameOf)}`);
  }
  const key = flagKey ?? (env[EMBED_KEY_ENV] || undefined);
  return { settings: result.data as EmbedderSettings, key: key?.trim() || undefined, sources };
}

/** `--embed-url`, `GROUNDWORK_EMBEDDINGS_URL` or `the library setting embedder.url`, for messages. */
function settingName(sources: readonly SettingSource[], layer: Layer, field: string, what: string): string {
  const source = sources.find((s) => s.field === field);
  if (layer === 'stored' || !source) return `the library setting ${what}.${field}`;
  return layer === 'flag' ? `--${source.flag}` : source.env;
}

/**
 * Resolves the settings and makes the embedder (a local model loads here). Undefined when no
 * embedder is configured. `settings` is safe to store in the library (no key).
 */
export async function openEmbedder(input: ResolveInput & { context?: Omit<EmbedderContext, 'key'> } = {}): Promise<{ settings: EmbedderSettings; embedder: Embedder } | undefined> {
  const resolved = resolveEmbedderSettings(input);
  if (!resolved) return undefined;
  const embedder = await createEmbedder(resolved.settings, { ...input.context, ...(resolved.key !== undefined && { key: resolved.key }) });
  return { settings: resolved.settings, embedder };
}

export interface ResolvedRerankSettings {
  settings: RerankSettings;
  key: string | undefined;
  sources: Record<string, Layer>;
}

/** The reranker settings in force (flags > env > stored), or undefined when no rerank URL is given anywhere. */
export function resolveRerankSettings(input: ResolveInput = {}): ResolvedRerankSettings | undefined {
  const { key: flagKey, ...flagValues } = input.flags ?? {};
  const env = input.env ?? process.env;
  const layers: { layer: Layer; values: Record<string, unknown> }[] = [
    { layer: 'stored', values: parseStored(input.stored, 'rerank') ?? {} },
    { layer: 'env', values: settingsFromEnv(RERANK_SETTING_SOURCES, env) },
    { layer: 'flag', values: Object.fromEntries(definedEntries(flagValues)) },
  ];
  const merged: Record<string, unknown> = {};
  const sources: Record<string, Layer> = {};
  for (const { layer, values } of layers) {
    for (const [field, value] of definedEntries(values)) {
      merged[field] = value;
      sources[field] = layer;
    }
  }
  if (Object.keys(merged).length === 0) return undefined;
  const nameOf = (path: readonly PropertyKey[]) => settingName(RERANK_SETTING_SOURCES, sources[String(path[0])] ?? 'flag', String(path[0] ?? ''), 'rerank');
  if (merged.url === undefined) {
    throw new GroundworkError('INVALID_OPTIONS', `${Object.keys(merged).map((f) => nameOf([f])).join(', ')} given, but no rerank endpoint (--rerank-url / GROUNDWORK_RERANK_URL)`);
  }
  const result = rerankSettingsSchema.safeParse(merged);
  if (!result.success) throw new GroundworkError('INVALID_OPTIONS', `reranker: ${describeIssues(result.error.issues, nameOf)}`);
  const key = flagKey ?? (env[RERANK_KEY_ENV] || undefined);
  return { settings: result.data, key: key?.trim() || undefined, sources };
}

/** Resolves the reranker settings and makes the client; undefined when none is configured. */
export function openReranker(input: ResolveInput & { context?: Omit<EmbedderContext, 'key'> } = {}): { settings: RerankSettings; reranker: Reranker } | undefined {
  const resolved = resolveRerankSettings(input);
  if (!resolved) return undefined;
  return { settings: resolved.settings, reranker: createReranker(resolved.settings, { ...input.context, ...(resolved.key !== undefined && { key: resolved.key }) }) };
}

/** The schemas whose descriptions document each group of settings. */
export const EMBED_SETTING_SCHEMAS: readonly z.ZodObject[] = [openAiSettingsSchema, onnxSettingsSchema];
export const RERANK_SETTING_SCHEMAS: readonly z.ZodObject[] = [rerankSettingsSchema];

/** A setting's description, from the first schema that has the field: the help text of its flag. */
export function settingDescription(source: SettingSource, schemas: readonly z.ZodObject[]): string {
  if (source.help !== undefined) return source.help;
  if (source.field === 'provider') return 'the embedder kind: openai (an endpoint), onnx (a local model) or one an application registered (default: implied by --embed-url or --embed-model-path)';
  for (const schema of schemas) {
    const field = (schema.shape as Record<string, z.ZodType>)[source.field];
    if (field?.description) return field.description;
  }
  return source.field;
}

export { validateEmbedderSettings };

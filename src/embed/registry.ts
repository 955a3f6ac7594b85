/**
 * Embedding providers by kind. A provider is a settings schema (zod; the settings are plain JSON,
 * safe to store in a library) and a factory. Adding a built-in = one file in this folder + one
 * entry below; an application adds its own with `registerEmbedder(kind, factory, { schema })`.
 */
import { z } from 'zod';
import { GroundworkError } from '../errors.js';
import { createOnnxEmbedder, onnxSettingsSchema } from './onnx.js';
import { createOpenAiEmbedder, openAiSettingsSchema } from './openai.js';
import { describeIssues } from './issues.js';
import type { Embedder, EmbedderContext, EmbedderFactory } from './types.js';

export { describeIssues };

export interface EmbedderDefinition<S = any> {
  readonly kind: string;
  readonly description: string;
  /** Validates a settings object (its `provider` field included); unknown fields are refused. */
  readonly schema: z.ZodType<S>;
  readonly create: EmbedderFactory<S>;
}

/** Settings of any provider: `provider` names it, the rest is the provider's own schema. */
export interface EmbedderSettings {
  provider: string;
  [field: string]: unknown;
}

const BUILT_IN: readonly EmbedderDefinition[] = [
  {
    kind: 'openai',
    description: 'an OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, TEI, LM Studio...)',
    schema: openAiSettingsSchema,
    create: createOpenAiEmbedder,
  },
  {
    kind: 'onnx',
    description: 'a local ONNX model folder, run with @huggingface/transformers (optional peer dependency)',
    schema: onnxSettingsSchema,
    create: createOnnxEmbedder,
  },
];

const embedders = new Map<string, EmbedderDefinition>(BUILT_IN.map((d) => [d.kind, d]));

const KIND = /^[a-z][a-z0-9_-]{0,39}$/;

/**
 * Adds (or replaces) a provider. Without a schema, settings are `{ provider: kind, ...anything JSON }`.
 * The factory gets the validated settings and the context (key, onRetry); it may be async.
 */
export function registerEmbedder<S extends { provider: string }>(
  kind: string,
  factory: EmbedderFactory<S>,
  options: { schema?: z.ZodType<S>; description?: string } = {},
): void {
  if (!KIND.test(kind)) throw new GroundworkError('INVALID_OPTIONS', `embedder kind '${kind}' must be lower-case letters, digits, - or _, starting with a letter`);
  if (typeof factory !== 'function') throw new GroundworkError('INVALID_OPTIONS', `registerEmbedder('${kind}'): the factory must be a function`);
  const schema = options.schema ?? (z.looseObject({ provider: z.literal(kind) }) as unknown as z.ZodType<S>);
  embedders.set(kind, { kind, description: options.description ?? `the ${kind} embedder`, schema, create: factory });
}

export function getEmbedderDefinition(kind: string): EmbedderDefinition {
  const definition = embedders.get(kind);
  if (!definition) throw new GroundworkError('INVALID_OPTIONS', `unknown embedder provider '${kind}'; known: ${[...embedders.keys()].join(', ')}`);
  return definition;
}

export function listEmbedders(): { kind: string; description: string }[] {
  return [...embedders.values()].map(({ kind, description }) => ({ kind, description }));
}

/**
 * Validates settings with their provider's schema (INVALID_OPTIONS naming each bad field) and
 * answers the parsed settings.
 */
export function validateEmbedderSettings(settings: unknown, where = 'embedder settings'): EmbedderSettings {
  const provider = settings && typeof settings === 'object' ? (settings as { provider?: unknown }).provider : undefined;
  if (typeof provider !== 'string') throw new GroundworkError('INVALID_OPTIONS', `${where}: 'provider' must name an embedder (${[...embedders.keys()].join(', ')})`);
  const result = getEmbedderDefinition(provider).schema.safeParse(settings);
  if (!result.success) throw new GroundworkError('INVALID_OPTIONS', `${where}: ${describeIssues(result.error.issues)}`);
  return result.data as EmbedderSettings;
}

/** Makes the embedder the settings describe (validated first), and checks the factory kept the contract's shape. */
export async function createEmbedder(settings: EmbedderSettings, context: EmbedderContext = {}): Promise<Embedder> {
  const valid = validateEmbedderSettings(settings);
  const embedder = await getEmbedderDefinition(valid.provider).create(valid, context);
  const bad = (['embed', 'countTokens', 'close'] as const).filter((m) => typeof (embedder as unknown as Record<string, unknown>)?.[m] !== 'function');
  if (bad.length > 0) throw new GroundworkError('INVALID_OPTIONS', `the '${valid.provider}' embedder factory returned an object without ${bad.join(', ')}()`);
  return embedder;
}

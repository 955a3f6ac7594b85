/** The embedding stage's public API (re-exported by src/index.ts). See docs/retrieval.md, "Embedders". */
export type { Embedder, EmbedCallOptions, EmbedderContext, EmbedderFactory, RetryEvent } from './types.js';
export { EmbedderError } from './errors.js';
export { createEmbedder, getEmbedderDefinition, listEmbedders, registerEmbedder, validateEmbedderSettings, type EmbedderDefinition, type EmbedderSettings } from './registry.js';
export { OpenAiEmbedder, OPENAI_DEFAULTS, embeddingsUrl, openAiSettingsSchema, type OpenAiSettings, type EndpointStats } from './openai.js';
export { OnnxEmbedder, ONNX_DEFAULTS, inspectModelFolder, onnxSettingsSchema, POOLINGS, type OnnxSettings, type OnnxDtype, type Pooling, type ModelFolder } from './onnx.js';
export { RerankClient, createReranker, rerankSettingsSchema, rerankUrl, RERANK_APIS, RERANK_DEFAULTS, type Reranker, type RerankApi, type RerankSettings } from './rerank.js';
export {
  EMBED_KEY_ENV,
  EMBED_SETTING_SOURCES,
  RERANK_KEY_ENV,
  RERANK_SETTING_SOURCES,
  openEmbedder,
  openReranker,
  resolveEmbedderSettings,
  resolveRerankSettings,
  settingsFromEnv,
  type ResolveInput,
  type ResolvedEmbedderSettings,
  type ResolvedRerankSettings,
  type SettingSource,
  type SettingsInput,
} from './config.js';
export {
  contextualize,
  contextualText,
  contextOptionsSchema,
  embedDocuments,
  embeddingWindows,
  embedQuery,
  ensureDimensions,
  textHash,
  type ContextOptions,
  type ContextualBlock,
  type EmbedDocumentsOptions,
  type EmbeddingText,
  type EmbedProgress,
  type EmbedReport,
  type Windows,
} from './documents.js';
export { planBatches, type Batch, type BatchLimits } from './batching.js';
export { combineVectors, normalizeInPlace } from './vectors.js';

/**
 * The embedder and reranker flags, for the commands that embed or search (`ingest`, `embed`,
 * `search`, `serve`...): option specs, help text and parsing, all derived from the one table in
 * src/embed/config.ts and the providers' zod schemas. A command adds the specs to its own, then:
 *
 *   const flags = embedFlagsFrom(args);
 *   const opened = await openEmbedder({ flags, stored: library.getSetting('embedder') });
 *
 * There is no `--embed-key` flag: a key on the command line ends up in shell history and `ps`;
 * it comes from GROUNDWORK_EMBEDDINGS_KEY (or GROUNDWORK_RERANK_KEY) only.
 */
import { GroundworkError } from '../errors.js';
import {
  EMBED_KEY_ENV,
  EMBED_SETTING_SCHEMAS,
  EMBED_SETTING_SOURCES,
  parseSettingValue,
  RERANK_KEY_ENV,
  RERANK_SETTING_SCHEMAS,
  RERANK_SETTING_SOURCES,
  settingDescription,
  type SettingSource,
  type SettingsInput,
} from '../embed/config.js';
import { stringValue, UsageError, type OptionSpecs, type ParsedArgs } from './args.js';

function specsOf(sources: readonly SettingSource[]): OptionSpecs {
  return Object.fromEntries(sources.map((s) => [s.flag, { type: 'string' }]));
}

/** `--embed-url URL`, `--embed-model NAME`, `--embed-model-path DIR`, ... (all take a value). */
export const EMBED_FLAG_SPECS: OptionSpecs = specsOf(EMBED_SETTING_SOURCES);
export const RERANK_FLAG_SPECS: OptionSpecs = specsOf(RERANK_SETTING_SOURCES);

const COLUMN = 24;
const WIDTH = 100;

/** Help lines in the commands' style: the flag, its placeholder, the schema's description, wrapped. */
function helpOf(sources: readonly SettingSource[], schemas: Parameters<typeof settingDescription>[1]): string {
  return sources
    .map((s) => {
      const only = s.only === 'openai' ? ' [endpoint]' : s.only === 'onnx' ? ' [local model]' : '';
      return helpEntry(`  --${s.flag} ${s.metavar}`, `${settingDescription(s, schemas)}${only}; env ${s.env}`);
    })
    .join('\n');
}

/** `head` then `text` wrapped at WIDTH, continuation lines indented to COLUMN (head on its own line when long). */
function helpEntry(head: string, text: string): string {
  const lines: string[] = [];
  let line: string;
  if (head.length < COLUMN - 1) {
    line = head.padEnd(COLUMN);
  } else {
    lines.push(head);
    line = ' '.repeat(COLUMN);
  }
  let empty = true;
  for (const word of text.split(' ')) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = ' '.repeat(COLUMN);
      empty = true;
    }
    line += (empty ? '' : ' ') + word;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}

export const EMBED_FLAGS_HELP = `Embedder (an OpenAI-compatible endpoint, or a local ONNX model; flags > environment > the library's settings):
${helpOf(EMBED_SETTING_SOURCES, EMBED_SETTING_SCHEMAS)}
  The API key comes from ${EMBED_KEY_ENV} only (never a flag, never stored).`;

export const RERANK_FLAGS_HELP = `Reranker (a /rerank endpoint: TEI, Jina or Cohere request shapes):
${helpOf(RERANK_SETTING_SOURCES, RERANK_SETTING_SCHEMAS)}
  The API key comes from ${RERANK_KEY_ENV} only.`;

function valuesFrom(args: ParsedArgs, sources: readonly SettingSource[]): SettingsInput {
  const out: SettingsInput = {};
  for (const source of sources) {
    const raw = stringValue(args, source.flag);
    if (raw === undefined) continue;
    try {
      out[source.field] = parseSettingValue(source, raw, `--${source.flag}`);
    } catch (error) {
      if (error instanceof GroundworkError) throw new UsageError(error.message);
      throw error;
    }
  }
  return out;
}

/** The embedder settings the flags give (typed; unset flags absent), for `resolveEmbedderSettings` / `openEmbedder`. */
export function embedFlagsFrom(args: ParsedArgs): SettingsInput {
  return valuesFrom(args, EMBED_SETTING_SOURCES);
}

/** The reranker settings the flags give, for `resolveRerankSettings` / `openReranker`. */
export function rerankFlagsFrom(args: ParsedArgs): SettingsInput {
  return valuesFrom(args, RERANK_SETTING_SOURCES);
}

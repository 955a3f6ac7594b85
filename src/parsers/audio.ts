import { basename } from 'node:path';
import { matchMagic } from '../detect/magic.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

/**
 * Audio (wav, mp3, m4a, ogg, flac...) through a user-configured OpenAI-compatible transcription
 * endpoint: the `/v1/audio/transcriptions` API that OpenAI, whisper.cpp's server (also its
 * `/inference` route), faster-whisper servers and others expose. The request asks for
 * `verbose_json` so each segment becomes a `turn` with start/end seconds; a server that answers
 * with only `text` (JSON or plain) gives one untimed turn. Nothing is downloaded and nothing runs
 * locally: without an endpoint the parser refuses with UNSUPPORTED and says how to enable it.
 */

export const DEFAULT_TRANSCRIBE_MODEL = 'whisper-1';
export const DEFAULT_TRANSCRIBE_TIMEOUT_MS = 10 * 60 * 1000;
const BODY_EXCERPT_CHARS = 300;
const WHITESPACE_RUN = /\s+/g;

export const audioParser: ParserDefinition = {
  formats: ['audio'],
  version: '1',
  textual: false,
  async parse(input: ParseInput, options: ParseOptions): Promise<DocumentDraft> {
    const config = transcriptionConfig(options);
    const mime = matchMagic(input.bytes)?.mime ?? 'application/octet-stream';
    const response = await requestTranscription(input, mime, config);
    const transcript = readTranscription(response);
    const warnings: string[] = [];
    if (transcript.elements.length === 0) warnings.push('the transcription service returned no speech (silence or unrecognised audio)');
    return {
      format: 'audio',
      mime,
      ...(transcript.language && { language: transcript.language }),
      metadata: {
        transcription: { endpoint: redactUrl(config.url), model: config.model },
        ...(transcript.duration !== undefined && { duration: transcript.duration }),
      },
      elements: transcript.elements,
      warnings,
    };
  },
};

export interface TranscriptionConfig {
  url: string;
  model: string;
  timeoutMs: number;
  apiKey?: string;
}

/** Endpoint from `options.transcribeUrl` or $GROUNDWORK_TRANSCRIBE_URL; model, key and timeout from the environment. */
export function transcriptionConfig(options: ParseOptions, env: NodeJS.ProcessEnv = process.env): TranscriptionConfig {
  const url = options.transcribeUrl ?? env.GROUNDWORK_TRANSCRIBE_URL;
  if (!url) {
    throw new GroundworkError(
      'UNSUPPORTED',
      'audio needs a transcription service, and none is configured: set GROUNDWORK_TRANSCRIBE_URL (or pass the transcribeUrl option) to an OpenAI-compatible endpoint, ' +
        "e.g. a local whisper.cpp server's http://127.0.0.1:8080/inference or any /v1/audio/transcriptions URL; GROUNDWORK_TRANSCRIBE_MODEL picks the model (default whisper-1)",
    );
  }
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new GroundworkError('INVALID_OPTIONS', `transcribeUrl '${url}' is not an http(s) URL`);
  }
  const timeout = Number(env.GROUNDWORK_TRANSCRIBE_TIMEOUT_MS);
  return {
    url,
    model: env.GROUNDWORK_TRANSCRIBE_MODEL || DEFAULT_TRANSCRIBE_MODEL,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TRANSCRIBE_TIMEOUT_MS,
    ...(env.GROUNDWORK_TRANSCRIBE_API_KEY && { apiKey: env.GROUNDWORK_TRANSCRIBE_API_KEY }),
  };
}

interface TranscriptionResponse {
  contentType: string;
  body: string;
}

/** POSTs the audio as multipart/form-data; every transport failure becomes IO naming the endpoint. */
async function requestTranscription(input: ParseInput, mime: string, config: TranscriptionConfig): Promise<TranscriptionResponse> {
  const form = new FormData();
  const fileName = input.name ? basename(input.name.replace(/#.*$/, '')) || 'audio' : 'audio';
  form.append('file', new Blob([input.bytes], { type: mime }), fileName);
  form.append('model', config.model);
  form.append('response_format', 'verbose_json');
  const where = redactUrl(config.url);
  let response: Response;
  try {
    response = await fetch(config.url, {
      method: 'POST',
      body: form,
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (error) {
    throw new GroundworkError('IO', `transcription request to ${where} failed: ${transportReason(error, config.timeoutMs)}`, { cause: error });
  }
  let body: string;
  try {
    body = await response.text();
  } catch (error) {
    throw new GroundworkError('IO', `transcription response from ${where} could not be read: ${transportReason(error, config.timeoutMs)}`, { cause: error });
  }
  if (!response.ok) {
    throw new GroundworkError('IO', `transcription service ${where} answered ${response.status} ${response.statusText}: ${excerpt(body)}`);
  }
  return { contentType: response.headers.get('content-type') ?? '', body };
}

function transportReason(error: unknown, timeoutMs: number): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${Math.round(timeoutMs / 1000)} s (GROUNDWORK_TRANSCRIBE_TIMEOUT_MS)`;
  const code = e?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is the transcription server running?)';
  if (code === 'ENOTFOUND') return 'host not found';
  return e?.cause?.message ?? e?.message ?? String(error);
}

function excerpt(body: string): string {
  const flat = body.replace(WHITESPACE_RUN, ' ').trim();
  if (!flat) return '(empty body)';
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}...` : flat;
}

/** The URL without credentials or query (which may carry a key), for messages and metadata. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

interface Transcript {
  elements: ElementDraft[];
  language?: string;
  duration?: number;
}

interface VerboseSegment {
  start?: unknown;
  end?: unknown;
  text?: unknown;
  speaker?: unknown;
}

/**
 * verbose_json (`segments` with start/end seconds) into timed turns; `{text}` or a plain-text body
 * into one untimed turn. whisper.cpp's server writes `segments` the same way.
 */
export function readTranscription(response: TranscriptionResponse): Transcript {
  const trimmed = response.body.trim();
  const looksJson = response.contentType.includes('json') || trimmed.startsWith('{');
  if (!looksJson) return { elements: trimmed ? [{ kind: 'turn', text: trimmed.replace(WHITESPACE_RUN, ' ') }] : [] };
  let json: { text?: unknown; segments?: unknown; language?: unknown; duration?: unknown };
  try {
    json = JSON.parse(trimmed) as typeof json;
  } catch (error) {
    throw new GroundworkError('IO', `transcription service answered with invalid JSON: ${excerpt(trimmed)}`, { cause: error });
  }
  const language = typeof json.language === 'string' && json.language ? json.language : undefined;
  const duration = typeof json.duration === 'number' ? json.duration : typeof json.duration === 'string' && Number.isFinite(Number(json.duration)) ? Number(json.duration) : undefined;
  const meta = { ...(language && { language }), ...(duration !== undefined && { duration }) };
  if (Array.isArray(json.segments) && json.segments.length > 0) {
    const elements: ElementDraft[] = [];
    for (const segment of json.segments as VerboseSegment[]) {
      const text = typeof segment.text === 'string' ? segment.text.replace(WHITESPACE_RUN, ' ').trim() : '';
      if (!text) continue;
      const startTime = seconds(segment.start);
      const endTime = seconds(segment.end);
      elements.push({
        kind: 'turn',
        text,
        ...(typeof segment.speaker === 'string' && segment.speaker && { speaker: segment.speaker }),
        ...(startTime !== undefined && { startTime }),
        ...(endTime !== undefined && { endTime }),
      });
    }
    return { elements, ...meta };
  }
  if (json.text === undefined) {
    throw new GroundworkError('IO', `transcription service answered without 'text' or 'segments': ${excerpt(trimmed)}`);
  }
  const text = typeof json.text === 'string' ? json.text.replace(WHITESPACE_RUN, ' ').trim() : '';
  return { elements: text ? [{ kind: 'turn', text }] : [], ...meta };
}

function seconds(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? Math.round(n * 1000) / 1000 : undefined;
}

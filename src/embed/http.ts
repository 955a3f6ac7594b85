/**
 * JSON over HTTP for the embedding and rerank clients: one POST with a per-request timeout, retried
 * with exponential backoff and jitter on 429, 408, 5xx, time-outs and dropped connections, waiting
 * what the server's `Retry-After` (seconds or HTTP-date) or `retry-after-ms` says when it says so.
 * Errors are `EmbedderError`s carrying the status and the endpoint's own message; the key is never
 * part of a message.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import { EmbedderError } from './errors.js';
import type { RetryEvent } from './types.js';

export interface RetryPolicy {
  /** Time allowed for one request, answer body included. */
  timeoutMs: number;
  /** Retries after the first attempt (0 = never retry). */
  maxRetries: number;
  /** First backoff delay; doubled on each retry, then jittered to 50-100 %. */
  retryBaseMs: number;
  /** Longest wait between attempts: a Retry-After asking for more gives up at once. */
  maxRetryDelayMs: number;
}

export interface HttpEndpoint {
  /** The URL requested. */
  url: string;
  /** The URL as messages show it: no credentials, no query string. */
  display: string;
  headers: Record<string, string>;
  /** Strings never to appear in a message (the API key). */
  secrets: readonly string[];
  /** The option and CLI flag that set `timeoutMs`, for TIMEOUT errors. */
  timeoutLimit: { name: string; flag?: string };
}

export interface RequestHooks {
  signal?: AbortSignal | undefined;
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /** Counts attempts (for statistics). */
  onAttempt?: (() => void) | undefined;
  /** Jitter source, [0, 1). */
  random?: () => number;
}

/** Statuses worth another try: rate limits, time-outs, overload and other server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/** Backoff before retry number `attempt` (from 1): base * 2^(attempt-1), at most `max`, jittered to 50-100 %. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

/**
 * How long the server asks the client to wait: `retry-after-ms` (milliseconds, OpenAI), else
 * `Retry-After` as delta-seconds (`120`, `1.5`) or an HTTP-date (RFC 9110); undefined when absent
 * or unreadable. A date in the past means now (0).
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** `https://user:pw@host/v1/embeddings?key=x` -> `https://host/v1/embeddings`. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * The endpoint for `url` with `key` as a bearer token. Credentials in the URL
 * (`https://user:pw@host/...`, which fetch refuses) become Basic authentication when no key is given;
 * either way they leave the URL and join the secrets never shown.
 */
export function endpointFor(url: string, key: string | undefined, timeoutLimit: HttpEndpoint['timeoutLimit']): HttpEndpoint {
  const u = new URL(url);
  const secrets: string[] = [];
  const headers: Record<string, string> = {};
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  if (user !== '' || password !== '') {
    secrets.push(...[user, password].filter((s) => s !== ''));
    if (!key) headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  if (key) {
    headers.authorization = `Bearer ${key}`;
    secrets.push(key);
  }
  return { url: u.toString(), display: displayUrl(url), headers, secrets, timeoutLimit };
}

/** Replaces every secret (of 4 characters or more) in `text` with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out;
}

const MAX_MESSAGE = 500;

/**
 * The endpoint's own explanation in an error body: OpenAI/vLLM `{error: {message}}`, TEI/Ollama
 * `{error: "..."}`, Cohere/vLLM `{message}`, FastAPI/Jina `{detail: "..." | [{msg}]}`, else the body
 * text itself (whitespace collapsed), at most 500 characters.
 */
export function endpointMessage(body: string): string | undefined {
  const text = body.trim();
  if (text === '') return undefined;
  let found: string | undefined;
  try {
    found = messageOf(JSON.parse(text));
  } catch {
    // not JSON: the text itself (an HTML error page from a proxy, a plain-text message)
  }
  const message = (found ?? text.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
  if (message === '') return undefined;
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

function messageOf(json: unknown): string | undefined {
  if (typeof json === 'string') return json;
  if (!json || typeof json !== 'object') return undefined;
  const o = json as Record<string, unknown>;
  const error = o.error;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const m = (error as Record<string, unknown>).message;
    if (typeof m === 'string') return m;
  }
  if (typeof o.message === 'string') return o.message;
  const detail = o.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail.map((d) => (d && typeof d === 'object' && typeof (d as { msg?: unknown }).msg === 'string' ? (d as { msg: string }).msg : undefined)).filter((m) => m !== undefined);
    if (parts.length > 0) return parts.join('; ');
  }
  return JSON.stringify(json);
}

/** What one attempt came to: an answer, a time-out, or a network failure. */
type Outcome =
  | { kind: 'answer'; status: number; statusText: string; headers: Headers; body: string }
  | { kind: 'timeout' }
  | { kind: 'network'; reason: string; cause: unknown };

async function attempt(endpoint: HttpEndpoint, payload: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<Outcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...endpoint.headers },
      body: payload,
      signal: combined,
    });
    const body = await res.text();
    return { kind: 'answer', status: res.status, statusText: res.statusText, headers: res.headers, body };
  } catch (cause) {
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted) return { kind: 'timeout' };
    const inner = (cause as { cause?: { code?: string; message?: string } }).cause;
    // fetch failing without a cause refused the request itself (a bad URL or header): no retry helps.
    if (!inner) throw new EmbedderError('EMBEDDER', `cannot send the request: ${redact((cause as Error).message, endpoint.secrets)}`, { endpoint: endpoint.display, cause });
    return { kind: 'network', reason: inner.code ?? inner.message ?? (cause as Error).message, cause };
  }
}

async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return;
  try {
    await sleepFor(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/**
 * POSTs `body` as JSON and answers the parsed JSON of a 2xx answer. Retries as `policy` says;
 * a non-retryable status (400, 401, 404, 413, 422...) fails at once, so callers can react to it
 * (the embedder splits a batch on 413).
 */
export async function postJson(endpoint: HttpEndpoint, body: unknown, policy: RetryPolicy, hooks: RequestHooks = {}): Promise<unknown> {
  const payload = JSON.stringify(body);
  const random = hooks.random ?? Math.random;
  for (let n = 1; ; n++) {
    if (hooks.signal?.aborted) throw hooks.signal.reason;
    hooks.onAttempt?.();
    const outcome = await attempt(endpoint, payload, policy.timeoutMs, hooks.signal);
    let reason: string;
    let status: number | undefined;
    let serverDelay: number | undefined;
    if (outcome.kind === 'answer') {
      if (outcome.status >= 200 && outcome.status < 300) return parseJson(endpoint, outcome.body, outcome.status);
      const message = endpointMessage(outcome.body);
      const safeMessage = message === undefined ? undefined : redact(message, endpoint.secrets);
      if (!isRetryableStatus(outcome.status)) throw statusError(endpoint, outcome, safeMessage, n);
      status = outcome.status;
      reason = `HTTP ${outcome.status}`;
      serverDelay = retryAfterMs(outcome.headers);
      if (serverDelay !== undefined && serverDelay > policy.maxRetryDelayMs) {
        throw statusError(endpoint, outcome, safeMessage, n, `the endpoint asks to wait ${Math.ceil(serverDelay / 1000)} s before retrying, longer than maxRetryDelayMs (${policy.maxRetryDelayMs} ms)`);
      }
      if (n > policy.maxRetries) throw statusError(endpoint, outcome, safeMessage, n);
    } else if (outcome.kind === 'timeout') {
      reason = 'timeout';
      if (n > policy.maxRetries) {
        throw new EmbedderError('TIMEOUT', `no answer within ${policy.timeoutMs} ms${tries(n)}; raise the time-out${endpoint.timeoutLimit.flag ? ` (${endpoint.timeoutLimit.flag})` : ''} or check the server`, {
          endpoint: endpoint.display,
          attempts: n,
          limit: { name: endpoint.timeoutLimit.name, value: policy.timeoutMs, ...(endpoint.timeoutLimit.flag !== undefined && { flag: endpoint.timeoutLimit.flag }) },
        });
      }
    } else {
      reason = outcome.reason;
      if (n > policy.maxRetries) {
        throw new EmbedderError('EMBEDDER', `cannot reach the endpoint (${redact(outcome.reason, endpoint.secrets)})${tries(n)}; is the server running?`, {
          endpoint: endpoint.display,
          attempts: n,
          cause: outcome.cause,
        });
      }
    }
    const delayMs = serverDelay ?? backoffMs(n, policy.retryBaseMs, policy.maxRetryDelayMs, random);
    hooks.onRetry?.({ attempt: n, delayMs, reason, retryAfter: serverDelay !== undefined, ...(status !== undefined && { status }) });
    await wait(delayMs, hooks.signal);
  }
}

function tries(n: number): string {
  return n > 1 ? ` (${n} attempts)` : '';
}

function statusError(
  endpoint: HttpEndpoint,
  answer: { status: number; statusText: string },
  message: string | undefined,
  attempts: number,
  extra?: string,
): EmbedderError {
  const head = `HTTP ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}`;
  const text = `${head}${message ? `: ${message}` : ''}${tries(attempts)}${extra ? `; ${extra}` : ''}${hint(answer.status)}`;
  return new EmbedderError('EMBEDDER', text, {
    endpoint: endpoint.display,
    status: answer.status,
    attempts,
    ...(message !== undefined && { endpointMessage: message }),
  });
}

/** What a user can do about the common statuses. */
function hint(status: number): string {
  if (status === 401 || status === 403) return ' (check the API key: GROUNDWORK_EMBEDDINGS_KEY / GROUNDWORK_RERANK_KEY)';
  if (status === 404) return ' (check the URL and the model name)';
  return '';
}

function parseJson(endpoint: HttpEndpoint, body: string, status: number): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new EmbedderError('EMBEDDER', `unusable answer from the endpoint: not JSON (${body.length} bytes starting ${JSON.stringify(redact(body.slice(0, 60), endpoint.secrets))})`, { endpoint: endpoint.display, status });
  }
}

/**
 * Test doubles for the services that cannot exist on this machine, speaking their real protocols
 * over real HTTP on 127.0.0.1:
 * - `startEmbeddingServer`: OpenAI's `POST /v1/embeddings` (as OpenAI, Ollama, vLLM and TEI serve
 *   it), with deterministic vectors (`fixtureVector`, from a hash of the text, so tests can check
 *   order and content) and scripted misbehaviour: error statuses with each family's error body,
 *   Retry-After, slow answers, wrong dimensions, shuffled or broken answers, dropped connections.
 * - `startRerankServer`: `/rerank` in the TEI, Jina and Cohere shapes, scores from `fixtureRerankScore`.
 * The tiny ONNX model is in onnx-model.ts. Later suites (vector store, server, MCP) reuse these.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// ---------------------------------------------------------------- deterministic answers

/** A unit vector from the sha256 chain of `text`: the same text always gets the same vector. */
export function fixtureVector(text: string, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  let block = createHash('sha256').update(text, 'utf8').digest();
  for (let d = 0; d < dimensions; d++) {
    if (d > 0 && d % 16 === 0) block = createHash('sha256').update(block).digest();
    out[d] = block.readUInt16LE((d % 16) * 2) / 32768 - 1;
  }
  let norm = 0;
  for (const x of out) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < dimensions; d++) out[d] = out[d]! / norm;
  return out;
}

/** Lower-cased words (Latin) and single characters (CJK) of a text. */
function terms(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu) ?? []);
}

/** How many of the query's terms the text has, plus a tie-break in [0, 0.5) from a hash of the pair. */
export function fixtureRerankScore(query: string, text: string): number {
  const have = terms(text);
  let shared = 0;
  for (const t of terms(query)) if (have.has(t)) shared++;
  const tie = createHash('sha256').update(`${query}\u0000${text}`).digest().readUInt16LE(0) / 65536 / 2;
  return shared + tie;
}

// ---------------------------------------------------------------- error bodies as each family sends them

export const errorBodies = {
  /** OpenAI, vLLM (older), LM Studio. */
  openai: (message: string, type = 'invalid_request_error') => ({ error: { message, type, param: null, code: null } }),
  /** Hugging Face TEI. */
  tei: (message: string, errorType = 'Validation') => ({ error: message, error_type: errorType }),
  /** Ollama. */
  ollama: (message: string) => ({ error: message }),
  /** Cohere, vLLM (newer: `{object: "error", message}`). */
  cohere: (message: string) => ({ message }),
  /** Jina and other FastAPI servers. */
  fastapi: (detail: string) => ({ detail }),
};

// ---------------------------------------------------------------- scripted behaviour

export type Behaviour =
  /** Answer this status with this body (JSON unless a string) and headers. */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Answer correctly, after this long (a slow server; the client's time-out should fire). */
  | { delayMs: number }
  /** Answer correctly, but with vectors of this length. */
  | { dimensions: number }
  /** Answer correctly, with the items (embeddings or rerank results) in reverse order. */
  | { reverse: true }
  /** Answer with the correct JSON transformed (drop an item, break an index...). */
  | { mutate: (json: any) => unknown }
  /** Close the connection without answering. */
  | { destroy: true };

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FixtureServer {
  /** Base URL, e.g. `http://127.0.0.1:PORT/v1` (embeddings) or `http://127.0.0.1:PORT` (rerank). */
  url: string;
  /** Every request received, in order of arrival. */
  requests: RecordedRequest[];
  /** Most requests handled at the same time. */
  maxInFlight: number;
  /** Behaviours for the next requests, one each, in order of arrival. */
  next(...behaviours: Behaviour[]): void;
  /** A behaviour for every request once the queue is empty (undefined: answer correctly). */
  always(behaviour: Behaviour | undefined): void;
  /** Forgets recorded requests and the in-flight maximum. */
  reset(): void;
  close(): Promise<void>;
}

type Answer = { status: number; json: unknown };
type Handler = (req: RecordedRequest, behaviour: Behaviour | undefined) => Answer;

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
  res.end(text);
}

async function startServer(basePath: string, handle: Handler, key: string | undefined): Promise<FixtureServer> {
  const queue: Behaviour[] = [];
  let persistent: Behaviour | undefined;
  let inFlight = 0;
  const fixture: FixtureServer = {
    url: '',
    requests: [],
    maxInFlight: 0,
    next: (...behaviours) => void queue.push(...behaviours),
    always: (behaviour) => void (persistent = behaviour),
    reset: () => {
      fixture.requests.length = 0;
      fixture.maxInFlight = 0;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer(async (req, res) => {
    inFlight++;
    fixture.maxInFlight = Math.max(fixture.maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const recorded: RecordedRequest = { path: req.url ?? '', headers: req.headers, body };
    fixture.requests.push(recorded);
    const behaviour = queue.shift() ?? persistent;
    if (behaviour && 'destroy' in behaviour) {
      req.socket.destroy();
      return;
    }
    if (behaviour && 'status' in behaviour) {
      send(res, behaviour.status, behaviour.body ?? '', behaviour.headers);
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, { error: 'method not allowed' });
      return;
    }
    if (key !== undefined && req.headers.authorization !== `Bearer ${key}`) {
      send(res, 401, errorBodies.openai('Incorrect API key provided. You can find your API key at https://example.invalid/keys.', 'invalid_request_error'));
      return;
    }
    if (typeof body !== 'object' || body === null) {
      send(res, 400, errorBodies.openai('We could not parse the JSON body of your request.'));
      return;
    }
    const answer = handle(recorded, behaviour);
    const json = behaviour && 'mutate' in behaviour ? behaviour.mutate(answer.json) : answer.json;
    if (behaviour && 'delayMs' in behaviour) {
      const timer = setTimeout(() => {
        if (!res.destroyed) send(res, answer.status, json);
      }, behaviour.delayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    send(res, answer.status, json);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fixture.url = `http://127.0.0.1:${port}${basePath}`;
  return fixture;
}

// ---------------------------------------------------------------- the embeddings server

export interface EmbeddingServerOptions {
  /** Vector length (default 8). */
  dimensions?: number;
  /** Require `Authorization: Bearer KEY` (401 with OpenAI's error body otherwise). */
  key?: string;
  /** Refuse more inputs per request with 413 and TEI's message (TEI's max_client_batch_size). */
  maxBatch?: number;
  /** Refuse inputs longer than this many characters with 413 (TEI without truncation). */
  maxInputChars?: number;
}

/** A loopback server speaking OpenAI's embeddings protocol. `url` ends in `/v1`. */
export function startEmbeddingServer(options: EmbeddingServerOptions = {}): Promise<FixtureServer> {
  const dims = options.dimensions ?? 8;
  return startServer('/v1', (req, behaviour) => {
    if (!req.path.endsWith('/embeddings')) return { status: 404, json: errorBodies.openai(`Invalid URL (POST ${req.path})`) };
    const { input, model, encoding_format: format } = req.body as { input?: unknown; model?: unknown; encoding_format?: unknown };
    const inputs = typeof input === 'string' ? [input] : input;
    if (!Array.isArray(inputs) || inputs.some((t) => typeof t !== 'string')) return { status: 400, json: errorBodies.openai("'input' must be a string or an array of strings") };
    if (typeof model !== 'string' || model === '') return { status: 400, json: errorBodies.openai('you must provide a model parameter') };
    if (inputs.some((t) => t === '')) return { status: 400, json: errorBodies.openai("'$.input' is invalid. Please check the API reference.") };
    if (options.maxBatch !== undefined && inputs.length > options.maxBatch) {
      return { status: 413, json: errorBodies.tei(`batch size ${inputs.length} > maximum allowed batch size ${options.maxBatch}`) };
    }
    const long = options.maxInputChars === undefined ? -1 : inputs.findIndex((t: string) => t.length > options.maxInputChars!);
    if (long >= 0) return { status: 413, json: errorBodies.tei(`Input validation error: inputs must have less than ${options.maxInputChars} characters. Given: ${inputs[long].length}`) };
    const width = behaviour && 'dimensions' in behaviour ? behaviour.dimensions : dims;
    let data = (inputs as string[]).map((text, index) => {
      const vector = fixtureVector(text, width);
      return { object: 'embedding', index, embedding: format === 'base64' ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector) };
    });
    if (behaviour && 'reverse' in behaviour) data = data.reverse();
    const tokens = (inputs as string[]).reduce((n, t) => n + t.split(/\s+/).length, 0);
    return { status: 200, json: { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
  }, options.key);
}

// ---------------------------------------------------------------- the rerank server

export type RerankShapeName = 'tei' | 'jina' | 'cohere';

/** A loopback `/rerank` server in one API's shape (answers sorted by score, best first, as the real ones). */
export function startRerankServer(options: { api: RerankShapeName; key?: string }): Promise<FixtureServer> {
  return startServer('', (req, behaviour) => {
    if (!req.path.endsWith('/rerank')) return { status: 404, json: { error: `no route ${req.path}` } };
    const body = req.body as { query?: unknown; texts?: unknown; documents?: unknown; model?: unknown; top_n?: unknown };
    const texts = options.api === 'tei' ? body.texts : body.documents;
    if (typeof body.query !== 'string' || !Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
      const message = options.api === 'tei' ? 'Failed to deserialize the JSON body: missing field `texts`' : 'field required: query, documents';
      return { status: 422, json: options.api === 'cohere' ? errorBodies.cohere(message) : options.api === 'jina' ? errorBodies.fastapi(message) : errorBodies.tei(message) };
    }
    if (options.api !== 'tei' && typeof body.model !== 'string') {
      return { status: 400, json: options.api === 'cohere' ? errorBodies.cohere('model is required') : errorBodies.fastapi('model is required') };
    }
    const query = body.query;
    let scored = (texts as string[]).map((text, index) => ({ index, score: fixtureRerankScore(query, text) })).sort((a, b) => b.score - a.score);
    if (options.api !== 'tei' && typeof body.top_n === 'number') scored = scored.slice(0, body.top_n);
    if (behaviour && 'reverse' in behaviour) scored = scored.reverse();
    if (options.api === 'tei') return { status: 200, json: scored.map(({ index, score }) => ({ index, score })) };
    const results = scored.map(({ index, score }) => ({ index, relevance_score: score }));
    return { status: 200, json: options.api === 'cohere' ? { id: 'rerank-fixture', results, meta: { billed_units: { search_units: 1 } } } : { model: body.model, results, usage: { total_tokens: 0 } } };
  }, options.key);
}

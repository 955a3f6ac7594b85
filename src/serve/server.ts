import type { ServerResponse } from 'node:http';
import { basename } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyCors from '@fastify/cors';
import fastifyMultipart from '@fastify/multipart';
import { GroundworkError } from '../errors.js';
import type { Library } from '../library/library.js';
import { defaultSearchWorkers, SearchPool, type Searcher } from '../library/search-pool.js';
import type { RetrievalOptionsInput } from '../retrieval/options.js';
import type { RetrievalResult } from '../retrieval/pipeline.js';
import type { PassageReranker } from '../retrieval/types.js';
import { authorize, isLoopback, type ApiKey, type Caller } from './auth.js';
import { errorResponse, HttpError } from './errors.js';
import { JobRunner } from './jobs/runner.js';
import { parseServeSettings, type ServeSettings, type ServeSettingsInput } from './options.js';
import { RateLimiter } from './rate-limit.js';
import { collectRoutes, type RegisteredRoute, type RouteConfig, type Scope } from './route.js';
import { blockRoutes } from './routes/blocks.js';
import { difyRoutes } from './routes/dify.js';
import { documentRoutes } from './routes/documents.js';
import { jobRoutes } from './routes/jobs.js';
import { previewRoutes } from './routes/preview.js';
import { rechunkRoutes } from './routes/rechunk.js';
import { searchRoutes } from './routes/search.js';
import { indexRoute, systemRoutes } from './routes/system.js';
import { servePlugins, type ServePlugin } from './plugins.js';

/** What every route plugin gets: the library, the job runner, the settings. */
export interface ServeContext {
  library: Library;
  jobs: JobRunner;
  settings: ServeSettings;
  /** The Dify knowledge id of this library. */
  knowledgeId: string;
  /** Every route registered so far (the OpenAPI document is built from it). */
  routes: RegisteredRoute[];
  /** Open event streams, ended on shutdown. */
  streams: Set<ServerResponse>;
  isClosing(): boolean;
  /**
   * A search as `groundwork search` runs it: `library.search` (BM25, and vectors when the library
   * has them and an embedder; hybrid by default then), reranked by the server's reranker when asked.
   */
  search(query: string, options: RetrievalOptionsInput, signal?: AbortSignal): Promise<RetrievalResult>;
  /** The same search as the JSON text of the HTTP API's response (`retrievalResultJson`, src/retrieval/wire.ts). */
  searchJson(query: string, options: RetrievalOptionsInput, signal?: AbortSignal): Promise<string>;
  /**
   * Where searches run: the search pool's worker threads (`searchWorkers`, src/library/search-pool.ts),
   * or this thread. `search` and the MCP plugin's search tool use it.
   */
  searcher: Searcher;
}

export interface ServeOptions extends ServeSettingsInput {
  /** API keys (see auth.ts and docs/serve.md); required unless `host` is loopback. */
  keys?: ApiKey[];
  /** Extra plugins (beside those given to `registerServePlugin`): the inspector at `/`, MCP at `/mcp`. */
  plugins?: ServePlugin[];
  /** Fastify's logger (pino) options, or false (default). The Authorization header is always redacted. */
  logger?: boolean | Record<string, unknown>;
  /**
   * The reranker for searches with `rerank: true` (the CLI's --rerank-* flags); default: the one
   * GROUNDWORK_RERANK_* or the library's settings configure. The embedder is the library's
   * (`library.useEmbedder`, or the one its settings and the environment configure).
   */
  reranker?: PassageReranker;
}

/** A running server. */
export interface ServeHandle {
  /** `http://host:port`. */
  url: string;
  host: string;
  port: number;
  app: FastifyInstance;
  jobs: JobRunner;
  /** Worker threads answering searches (0: the server's own thread; see `searchWorkers`). */
  searchWorkers: number;
  /**
   * Graceful stop: new requests get 503; requests being answered, then running jobs, get
   * `shutdownGraceMs` to finish (jobs still running then resume at the next start); event streams
   * end; connections close. The library stays open (it
   * is the caller's).
   */
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | undefined;
    /** Counted among the requests in flight (shutdown waits for them). */
    counted: boolean;
  }
}

/**
 * Builds the server for `library` without listening (tests inject requests; `serve` listens).
 * Route groups are Fastify plugins (src/serve/routes/); auth, rate limits and the shutdown gate
 * are one `onRequest` hook; every error goes through one handler (errors.ts).
 */
export async function buildServer(library: Library, options: ServeOptions = {}): Promise<{ app: FastifyInstance; context: ServeContext; close(): Promise<void> }> {
  const { keys = [], plugins = [], logger = false, reranker, ...rest } = options;
  const settings = parseServeSettings(rest);
  if (!isLoopback(settings.host) && keys.length === 0) {
    throw new GroundworkError('INVALID_OPTIONS', `refusing to listen on ${settings.host} without API keys: anyone who can reach it could read and change the library; give --keys FILE (docs/serve.md, "Keys") or listen on 127.0.0.1`);
  }
  const app = Fastify({
    logger: logger === false ? false : { ...(typeof logger === 'object' ? logger : {}), redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'], censor: '[redacted]' } },
    bodyLimit: settings.maxBodyBytes,
    // Keep-alive connections that are idle close at shutdown; busy ones finish.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });
  const routes = collectRoutes(app);
  let closing = false;
  const jobs = new JobRunner(library, {
    maxBatch: settings.jobBatch,
    maxFileSize: settings.maxUploadBytes,
    ...(settings.workers !== undefined && { workers: settings.workers }),
    onError: (error) => app.log.error({ err: error }, 'job runner'),
  });
  // Last of the set-up that can fail on bad options, so a refused start leaves no threads behind.
  const searcher = await SearchPool.for(library, settings.searchWorkers ?? defaultSearchWorkers());
  const context: ServeContext = {
    library, jobs, settings, routes,
    knowledgeId: settings.knowledgeId ?? basename(library.dir),
    streams: new Set(),
    isClosing: () => closing,
    searcher,
    search: (query, searchOptions, signal) => searcher.search(query, searchOptions, { ...(reranker && { reranker }), ...(signal && { signal }) }),
    searchJson: (query, searchOptions, signal) => searcher.searchJson(query, searchOptions, { ...(reranker && { reranker }), ...(signal && { signal }) }),
  };

  // Requests being answered (event streams aside): shutdown lets them finish, within the grace.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const settle = () => {
    if (--inFlight === 0) drained?.();
  };

  app.decorateRequest('caller', undefined);
  app.decorateRequest('counted', false);
  const limiter = settings.rateLimit === false ? undefined : new RateLimiter(settings.rateLimit);
  app.addHook('onRequest', async (request) => {
    if (closing) throw new HttpError('SHUTTING_DOWN', 'the server is shutting down; retry against its successor');
    if (!request.routeOptions.config?.spec?.streaming) {
      inFlight++;
      request.counted = true;
    }
    const scope = scopeOf(request);
    request.caller = authorize(keys, request.headers.authorization, scope);
    if (limiter && scope !== 'none') {
      const wait = limiter.take(request.caller?.keyed ? `key:${request.caller.name}` : `ip:${request.ip}`);
      if (wait !== undefined) throw new HttpError('RATE_LIMITED', `rate limit: retry in ${wait} s`, { retryAfter: wait });
    }
  });
  const done = async (request: FastifyRequest) => {
    if (request.counted) {
      request.counted = false;
      settle();
    }
  };
  app.addHook('onResponse', done);
  app.addHook('onRequestAbort', done);
  app.setErrorHandler(async (error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler(async (request, reply) => sendError(new HttpError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`), request, reply));

  try {
    if (settings.corsOrigins.length > 0) await app.register(fastifyCors, { origin: settings.corsOrigins, exposedHeaders: ['Retry-After', 'Location'] });
    await app.register(fastifyMultipart, { throwFileSizeLimit: true });

    await app.register(systemRoutes(context));
    await app.register(documentRoutes(context), { prefix: '/v1/documents' });
    await app.register(rechunkRoutes(context), { prefix: '/v1/documents' });
    await app.register(jobRoutes(context), { prefix: '/v1/jobs' });
    await app.register(blockRoutes(context), { prefix: '/v1/blocks' });
    await app.register(searchRoutes(context), { prefix: '/v1' });
    await app.register(previewRoutes(context), { prefix: '/v1' });
    await app.register(difyRoutes(context));
    // Plugin slots: a plugin named like a registered one replaces it (options win over the registry).
    const byName = new Map<string, ServePlugin>();
    for (const plugin of [...servePlugins(), ...plugins]) byName.set(plugin.name, plugin);
    for (const plugin of byName.values()) {
      await app.register(async (scoped) => plugin.register(scoped, context), { prefix: plugin.prefix === '/' ? '' : plugin.prefix });
    }
    await app.after();
    if (!routes.some((r) => r.method === 'GET' && r.url === '/')) indexRoute(app);
  } catch (error) {
    await searcher.close();
    throw error;
  }
  return {
    app,
    context,
    async close() {
      if (closing) return;
      closing = true;
      const started = performance.now();
      // Finish the requests being answered (new ones get 503 meanwhile), then the running jobs.
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          drained = resolve;
          timer = setTimeout(resolve, settings.shutdownGraceMs);
        });
        clearTimeout(timer);
      }
      await jobs.stop(Math.max(0, settings.shutdownGraceMs - (performance.now() - started)));
      for (const stream of context.streams) stream.end();
      context.streams.clear();
      await app.close();
      await searcher.close();
    },
  };
}

/**
 * Starts `groundwork serve` on `library`: listens on `host:port` (loopback and 7700 by default),
 * resumes the jobs a previous server left, and returns the handle.
 */
export async function serve(library: Library, options: ServeOptions = {}): Promise<ServeHandle> {
  const built = await buildServer(library, options);
  const { app, context } = built;
  try {
    await app.listen({ host: context.settings.host, port: context.settings.port });
  } catch (error) {
    await built.close();
    throw error;
  }
  await context.jobs.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : context.settings.port;
  const host = context.settings.host;
  const shown = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shown}:${port}`, host, port, app, jobs: context.jobs, searchWorkers: context.searcher.size, close: built.close };
}

/** A route's scope from its config; a route without one (a plugin's plain route) needs a read key. */
function scopeOf(request: FastifyRequest): Scope {
  const config = request.routeOptions.config as Partial<RouteConfig> | undefined;
  return config?.scope ?? 'read';
}

function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const config = request.routeOptions.config as Partial<RouteConfig> | undefined;
  const styled = config?.errorStyle?.(error);
  if (styled) return reply.status(styled.status).type('application/json').send(styled.body);
  const { status, body, retryAfter } = errorResponse(error);
  if (status >= 500 && !(error instanceof HttpError)) request.log.error({ err: error }, 'request failed');
  if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
  if (status === 503) reply.header('Connection', 'close');
  if (status === 401) reply.header('WWW-Authenticate', 'Bearer');
  return reply.status(status).type('application/json').send(body);
}

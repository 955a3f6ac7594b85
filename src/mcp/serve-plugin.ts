import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Library } from '../library/library.js';
import type { Searcher } from '../library/search-pool.js';
import type { McpServerOptionsInput } from './context.js';
import { mcpFastifyPlugin } from './http.js';
import { mcpServerFactory, type McpServerDependencies } from './server.js';

/**
 * MCP at `/mcp` under `groundwork serve`: a serve plugin (`registerServePlugin` / `serve(lib, {
 * plugins })`) mounting the Streamable HTTP handler. The server's own hook checks the API key
 * before the handler runs (a plain route needs a read key) and sets `request.caller`; a read-only
 * key gets the read tools, a read-write key `ingest` too when it is allowed.
 */
export interface McpServePlugin {
  name: 'mcp';
  prefix: '/mcp';
  register(app: FastifyInstance, context: { library: Library; searcher?: Searcher }): Promise<void>;
}

export function mcpServePlugin(options: McpServerOptionsInput = {}, deps: McpServerDependencies = {}): McpServePlugin {
  return {
    name: 'mcp',
    prefix: '/mcp',
    async register(app, context) {
      // Searches go where the server's go (its search pool), unless the caller gave its own.
      const createServer = mcpServerFactory(context.library, options, { ...(context.searcher && { search: (query, options, searchContext) => context.searcher!.search(query, options, searchContext) }), ...deps });
      const uploads = options.maxUploadBytes ?? 64 * 1024 * 1024;
      await app.register(mcpFastifyPlugin, {
        createServer,
        path: '/',
        // Base64 takes 4 bytes for 3; a little over for the JSON-RPC envelope.
        maxRequestBodySize: options.allowIngest ? Math.ceil((uploads * 4) / 3) + 64 * 1024 : 4 * 1024 * 1024,
        authorize: callerAccess,
      });
    },
  };
}

/** The access of the caller the server's key hook found (`request.caller`). */
function callerAccess(request: FastifyRequest): 'read' | 'read-write' | undefined {
  const caller = (request as FastifyRequest & { caller?: { scope: string } }).caller;
  if (!caller) return undefined;
  return caller.scope === 'read-write' ? 'read-write' : 'read';
}

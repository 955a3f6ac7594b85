import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { McpAccess } from './context.js';
import type { McpServerFactory } from './server.js';

/**
 * MCP over Streamable HTTP, stateless: every POST gets a fresh server (with the tools the caller's
 * access allows) and a fresh transport, answered as JSON, closed with the response (the SDK's
 * pattern for servers behind a router). There are no sessions, so GET (a standalone event stream)
 * and DELETE (ending a session) are 405.
 */
export interface McpHttpOptions {
  createServer: McpServerFactory;
  /** Largest request body in bytes (default 4 MiB, the SDK's; raise it for ingest uploads). */
  maxRequestBodySize?: number;
}

export type McpRequestHandler = (req: IncomingMessage, res: ServerResponse, request: { access: McpAccess; parsedBody?: unknown }) => Promise<void>;

export function mcpHttpHandler(options: McpHttpOptions): McpRequestHandler {
  return async (req, res, { access, parsedBody }) => {
    if (req.method !== 'POST') {
      sendJsonRpcError(res, 405, -32000, 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages to it', { Allow: 'POST' });
      return;
    }
    const server = options.createServer(access);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      ...(options.maxRequestBodySize !== undefined && { maxRequestBodySize: options.maxRequestBodySize }),
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsedBody);
  };
}

/** A JSON-RPC error as the HTTP response (before any MCP server is involved: auth, method). */
export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Who a request is: its access, or undefined when it has no valid key (401). */
export type McpAuthorizer<R> = (request: R) => McpAccess | undefined | Promise<McpAccess | undefined>;

/** A node:http listener serving MCP at every path it is given (mount it where it belongs). */
export function mcpNodeListener(options: McpHttpOptions & { authorize: McpAuthorizer<IncomingMessage> }): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = mcpHttpHandler(options);
  return (req, res) => {
    void (async () => {
      const access = await options.authorize(req);
      if (access === undefined) return sendJsonRpcError(res, 401, -32000, 'Unauthorized: a valid API key is required (Authorization: Bearer KEY)', { 'www-authenticate': 'Bearer' });
      await handle(req, res, { access });
    })().catch((error: unknown) => sendJsonRpcError(res, 500, -32603, `internal error: ${error instanceof Error ? error.message : String(error)}`));
  };
}

export interface McpFastifyOptions extends McpHttpOptions {
  /** The caller's access (the server's API keys); undefined answers 401. */
  authorize: McpAuthorizer<FastifyRequest>;
  /** Where MCP is mounted (default `/mcp`). */
  path?: string;
}

/**
 * The handler as a Fastify plugin: `app.register(mcpFastifyPlugin, { createServer, authorize })`.
 * Fastify parses the JSON body (limited to `maxRequestBodySize`); the response is handed to the
 * SDK's transport (`reply.hijack()`).
 */
export const mcpFastifyPlugin: FastifyPluginAsync<McpFastifyOptions> = async (app, options) => {
  const handle = mcpHttpHandler(options);
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: options.path ?? '/mcp',
    bodyLimit: options.maxRequestBodySize ?? 4 * 1024 * 1024,
    handler: async (request, reply) => {
      const access = await options.authorize(request);
      reply.hijack();
      if (access === undefined) {
        sendJsonRpcError(reply.raw, 401, -32000, 'Unauthorized: a valid API key is required (Authorization: Bearer KEY)', { 'www-authenticate': 'Bearer' });
        return;
      }
      await handle(request.raw, reply.raw, { access, parsedBody: request.body });
    },
  });
};

/** The MCP server: a factory, a tool per file, documents as resources, stdio and Streamable HTTP transports. */
export { createMcpServer, mcpServerFactory, type McpServerFactory, type McpServerDependencies } from './server.js';
export { McpServerOptionsSchema, parseMcpServerOptions, MCP_ACCESS, type McpAccess, type McpServerOptions, type McpServerOptionsInput } from './context.js';
export { serveStdio } from './stdio.js';
export { mcpHttpHandler, mcpNodeListener, mcpFastifyPlugin, sendJsonRpcError, type McpHttpOptions, type McpFastifyOptions, type McpAuthorizer, type McpRequestHandler } from './http.js';
export { TOOLS, type ToolDefinition } from './tools/index.js';
export { RESOURCE_NOT_FOUND } from './resources.js';
export { mcpServePlugin, type McpServePlugin } from './serve-plugin.js';

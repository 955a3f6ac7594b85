import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Searcher } from '../library/search-pool.js';
import type { Library } from '../library/library.js';
import type { PassageReranker } from '../retrieval/types.js';
import { ingestRootsOf, parseMcpServerOptions, type McpAccess, type McpServerOptionsInput, type ToolContext } from './context.js';
import { registerDocumentResources } from './resources.js';
import { toolError, toolResult } from './result.js';
import { TOOLS } from './tools/index.js';


export interface McpServerDependencies {
  /**
   * The reranker for searches with `rerank: true` (default: the one the library's settings or
   * GROUNDWORK_RERANK_* configure). Searches are `library.search`: vector and hybrid use the
   * library's embedder (`library.useEmbedder`, or its settings and the environment).
   */
  reranker?: PassageReranker;
  /**
   * Runs the search tool's searches (default `library.search`): `groundwork serve` passes its
   * search pool's (src/library/search-pool.ts), so MCP searches share the server's threads.
   */
  search?: Searcher['search'];
}

/** Builds one MCP server for a caller's access; the parts that outlive a request are made once. */
export type McpServerFactory = (access?: McpAccess) => McpServer;

/**
 * Builds an MCP server over a library: the read tools (search, get_block, list_documents,
 * get_outline, read_section), `ingest` when allowed, documents as resources. The library stays the
 * caller's to close. stdio (`groundwork mcp`) connects one server.
 */
export function createMcpServer(library: Library, input: McpServerOptionsInput = {}, deps: McpServerDependencies = {}): McpServer {
  return mcpServerFactory(library, input, deps)();
}

/**
 * The factory behind `createMcpServer`, for transports that build a server per request (Streamable
 * HTTP, stateless): options validated and ingest folders resolved once (the library keeps its
 * retrieval sources and their outline cache); each server gets the tools the caller's access allows (a read-only key:
 * no ingest). Bad options are INVALID_OPTIONS, a missing ingest folder IO, both at once.
 */
export function mcpServerFactory(library: Library, input: McpServerOptionsInput = {}, deps: McpServerDependencies = {}): McpServerFactory {
  const options = parseMcpServerOptions(input);
  const shared = { library, sources: library.retrievalSources, ingestRoots: ingestRootsOf(options), ...(deps.reranker && { reranker: deps.reranker }), ...(deps.search && { search: deps.search }) };
  return (access = options.access) => buildServer({ ...shared, options: { ...options, access } });
}

function buildServer(ctx: ToolContext): McpServer {
  const { options } = ctx;
  const server = new McpServer({ name: options.name, version: version() }, {
    capabilities: { tools: {}, resources: {} },
    instructions: instructionsOf(options.describe),
  });
  for (const tool of TOOLS) {
    if (tool.enabled && !tool.enabled(ctx)) continue;
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description(ctx),
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: false, idempotentHint: tool.idempotent, openWorldHint: false },
    }, async (args: unknown, extra): Promise<CallToolResult> => {
      try {
        return toolResult(await tool.run(args as never, ctx, extra));
      } catch (error) {
        return toolError(error);
      }
    });
  }
  registerDocumentResources(server, ctx);
  return server;
}

function instructionsOf(describe: string | undefined): string {
  return [
    `A Groundwork document library${describe ? `: ${describe}` : ''}.`,
    'search finds passages and cites each (file, pages, heading path, block id): quote the citation with what you use.',
    'get_outline shows a document\'s headings; read_section reads one section whole; get_block reads around a hit.',
  ].join(' ');
}

/** package.json sits two levels above this module, in src/mcp/ and in dist/mcp/ alike. */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

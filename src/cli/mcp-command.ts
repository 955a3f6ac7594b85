import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GroundworkError } from '../errors.js';
import { Library } from '../library/library.js';
import { createMcpServer } from '../mcp/server.js';
import { serveStdio } from '../mcp/stdio.js';
import { flag, parseCommandArgs, stringValue, UsageError } from './args.js';
import { HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC, libraryDirFrom, libraryStoreFrom } from './common.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { MCP_FLAG_SPECS, MCP_FLAGS_HELP, mcpOptionsFrom } from './mcp-options.js';
import { EMBED_FLAG_SPECS, EMBED_FLAGS_HELP, RERANK_FLAG_SPECS, RERANK_FLAGS_HELP } from './embed-options.js';
import { searchSetupFrom } from './search-setup.js';
import { indexRebuildReporter } from './progress.js';

export const MCP_HELP = `Usage: groundwork mcp [options]

Serves the library to an agent over the Model Context Protocol, on stdin and stdout (newline-
delimited JSON-RPC: start it from an MCP client such as Claude Desktop, see docs/mcp.md). Tools:
search (passages with file, pages, heading path and block id to cite), get_block (with its
neighbours), list_documents, get_outline (a document's headings), read_section (one section whole),
and ingest when allowed. Documents are resources: groundwork://documents/{id}. Messages for people
go to stderr; the server stops when stdin closes.

Options:
${LIBRARY_FLAG_HELP}
  --postgres URL        keep documents and blocks in PostgreSQL at URL instead of DIR/library.sqlite
                        (DIR still holds the originals and uploads)
  --memory-index        rank keywords from postings held in memory (SQLite; about 0.5 KB a block, up
                        to 300,000 blocks), built in the background after start: the same results
                        as without, cheaper searches (FTS5 ranks until built and after changes)
${MCP_FLAGS_HELP}
  -h, --help            show this help

The search tool is 'groundwork search': bm25, vector or hybrid (the default when the library has
vectors of its model and an embedder), rerank on request, with the embedder and reranker configured
as for 'groundwork search':

${RERANK_FLAGS_HELP}

${EMBED_FLAGS_HELP}

Over HTTP, 'groundwork serve' answers MCP at /mcp with the same tools and its API keys.
Exit codes: 0 when the client disconnects, 1 no library, 2 usage error.
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...LIBRARY_FLAG_SPEC,
  postgres: { type: 'string' },
  'memory-index': { type: 'boolean' },
  ...MCP_FLAG_SPECS,
  ...RERANK_FLAG_SPECS,
  ...EMBED_FLAG_SPECS,
} as const;

export async function mcpCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let library: Library | undefined;
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(MCP_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
    const options = mcpOptionsFrom(args);
    const setup = searchSetupFrom(args);
    const roots = options.allowIngest ?? [];

    const store = libraryStoreFrom(args);
    const dir = libraryDirFrom(args);
    if (store === undefined && !existsSync(join(dir, 'library.sqlite')) && roots.length === 0) {
      throw new GroundworkError('IO', `no library here (no library.sqlite); create one with 'groundwork ingest PATH --library ${dir}', or start with --allow-ingest DIR to fill it over MCP`, { file: dir });
    }
    library = await Library.open(dir, {
      ...(store !== undefined && { store: roots.length > 0 ? store : { ...store, create: false } }),
      onIndexRebuild: indexRebuildReporter(io),
      ...(flag(args, 'memory-index') && { memoryIndex: true }),
    });
    // Built in the background; a failure is a warning on stderr, and searches rank with FTS5.
    if (flag(args, 'memory-index')) void library.warmSearch();
    const { reranker } = await setup.apply(library, io, 'mcp');
    const server = createMcpServer(library, options, { ...(reranker && { reranker }) });
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    io.err(`groundwork: MCP server on stdio for ${store !== undefined ? 'PostgreSQL' : dir}${roots.length > 0 ? ', ingest allowed' : ''}\n`);
    try {
      await serveStdio(server, { signal: stop.signal });
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'mcp');
  } finally {
    await library?.close();
  }
}

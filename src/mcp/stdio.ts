import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/**
 * Serves one MCP server over stdio (newline-delimited JSON-RPC on stdin and stdout) until stdin
 * ends, the client closes, or `signal` aborts; then closes the server. Nothing else may write to
 * stdout meanwhile: messages for people go to stderr.
 */
export async function serveStdio(server: McpServer, streams: { stdin?: Readable; stdout?: Writable; signal?: AbortSignal } = {}): Promise<void> {
  const stdin = streams.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, streams.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  const end = () => void transport.close();
  stdin.once('end', end);
  streams.signal?.addEventListener('abort', end, { once: true });
  await server.connect(transport);
  try {
    await closed;
  } finally {
    stdin.off('end', end);
    streams.signal?.removeEventListener('abort', end);
    await server.close();
  }
}

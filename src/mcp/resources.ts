import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { isGroundworkError } from '../errors.js';
import type { StoredDocument } from '../store/types.js';
import { documentUri } from './citations.js';
import type { ToolContext } from './context.js';
import { byStart, documentOf, spanText } from './documents.js';

/** JSON-RPC error of a resource that does not exist (the MCP specification's code). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * Documents as resources: `groundwork://documents/{id}`, listed, and read as their text in document
 * order (the canonical text, rebuilt from the stored blocks: Markdown-like, headings as `#` lines).
 */
export function registerDocumentResources(server: McpServer, ctx: ToolContext): void {
  const template = new ResourceTemplate('groundwork://documents/{id}', {
    list: async () => ({ resources: (await ctx.library.documents()).map(resourceOf) }),
    complete: {
      id: async (value) => (await ctx.library.documents()).map((d) => d.id).filter((id) => id.startsWith(value)).slice(0, 100),
    },
  });
  server.registerResource('document', template, {
    title: 'Document',
    description: 'A document of the library: its text in reading order, headings as Markdown # lines (what search hits and read_section quote)',
    mimeType: 'text/markdown',
  }, async (uri, variables) => {
    const id = String(Array.isArray(variables.id) ? variables.id[0] : variables.id);
    let doc: StoredDocument;
    try {
      doc = await documentOf(ctx.library, decodeURIComponent(id));
    } catch (error) {
      // A protocol fault: the resource does not exist.
      if (isGroundworkError(error)) throw new McpError(RESOURCE_NOT_FOUND, `${error.message} [${error.code}]`, { uri: uri.href });
      throw error;
    }
    const text = spanText(byStart(await ctx.library.blocks(doc.id)));
    return { contents: [{ uri: documentUri(doc.id), mimeType: 'text/markdown', text }] };
  });
}

function resourceOf(doc: StoredDocument) {
  return {
    uri: documentUri(doc.id),
    name: doc.paths[0] ?? doc.id,
    ...(doc.title && { title: doc.title }),
    description: `${doc.format}${doc.pageCount !== null ? `, ${doc.pageCount} page${doc.pageCount === 1 ? '' : 's'}` : ''}, ${doc.blocks} blocks`,
    mimeType: 'text/markdown',
  };
}

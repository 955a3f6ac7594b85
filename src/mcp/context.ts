import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { GroundworkError } from '../errors.js';
import type { Searcher } from '../library/search-pool.js';
import type { Library } from '../library/library.js';
import type { RetrievalSources } from '../retrieval/pipeline.js';
import type { PassageReranker } from '../retrieval/types.js';

/** Who is calling: read tools for everyone, `ingest` only for read-write callers (HTTP keys). */
export const MCP_ACCESS = ['read', 'read-write'] as const;
export type McpAccess = (typeof MCP_ACCESS)[number];

/**
 * The options of an MCP server, defined once: `groundwork mcp` maps its flags onto them, `serve`
 * passes them for `/mcp`, the library API validates with them.
 */
export const McpServerOptionsSchema = z.object({
  describe: z.string().trim().min(1).max(4000).optional()
    .describe('what the library holds, folded into the search tool\'s description (e.g. "our supplier contracts, 2019-2024")'),
  allowIngest: z.array(z.string().trim().min(1)).min(1).optional()
    .describe('offer the ingest tool, for paths inside these folders on the server\'s machine (and uploaded bytes)'),
  access: z.enum(MCP_ACCESS).default('read-write')
    .describe('read: only the read tools (a read-only key); read-write: ingest too, when allowIngest is set'),
  maxUploadBytes: z.number().int().min(1).max(1024 * 1024 * 1024).default(64 * 1024 * 1024)
    .describe('largest file the ingest tool takes as bytes (decoded)'),
  name: z.string().trim().min(1).default('groundwork')
    .describe('the server name clients show'),
}).strict();

export type McpServerOptionsInput = z.input<typeof McpServerOptionsSchema>;
export type McpServerOptions = z.output<typeof McpServerOptionsSchema>;

/** Validates MCP server options; bad ones are INVALID_OPTIONS naming the field. */
export function parseMcpServerOptions(input: unknown): McpServerOptions {
  const result = McpServerOptionsSchema.safeParse(input ?? {});
  if (!result.success) throw new GroundworkError('INVALID_OPTIONS', `invalid MCP server options: ${z.prettifyError(result.error).replace(/\n\s*/g, '; ')}`);
  return result.data;
}

/** What every tool handler is given. */
export interface ToolContext {
  library: Library;
  /** The library's block fetcher and outlines (`library.retrievalSources`); searches go through `library.search`. */
  sources: RetrievalSources;
  /** The reranker for `rerank: true` (the --rerank-* flags); default: the library's settings and GROUNDWORK_RERANK_*. */
  reranker?: PassageReranker;
  /** Runs searches when not `library.search` (the server's search pool). */
  search?: Searcher['search'];
  options: McpServerOptions;
  /** The folders ingest may read (real paths, symlinks resolved); empty when ingest is off. */
  ingestRoots: readonly string[];
}

/** The allowed ingest folders as real paths; a folder that does not exist is an IO error at start. */
export function ingestRootsOf(options: McpServerOptions): string[] {
  return (options.allowIngest ?? []).map((dir) => {
    try {
      return realpathSync(resolve(dir));
    } catch (cause) {
      throw new GroundworkError('IO', 'cannot allow ingest from this folder: it does not exist or cannot be read', { file: dir, cause });
    }
  });
}

import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ToolContext } from '../context.js';
import type { ToolOutput } from '../result.js';

/**
 * One MCP tool: its name, what the model reads about it, its input and output schemas (zod 4, the
 * SDK derives the JSON Schemas), whether it only reads, and its handler. A tool per file; the
 * server factory registers the list in `tools/index.ts`.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Only reads the library (annotated `readOnlyHint`: clients may call it without asking). */
  readOnly: boolean;
  /** Calling it twice with the same arguments does nothing more (annotated `idempotentHint`). */
  idempotent: boolean;
  description(ctx: ToolContext): string;
  input: I;
  output: O;
  /** Whether this server offers the tool (ingest: only with `allowIngest` and read-write access). */
  enabled?(ctx: ToolContext): boolean;
  run(args: z.output<I>, ctx: ToolContext, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<ToolOutput<z.output<O>>>;
}

/** Keeps the schema types of a definition while listing it with the others. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return tool;
}

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isGroundworkError } from '../errors.js';

/**
 * Tool results. A tool returns its structured content (checked against its output schema by the
 * SDK) and a readable rendering for models that read text; a `GroundworkError` becomes an `isError`
 * result whose text ends with its code, `... [NOT_FOUND]`, so an agent can tell what to fix.
 */
export interface ToolOutput<T> {
  structured: T;
  text: string;
}

export function toolResult<T extends Record<string, unknown>>(output: ToolOutput<T>): CallToolResult {
  return { content: [{ type: 'text', text: output.text }], structuredContent: output.structured };
}

export function toolError(error: unknown): CallToolResult {
  const text = isGroundworkError(error)
    ? `${error.message} [${error.code}]`
    : `internal error: ${error instanceof Error ? error.message : String(error)}`;
  return { content: [{ type: 'text', text }], isError: true };
}

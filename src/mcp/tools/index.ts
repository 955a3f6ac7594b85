import { getBlockTool } from './get-block.js';
import { getOutlineTool } from './get-outline.js';
import { ingestTool } from './ingest.js';
import { listDocumentsTool } from './list-documents.js';
import { readSectionTool } from './read-section.js';
import { searchTool } from './search.js';
import type { ToolDefinition } from './tool.js';

/** Every tool the server can offer, in the order clients list them. */
export const TOOLS: readonly ToolDefinition[] = [
  searchTool, getBlockTool, listDocumentsTool, getOutlineTool, readSectionTool, ingestTool,
] as unknown as readonly ToolDefinition[];

export type { ToolDefinition } from './tool.js';

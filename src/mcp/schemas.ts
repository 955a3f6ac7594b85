import { z } from 'zod';

/**
 * The shapes MCP tools return (their output schemas). Inputs come from the schemas the library API,
 * the CLI and the HTTP API already use (src/retrieval/options.ts); these describe only what an
 * agent gets back, so a client can check it and a model can read it.
 */

/** Where a passage is, for the agent to cite: the file, the pages, the heading path, the block. */
export const CitationSchema = z.object({
  file: z.string().nullable().describe('the document\'s path on the server (null for a document added as bytes)'),
  title: z.string().nullable().describe('the document\'s title, when it has one'),
  docId: z.string().describe('the document id (sha256 of its bytes)'),
  blockId: z.string().describe('the block id: get_block reads it and its neighbours'),
  pageStart: z.number().int().nullable().describe('first page (1-based), null for formats without pages'),
  pageEnd: z.number().int().nullable(),
  headingPath: z.array(z.string()).describe('the headings above the passage, from the document title down'),
  uri: z.string().describe('the document as an MCP resource: groundwork://documents/{docId}'),
});
export type Citation = z.infer<typeof CitationSchema>;

/** A block as tools return it (no boxes, no table cells: the text carries the table). */
export const BlockOutputSchema = z.object({
  id: z.string(),
  docId: z.string(),
  ordinal: z.number().int().describe('position in the document, from 0'),
  kind: z.string().describe('text, table, image, code, dialog, ...'),
  text: z.string().describe('the block text as it is embedded and shown to a model'),
  headingPath: z.array(z.string()),
  pageStart: z.number().int().nullable(),
  pageEnd: z.number().int().nullable(),
  start: z.number().int().describe('span in the document\'s canonical text'),
  end: z.number().int(),
  tokens: z.number().int(),
});
export type BlockOutput = z.infer<typeof BlockOutputSchema>;

export const SectionOutputSchema = z.object({
  docId: z.string(),
  headingPath: z.array(z.string()),
  title: z.string(),
  label: z.string().optional().describe('the heading\'s numbering as written (3.2, 第二章, （二）)'),
});

/** One document as list_documents and resources describe it. */
export const DocumentOutputSchema = z.object({
  id: z.string(),
  title: z.string().nullable(),
  format: z.string(),
  paths: z.array(z.string()),
  language: z.string().nullable(),
  pageCount: z.number().int().nullable(),
  blocks: z.number().int(),
  bytes: z.number().int(),
  addedAt: z.string(),
  uri: z.string(),
});
export type DocumentOutput = z.infer<typeof DocumentOutputSchema>;

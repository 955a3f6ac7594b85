import { z } from 'zod';
import { JOB_STATES } from '../store/types.js';

/**
 * The response shapes of the HTTP API (what the library API returns, as JSON), each once: the
 * OpenAPI document is generated from them. Request shapes come from where the options are defined
 * (src/retrieval/options.ts, src/options/ingest.ts).
 */

const nullableInt = z.number().int().nullable();

/** Where a block's (or a chunk's) elements are on their pages: PDF points, top-left origin; each box's page when it has one. */
export const BBoxesSchema = z.array(z.object({ x0: z.number(), y0: z.number(), x1: z.number(), y1: z.number(), page: z.number().int().optional() })).nullable();

export const BlockSchema = z.object({
  id: z.string(),
  docId: z.string(),
  ordinal: z.number().int(),
  kind: z.enum(['text', 'table', 'code', 'image', 'turn']),
  text: z.string(),
  headingPath: z.array(z.string()),
  pageStart: nullableInt,
  pageEnd: nullableInt,
  bboxes: BBoxesSchema,
  start: z.number().int(),
  end: z.number().int(),
  chars: z.number().int(),
  tokens: z.number().int(),
  table: z.object({
    rows: z.array(z.array(z.object({ text: z.string(), rowSpan: z.number().int().optional(), colSpan: z.number().int().optional() }))),
    headerRows: z.number().int(),
    caption: z.string().optional(),
  }).nullable(),
  speaker: z.string().nullable(),
  time: z.tuple([z.number(), z.number()]).nullable(),
  strategy: z.string(),
  configHash: z.string(),
}).meta({ id: 'Block', description: 'a stored chunk with where it came from (docs/library.md)' });

export const DocumentSchema = z.object({
  id: z.string().describe('the content hash (sha256 of the bytes)'),
  format: z.string(),
  mime: z.string(),
  title: z.string().nullable(),
  language: z.string().nullable(),
  pageCount: nullableInt,
  bytes: z.number().int(),
  metadata: z.record(z.string(), z.unknown()),
  warnings: z.array(z.string()),
  paths: z.array(z.string()),
  strategy: z.string(),
  configHash: z.string(),
  blocks: z.number().int(),
  tables: z.number().int(),
  images: z.number().int(),
  addedAt: z.string(),
  original: z.string().nullable().describe('the kept original, relative to the library folder'),
}).meta({ id: 'Document' });

/** A document as `GET /v1/documents` lists it: with its blocks' tokens. */
export const ListedDocumentSchema = DocumentSchema.extend({
  tokens: z.number().int().describe('the tokens of its stored blocks, summed (the library\'s tokenizer, or the one it was ingested with)'),
}).meta({ id: 'ListedDocument' });

/** What ingest made of a document: the counts the library view and `groundwork list` show. */
export const DocumentReportSchema = z.object({
  blocks: z.number().int(),
  tokens: z.number().int().describe('the tokens of its stored blocks, summed'),
  pages: nullableInt,
  tables: z.number().int(),
  images: z.number().int(),
  strategy: z.string(),
  configHash: z.string(),
  warnings: z.number().int().describe('how many warnings the parse left (the list is `warnings`)'),
}).meta({ id: 'DocumentReport' });

export interface OutlineJson {
  title: string;
  level: number;
  path: string[];
  page?: number;
  firstOrdinal?: number;
  lastOrdinal?: number;
  children: OutlineJson[];
}

export const OutlineNodeSchema: z.ZodType<OutlineJson> = z.lazy(() => z.object({
  title: z.string(),
  level: z.number().int(),
  path: z.array(z.string()),
  page: z.number().int().optional(),
  firstOrdinal: z.number().int().optional(),
  lastOrdinal: z.number().int().optional(),
  children: z.array(OutlineNodeSchema),
})).meta({ id: 'OutlineNode', description: 'a heading and the sections under it' });

export const DocumentDetailSchema = z.object({
  document: DocumentSchema,
  outline: z.array(OutlineNodeSchema).describe('the heading tree, from the stored blocks'),
  report: DocumentReportSchema,
  warnings: z.array(z.string()),
  original: z.string().nullable().describe('URL of the original file, when kept'),
});

export const FileOutcomeSchema = z.object({
  name: z.string().describe('the file name the client sent (never used as a path)'),
  bytes: z.number().int(),
  docId: z.string().describe('content hash: the document id once stored'),
  outcome: z.enum(['pending', 'added', 'unchanged', 'rejected', 'cancelled']),
  blocks: z.number().int().optional(),
  code: z.string().optional(),
  reason: z.string().optional(),
  hint: z.string().optional().describe('for a rejected file: what to do about it'),
}).meta({ id: 'JobFile' });

export const JobSchema = z.object({
  id: z.string(),
  kind: z.string(),
  state: z.enum(JOB_STATES as ['queued', 'running', 'done', 'failed', 'cancelled']),
  files: z.array(FileOutcomeSchema),
  progress: z.object({ filesDone: z.number().int(), filesTotal: z.number().int(), bytesDone: z.number().int(), bytesTotal: z.number().int() }).nullable(),
  report: z.record(z.string(), z.unknown()).nullable().describe('the ingest report (counts, rejected files)'),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  cancelRequested: z.boolean(),
  attempts: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  links: z.object({ self: z.string(), events: z.string() }),
}).meta({ id: 'Job', description: 'an upload\'s ingest: queued -> running -> done | failed | cancelled' });

export const HitSchema = z.object({
  score: z.number(),
  scores: z.record(z.string(), z.number()),
  docId: z.string(),
  path: z.string().nullable(),
  text: z.string().describe('the passage (merged hits, neighbours)'),
  snippet: z.string().describe('around the first match, matches between « »'),
  start: z.number().int(),
  end: z.number().int(),
  headingPath: z.array(z.string()),
  pageStart: nullableInt,
  pageEnd: nullableInt,
  block: BlockSchema,
  blockIds: z.array(z.string()),
  matched: z.array(z.string()),
  duplicates: z.array(z.object({
    docId: z.string(), path: z.string().nullable(), blockId: z.string(), headingPath: z.array(z.string()), pageStart: nullableInt, pageEnd: nullableInt,
  })),
  section: z.object({ headingPath: z.array(z.string()), title: z.string(), label: z.string().optional() }).optional(),
}).meta({ id: 'Hit' });

export const SearchResponseSchema = z.object({
  hits: z.array(HitSchema),
  keywords: z.string().describe('what was searched for once section references were taken out'),
  mode: z.string(),
  section: z.record(z.string(), z.unknown()).nullable().describe('the section the query or `section` named and how it was resolved'),
  explanation: z.record(z.string(), z.unknown()).optional().describe('with explain: retriever runs, fusion, merging'),
});

export const StatsSchema = z.object({
  dir: z.string(),
  strategy: z.string(),
  tokenizer: z.string(),
  documents: z.number().int(),
  blocks: z.number().int(),
  paths: z.number().int(),
  tokens: z.number().int(),
  bytes: z.number().int(),
  byFormat: z.record(z.string(), z.number().int()),
  parseCacheEntries: z.number().int(),
  jobs: z.record(z.string(), z.number().int()).describe('jobs by state'),
});

/** Path parameter `{id}`. */
export const IdParams = z.object({ id: z.string().min(1).max(200) }).strict();

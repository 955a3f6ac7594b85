import { chunk } from '../chunk.js';
import type { Chunk } from '../chunkers/types.js';
import type { Document } from '../document/types.js';
import { isGroundworkError, type LimitInfo } from '../errors.js';
import { parse } from '../parse.js';
import { blockIndexText } from '../search/analyze.js';
import { storableChunks } from './blocks.js';
import type { ParseOptions } from '../parsers/types.js';
import type { ChunkOptions } from '../chunk.js';

/**
 * One unit of ingest work, done in a worker process (src/library/ingest-process.ts) or, with
 * `workers: 0`, in the Library's own: parse (unless cached), then chunk and analyse for search.
 */
export interface IngestTask {
  id: number;
  path: string;
  cached?: Document;
  parseOptions: ParseOptions;
  chunkOptions: ChunkOptions;
}

export type IngestResult =
  | { id: number; ok: true; document: Document; chunks: Chunk[][]; indexTexts: string[][]; parsed: boolean }
  | { id: number; ok: false; code: string; reason: string; limit?: LimitInfo };

/** A document and its descendants (attachments, archive entries), parent first, depth first. */
export function documentTree(doc: Document): Document[] {
  const out: Document[] = [doc];
  for (const child of doc.children ?? []) out.push(...documentTree(child));
  return out;
}

export async function runTask(task: IngestTask): Promise<IngestResult> {
  try {
    const document = task.cached ?? (await parse(task.path, task.parseOptions));
    // Chunk sets in documentTree order; a container with no text of its own gets none.
    const chunks = documentTree(document).map((d) => (d.canonical.trim() === '' ? [] : storableChunks(d.canonical, chunk(d, task.chunkOptions))));
    // Search analysis (jieba, stemming) is the slowest part of a write: do it here, not on the writer.
    const indexTexts = chunks.map((set) => set.map(blockIndexText));
    return { id: task.id, ok: true, document, chunks, indexTexts, parsed: !task.cached };
  } catch (error) {
    if (isGroundworkError(error)) return { id: task.id, ok: false, code: error.code, reason: error.message, ...(error.limit && { limit: error.limit }) };
    return { id: task.id, ok: false, code: 'CORRUPT', reason: `${task.path}: ${(error as Error).message}` };
  }
}

import { chunk } from '../chunk.js';
import type { Chunk } from '../chunkers/types.js';
import type { Document } from '../document/types.js';
import { GroundworkError, isGroundworkError, type LimitInfo } from '../errors.js';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DEFAULT_MAX_BYTES, parse } from '../parse.js';
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
  /** Where the bytes are read from. */
  path: string;
  /** The file they are, when `path` is a copy (Library.addCopies): parsed and named as this one. */
  recordAs?: { path: string; mtimeMs: number };
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

/**
 * A copy's bytes parsed as the file they are: detection, messages and attachments' names use the
 * recorded path, and the document's source is that file's (as `parse(path)` would record it).
 */
async function parseCopy(from: string, as: { path: string; mtimeMs: number }, options: ParseOptions): Promise<Document> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const info = await stat(from).catch((cause: Error) => {
    throw new GroundworkError('IO', `cannot read: ${cause.message}`, { file: as.path, cause });
  });
  // The limit before reading, as parse(path) checks it.
  if (info.size > maxBytes) {
    throw new GroundworkError('TOO_LARGE', `${info.size} bytes exceeds the limit of ${maxBytes} bytes (maxBytes; raise it with --max-bytes)`, { file: as.path, limit: { name: 'maxBytes', value: maxBytes, flag: '--max-bytes' } });
  }
  const bytes = await readFile(from).catch((cause: Error) => {
    throw new GroundworkError('IO', `cannot read: ${cause.message}`, { file: as.path, cause });
  });
  const document = await parse(bytes, { ...options, name: as.path });
  document.source = { ...document.source, name: basename(as.path), path: as.path, mtime: new Date(as.mtimeMs).toISOString() };
  return document;
}

export async function runTask(task: IngestTask): Promise<IngestResult> {
  try {
    const document = task.cached ?? (task.recordAs ? await parseCopy(task.path, task.recordAs, task.parseOptions) : await parse(task.path, task.parseOptions));
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

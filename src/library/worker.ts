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

/**
 * Chunk text (UTF-16 code units) of a document up to which its blocks' search analysis is made
 * by the worker and sent with its result; a bigger document's blocks are analysed by the store,
 * one at a time, as it writes them.
 */
export const INDEX_TEXT_CHARS = 8 << 20;

export type IngestResult =
  | { id: number; ok: true; document: Document; chunks: Chunk[][]; indexTexts: string[][]; parsed: boolean; parseBlob?: Uint8Array }
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
    // Search analysis (jieba, stemming) is the slowest part of a write: do it here, not on the writer,
    // unless the texts are so big that holding their analysis too would double the memory: then the
    // store analyses each block as it writes it (see INDEX_TEXT_CHARS).
    let chars = 0;
    for (const set of chunks) for (const c of set) chars += c.text.length;
    const indexTexts = chars <= INDEX_TEXT_CHARS ? chunks.map((set) => set.map(blockIndexText)) : chunks.map(() => []);
    return { id: task.id, ok: true, document, chunks, indexTexts, parsed: !task.cached };
  } catch (error) {
    if (isGroundworkError(error)) return { id: task.id, ok: false, code: error.code, reason: error.message, ...(error.limit && { limit: error.limit }) };
    return { id: task.id, ok: false, code: 'CORRUPT', reason: `${task.path}: ${(error as Error).message}` };
  }
}

/**
 * How an ingest worker's result crosses to the Library's process (src/library/ingest-process.ts).
 *
 * The result of a big file is never one message: a structured-clone message is held whole by the
 * sender (serialized), and twice by the receiver (the bytes read, then concatenated) besides the
 * objects it becomes, so a 100 MB text made a message of four copies of it (canonical text,
 * element texts, chunk texts, index texts) and peaked at over 2 GB across the two processes.
 * Instead the worker sends, each as pieces of at most `PART_CHARS` (`TaskContext.part`, awaited,
 * so at most one piece is in flight):
 * - the parse-cache entry, encoded here (`encodeParse`), where the whole parse is at hand;
 * - the chunk texts, which are all the text the Library keeps (its blocks);
 * and then the result itself, whose documents carry no canonical text and elements only the
 * fields the Library reads (kind, span, page, boxes): it needs no more, as the cache entry is made.
 * The index texts (search analysis, as big as the chunk texts) travel only for documents up to
 * `INDEX_TEXT_CHARS`; a bigger document's blocks are analysed by the store one at a time as it
 * writes them, so no process holds them all.
 */
export const PART_CHARS = 4 << 20;

type Part = { texts: string[] } | { blob: Uint8Array };

export interface PackedIngestResult {
  id: number;
  ok: true;
  document: Document;
  /** The chunks with `text` empty (the texts follow in order in the parts) and no `prefix`. */
  chunks: Chunk[][];
  indexTexts: string[][] | null;
  parsed: boolean;
  /** True when the parts carry the parse-cache entry. */
  parseBlob: boolean;
}

export type WireIngestResult = PackedIngestResult | Extract<IngestResult, { ok: false }>;

/** Sends a result's big pieces with `part` and returns what goes in the result message. */
export async function packResult(result: IngestResult, part: (value: Part) => Promise<void>, options: { encodeParse?: (doc: Document) => Uint8Array } = {}): Promise<WireIngestResult> {
  if (!result.ok) return result;
  if (options.encodeParse && result.parsed) {
    const blob = options.encodeParse(result.document);
    for (let at = 0; at < blob.length; at += PART_CHARS) await part({ blob: blob.subarray(at, at + PART_CHARS) });
  }
  let texts: string[] = [];
  let chars = 0;
  let total = 0;
  const chunks: Chunk[][] = [];
  for (const set of result.chunks) {
    const packed: Chunk[] = [];
    for (const c of set) {
      texts.push(c.text);
      chars += c.text.length;
      total += c.text.length;
      // `prefix` (a breadcrumb, a repeated header, the overlap) is in the text already, and no block keeps it.
      const { prefix: _prefix, ...rest } = c;
      packed.push({ ...rest, text: '' });
      if (chars >= PART_CHARS) {
        await part({ texts });
        texts = [];
        chars = 0;
      }
    }
    chunks.push(packed);
  }
  if (texts.length > 0) await part({ texts });
  return {
    id: result.id,
    ok: true,
    document: skeleton(result.document),
    chunks,
    indexTexts: total <= INDEX_TEXT_CHARS ? result.indexTexts : null,
    parsed: result.parsed,
    parseBlob: Boolean(options.encodeParse && result.parsed),
  };
}

/** The Library's side of `packResult`: the result with its chunk texts back, and the cache entry. */
export function unpackResult(wire: WireIngestResult, parts: readonly unknown[]): IngestResult & { parseBlob?: Uint8Array } {
  if (!wire.ok) return wire;
  const blobs: Uint8Array[] = [];
  const texts: string[][] = [];
  for (const p of parts as Part[]) {
    if ('blob' in p) blobs.push(p.blob);
    else texts.push(p.texts);
  }
  let batch = 0;
  let at = 0;
  for (const set of wire.chunks) {
    for (const c of set) {
      while (batch < texts.length && at >= texts[batch]!.length) {
        batch++;
        at = 0;
      }
      c.text = texts[batch]?.[at++] ?? '';
    }
  }
  return {
    id: wire.id,
    ok: true,
    document: wire.document,
    chunks: wire.chunks,
    // Blocks with no index text are analysed by the store as it writes them.
    indexTexts: wire.indexTexts ?? wire.chunks.map(() => []),
    parsed: wire.parsed,
    ...(wire.parseBlob && { parseBlob: blobs.length === 1 ? blobs[0]! : Buffer.concat(blobs) }),
  };
}

/** A document as the Library needs it once its chunks and cache entry are made: no texts, no table cells. */
function skeleton(doc: Document): Document {
  return {
    ...doc,
    canonical: '',
    elements: doc.elements.map((e) => ({
      kind: e.kind,
      index: e.index,
      start: e.start,
      end: e.end,
      text: '',
      ...(e.page !== undefined && { page: e.page }),
      ...(e.pageEnd !== undefined && { pageEnd: e.pageEnd }),
      ...(e.bbox && { bbox: e.bbox }),
      ...(e.bboxes && { bboxes: e.bboxes }),
    })),
    ...(doc.children && { children: doc.children.map(skeleton) }),
  };
}

/**
 * What one fuzz input runs through, as an ingest worker does (src/library/worker.ts): parse, then
 * chunk the document and its children, drop blank chunks, analyse the blocks for search; or, for a
 * chunker input, chunkText with one strategy. Everything is checked on the way: which errors come
 * out (a GroundworkError with a code, or anything else), the document's element spans, and the
 * chunk invariants (test/chunkers/invariants.ts). Runs in a worker thread (worker.ts) or, to replay
 * a reproducer under a debugger, in-process.
 */
import { chunk, chunkText, type ChunkOptions } from '../../src/chunk.js';
import type { Document } from '../../src/document/types.js';
import { isGroundworkError } from '../../src/errors.js';
import { storableChunks } from '../../src/library/blocks.js';
import { parse } from '../../src/parse.js';
import { blockIndexText } from '../../src/search/analyze.js';
import { getTokenizer } from '../../src/tokens/index.js';
import { chunkViolations, documentChunkViolations, documentViolations, STRATEGIES, type StrategySpec } from '../chunkers/invariants.js';

export type ParseTask = {
  kind: 'parse';
  name: string;
  bytes: Uint8Array;
  /** Chunking strategy for the parsed document (its defaults). */
  strategy: string;
  ocr: 'auto' | 'off';
};

export type ChunkTask = {
  kind: 'chunk';
  text: string;
  /** A key of STRATEGIES, or `qwen`. */
  spec: string;
  /** The size limit (chunkSize / maxCharSize / parserPageSize); overlaps are derived from it. */
  size: number;
};

export type FuzzTask = ParseTask | ChunkTask;

export interface ErrorInfo {
  name: string;
  message: string;
  stack?: string;
}

export type Stage = 'parse' | 'chunk' | 'index';

export type TargetResult =
  | { status: 'ok'; summary: string; violations: string[] }
  | { status: 'rejected'; stage: Stage; code: string; message: string; hasFile: boolean; limit?: { name: string; value: number; flag?: string }; cause?: ErrorInfo }
  | { status: 'thrown'; stage: Stage; error: ErrorInfo };

/** A document and its descendants, parent first (as src/library/worker.ts, which listens on parentPort when imported). */
function documentTree(doc: Document): Document[] {
  return [doc, ...(doc.children ?? []).flatMap(documentTree)];
}

function info(error: unknown): ErrorInfo {
  if (error instanceof Error) return { name: error.name, message: error.message.slice(0, 2000), ...(error.stack && { stack: error.stack.split('\n').slice(0, 12).join('\n') }) };
  return { name: typeof error, message: String(error).slice(0, 2000) };
}

function failure(stage: Stage, error: unknown): TargetResult {
  if (!isGroundworkError(error)) return { status: 'thrown', stage, error: info(error) };
  return {
    status: 'rejected',
    stage,
    code: error.code,
    message: error.message.slice(0, 2000),
    hasFile: error.file !== undefined,
    ...(error.limit && { limit: { ...error.limit } }),
    ...(error.cause !== undefined && { cause: info(error.cause) }),
  };
}

/** The strategy spec of a chunker task, sized: chunkSize (or chisel's maxCharSize) = `size`. */
export function sizedSpec(name: string, size: number): StrategySpec & { qwen?: boolean } {
  if (name === 'qwen') return { options: { strategy: 'qwen', parserPageSize: size }, prefixed: false, overlap: 0, unit: 'tokens', graphemeSafe: false, surrogateSafe: false, blank: 'whole', qwen: true };
  const base = STRATEGIES[name];
  if (!base) throw new Error(`unknown chunker spec '${name}'; known: ${[...Object.keys(STRATEGIES), 'qwen'].join(', ')}`);
  const options: ChunkOptions = { ...base.options };
  let overlap = base.overlap;
  if (options.strategy === 'chisel') {
    options.maxCharSize = size;
    options.lookBackCharRange = Math.floor(size / 3);
  } else {
    options.chunkSize = size;
    if ('chunkOverlap' in options) options.chunkOverlap = Math.floor(size / 4);
    // recursive in tokens may exceed chunkSize (LangChain's own sum of parts); its overlap bound is a chunk.
    overlap = base.maxSize === undefined ? size : Math.floor(size / 4);
  }
  return { ...base, options, overlap, ...(base.maxSize !== undefined && { maxSize: size }) };
}

async function runParse(task: ParseTask): Promise<TargetResult> {
  let doc: Document;
  try {
    doc = await parse(task.bytes, { name: task.name, ocr: task.ocr });
  } catch (error) {
    return failure('parse', error);
  }
  const tokenizer = getTokenizer('cl100k_base');
  const violations: string[] = [];
  let chunks = 0;
  let docs = 0;
  for (const d of documentTree(doc)) {
    docs++;
    violations.push(...documentViolations(d).map((v) => `${d.source.name ?? 'document'}: ${v}`));
    if (d.canonical.trim() === '') continue;
    let set;
    try {
      set = chunk(d, { strategy: task.strategy });
    } catch (error) {
      return failure('chunk', error);
    }
    const t = task.strategy === 'qwen' ? getTokenizer('qwen') : tokenizer;
    violations.push(...documentChunkViolations(d, set, task.strategy, t).map((v) => `${d.source.name ?? 'document'}: ${v}`));
    try {
      for (const c of storableChunks(d.canonical, set)) blockIndexText(c);
    } catch (error) {
      return failure('index', error);
    }
    chunks += set.length;
  }
  return { status: 'ok', summary: `${doc.format}: ${docs} document(s), ${doc.elements.length} element(s), ${chunks} ${task.strategy} chunk(s)`, violations };
}

function runChunk(task: ChunkTask): TargetResult {
  const spec = sizedSpec(task.spec, task.size);
  let chunks;
  try {
    chunks = chunkText(task.text, spec.options);
  } catch (error) {
    return failure('chunk', error);
  }
  let violations: string[];
  if (spec.qwen) {
    // Qwen's chunks are its own strings ([page: N] markers, \n joins): counts are what can be checked.
    const qwen = getTokenizer('qwen');
    violations = chunks.flatMap((c, i) => [
      ...(c.tokens !== qwen.count(c.text) ? [`chunk ${i}: tokens ${c.tokens}, counted ${qwen.count(c.text)}`] : []),
      ...(c.chars !== c.text.length ? [`chunk ${i}: chars ${c.chars}, text length ${c.text.length}`] : []),
      ...(c.start < 0 || c.end > task.text.length || c.start > c.end ? [`chunk ${i}: span [${c.start}, ${c.end}) outside the input`] : []),
    ]).slice(0, 5);
  } else {
    violations = chunkViolations(task.text, chunks, spec);
  }
  try {
    for (const c of storableChunks(task.text, chunks)) blockIndexText(c);
  } catch (error) {
    return failure('index', error);
  }
  return { status: 'ok', summary: `${chunks.length} ${task.spec} chunk(s) of ${task.text.length} chars`, violations };
}

export async function runTarget(task: FuzzTask): Promise<TargetResult> {
  try {
    return task.kind === 'parse' ? await runParse(task) : runChunk(task);
  } catch (error) {
    // Only a bug of the harness itself gets here (everything above catches per stage).
    return { status: 'thrown', stage: task.kind === 'parse' ? 'parse' : 'chunk', error: info(error) };
  }
}

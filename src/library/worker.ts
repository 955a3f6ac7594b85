import { parentPort } from 'node:worker_threads';
import { chunk } from '../chunk.js';
import type { Document } from '../document/types.js';
import { isGroundworkError } from '../errors.js';
import { parse } from '../parse.js';
import type { ParseOptions } from '../parsers/types.js';
import type { ChunkOptions } from '../chunk.js';

/** One unit of ingest work, done off the main thread: parse (unless cached), then chunk. */
export interface IngestTask {
  id: number;
  path: string;
  cached?: Document;
  parseOptions: ParseOptions;
  chunkOptions: ChunkOptions;
}

export type IngestResult =
  | { id: number; ok: true; document: Document; chunks: ReturnType<typeof chunk>; parsed: boolean }
  | { id: number; ok: false; code: string; reason: string };

export async function runTask(task: IngestTask): Promise<IngestResult> {
  try {
    const document = task.cached ?? (await parse(task.path, task.parseOptions));
    const chunks = chunk(document, task.chunkOptions);
    return { id: task.id, ok: true, document, chunks, parsed: !task.cached };
  } catch (error) {
    if (isGroundworkError(error)) return { id: task.id, ok: false, code: error.code, reason: error.message };
    return { id: task.id, ok: false, code: 'CORRUPT', reason: `${task.path}: ${(error as Error).message}` };
  }
}

parentPort?.on('message', (task: IngestTask) => {
  void runTask(task).then((result) => parentPort!.postMessage(result));
});

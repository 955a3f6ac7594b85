import { chunk } from '../chunk.js';
import { parse } from '../parse.js';
import { blockIndexText } from '../search/analyze.js';
import { encodeParse } from '../store/parse-cache.js';
import { serveTasks } from './task-host.js';
import { packResult, runTask, type IngestTask, type WireIngestResult } from './worker.js';

/**
 * The ingest worker process (ProcessPool's entry, src/library/process-pool.ts): parses (unless the
 * Library sent the cached parse), chunks and analyses one file at a time under the per-file limits,
 * and sends the result back. It never opens the store: the Library writes every document itself.
 * Its argument is the batch's `{ strategy, tokenizer }` (JSON), to warm up with.
 */

export interface IngestWorkerConfig {
  strategy: string;
  tokenizer: string;
}

/**
 * Loads what the first file would otherwise pay for, before the worker reports ready (the per-file
 * clock starts then): the chunker's code and the tokenizer's vocabulary. Not every parser's code
 * (each is loaded by the first file of its format, src/parsers/registry.ts) nor the Chinese
 * dictionary of the search analysis (loaded by the first Chinese text, src/search/analyze.ts): a
 * worker keeps what it loads, so it holds only what its files need. Loading all the parsers and the
 * dictionary up front made every worker about twice as big, to save the first files of some formats
 * a few hundred milliseconds (docs/robustness.md, "Start-up memory").
 */
async function warmUp(config: IngestWorkerConfig): Promise<void> {
  const doc = await parse(new TextEncoder().encode('Warm-up\n\nThe tide turns twice a day.\n'), { name: 'warm-up.txt' });
  for (const c of chunk(doc, { strategy: config.strategy, tokenizer: config.tokenizer as never })) blockIndexText(c);
}

// One document per worker, as in the worker threads before: a PDF's pages are analysed in place
// (src/pdf/page-pool.ts), not on page threads whose memory would count against this worker's ceiling.
process.env.GROUNDWORK_PDF_WORKERS ??= '0';
const config = JSON.parse(process.argv[2] ?? '{}') as Partial<IngestWorkerConfig>;
/**
 * Resident memory over which a worker collects its garbage once a task is answered. V8 collects
 * lazily under the heap ceiling (`--max-old-space-size` is the per-file memory limit), so without
 * this an idle worker keeps its last big file's memory, and a long batch's worker grows towards
 * the ceiling: what a soak's RSS showed growing.
 */
const COLLECT_OVER_BYTES = 160 * 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;

serveTasks<IngestTask, WireIngestResult>(async (task, ctx) => {
  const result = await runTask(task);
  // A cached parse sent with the task is in the result now: only `packResult` holds it, and drops it as it goes.
  delete task.cached;
  return packResult(result, (part) => ctx.part(part), { encodeParse, consume: true });
}, {
  warmUp: () => warmUp({ strategy: config.strategy ?? 'structure', tokenizer: config.tokenizer ?? 'cl100k_base' }),
  afterTask: () => {
    if (gc && process.memoryUsage.rss() > COLLECT_OVER_BYTES) gc();
  },
});

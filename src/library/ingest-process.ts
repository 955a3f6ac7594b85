import { serveTasks } from './task-host.js';
import { runTask, type IngestResult, type IngestTask } from './worker.js';

/**
 * The ingest worker process (ProcessPool's entry, src/library/process-pool.ts): parses (unless the
 * Library sent the cached parse), chunks and analyses one file at a time under the per-file limits,
 * and sends the result back. It never opens the store: the Library writes every document itself.
 */
serveTasks<IngestTask, IngestResult>((task) => runTask(task));

export { openQueue, redactUrl, type QueueConnection } from './connection.js';
export { enqueueFiles, type EnqueueProgress, type EnqueueReport } from './enqueue.js';
export { jobId, type IngestJob, type JobIngestOptions } from './jobs.js';
export {
  ENQUEUE_OPTIONS_SCHEMA,
  QUEUE_OPTIONS_SCHEMA,
  WORKER_OPTIONS_SCHEMA,
  type EnqueueOptions,
  type QueueOptions,
  type WorkerOptions,
} from './options.js';
export { queueStatus, retryFailed, type FailedJob, type QueueCounts, type QueueStatus, type WorkerRow } from './status.js';
export { runWorker, type RunWorkerOptions, type WorkerEvent, type WorkerHandle, type WorkerStats } from './worker.js';

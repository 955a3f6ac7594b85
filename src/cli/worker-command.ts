import { redactUrl } from '../queue/connection.js';
import { runWorker, type WorkerEvent } from '../queue/worker.js';
import { flag, integerValue, parseCommandArgs, type ParsedArgs } from './args.js';
import { displayPath, formatBytes, HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC } from './common.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { queueFrom, secondsFlag } from './queue-common.js';

export const WORKER_HELP = `Usage: groundwork worker --postgres URL [options]

Takes ingest jobs from the library's queue (recorded by 'groundwork ingest PATH... --queue') and
ingests them: parse, chunk, embed when an embedder is configured, store. Start as many workers as
you like, on any machine that reads the queued paths. Each document lands in one transaction and is
deduplicated by content hash, so a job done twice stores its file once. A file the library refuses
(CORRUPT, EMPTY, LIMIT_EXCEEDED, ...) fails once with its reason; a worker that is killed stops
beating and its jobs go back to the queue within --stale-after (plus one heartbeat).

Options:
${LIBRARY_FLAG_HELP}
  --concurrency N       files ingested at once by this worker (default 1)
  --batch N             jobs taken per fetch (default 4)
  --poll SECONDS        wait between fetches when the queue is empty (default 1)
  --heartbeat SECONDS   how often the worker beats and looks for lost workers (default 5)
  --stale-after SECONDS a worker silent this long is lost: its jobs are retried (default 20)
  --exit-when-idle      stop once the queue is empty (batch runs) instead of waiting for jobs
  --no-embed            store blocks only (groundwork embed adds vectors later); by default a worker
                        embeds with the library's embedder (its stored settings, else
                        $GROUNDWORK_EMBEDDINGS_URL/_MODEL/_KEY in the worker's environment)
  --quiet               no line per file on stderr
  --json                print the final counts as JSON

SIGINT or SIGTERM stops taking jobs, lets the running batch finish and exits; a second signal exits
at once (the batch's jobs are retried by another worker). 'groundwork jobs' shows the queue.
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...LIBRARY_FLAG_SPEC,
  concurrency: { type: 'string' },
  batch: { type: 'string' },
  poll: { type: 'string' },
  heartbeat: { type: 'string' },
  'stale-after': { type: 'string' },
  'exit-when-idle': { type: 'boolean' },
  quiet: { type: 'boolean' },
  'no-embed': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export async function workerCommand(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(WORKER_HELP);
      return EXIT_OK;
    }
    const queue = queueFrom(args, 'worker');
    const controller = new AbortController();
    let signals = 0;
    const onSignal = () => {
      signals++;
      if (signals === 1) {
        io.err('groundwork: worker: stopping after the running batch (signal again to exit now)\n');
        controller.abort();
      } else process.exit(130);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const quiet = flag(args, 'quiet');
      const handle = await runWorker(queue, {
        ...workerOptionsFrom(args),
        signal: controller.signal,
        onEvent: (event) => {
          if (!quiet) printEvent(io, event);
        },
      });
      io.err(`groundwork: worker ${handle.id} on ${redactUrl(queue.url)} (schema ${queue.schema ?? 'groundwork'}): waiting for jobs\n`);
      const stats = await handle.done;
      if (flag(args, 'json')) io.out(`${JSON.stringify(stats, null, 2)}\n`);
      else io.out(`worker ${stats.workerId}: ${stats.jobsDone} stored (${formatBytes(stats.bytesDone)}), ${stats.jobsFailed} rejected, ${stats.jobsReclaimed} reclaimed from lost workers\n`);
      return EXIT_OK;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  } catch (error) {
    return reportError(io, error, 'worker');
  }
}

function workerOptionsFrom(args: ParsedArgs) {
  const concurrency = integerValue(args, 'concurrency', 1);
  const batchSize = integerValue(args, 'batch', 1);
  const pollIntervalMs = secondsFlag(args, 'poll');
  const heartbeatMs = secondsFlag(args, 'heartbeat');
  const staleAfterMs = secondsFlag(args, 'stale-after');
  return {
    ...(concurrency !== undefined && { concurrency }),
    ...(batchSize !== undefined && { batchSize }),
    ...(pollIntervalMs !== undefined && { pollIntervalMs }),
    ...(heartbeatMs !== undefined && { heartbeatMs }),
    ...(staleAfterMs !== undefined && { staleAfterMs }),
    ...(flag(args, 'exit-when-idle') && { exitWhenIdle: true }),
    ...(flag(args, 'no-embed') && { embed: false }),
  };
}

function printEvent(io: CliIO, event: WorkerEvent): void {
  switch (event.type) {
    case 'stored':
      io.err(`stored ${displayPath(event.path)}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}\n`);
      break;
    case 'rejected':
      io.err(`rejected ${displayPath(event.path)} [${event.code}]: ${event.reason}\n`);
      break;
    case 'retry':
      io.err(`retrying ${event.jobIds.length} job(s): ${event.reason}\n`);
      break;
    case 'reclaimed':
      io.err(`reclaimed ${event.jobIds.length} job(s) of lost worker(s) ${event.workers.join(', ')}\n`);
      break;
    case 'error':
      io.err(`groundwork: worker: ${event.error.message}\n`);
      break;
    case 'idle':
      break;
  }
}

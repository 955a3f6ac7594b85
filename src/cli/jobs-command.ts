import { queueStatus, retryFailed, type QueueStatus } from '../queue/status.js';
import { flag, integerValue, parseCommandArgs } from './args.js';
import { count, displayPath, formatBytes, formatTable, HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC } from './common.js';
import { rejectionHint } from './ingest-command.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { queueFrom } from './queue-common.js';

export const JOBS_HELP = `Usage: groundwork jobs --postgres URL [options]

The library's ingest queue: jobs waiting, retrying, running, done and failed (with the bytes
behind them), every failed file with its code and reason, and every worker seen in the last day
with its state and throughput (files/s and MB/s over its life).

Options:
${LIBRARY_FLAG_HELP}
  --failures N          list at most N failed files, newest first (default 20)
  --retry-failed        put every failed job back in the queue, then show the queue
  --json                print the status as JSON
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...LIBRARY_FLAG_SPEC,
  failures: { type: 'string' },
  'retry-failed': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export async function jobsCommand(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(JOBS_HELP);
      return EXIT_OK;
    }
    const queue = queueFrom(args, 'jobs');
    if (flag(args, 'retry-failed')) {
      const n = await retryFailed(queue);
      io.err(`groundwork: ${count(n, 'failed job')} put back in the queue\n`);
    }
    const status = await queueStatus(queue, { failures: integerValue(args, 'failures', 0) ?? 20 });
    io.out(flag(args, 'json') ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'jobs');
  }
}

export function formatStatus(status: QueueStatus): string {
  const c = status.counts;
  const total = c.created + c.retry + c.active + c.completed + c.failed + c.cancelled;
  const rows: [string, string][] = [
    ['waiting', String(c.created)],
    ['retrying', String(c.retry)],
    ['running', String(c.active)],
    ['done', String(c.completed)],
    ['failed', String(c.failed)],
    ...(c.cancelled > 0 ? [['cancelled', String(c.cancelled)] as [string, string]] : []),
    ['total', String(total)],
  ];
  let text = `Queue ${status.schema}.${status.queue}: ${formatBytes(status.bytesPending)} to go, ${formatBytes(status.bytesDone)} done\n\n${formatTable(['jobs', 'count'], rows, [1])}`;
  if (status.workers.length > 0) {
    text += `\n${count(status.workers.length, 'worker')}:\n`;
    text += formatTable(
      ['worker', 'state', 'running', 'done', 'failed', 'files/s', 'MB/s', 'last beat'],
      status.workers.map((w) => [
        w.id, w.state, String(w.active), String(w.jobsDone), String(w.jobsFailed), w.jobsPerSecond.toFixed(2),
        (w.bytesPerSecond / 1024 ** 2).toFixed(2), `${Math.max(0, Math.round((Date.now() - Date.parse(w.heartbeatAt)) / 1000))} s ago`,
      ]),
      [2, 3, 4, 5, 6],
    );
  }
  if (status.failures.length > 0) {
    text += `\n${count(status.failures.length, 'failed file')}${c.failed > status.failures.length ? ` (of ${c.failed})` : ''}:\n`;
    for (const f of status.failures) {
      text += `  ${displayPath(f.path)} [${f.code}]: ${f.reason.startsWith(`${f.path}: `) ? f.reason.slice(f.path.length + 2) : f.reason}\n    -> ${rejectionHint(f.code, f.path)}\n`;
    }
  }
  return text;
}

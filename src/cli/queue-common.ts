import type { QueueOptions } from '../queue/options.js';
import { UsageError, type ParsedArgs } from './args.js';
import { DATABASE_URL_ENV, libraryStoreFrom } from './common.js';

/**
 * The queue the library flags name: the queue lives beside a Postgres library (same server, schema
 * `<library schema>_queue`), so `--postgres URL` (or $GROUNDWORK_DATABASE_URL) is required.
 */
export function queueFrom(args: ParsedArgs, command: string): QueueOptions {
  const store = libraryStoreFrom(args);
  if (!store || store.kind !== 'postgres') {
    throw new UsageError(`${command} needs a library on PostgreSQL: --postgres URL (or $${DATABASE_URL_ENV}); the queue lives beside it`);
  }
  return { url: store.url as string, ...(typeof store.schema === 'string' && { schema: store.schema }) };
}

/** `--name SECONDS` as milliseconds (decimals allowed), undefined when absent. */
export function secondsFlag(args: ParsedArgs, name: string): number | undefined {
  const raw = args.values[name];
  if (typeof raw !== 'string') return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--${name} must be a number of seconds > 0, got '${raw}'`);
  return Math.round(seconds * 1000);
}

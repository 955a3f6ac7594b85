import type { JobPatch, JobRecord } from './types.js';

/**
 * The job-row mapping both stores share (src/store/sqlite/sqlite-jobs.ts, src/store/postgres/
 * postgres-jobs.ts): one `jobs` table with the same columns, the payloads as JSON text. The stores
 * keep only their SQL dialect (placeholders, the compare-and-set, duplicate-key errors).
 */

type Row = Record<string, any>;

/** Every column, in the order `jobRowValues` gives the values. */
export const JOB_COLUMNS = ['id', 'kind', 'state', 'input', 'progress', 'result', 'error', 'attempts', 'created_at', 'updated_at', 'started_at', 'finished_at'] as const;

/** Columns a patch may set, by JobRecord field; JSON fields are serialised. */
const PATCH_COLUMNS: Record<keyof JobPatch, { column: string; json: boolean }> = {
  state: { column: 'state', json: false },
  progress: { column: 'progress', json: true },
  result: { column: 'result', json: true },
  error: { column: 'error', json: true },
  attempts: { column: 'attempts', json: false },
  startedAt: { column: 'started_at', json: false },
  finishedAt: { column: 'finished_at', json: false },
};

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** A job's row values in JOB_COLUMNS order. */
export function jobRowValues(job: JobRecord): unknown[] {
  return [job.id, job.kind, job.state, JSON.stringify(job.input), json(job.progress), json(job.result), json(job.error), job.attempts, job.createdAt, job.updatedAt, job.startedAt, job.finishedAt];
}

/** The columns a patch sets and their stored values (fields left undefined are not set). */
export function patchAssignments(patch: JobPatch): { column: string; value: unknown }[] {
  const out: { column: string; value: unknown }[] = [];
  for (const [field, value] of Object.entries(patch) as [keyof JobPatch, unknown][]) {
    if (value === undefined) continue;
    const { column, json: isJson } = PATCH_COLUMNS[field];
    out.push({ column, value: isJson ? json(value) : value });
  }
  return out;
}

/** A row back into a job; `decode` reads a JSON column as the driver returns it (text, or parsed already). */
export function toJob(row: Row, decode: (value: unknown) => unknown): JobRecord {
  const optional = (value: unknown) => (value === null || value === undefined ? null : decode(value));
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    input: decode(row.input) as JobRecord['input'],
    progress: optional(row.progress) as JobRecord['progress'],
    result: optional(row.result) as JobRecord['result'],
    error: optional(row.error) as JobRecord['error'],
    attempts: row.attempts,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

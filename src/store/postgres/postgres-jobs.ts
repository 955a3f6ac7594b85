import pg from 'pg';
import { GroundworkError } from '../../errors.js';
import { JOB_COLUMNS, jobRowValues, patchAssignments, toJob } from '../jobs.js';
import type { JobPatch, JobQuery, JobRecord, JobState } from '../types.js';

type Row = Record<string, any>;

/** The jobs table (migration 2), as src/store/sqlite/sqlite-jobs.ts keeps it on SQLite. */
export const JOBS_MIGRATION = {
  description: 'background jobs (groundwork serve)',
  sql: `
    CREATE TABLE jobs (
      id text COLLATE "C" PRIMARY KEY,
      kind text NOT NULL,
      state text NOT NULL,
      input json NOT NULL,
      progress json,
      result json,
      error json,
      attempts integer NOT NULL,
      created_at text NOT NULL,
      updated_at text NOT NULL,
      started_at text,
      finished_at text
    );
    CREATE INDEX jobs_created ON jobs (created_at DESC, id DESC);`,
};

/** pg returns `json` columns parsed. */
const rowToJob = (row: Row) => toJob(row, (value) => value);

export async function createJob(pool: pg.Pool, job: JobRecord): Promise<void> {
  try {
    await pool.query(`INSERT INTO jobs (${JOB_COLUMNS.join(', ')}) VALUES (${JOB_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`, jobRowValues(job));
  } catch (error) {
    if (error instanceof pg.DatabaseError && error.code === '23505') throw new GroundworkError('INVALID_OPTIONS', `a job with id ${job.id} exists already`);
    throw error;
  }
}

export async function getJob(pool: pg.Pool, id: string): Promise<JobRecord | undefined> {
  const { rows } = await pool.query('SELECT * FROM jobs WHERE id = $1', [id]);
  return rows[0] ? rowToJob(rows[0]) : undefined;
}

export async function listJobs(pool: pg.Pool, query: JobQuery = {}): Promise<JobRecord[]> {
  const states = query.states ?? [];
  const where = states.length > 0 ? 'WHERE state = ANY($2::text[])' : '';
  const params: unknown[] = [query.limit ?? 100];
  if (states.length > 0) params.push([...states]);
  const { rows } = await pool.query(`SELECT * FROM jobs ${where} ORDER BY created_at DESC, id DESC LIMIT $1`, params);
  return rows.map(rowToJob);
}

/** One statement: the state test and the change are atomic (a compare-and-set with `ifState`). */
export async function updateJob(pool: pg.Pool, id: string, patch: JobPatch, ifState: readonly JobState[] | undefined): Promise<JobRecord | undefined> {
  const sets = ['updated_at = $2'];
  const params: unknown[] = [id, new Date().toISOString()];
  for (const { column, value } of patchAssignments(patch)) {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  let where = 'id = $1';
  if (ifState) {
    params.push([...ifState]);
    where += ` AND state = ANY($${params.length}::text[])`;
  }
  const { rows } = await pool.query(`UPDATE jobs SET ${sets.join(', ')} WHERE ${where} RETURNING *`, params);
  return rows[0] ? rowToJob(rows[0]) : undefined;
}

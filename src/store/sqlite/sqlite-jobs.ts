import type Database from 'better-sqlite3';
import { GroundworkError } from '../../errors.js';
import type { JobPatch, JobQuery, JobRecord, JobState } from '../types.js';

type Row = Record<string, any>;

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

/** The jobs table (migration 4): plain rows, JSON in the payload columns. */
export class SqliteJobs {
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare(
      `INSERT INTO jobs(id, kind, state, input, progress, result, error, attempts, created_at, updated_at, started_at, finished_at)
       VALUES (@id, @kind, @state, @input, @progress, @result, @error, @attempts, @createdAt, @updatedAt, @startedAt, @finishedAt)`,
    );
    this.byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
  }

  create(job: JobRecord): void {
    try {
      this.insert.run({
        ...job,
        input: JSON.stringify(job.input),
        progress: job.progress === null ? null : JSON.stringify(job.progress),
        result: job.result === null ? null : JSON.stringify(job.result),
        error: job.error === null ? null : JSON.stringify(job.error),
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new GroundworkError('INVALID_OPTIONS', `a job with id ${job.id} exists already`);
      throw error;
    }
  }

  get(id: string): JobRecord | undefined {
    const row = this.byId.get(id) as Row | undefined;
    return row ? toJob(row) : undefined;
  }

  list(query: JobQuery = {}): JobRecord[] {
    const states = query.states ?? [];
    const where = states.length > 0 ? `WHERE state IN (${states.map(() => '?').join(', ')})` : '';
    const rows = this.db.prepare(`SELECT * FROM jobs ${where} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...states, query.limit ?? 100) as Row[];
    return rows.map(toJob);
  }

  update(id: string, patch: JobPatch, ifState: readonly JobState[] | undefined): JobRecord | undefined {
    return this.db.transaction(() => {
      const current = this.get(id);
      if (!current || (ifState && !ifState.includes(current.state))) return undefined;
      const sets = ['updated_at = @updatedAt'];
      const values: Record<string, unknown> = { id, updatedAt: new Date().toISOString() };
      for (const [field, value] of Object.entries(patch) as [keyof JobPatch, unknown][]) {
        if (value === undefined) continue;
        const { column, json } = PATCH_COLUMNS[field];
        sets.push(`${column} = @${field}`);
        values[field] = json && value !== null ? JSON.stringify(value) : value;
      }
      this.db.prepare(`UPDATE jobs SET ${sets.join(', ')} WHERE id = @id`).run(values);
      return this.get(id);
    })();
  }
}

function toJob(row: Row): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    input: JSON.parse(row.input),
    progress: row.progress === null ? null : JSON.parse(row.progress),
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error === null ? null : JSON.parse(row.error),
    attempts: row.attempts,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

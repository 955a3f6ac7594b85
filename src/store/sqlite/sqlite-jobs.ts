import type Database from 'better-sqlite3';
import { GroundworkError } from '../../errors.js';
import { JOB_COLUMNS, jobRowValues, patchAssignments, toJob } from '../jobs.js';
import type { JobPatch, JobQuery, JobRecord, JobState } from '../types.js';

type Row = Record<string, any>;

/** SQLite returns the JSON columns as text. */
const rowToJob = (row: Row) => toJob(row, (value) => JSON.parse(value as string));

/** The jobs table (migration 4): plain rows, JSON in the payload columns. */
export class SqliteJobs {
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare(`INSERT INTO jobs(${JOB_COLUMNS.join(', ')}) VALUES (${JOB_COLUMNS.map(() => '?').join(', ')})`);
    this.byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
  }

  create(job: JobRecord): void {
    try {
      this.insert.run(...jobRowValues(job));
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new GroundworkError('INVALID_OPTIONS', `a job with id ${job.id} exists already`);
      throw error;
    }
  }

  get(id: string): JobRecord | undefined {
    const row = this.byId.get(id) as Row | undefined;
    return row ? rowToJob(row) : undefined;
  }

  list(query: JobQuery = {}): JobRecord[] {
    const states = query.states ?? [];
    const where = states.length > 0 ? `WHERE state IN (${states.map(() => '?').join(', ')})` : '';
    const rows = this.db.prepare(`SELECT * FROM jobs ${where} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...states, query.limit ?? 100) as Row[];
    return rows.map(rowToJob);
  }

  update(id: string, patch: JobPatch, ifState: readonly JobState[] | undefined): JobRecord | undefined {
    return this.db.transaction(() => {
      const current = this.get(id);
      if (!current || (ifState && !ifState.includes(current.state))) return undefined;
      const assignments = patchAssignments(patch);
      const sets = ['updated_at = ?', ...assignments.map((a) => `${a.column} = ?`)];
      this.db.prepare(`UPDATE jobs SET ${sets.join(', ')} WHERE id = ?`).run(new Date().toISOString(), ...assignments.map((a) => a.value), id);
      return this.get(id);
    })();
  }
}

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { JOB_COLUMNS, jobRowValues, patchAssignments, toJob } from '../../src/store/jobs.js';
import { JOB_STATES, type JobPatch, type JobRecord } from '../../src/store/types.js';

/** The job-row mapping both stores share: a job survives a round trip as either driver returns it. */

const json = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.boolean(), fc.constant(null)), { maxKeys: 4 });
const iso = fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString());
const job: fc.Arbitrary<JobRecord> = fc.record({
  id: fc.uuid(),
  kind: fc.constantFrom('ingest', 'other'),
  state: fc.constantFrom(...JOB_STATES),
  input: json,
  progress: fc.option(json, { nil: null }),
  result: fc.option(json, { nil: null }),
  error: fc.option(fc.record({ code: fc.constantFrom('IO', 'CORRUPT'), message: fc.string({ maxLength: 20 }) }), { nil: null }),
  attempts: fc.nat(10),
  createdAt: iso,
  updatedAt: iso,
  startedAt: fc.option(iso, { nil: null }),
  finishedAt: fc.option(iso, { nil: null }),
});

/** A row as stored: JSON columns as text (SQLite) or parsed (pg's `json`). */
function row(values: unknown[], parsed: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  JOB_COLUMNS.forEach((column, i) => {
    const value = values[i];
    const isJson = ['input', 'progress', 'result', 'error'].includes(column);
    out[column] = parsed && isJson && value !== null ? JSON.parse(value as string) : value;
  });
  return out;
}

describe('job rows (src/store/jobs.ts)', () => {
  test('a job written and read back is the same job, with text or parsed JSON columns', () => {
    fc.assert(fc.property(job, (j) => {
      const values = jobRowValues(j);
      expect(values).toHaveLength(JOB_COLUMNS.length);
      expect(toJob(row(values, false), (v) => JSON.parse(v as string))).toEqual(j);
      expect(toJob(row(values, true), (v) => v)).toEqual(j);
    }));
  });

  test('a patch sets exactly its defined fields, JSON ones serialised, null kept as null', () => {
    fc.assert(fc.property(job, fc.array(fc.constantFrom<keyof JobPatch>('state', 'progress', 'result', 'error', 'attempts', 'startedAt', 'finishedAt')), (j, fields) => {
      const patch: JobPatch = {};
      for (const f of fields) (patch as Record<string, unknown>)[f] = j[f];
      const assigned = patchAssignments(patch);
      expect(assigned).toHaveLength(new Set(fields).size);
      for (const a of assigned) {
        const value = a.value;
        if (['progress', 'result', 'error'].includes(a.column)) expect(value === null || typeof value === 'string').toBe(true);
        if (a.column === 'progress') expect(value).toBe(j.progress === null ? null : JSON.stringify(j.progress));
      }
    }));
  });
});

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

/**
 * The Postgres server the tests use: GROUNDWORK_TEST_DATABASE_URL (a superuser role; .ci/postgres.sh
 * starts one). Absent, every Postgres suite skips with SKIP_MESSAGE.
 */
export const TEST_DATABASE_URL = process.env.GROUNDWORK_TEST_DATABASE_URL;
export const SKIP_MESSAGE = 'GROUNDWORK_TEST_DATABASE_URL is not set: the Postgres tests (store, queue) are skipped (source .ci/postgres.sh to start a server)';

if (!TEST_DATABASE_URL) console.warn(SKIP_MESSAGE);

const created: string[] = [];

/** A fresh schema name for one store (this run's prefix plus a counter); dropped after the file's tests. */
const RUN = `gw_test_${process.pid}_${randomBytes(3).toString('hex')}`;
let counter = 0;
export function freshSchema(): string {
  const name = `${RUN}_${++counter}`;
  created.push(name);
  return name;
}

/** A fresh library schema and its queue's (`<schema>_queue`), both dropped after the file's tests. */
export function freshLibrarySchema(): string {
  const name = freshSchema();
  created.push(`${name}_queue`);
  return name;
}

/** One statement on a connection of its own. */
export async function query<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  if (!TEST_DATABASE_URL || created.length === 0) return;
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    for (const schema of created.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
});

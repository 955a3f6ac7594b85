import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

/**
 * The Postgres server the tests use: GROUNDWORK_TEST_DATABASE_URL (a superuser role; .ci/postgres.sh
 * starts one). Absent, every Postgres suite skips with SKIP_MESSAGE.
 */
export const TEST_DATABASE_URL = process.env.GROUNDWORK_TEST_DATABASE_URL;
export const SKIP_MESSAGE = 'GROUNDWORK_TEST_DATABASE_URL is not set: the Postgres store tests are skipped (source .ci/postgres.sh to start a server)';

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

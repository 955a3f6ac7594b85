import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';

export const TEST_DATABASE_URL = process.env.GROUNDWORK_TEST_DATABASE_URL;
export const SKIP_MESSAGE = 'GROUNDWORK_TEST_DATABASE_URL is not set: the queue tests are skipped (source .ci/postgres.sh to start a server)';
if (!TEST_DATABASE_URL) console.warn(SKIP_MESSAGE);

export const CORPUS = join(import.meta.dirname, '../../../shared/corpus');

const created: string[] = [];
const RUN = `gw_q_${process.pid}_${randomBytes(3).toString('hex')}`;
let counter = 0;

/** A fresh library schema; it and its queue schema are dropped after the file's tests. */
export function freshLibrarySchema(): string {
  const name = `${RUN}_${++counter}`;
  created.push(name, `${name}_queue`);
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

/** Copies corpus files into a fresh folder (plus a damaged DOCX); returns the folder and the good files. */
export function corpusFolder(files: readonly string[], options: { broken?: boolean } = {}): { dir: string; good: string[]; broken: string | undefined } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-queue-'));
  mkdirSync(dir, { recursive: true });
  const good = files.map((f) => {
    const to = join(dir, basename(f));
    copyFileSync(join(CORPUS, f), to);
    return to;
  });
  let broken: string | undefined;
  if (options.broken) {
    broken = join(dir, 'broken.docx');
    writeFileSync(broken, Buffer.from('PK\u0003\u0004 not really a zip archive'));
  }
  return { dir, good, broken };
}

export async function query<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

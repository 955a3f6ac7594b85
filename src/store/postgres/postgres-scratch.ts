import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { GroundworkError } from '../../errors.js';
import { openStore } from '../registry.js';
import type { LibraryStore } from '../types.js';
import { describeLocation } from './postgres-store.js';
import { quoteIdentifier } from './postgres-schema.js';

/**
 * A throw-away library in a fresh schema of the database at `url` (`groundwork_scratch_<random>`),
 * and how to drop it: for evaluations (`groundwork eval --postgres URL`) and comparisons that index
 * a corpus, measure, and keep nothing.
 */
export async function openScratchPostgres(url: string): Promise<{ store: LibraryStore; dispose(): Promise<void> }> {
  const schema = `groundwork_scratch_${randomBytes(6).toString('hex')}`;
  const dispose = async () => {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
    } catch (cause) {
      throw new GroundworkError('IO', `cannot drop the scratch schema ${schema}: ${(cause as Error).message}`, { file: describeLocation(url, schema), cause });
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  try {
    return { store: await openStore({ kind: 'postgres', url, schema }), dispose };
  } catch (error) {
    await dispose().catch(() => undefined);
    throw error;
  }
}

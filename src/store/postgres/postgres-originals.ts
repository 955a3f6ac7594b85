import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type pg from 'pg';

/**
 * Kept originals inside the database: a file is written in parts of PART_BYTES (`original_parts`)
 * plus one `originals` row naming how many, all in one transaction, so a reader finds a whole file
 * or none. Neither direction holds more than one part in memory: writing reads the file as a
 * stream, reading fetches one part at a time into a Readable.
 */

/** How a document's `original` names an original kept in the database. */
export const STORE_ORIGINAL_PREFIX = 'store:';

/** Bytes per stored part (bytea values this size are stored out of line, compressed when that helps). */
export const PART_BYTES = 1024 * 1024;

/** Streams the file at `path` into the store as the original of `docId` (nothing when it is there). */
export async function writeOriginal(client: pg.PoolClient, docId: string, path: string): Promise<void> {
  // Claims the id first: a writer of the same original in another transaction makes this wait for
  // it, and then find the row and write nothing.
  const claimed = await client.query('INSERT INTO originals (doc_id, bytes, parts, created_at) VALUES ($1, 0, 0, $2) ON CONFLICT (doc_id) DO NOTHING', [docId, new Date().toISOString()]);
  if (claimed.rowCount === 0) return;
  let part = 0;
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: PART_BYTES })) {
    const data = chunk as Buffer;
    await client.query('INSERT INTO original_parts (doc_id, part, data) VALUES ($1, $2, $3)', [docId, part++, data]);
    bytes += data.length;
  }
  await client.query('UPDATE originals SET bytes = $2, parts = $3 WHERE doc_id = $1', [docId, bytes, part]);
}

/** The original of `docId` as a stream of its parts, or undefined when none is stored. */
export async function readOriginal(pool: pg.Pool, docId: string): Promise<Readable | undefined> {
  const { rows } = await pool.query<{ parts: number }>('SELECT parts FROM originals WHERE doc_id = $1', [docId]);
  const parts = rows[0]?.parts;
  if (parts === undefined) return undefined;
  async function* pieces(): AsyncGenerator<Buffer> {
    for (let part = 0; part < parts!; part++) {
      const result = await pool.query<{ data: Buffer }>('SELECT data FROM original_parts WHERE doc_id = $1 AND part = $2', [docId, part]);
      const data = result.rows[0]?.data;
      // Parts and their count are written in one transaction: a missing part means the row was deleted meanwhile.
      if (!data) throw new Error(`the original of ${docId} was removed while it was being read`);
      yield data;
    }
  }
  return Readable.from(pieces(), { objectMode: false });
}

/** Deletes the original of `docId` unless a document keeps it (its parts cascade). */
export async function dropOriginal(client: pg.PoolClient | pg.Pool, docId: string): Promise<void> {
  await client.query('DELETE FROM originals o WHERE o.doc_id = $1 AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.original = $2)', [docId, `${STORE_ORIGINAL_PREFIX}${docId}`]);
}

/** The originals no document keeps: id, size and when each was put. */
export async function unreferencedOriginals(client: pg.PoolClient): Promise<{ docId: string; bytes: number; createdAt: string }[]> {
  const { rows } = await client.query<{ doc_id: string; bytes: string; created_at: string }>(
    'SELECT o.doc_id, o.bytes, o.created_at FROM originals o WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.original = $1 || o.doc_id) ORDER BY o.doc_id',
    [STORE_ORIGINAL_PREFIX],
  );
  return rows.map((r) => ({ docId: r.doc_id, bytes: Number(r.bytes), createdAt: r.created_at }));
}

import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { openStore } from '../../src/store/registry.js';
import type { LibraryStore, VectorSpace } from '../../src/store/types.js';
import { contractWrite } from './contract.js';
import { freshSchema, TEST_DATABASE_URL } from './postgres-fixtures.js';

/** What the shared contract cannot see on Postgres: the quantized indexes and the SQL filters' edge cases. */
describe.skipIf(!TEST_DATABASE_URL)('postgres vectors (pgvector)', () => {
  const open = async (schema: string) => openStore({ kind: 'postgres', url: TEST_DATABASE_URL!, schema }) as Promise<LibraryStore>;
  const indexesOf = async (schema: string) => {
    const client = new pg.Client(TEST_DATABASE_URL);
    await client.connect();
    try {
      const { rows } = await client.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'vectors' AND indexname LIKE 'vectors_q%'", [schema]);
      return rows.map((r) => r.indexdef);
    } finally {
      await client.end();
    }
  };

  test('a quantization builds its partial HNSW index (halfvec / bit) and none or dropping the model removes it', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    try {
      const space: VectorSpace = { model: 'test:hnsw:8', dimensions: 8 };
      await store.writeDocument(contractWrite('a', ['one', 'two']));
      await store.putVectors(space, [{ blockId: 'a-config-1-0', hash: 'h1', vector: Float32Array.of(1, 0, 0, 0, 0, 0, 0, 1) }]);
      await store.setQuantization(space, 'int8');
      expect((await indexesOf(schema)).join()).toMatch(/USING hnsw \(\(\(embedding\)::halfvec\(8\)\) halfvec_cosine_ops\) WHERE \(model_id = \d+\)/);
      await store.setQuantization(space, 'binary');
      const binary = await indexesOf(schema);
      expect(binary).toHaveLength(1);
      expect(binary[0]).toMatch(/bit_hamming_ops/);
      // Served through the index and rescored: the exact similarity.
      const [hit] = await store.vectorCandidates(space, Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0), 1);
      expect(hit!.score).toBeCloseTo(Math.SQRT1_2, 6);
      await store.setQuantization(space, 'none');
      expect(await indexesOf(schema)).toEqual([]);
      await store.setQuantization(space, 'binary');
      expect(await store.dropVectors(space.model)).toBe(1);
      expect(await indexesOf(schema)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test('metadata arrays and values, headings holding U+0000 filter in SQL; a zero vector scores 0', async () => {
    const store = await open(freshSchema());
    try {
      const space: VectorSpace = { model: 'test:edges:2', dimensions: 2 };
      const write = contractWrite('a', ['one', 'two', 'three']);
      write.blocks[1]!.headingPath = ['Nul\u0000here', 'Sub'];
      await store.writeDocument(write); // metadata { author: 'Ana', tags: ['a', 'b'] }
      await store.putVectors(space, [
        { blockId: 'a-config-1-0', hash: 'h0', vector: Float32Array.of(1, 0) },
        { blockId: 'a-config-1-1', hash: 'h1', vector: Float32Array.of(0, 1) },
        { blockId: 'a-config-1-2', hash: 'h2', vector: Float32Array.of(0, 0) },
      ]);
      const ids = async (filter: Parameters<LibraryStore['vectorCandidates']>[3]) => (await store.vectorCandidates(space, Float32Array.of(1, 1), 10, filter)).map((c) => c.block.ordinal).sort();
      expect(await ids({ metadata: { tags: 'b' } })).toEqual([0, 1, 2]);
      expect(await ids({ metadata: { tags: 'c' } })).toEqual([]);
      expect(await ids({ metadata: { author: 'Ana', tags: 'a' } })).toEqual([0, 1, 2]);
      expect(await ids({ metadata: { author: 'ana' } })).toEqual([]);
      expect(await ids({ headingPrefix: ['Nul\u0000here'] })).toEqual([1]);
      expect(await ids({ sections: [{ docId: 'doc-a', headingPath: ['Nul\u0000here', 'Sub'] }] })).toEqual([1]);
      const zero = (await store.vectorCandidates(space, Float32Array.of(1, 1), 3)).at(-1)!;
      expect(zero.block.ordinal).toBe(2);
      expect(zero.score).toBe(0);
    } finally {
      await store.close();
    }
  });
});

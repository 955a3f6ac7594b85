import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/run.js';
import { Library } from '../../src/library/library.js';
import { openStore } from '../../src/store/registry.js';
import type { BlockWithPath, LibraryStore, VectorEntry, VectorSpace, VectorStats } from '../../src/store/types.js';
import { fixtureVector } from '../embed/fixtures.js';
import { freshSchema, TEST_DATABASE_URL } from '../store/postgres-fixtures.js';
import { SAMPLES } from './cli.js';

/** `groundwork migrate`: a SQLite library copied into Postgres answers as it did, originals included. */

const temps: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function local(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

/** Two models' vectors, put through the store interface: every block of one (int8), every other block of the other. */
const MODELS: { space: VectorSpace; every: number; quantization: 'none' | 'int8' }[] = [
  { space: { model: 'openai:fixture:16', dimensions: 16 }, every: 1, quantization: 'int8' },
  { space: { model: 'openai:other:8', dimensions: 8 }, every: 2, quantization: 'none' },
];

async function putFixtureVectors(file: string): Promise<VectorStats[]> {
  const store = await openStore({ kind: 'sqlite', file });
  try {
    const blocks: BlockWithPath[] = [];
    for await (const block of store.iterateBlocks()) blocks.push(block);
    for (const { space, every, quantization } of MODELS) {
      // Blocks two by two share one vector (as identical texts do), so links outnumber vectors.
      const entries: VectorEntry[] = blocks.filter((_, i) => i % every === 0).map((b, i) => ({
        blockId: b.id,
        hash: createHash('sha256').update(String(i >> 1)).digest('hex'),
        vector: fixtureVector(`${space.model}\u0000${blocks[(i >> 1) * 2 * every]!.text}`, space.dimensions),
      }));
      await store.putVectors(space, entries);
      await store.setQuantization(space, quantization);
    }
    await store.setSetting('vectors.model', MODELS[0]!.space.model);
    await store.setSetting('vectors.quantization', 'int8');
    return await store.vectorStats();
  } finally {
    await store.close();
  }
}

/** The nearest blocks of a few query vectors per model, as (block, score) pairs. */
async function nearest(store: LibraryStore): Promise<string[][]> {
  const out: string[][] = [];
  for (const { space } of MODELS) {
    for (const q of ['late returns', '充电', 'sensor battery']) {
      const hits = await store.vectorCandidates(space, fixtureVector(q, space.dimensions), 5);
      out.push(hits.map((h) => `${h.block.id} ${h.score.toFixed(5)}`));
    }
  }
  return out;
}

describe.skipIf(!TEST_DATABASE_URL)('groundwork migrate --from DIR --to postgres://...', () => {
  let vectorStats: VectorStats[];
  let docs: string;
  let lib: string;
  let schema: string;
  let pgArgs: string[];
  let report: Record<string, any>;

  beforeAll(async () => {
    docs = tempDir('gw-migrate-docs-');
    cpSync(SAMPLES, docs, { recursive: true });
    lib = join(tempDir('gw-migrate-lib-'), 'library');
    const ingested = await local(['ingest', docs, '--library', lib, '--json', '--workers', '0', '--strategy', 'sentence']);
    expect(ingested.code).toBe(0);
    // A library setting to carry over.
    const source = await Library.open(lib);
    await source.setSetting('strategy', 'sentence');
    await source.close();
    vectorStats = await putFixtureVectors(join(lib, 'library.sqlite'));
    schema = freshSchema();
    pgArgs = ['--postgres', TEST_DATABASE_URL!, '--postgres-schema', schema];
    const migrated = await local(['migrate', '--from', lib, '--to', TEST_DATABASE_URL!, '--postgres-schema', schema, '--json']);
    expect(migrated.stderr).toMatch(/^migrate: 8\/8 documents, \d+\/\d+ blocks, (\d+)\/\1 vector links/);
    expect(migrated.code).toBe(0);
    report = JSON.parse(migrated.stdout);
  }, 240_000);

  test('the report counts what the SQLite library holds, and the database holds it', async () => {
    const stats = JSON.parse((await local(['stats', '--library', lib, '--json'])).stdout);
    expect(report).toMatchObject({ documents: stats.documents, blocks: stats.blocks, paths: stats.paths, parseCacheEntries: stats.parseCacheEntries, originals: stats.documents, originalsMissing: [] });
    expect(report.settings).toBeGreaterThanOrEqual(1);
    expect(report.target).toMatchObject({ documents: stats.documents, blocks: stats.blocks, paths: stats.paths, tokens: stats.tokens, bytes: stats.bytes, byFormat: stats.byFormat });
  });

  test('every model\'s vectors and quantization are copied, counted and searched as in SQLite', async () => {
    expect(vectorStats).toHaveLength(2);
    // Shared vectors: fewer vectors than blocks.
    expect(vectorStats[0]!.vectors).toBeLessThan(vectorStats[0]!.blocks);
    expect(report.vectors).toEqual(vectorStats.map((v) => ({ model: v.model, dimensions: v.dimensions, quantization: v.quantization, vectors: v.vectors, blocks: v.blocks })));
    const [sqlite, postgres] = await Promise.all([
      openStore({ kind: 'sqlite', file: join(lib, 'library.sqlite') }),
      openStore({ kind: 'postgres', url: TEST_DATABASE_URL!, schema }),
    ]);
    try {
      expect(await postgres.vectorStats()).toEqual(vectorStats);
      const [a, b] = await Promise.all([nearest(sqlite), nearest(postgres)]);
      expect(b.every((hits) => hits.length === 5)).toBe(true);
      expect(b).toEqual(a);
      // Nothing is left without its vector, and the library's model setting came along.
      expect(await postgres.missingVectors(MODELS[0]!.space, 10)).toEqual([]);
      expect(await postgres.getSetting('vectors.model')).toBe(MODELS[0]!.space.model);
    } finally {
      await Promise.all([sqlite.close(), postgres.close()]);
    }
  });

  test('ls, show and search answer as the SQLite library did; the library default strategy came along', async () => {
    const [a, b] = await Promise.all([local(['ls', '--library', lib, '--json']), local(['ls', ...pgArgs, '--json'])]);
    const strip = (docs: Record<string, any>[]) => docs.map(({ original, ...rest }) => rest);
    const sqliteDocs = JSON.parse(a.stdout) as Record<string, any>[];
    const pgDocs = JSON.parse(b.stdout) as Record<string, any>[];
    expect(strip(pgDocs)).toEqual(strip(sqliteDocs));
    expect(pgDocs.every((d) => d.original === `store:${d.id}`)).toBe(true);
    for (const query of ['late returns deposit', '充电', 'sensor battery']) {
      const [x, y] = await Promise.all([local(['search', query, '--library', lib, '--json']), local(['search', query, ...pgArgs, '--json'])]);
      expect(y.code).toBe(0);
      const key = (out: string) => (JSON.parse(out) as Record<string, any>[]).map((h) => [h.docId, h.block.id, h.score.toFixed(6)]);
      expect(key(y.stdout).length, query).toBeGreaterThan(0);
      expect(key(y.stdout), query).toEqual(key(x.stdout));
    }
    const shown = JSON.parse((await local(['show', sqliteDocs[0]!.id, ...pgArgs, '--json', '--blocks'])).stdout);
    const before = JSON.parse((await local(['show', sqliteDocs[0]!.id, '--library', lib, '--json', '--blocks'])).stdout);
    expect(shown.blocks).toEqual(before.blocks);
    const settings = JSON.parse((await local(['stats', ...pgArgs, '--json'])).stdout);
    expect(settings.strategy).toBe('sentence');
  });

  test('the originals are in the database, byte for byte; a second run replaces, it does not add', async () => {
    const library = await Library.open(tmpdir(), { store: { kind: 'postgres', url: TEST_DATABASE_URL!, schema } });
    try {
      for (const doc of await library.documents()) {
        const chunks: Buffer[] = [];
        for await (const chunk of await library.openOriginal(doc.id)) chunks.push(chunk as Buffer);
        expect(Buffer.concat(chunks).equals(readFileSync(doc.paths[0]!)), doc.paths[0]).toBe(true);
      }
    } finally {
      await library.close();
    }
    const again = await local(['migrate', '--from', lib, '--to', TEST_DATABASE_URL!, '--postgres-schema', schema]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/; checked\./);
    expect(again.stdout).toMatch(new RegExp(`^\\| documents +\\| +${report.documents} \\| +${report.documents} \\|$`, 'm'));
    expect(again.stdout).toMatch(new RegExp(`^\\| vectors openai:fixture:16 \\(int8\\) +\\| +${vectorStats[0]!.vectors} for ${vectorStats[0]!.blocks} blocks \\|`, 'm'));
    const postgres = await openStore({ kind: 'postgres', url: TEST_DATABASE_URL!, schema });
    try {
      expect(await postgres.vectorStats()).toEqual(vectorStats);
    } finally {
      await postgres.close();
    }
  });

  test('no library at --from is exit 1; no --to is a usage error', async () => {
    const missing = await local(['migrate', '--from', tempDir('gw-migrate-none-'), '--to', TEST_DATABASE_URL!, '--postgres-schema', `${schema}_x`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no library here');
    const saved = process.env.GROUNDWORK_DATABASE_URL;
    delete process.env.GROUNDWORK_DATABASE_URL;
    try {
      expect((await local(['migrate', '--from', lib])).code).toBe(2);
    } finally {
      if (saved !== undefined) process.env.GROUNDWORK_DATABASE_URL = saved;
    }
  });
});

import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/run.js';
import { Library } from '../../src/library/library.js';
import { corpus, hasShared } from '../helpers.js';
import { freshSchema, TEST_DATABASE_URL } from '../store/postgres-fixtures.js';
import { runCli, SAMPLES } from './cli.js';

/**
 * The library commands on Postgres as a user runs them: `--postgres URL` (and $GROUNDWORK_DATABASE_URL)
 * on ingest, search, ls, show, stats, export and rm, against a real server, beside the same files in a
 * SQLite library: both must list the same documents and find the same blocks.
 */

const temps: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The bundled samples (eight files, four encodings, Chinese and English) plus three corpus documents. */
function writeFolder(): string {
  const dir = tempDir('gw-pg-docs-');
  cpSync(SAMPLES, dir, { recursive: true });
  if (hasShared) {
    mkdirSync(join(dir, 'corpus'));
    for (const file of ['docx/handbook-1p.docx', 'docx/word_tables.docx', 'docx/test11_zh.docx']) copyFileSync(corpus(file), join(dir, 'corpus', file.split('/')[1]!));
  }
  return dir;
}

async function local(args: string[], env: Record<string, string | undefined> = {}) {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  let stdout = '';
  let stderr = '';
  try {
    const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
    return { code, stdout, stderr };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

async function schemaExists(name: string): Promise<boolean> {
  const client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

describe.skipIf(!TEST_DATABASE_URL)('groundwork library commands on Postgres', () => {
  let docs: string;
  let folder: string;
  let sqliteLib: string;
  let schema: string;
  let pgArgs: string[];
  let ingested: Record<string, any>;

  beforeAll(async () => {
    docs = writeFolder();
    folder = tempDir('gw-pg-lib-');
    sqliteLib = join(tempDir('gw-pg-sqlite-'), 'library');
    schema = freshSchema();
    pgArgs = ['--library', folder, '--postgres', TEST_DATABASE_URL!, '--postgres-schema', schema];
    // The ingest runs spawned (worker threads, a real process exit), the SQLite twin beside it.
    const [onPostgres, onSqlite] = await Promise.all([
      runCli(['ingest', docs, ...pgArgs, '--json', '--workers', '1']),
      runCli(['ingest', docs, '--library', sqliteLib, '--json', '--workers', '1']),
    ]);
    expect(onPostgres.stderr).toBe('');
    expect(onPostgres.code).toBe(0);
    expect(onSqlite.code).toBe(0);
    ingested = JSON.parse(onPostgres.stdout);
    expect(ingested).toMatchObject({ ...JSON.parse(onSqlite.stdout), durationMs: expect.any(Number) });
  }, 240_000);

  test('ingest stores every file in the database and nothing in the library folder', () => {
    expect(ingested.docsAdded).toBeGreaterThanOrEqual(hasShared ? 11 : 8);
    expect(ingested.rejected).toEqual([]);
    expect(readdirSync(folder)).toEqual([]);
  });

  test('a second ingest finds every file unchanged in the database', async () => {
    const again = await local(['ingest', docs, ...pgArgs, '--json', '--workers', '0']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ docsAdded: 0, docsUpdated: 0, docsSkipped: ingested.docsAdded, parsed: 0 });
  });

  test('ls lists the same documents as the SQLite library of the same files', async () => {
    const [onPostgres, onSqlite] = await Promise.all([local(['ls', ...pgArgs, '--json']), local(['ls', '--library', sqliteLib, '--json'])]);
    expect(onPostgres.code).toBe(0);
    const strip = (docs: Record<string, any>[]) => docs.map(({ addedAt, original, ...rest }) => rest).sort((a, b) => a.id.localeCompare(b.id));
    const pgDocs = JSON.parse(onPostgres.stdout) as Record<string, any>[];
    expect(pgDocs).toHaveLength(ingested.docsAdded);
    expect(strip(pgDocs)).toEqual(strip(JSON.parse(onSqlite.stdout)));
    // The originals are in the database.
    for (const doc of pgDocs) expect(doc.original).toBe(`store:${doc.id}`);
    const table = await local(['ls', ...pgArgs]);
    expect(table.stdout).toContain(`${pgDocs.length} documents`);
  });

  test.each([
    ['English', 'borrowing tools deposit'],
    ['Chinese', '电热水器 安全'],
    ['a table cell', 'tomato seeds'],
  ])('search (%s) finds the blocks the SQLite library finds, in the same order', async (_, query) => {
    const [onPostgres, onSqlite] = await Promise.all([
      local(['search', query, ...pgArgs, '--json', '-k', '5']),
      local(['search', query, '--library', sqliteLib, '--json', '-k', '5']),
    ]);
    expect(onPostgres.stderr).toBe('');
    expect(onPostgres.code).toBe(0);
    const key = (hits: Record<string, any>[]) => hits.map((h) => [h.docId, h.block.ordinal, h.path.slice(h.path.lastIndexOf('/')), h.score.toFixed(6)]);
    const pgHits = JSON.parse(onPostgres.stdout) as Record<string, any>[];
    expect(pgHits.length).toBeGreaterThan(0);
    expect(key(pgHits)).toEqual(key(JSON.parse(onSqlite.stdout)));
  });

  test('show prints a document with its blocks; stats and export count the same blocks', async () => {
    const docsJson = JSON.parse((await local(['ls', ...pgArgs, '--json'])).stdout) as Record<string, any>[];
    const doc = docsJson.find((d) => d.path.endsWith('tool-library-handbook.md'))!;
    const shown = await local(['show', doc.id.slice(0, 10), ...pgArgs, '--json', '--blocks']);
    expect(shown.code).toBe(0);
    const shownJson = JSON.parse(shown.stdout);
    expect(shownJson.id).toBe(doc.id);
    expect(shownJson.blocks).toHaveLength(doc.blocks);
    expect(shownJson.blocks.map((b: any) => b.ordinal)).toEqual([...Array(doc.blocks).keys()]);

    const stats = JSON.parse((await local(['stats', ...pgArgs, '--json'])).stdout);
    const total = docsJson.reduce((n, d) => n + d.blocks, 0);
    expect(stats).toMatchObject({ documents: docsJson.length, blocks: total, parseCacheEntries: docsJson.length });
    expect(stats.location).toContain(`schema ${schema}`);
    expect(stats.location).not.toContain('groundwork:groundwork');
    const readable = await local(['stats', ...pgArgs]);
    expect(readable.stdout).toMatch(new RegExp(`^Library postgres://groundwork@127\\.0\\.0\\.1:\\d+/\\S+ \\(schema ${schema}\\)`));

    const exported = await local(['export', ...pgArgs]);
    expect(exported.code).toBe(0);
    expect(exported.stdout.trim().split('\n')).toHaveLength(total);
  });

  test('$GROUNDWORK_DATABASE_URL and $GROUNDWORK_DATABASE_SCHEMA choose the library when no flag does', async () => {
    const listed = await local(['ls', '--json'], { GROUNDWORK_DATABASE_URL: TEST_DATABASE_URL, GROUNDWORK_DATABASE_SCHEMA: schema });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(ingested.docsAdded);
    // An explicit --library means the folder, whatever the environment says.
    const folderOnly = await local(['ls', '--library', sqliteLib, '--json'], { GROUNDWORK_DATABASE_URL: TEST_DATABASE_URL, GROUNDWORK_DATABASE_SCHEMA: schema });
    expect(JSON.parse(folderOnly.stdout).map((d: any) => d.original)).toEqual(expect.arrayContaining([expect.stringMatching(/^files\//)]));
  });

  test('a read command on a schema with no library fails and creates nothing', async () => {
    const missing = `${schema}_missing`;
    const result = await local(['ls', '--postgres', TEST_DATABASE_URL!, '--postgres-schema', missing]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no library in schema ${missing}`);
    expect(result.stderr).toContain('[NOT_FOUND]');
    expect(await schemaExists(missing)).toBe(false);
    const usage = await local(['ls', '--postgres', '', '--library', folder]);
    expect(usage.code).toBe(2);
  });

  test('the kept original streams back from the database; rm removes the document and its original', async () => {
    const file = join(docs, 'heater-manual-zh.md');
    const library = await Library.open(folder, { store: { kind: 'postgres', url: TEST_DATABASE_URL!, schema } });
    try {
      const doc = (await library.document(file))!;
      const chunks: Buffer[] = [];
      for await (const chunk of await library.openOriginal(doc.id)) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(readFileSync(file))).toBe(true);
    } finally {
      await library.close();
    }

    const removed = await local(['rm', file, ...pgArgs, '--json']);
    expect(removed.code).toBe(0);
    const docId = JSON.parse(removed.stdout).id as string;
    const after = JSON.parse((await local(['ls', ...pgArgs, '--json'])).stdout) as Record<string, any>[];
    expect(after).toHaveLength(ingested.docsAdded - 1);
    expect(after.map((d) => d.id)).not.toContain(docId);
    const hits = JSON.parse((await local(['search', '热水器', ...pgArgs, '--json', '-k', '50'])).stdout) as Record<string, any>[];
    expect(hits.map((h) => h.docId)).not.toContain(docId);

    const reopened = await Library.open(folder, { store: { kind: 'postgres', url: TEST_DATABASE_URL!, schema } });
    try {
      await expect(reopened.openOriginal(docId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await reopened.close();
    }
    expect(existsSync(join(folder, 'files'))).toBe(false);
  });

  test('eval --postgres builds its throw-away libraries in the database and scores as on SQLite', async () => {
    const dir = tempDir('gw-pg-eval-');
    mkdirSync(join(dir, 'corpus'));
    const docs: Record<string, string> = {
      'birds.md': '# Birds\n\nThe arctic tern migrates from pole to pole every year.\n\nPenguins cannot fly but swim very well.\n',
      '书.md': '# 图书馆\n\n国家图书馆位于北京，藏书超过四千万册。\n\n阅览室每天早上九点开放。\n',
    };
    const questions = [
      ['Which bird migrates from pole to pole?', 'birds.md', 'arctic tern'],
      ['国家图书馆藏书多少册？', '书.md', '四千万册'],
    ].map(([question, doc, answer], i) => {
      const start = docs[doc!]!.indexOf(answer!);
      return JSON.stringify({ id: `q${i}`, question, doc, answer, spans: [[start, start + answer!.length]] });
    });
    for (const [name, text] of Object.entries(docs)) writeFileSync(join(dir, 'corpus', name), text);
    writeFileSync(join(dir, 'questions.jsonl'), `${questions.join('\n')}\n`);
    const [onPostgres, onSqlite] = await Promise.all([
      local(['eval', dir, '--postgres', TEST_DATABASE_URL!, '--json', '-s', 'structure']),
      local(['eval', dir, '--json', '-s', 'structure'], { GROUNDWORK_DATABASE_URL: undefined }),
    ]);
    expect(onPostgres.stderr).toBe('');
    expect(onPostgres.code).toBe(0);
    const scores = (out: string) => (JSON.parse(out) as Record<string, any>[]).map(({ seconds, ...rest }) => rest);
    const pgScores = scores(onPostgres.stdout);
    expect(pgScores.length).toBeGreaterThan(1);
    expect(pgScores.every((r) => r.hitAtK === 1)).toBe(true);
    expect(pgScores).toEqual(scores(onSqlite.stdout));
  }, 240_000);
});

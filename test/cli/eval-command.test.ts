import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RESULT_KEYS, retrieversFrom } from '../../src/cli/eval-command.js';
import { run } from '../../src/cli/run.js';
import { startEmbeddingServer, type FixtureServer } from '../embed/fixtures.js';
import { evalDir, hasShared } from '../helpers.js';

/** `groundwork eval` and `groundwork tune` in-process, through the same `run` main.ts calls. */

async function runInProcess(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-eval-cli-'));
  temps.push(dir);
  return dir;
}

describe('eval and tune: usage', () => {
  test('help, missing dataset, bad flags, a folder that is not a dataset', async () => {
    expect((await runInProcess(['eval', '--help'])).stdout).toContain('hitAtBudget');
    expect((await runInProcess(['eval'])).code).toBe(2);
    const bad = await runInProcess(['eval', tempDir(), '--strategy', 'structure:unit=chars']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('does not apply');
    expect((await runInProcess(['eval', tempDir(), '--k', '0'])).code).toBe(2);
    const notDataset = await runInProcess(['eval', tempDir()]);
    expect(notDataset.code).toBe(1);
    expect(notDataset.stderr).toContain('not an evaluation dataset');
  });

  test('tune on a plain folder: unit lengths and a recommendation from them alone', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'guide.md'), '# Guide\n\nFirst paragraph of the guide.\n\n## Setup\n\nInstall it.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n');
    writeFileSync(join(dir, 'notes.txt'), 'Plain notes.\n\nA second paragraph.\n');
    const { code, stdout } = await runInProcess(['tune', dir]);
    expect(code).toBe(0);
    expect(stdout).toContain('2 documents');
    expect(stdout).toMatch(/\| sections\s+\|\s+2 \|/);
    expect(stdout).toMatch(/\| tables\s+\|\s+1 \|/);
    expect(stdout).toContain('No questions here');
    expect(stdout).toContain('Recommended chunkSize: 128 (no questions, so from unit lengths alone');
    const json = JSON.parse((await runInProcess(['tune', dir, '--json'])).stdout);
    expect(json.recommendation).toMatchObject({ chunkSize: 128, fromUnitsOnly: true });
    expect(json.grid).toEqual([]);
  });
});

/** A two-document dataset (English and Chinese) in a temp folder. */
function smallDataset(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'corpus'));
  const docs: Record<string, string> = {
    'birds.md': '# Birds\n\nThe arctic tern migrates from pole to pole every year.\n\nPenguins cannot fly but swim very well.\n',
    '书.md': '# 图书馆\n\n国家图书馆位于北京，藏书超过四千万册。\n\n阅览室每天早上九点开放。\n',
  };
  const q = (id: string, question: string, doc: string, answer: string) => {
    const start = docs[doc]!.indexOf(answer);
    return JSON.stringify({ id, question, doc, answer, spans: [[start, start + answer.length]] });
  };
  for (const [name, text] of Object.entries(docs)) writeFileSync(join(dir, 'corpus', name), text);
  writeFileSync(join(dir, 'questions.jsonl'), [q('q1', 'Which bird migrates from pole to pole?', 'birds.md', 'arctic tern'), q('q2', '国家图书馆藏书多少册？', '书.md', '四千万册')].join('\n') + '\n');
  return dir;
}

describe('--retriever values', () => {
  test('repeated and comma-separated values: each retriever once, in first-given order; default bm25; others refused', () => {
    const name = fc.constantFrom('bm25', 'vector', 'hybrid');
    fc.assert(
      fc.property(fc.array(fc.array(name, { minLength: 1, maxLength: 4 }), { maxLength: 4 }), fc.constantFrom('', ' '), (flags, pad) => {
        const values = flags.map((group) => group.join(`${pad},${pad}`));
        const given = flags.flat();
        expect(retrieversFrom(values)).toEqual(given.length === 0 ? ['bm25'] : [...new Set(given)]);
      }),
    );
    expect(() => retrieversFrom(['bm25,'])).toThrow("unknown retriever ''");
    expect(() => retrieversFrom(['BM25'])).toThrow("unknown retriever 'BM25'");
  });
});

describe('eval --retriever with an embedding endpoint (loopback, real HTTP)', () => {
  let server: FixtureServer;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    server = await startEmbeddingServer({ dimensions: 8 });
    // The environment is one of the configurations under test: start from none.
    for (const name of Object.keys(process.env).filter((n) => n.startsWith('GROUNDWORK_EMBEDDINGS_'))) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  });
  afterAll(async () => {
    await server?.close();
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
  });

  test('vector or hybrid without an embedder is a usage error naming what to set; an unknown retriever too', async () => {
    const dataset = smallDataset();
    const none = await runInProcess(['eval', dataset, '--retriever', 'bm25,vector']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--retriever vector needs an embedder: give --embed-url URL --embed-model NAME \(or set GROUNDWORK_EMBEDDINGS_URL and GROUNDWORK_EMBEDDINGS_MODEL\), or --embed-model-path DIR/);
    const unknown = await runInProcess(['eval', dataset, '-r', 'dense']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown retriever 'dense' (retrievers: bm25, vector, hybrid)");
    expect(server.requests.length).toBe(0);
  });

  test('--retriever bm25,hybrid with --embed-url: one JSON row per configuration and retriever, the library embedded over HTTP', async () => {
    const dataset = smallDataset();
    server.reset();
    const { code, stdout, stderr } = await runInProcess(['eval', dataset, '--retriever', 'bm25,hybrid', '--embed-url', server.url, '--embed-model', 'fixture', '--json', '--k', '1']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Record<string, unknown>[];
    expect(rows.length).toBe(16);
    expect(rows.map((r) => r.retriever)).toEqual(Array.from({ length: 8 }, () => ['bm25', 'hybrid']).flat());
    for (const row of rows) {
      for (const key of RESULT_KEYS) expect(row).toHaveProperty(key);
      expect(row.embedder).toBe(row.retriever === 'bm25' ? null : 'openai:fixture:8');
      expect(row.questions).toBe(2);
    }
    // bm25 finds both at rank 1 under every configuration.
    for (const row of rows.filter((r) => r.retriever === 'bm25')) expect(row).toMatchObject({ hitAtK: 1, mrr: 1 });
    const inputs = server.requests.flatMap((r) => r.body.input as string[]);
    expect(inputs).toContain('Which bird migrates from pole to pole?');
    expect(inputs).toContain('国家图书馆藏书多少册？');
    expect(inputs.some((t) => t.includes('The arctic tern migrates from pole to pole every year.'))).toBe(true);
  });

  test('the environment configures it as for ingest; the table has a retriever column and names the vectors', async () => {
    const dataset = smallDataset();
    process.env.GROUNDWORK_EMBEDDINGS_URL = server.url;
    process.env.GROUNDWORK_EMBEDDINGS_MODEL = 'from-env';
    try {
      const { code, stdout } = await runInProcess(['eval', dataset, '--retriever', 'vector', '--retriever', 'bm25', '--strategy', 'structure:chunkSize=64']);
      expect(code).toBe(0);
      expect(stdout).toContain('2 questions, 2 documents, k=5, budget 1000 tokens, vectors openai:from-env:8');
      expect(stdout).toMatch(/\| configuration\s+\| retriever \| hit@5 /);
      expect(stdout).toMatch(/\| structure \(default\)\s+\| vector\s+\|/);
      expect(stdout).toMatch(/\| structure:chunkSize=64\s+\| bm25\s+\|/);
    } finally {
      delete process.env.GROUNDWORK_EMBEDDINGS_URL;
      delete process.env.GROUNDWORK_EMBEDDINGS_MODEL;
    }
  });

  test('an endpoint that answers 500 fails the run with EMBEDDER (exit 1) and the status', async () => {
    server.always({ status: 500, body: { error: { message: 'out of memory' } } });
    try {
      const { code, stderr } = await runInProcess(['eval', smallDataset(), '--retriever', 'hybrid', '--embed-url', server.url, '--embed-model', 'fixture', '--embed-retries', '0']);
      expect(code).toBe(1);
      expect(stderr).toMatch(/500/);
      expect(stderr).toContain('[EMBEDDER]');
    } finally {
      server.always(undefined);
    }
  });
});

const xquad = join(evalDir, 'xquad-en');

describe.skipIf(!hasShared || !existsSync(xquad))('eval on a slice of xquad-en', () => {
  test('--json: one object per configuration with the contract keys; --misses; same seed, same numbers', async () => {
    const args = ['eval', xquad, '--limit', '40', '--seed', 's1', '--json', '--strategy', 'structure:chunkSize=256'];
    const first = await runInProcess(args);
    expect(first.code).toBe(0);
    const rows = JSON.parse(first.stdout) as Record<string, unknown>[];
    expect(rows.length).toBe(9);
    for (const row of rows) {
      for (const key of RESULT_KEYS) expect(row).toHaveProperty(key);
      expect(row.questions).toBe(40);
      expect(row.k).toBe(5);
      expect(row.budget).toBe(1000);
    }
    expect(rows.at(-1)!.config).toBe('structure:chunkSize=256');
    const again = JSON.parse((await runInProcess(args)).stdout) as Record<string, unknown>[];
    expect(again.map((r) => ({ ...r, seconds: 0 }))).toEqual(rows.map((r) => ({ ...r, seconds: 0 })));

    const table = await runInProcess(['eval', xquad, '--limit', '20', '--k', '3', '--budget', '500', '--misses']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('xquad-en: 20 questions, 12 documents, k=3, budget 500 tokens');
    expect(table.stdout).toContain('| Chroma recursive 200/0 tokens');
    expect(table.stdout).toMatch(/hit@3 .*MRR@10 .*IoU .*hit@500t/);
    expect(table.stdout).toMatch(/xquad-en: (every question was found|\d+ questions? no configuration found)/);
  });
});

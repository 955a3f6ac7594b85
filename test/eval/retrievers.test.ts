import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chunkText } from '../../src/chunk.js';
import { OpenAiEmbedder } from '../../src/embed/openai.js';
import { parseStrategySpec } from '../../src/eval/configs.js';
import { loadDataset, type EvalDataset, type EvalQuestion } from '../../src/eval/dataset.js';
import { evaluate, findMisses, type ConfigRun } from '../../src/eval/runner.js';
import { openScratchPostgres } from '../../src/store/postgres/postgres-scratch.js';
import { startEmbeddingServer, type FixtureServer } from '../embed/fixtures.js';
import { TEST_DATABASE_URL } from '../store/postgres-fixtures.js';

/**
 * `evaluate` with the vector and hybrid retrievers: each throw-away library embeds its chunks
 * through a real OpenAI-compatible endpoint (the loopback fixture, real HTTP) and every question is
 * searched with `library.search(question, { mode })`. The fixture's vectors come from a hash of
 * the text, so the same text gets the same vector and any other text an unrelated one: a question
 * worded exactly as a chunk is that chunk's nearest neighbour, which is what can be asserted.
 */

const temps: string[] = [];
let server: FixtureServer;
let embedder: OpenAiEmbedder;
let dataset: EvalDataset;
/** The one chunk of `plain.txt` under `structure`, which question `qv` repeats word for word. */
let plainChunk: { start: number; end: number };

const DOCS: Record<string, string> = {
  'birds.md': '# Birds\n\nThe arctic tern migrates from pole to pole every year.\n\nPenguins cannot fly but swim very well.\n',
  'stars.md': '# Stars\n\nA neutron star is the collapsed core of a massive supergiant.\n\nThe Sun is a yellow dwarf.\n',
  '书.md': '# 图书馆\n\n国家图书馆位于北京，藏书超过四千万册。\n\n阅览室每天早上九点开放。\n',
  'plain.txt': 'Okapi herds graze beside the slow brown river at dawn.\n',
};

function writeDataset(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-eval-ret-'));
  temps.push(dir);
  mkdirSync(join(dir, 'corpus'));
  const questions: EvalQuestion[] = [];
  const add = (id: string, question: string, doc: string, answer: string) => {
    const start = DOCS[doc]!.indexOf(answer);
    questions.push({ id, question, doc, answer, spans: [[start, start + answer.length]] });
  };
  add('q1', 'Which bird migrates from pole to pole?', 'birds.md', 'arctic tern');
  add('q2', 'What is a neutron star?', 'stars.md', 'the collapsed core of a massive supergiant');
  add('q3', '国家图书馆藏书多少册？', '书.md', '四千万册');
  const [chunk] = chunkText(DOCS['plain.txt']!, parseStrategySpec('structure').options);
  plainChunk = { start: chunk!.start, end: chunk!.end };
  add('qv', chunk!.text, 'plain.txt', 'slow brown river');
  for (const [name, text] of Object.entries(DOCS)) writeFileSync(join(dir, 'corpus', name), text);
  writeFileSync(join(dir, 'questions.jsonl'), questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
  return dir;
}

beforeAll(async () => {
  server = await startEmbeddingServer({ dimensions: 16 });
  embedder = new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'fixture-model', maxRetries: 0 });
  dataset = loadDataset(writeDataset());
});
afterAll(async () => {
  await embedder?.close();
  await server?.close();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const withoutTime = (run: ConfigRun) => ({ ...run.result, seconds: 0 });
const configs = () => [parseStrategySpec('structure'), parseStrategySpec('recursive:chunkSize=80,chunkOverlap=0')];

describe('evaluate: bm25, vector and hybrid through the library search', () => {
  test('one run per configuration and retriever; the chunks and the questions went to the endpoint', async () => {
    server.reset();
    const runs = await evaluate(dataset, dataset.questions, configs(), { k: 1, budget: 1000, retrievers: ['bm25', 'vector', 'hybrid'], embedder });
    expect(runs.map((r) => `${r.label}/${r.retriever}`)).toEqual([
      'structure/bm25', 'structure/vector', 'structure/hybrid',
      'recursive:chunkSize=80,chunkOverlap=0/bm25', 'recursive:chunkSize=80,chunkOverlap=0/vector', 'recursive:chunkSize=80,chunkOverlap=0/hybrid',
    ]);
    for (const run of runs) {
      expect(run.result.retriever).toBe(run.retriever);
      expect(run.result.embedder).toBe(run.retriever === 'bm25' ? null : 'openai:fixture-model:16');
      expect(run.result.questions).toBe(4);
      expect(run.outcomes.length).toBe(4);
    }
    // Every input the endpoint received; each configuration's library embedded its own chunks.
    const inputs = server.requests.flatMap((r) => r.body.input as string[]);
    for (const q of dataset.questions) expect(inputs).toContain(q.question);
    // A question is embedded once, however many configurations and vector retrievers search it.
    for (const q of dataset.questions.filter((q) => q.id !== 'qv')) expect(inputs.filter((t) => t === q.question).length, q.id).toBe(1);
    for (const config of configs()) {
      for (const [name, text] of Object.entries(DOCS)) {
        for (const chunk of chunkText(text, config.options)) expect(inputs.some((input) => input.endsWith(chunk.text)), `${name}: ${chunk.text}`).toBe(true);
      }
    }

    // The question worded as the plain chunk: its own vector, ranked first by vector and hybrid.
    const qv = dataset.questions.findIndex((q) => q.id === 'qv');
    for (const run of runs.filter((r) => r.label === 'structure')) {
      expect(run.outcomes[qv]!.top[0]).toBe(`plain.txt:${plainChunk.start}-${plainChunk.end}`);
      expect(run.outcomes[qv]!.partialAtK).toBe(true);
    }
    // bm25 through the pipeline finds the three keyword questions at rank 1, as before.
    const bm25 = runs.find((r) => r.label === 'structure' && r.retriever === 'bm25')!;
    expect(bm25.result.hitAtK).toBe(1);
    expect(bm25.result.mrr).toBe(1);
    expect(findMisses(dataset.questions, runs)).toEqual([]);
  });

  test('the bm25 rows are those of a bm25-only run, and the same inputs give the same numbers', async () => {
    const all = await evaluate(dataset, dataset.questions, configs(), { k: 2, budget: 200, retrievers: ['hybrid', 'bm25', 'vector'], embedder });
    const alone = await evaluate(dataset, dataset.questions, configs(), { k: 2, budget: 200 });
    expect(alone.map((r) => r.retriever)).toEqual(['bm25', 'bm25']);
    expect(all.filter((r) => r.retriever === 'bm25').map(withoutTime)).toEqual(alone.map(withoutTime));
    const again = await evaluate(dataset, dataset.questions, configs(), { k: 2, budget: 200, retrievers: ['hybrid', 'bm25', 'vector'], embedder });
    expect(again.map(withoutTime)).toEqual(all.map(withoutTime));
    expect(again.map((r) => r.outcomes)).toEqual(all.map((r) => r.outcomes));
  });

  test('vector and hybrid without an embedder: INVALID_OPTIONS saying what to set; an unknown retriever too', async () => {
    await expect(evaluate(dataset, dataset.questions, configs(), { k: 1, budget: 1000, retrievers: ['bm25', 'hybrid'] })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(/retriever hybrid needs an embedder: .*--embed-url .*GROUNDWORK_EMBEDDINGS_URL.*--embed-model-path/),
    });
    await expect(evaluate(dataset, dataset.questions, configs(), { k: 1, budget: 1000, retrievers: ['dense' as never], embedder })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining("unknown retriever 'dense'") });
  });

  test('an endpoint that fails: the evaluation fails with EMBEDDER and the status, nothing left behind', async () => {
    server.next({ status: 500, body: { error: { message: 'model crashed' } } });
    await expect(evaluate(dataset, dataset.questions, [parseStrategySpec('structure')], { k: 1, budget: 1000, retrievers: ['vector'], embedder })).rejects.toMatchObject({
      code: 'EMBEDDER',
      message: expect.stringContaining('500'),
    });
  });
});

describe.skipIf(!TEST_DATABASE_URL)('evaluate with vectors in PostgreSQL (pgvector)', () => {
  test('a fresh schema per configuration: the same rankings as SQLite for every retriever', async () => {
    const options = { k: 2, budget: 1000, retrievers: ['bm25', 'vector', 'hybrid'] as const, embedder };
    const sqlite = await evaluate(dataset, dataset.questions, configs(), options);
    const postgres = await evaluate(dataset, dataset.questions, configs(), { ...options, scratchStore: () => openScratchPostgres(TEST_DATABASE_URL!) });
    expect(postgres.map((r) => `${r.label}/${r.retriever}`)).toEqual(sqlite.map((r) => `${r.label}/${r.retriever}`));
    const qv = dataset.questions.findIndex((q) => q.id === 'qv');
    postgres.forEach((run, i) => {
      expect(run.result.hitAtK).toBe(sqlite[i]!.result.hitAtK);
      expect(run.outcomes.map((o) => o.top[0])).toEqual(sqlite[i]!.outcomes.map((o) => o.top[0]));
      if (run.label === 'structure' && run.retriever !== 'bm25') expect(run.outcomes[qv]!.top[0]).toBe(`plain.txt:${plainChunk.start}-${plainChunk.end}`);
    });
  });
});

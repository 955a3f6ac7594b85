import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/run.js';
import { writeTestModel, type TestModel } from './onnx-model.js';

/**
 * The local ONNX path end to end through the CLI and the library: `ingest --embed-model-path DIR`
 * embeds with the model folder the test builds (an embedding lookup, mean-pooled: a bag of words,
 * so texts sharing words are near), `search --mode vector|hybrid` embeds the query with it (from
 * the library's stored settings), and `eval --retriever vector,hybrid --embed-model-path DIR`
 * builds and embeds a throw-away library per configuration with it. The corpus uses the words the
 * test vocabulary knows (test/embed/onnx-model.ts), so the nearest documents are known.
 */

let model: TestModel;
let root: string;
let docs: string;
let lib: string;
let dataset: string;

const DOCS: Record<string, string> = {
  'board.md': '# Budget review\n\nThe board meeting approved the quarterly budget.\n',
  'guide.md': '# Installation guide\n\nInstallation steps: node tests and prerequisites.\n',
  '合同.md': '# 合同\n\n双方签字, 预付款到账.\n\n设备验收合格.\n',
};

async function cli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

beforeAll(() => {
  for (const name of Object.keys(process.env)) if (name.startsWith('GROUNDWORK_EMBEDDINGS_') || name.startsWith('GROUNDWORK_RERANK_')) delete process.env[name];
  model = writeTestModel({ dimensions: 8, maxLength: 64 });
  root = mkdtempSync(join(tmpdir(), 'gw-local-model-'));
  docs = join(root, 'docs');
  lib = join(root, 'library');
  dataset = join(root, 'dataset');
  mkdirSync(docs);
  mkdirSync(join(dataset, 'corpus'), { recursive: true });
  const questions: string[] = [];
  const ask = (id: string, question: string, doc: string, answer: string) => {
    const start = DOCS[doc]!.indexOf(answer);
    questions.push(JSON.stringify({ id, question, doc, answer, spans: [[start, start + answer.length]] }));
  };
  ask('q1', 'quarterly budget approved', 'board.md', 'approved the quarterly budget');
  ask('q2', 'installation steps', 'guide.md', 'node tests and prerequisites');
  ask('q3', '预付款到账', '合同.md', '预付款到账');
  for (const [name, text] of Object.entries(DOCS)) {
    writeFileSync(join(docs, name), text);
    writeFileSync(join(dataset, 'corpus', name), text);
  }
  writeFileSync(join(dataset, 'questions.jsonl'), questions.join('\n') + '\n');
});

afterAll(() => {
  for (const dir of [root, model?.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const MODEL_ID = () => `onnx:${basename(model.dir)}:8:mean-norm`;

describe('a local ONNX model folder through ingest, search and eval', () => {
  test('ingest --embed-model-path embeds every block; search --mode vector and hybrid use the stored model', async () => {
    const ingest = await cli('ingest', docs, '--library', lib, '--workers', '0', '--embed-model-path', model.dir, '--json');
    expect(ingest.stderr).toBe('');
    expect(ingest.code).toBe(0);
    const report = JSON.parse(ingest.stdout);
    expect(report.docsAdded).toBe(3);
    expect(report.embedding).toMatchObject({ model: MODEL_ID(), blocks: report.blocksAdded, failed: [] });

    // No flags: the library stored the model folder when it was chosen.
    for (const [query, doc] of [['quarterly budget', 'board.md'], ['installation steps', 'guide.md'], ['预付款', '合同.md']] as const) {
      const vector = await cli('search', query, '--library', lib, '--mode', 'vector', '--json', '--explain');
      expect(vector.code, vector.stderr).toBe(0);
      const result = JSON.parse(vector.stdout);
      expect(result.explanation.mode).toBe('vector');
      expect(basename(result.hits[0].path), query).toBe(doc);
      expect(result.hits[0].scores.vectorRank).toBe(1);
      expect(result.hits[0].scores.vector).toBeGreaterThan(result.hits.at(-1).scores.vector);
      const hybrid = JSON.parse((await cli('search', query, '--library', lib, '--mode', 'hybrid', '--json', '--explain')).stdout);
      expect(hybrid.explanation.mode).toBe('hybrid');
      expect(basename(hybrid.hits[0].path)).toBe(doc);
      expect(hybrid.hits[0].scores).toMatchObject({ bm25Rank: 1, vectorRank: 1, fused: expect.any(Number) });
    }
    // A query in none of the documents' words: bm25 finds nothing, the vectors still rank every block.
    const unknown = JSON.parse((await cli('search', 'zebra', '--library', lib, '--mode', 'vector', '--json')).stdout);
    expect(unknown.length).toBe(report.blocksAdded);
    expect(JSON.parse((await cli('search', 'zebra', '--library', lib, '--mode', 'bm25', '--json')).stdout)).toEqual([]);
  });

  test('eval --retriever vector,hybrid --embed-model-path: the model finds every question, in every configuration', async () => {
    const { code, stdout, stderr } = await cli('eval', dataset, '--retriever', 'vector,hybrid', '--embed-model-path', model.dir, '--json', '--k', '1');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as { config: string; retriever: string; embedder: string | null; hitAtK: number; partialHitAtK: number; mrr: number; questions: number }[];
    expect(rows.length).toBe(16);
    expect(rows.map((r) => r.retriever)).toEqual(Array.from({ length: 8 }, () => ['vector', 'hybrid']).flat());
    for (const row of rows) {
      expect(row.embedder).toBe(MODEL_ID());
      expect(row.questions).toBe(3);
      // One document holds each question's words: its chunk is the nearest, in both modes.
      expect(row, `${row.config} ${row.retriever}`).toMatchObject({ hitAtK: 1, mrr: 1 });
    }
    const table = await cli('eval', dataset, '--retriever', 'hybrid', '--embed-model-path', model.dir, '--strategy', 'structure:chunkSize=16');
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`3 questions, 3 documents, k=5, budget 1000 tokens, vectors ${MODEL_ID()}`);
    expect(table.stdout).toMatch(/\| structure:chunkSize=16\s+\| hybrid\s+\|\s+1\.000 \|/);
  });
});

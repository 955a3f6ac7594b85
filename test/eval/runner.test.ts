import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { chunkText } from '../../src/chunk.js';
import { baselineConfigs, CHROMA_SEPARATORS, parseStrategySpec } from '../../src/eval/configs.js';
import { loadDataset, sampleQuestions, type EvalQuestion } from '../../src/eval/dataset.js';
import { evaluate, findMisses } from '../../src/eval/runner.js';
import { recommend, runGrid, unitLengths, unitSourceFromText } from '../../src/eval/tune.js';
import { evalDir, hasShared } from '../helpers.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A three-document dataset whose answers sit in distinct paragraphs with distinct words. */
function writeDataset(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-eval-'));
  temps.push(dir);
  mkdirSync(join(dir, 'corpus'));
  const docs: Record<string, string> = {
    'birds.md': '# Birds\n\nThe arctic tern migrates from pole to pole every year.\n\nPenguins cannot fly but swim very well.\n',
    'stars.md': '# Stars\n\nA neutron star is the collapsed core of a massive supergiant.\n\nThe Sun is a yellow dwarf.\n',
    '书.md': '# 图书馆\n\n国家图书馆位于北京，藏书超过四千万册。\n\n阅览室每天早上九点开放。\n',
  };
  const questions: EvalQuestion[] = [];
  const add = (id: string, question: string, doc: string, answer: string) => {
    const start = docs[doc]!.indexOf(answer);
    questions.push({ id, question, doc, answer, spans: [[start, start + answer.length]] });
  };
  add('q1', 'Which bird migrates from pole to pole?', 'birds.md', 'arctic tern');
  add('q2', 'What is a neutron star?', 'stars.md', 'the collapsed core of a massive supergiant');
  add('q3', '国家图书馆藏书多少册？', '书.md', '四千万册');
  add('q4', 'zebra quagga okapi', 'stars.md', 'yellow dwarf');
  for (const [name, text] of Object.entries(docs)) writeFileSync(join(dir, 'corpus', name), text);
  writeFileSync(join(dir, 'questions.jsonl'), questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
  return dir;
}

describe('evaluate on an inline dataset', () => {
  const dataset = loadDataset(writeDataset());

  test('finds the answerable questions, lists the unanswerable one as a miss', async () => {
    const configs = [parseStrategySpec('structure'), parseStrategySpec('recursive:chunkSize=80,chunkOverlap=0')];
    const runs = await evaluate(dataset, dataset.questions, configs, { k: 1, budget: 1000 });
    for (const { result } of runs) {
      expect(result.questions).toBe(4);
      expect(result.hitAtK).toBe(0.75);
      expect(result.mrr).toBe(0.75);
      expect(result.hitAtBudget).toBe(0.75);
      expect(result.recall).toBeCloseTo(0.75, 12);
      expect(result.iou).toBeGreaterThan(0);
      expect(result.iou).toBeLessThan(1);
    }
    // The small recursive chunks hold one paragraph each: less text around each answer.
    expect(runs[1]!.result.iou).toBeGreaterThan(runs[0]!.result.iou);
    const misses = findMisses(dataset.questions, runs);
    expect(misses.map((m) => m.question.id)).toEqual(['q4']);
    expect(misses[0]!.terms).toEqual(['zebra', 'quagga', 'okapi']);
  });

  test('the same inputs give the same numbers; sampling is by seed', async () => {
    const config = [parseStrategySpec('structure:chunkSize=32')];
    const a = await evaluate(dataset, dataset.questions, config, { k: 2, budget: 50 });
    const b = await evaluate(dataset, dataset.questions, config, { k: 2, budget: 50 });
    expect({ ...a[0]!.result, seconds: 0 }).toEqual({ ...b[0]!.result, seconds: 0 });
    const s1 = sampleQuestions(dataset.questions, 2, 'x').map((q) => q.id);
    expect(sampleQuestions(dataset.questions, 2, 'x').map((q) => q.id)).toEqual(s1);
    expect(s1.length).toBe(2);
    expect(sampleQuestions(dataset.questions, 10, 'x').length).toBe(4);
  });

  test('tune: unit lengths, a grid, a recommendation with its reason', async () => {
    const lengths = unitLengths(dataset.documents.map((d) => unitSourceFromText(d.text)));
    expect(lengths.map((l) => [l.kind, l.count])).toEqual([
      ['sections', 3],
      ['paragraphs', 6],
      ['tables', 0],
    ]);
    const grid = await runGrid(dataset, dataset.questions, { k: 1, budget: 1000, grid: [16, 64] });
    expect(grid.map((g) => g.chunkSize)).toEqual([16, 64]);
    const rec = recommend(lengths, grid, [16, 64]);
    expect(rec.fromUnitsOnly).toBe(false);
    expect(rec.reason).toContain('hit@budget');
    const alone = recommend(lengths, [], [8, 64, 128]);
    expect(alone).toMatchObject({ chunkSize: 64, fromUnitsOnly: true });
    expect(alone.reason).toContain('no questions');
  });

  test("structure's overlap counts as covered: [contextStart, end) holds evidence that straddles a boundary", async () => {
    const words = ['amber', 'basalt', 'cobalt', 'dolomite', 'emerald', 'feldspar', 'garnet', 'hematite', 'jasper', 'kyanite', 'lazurite', 'malachite', 'nephrite', 'obsidian', 'pyrite', 'quartz', 'rhodonite', 'sapphire', 'topaz', 'zircon'];
    const text = words.map((w, i) => `Shelf ${i + 1} of the museum keeps a polished ${w} sample.`).join(' ') + '\n';
    const spec = 'structure:chunkSize=48,targetSize=32,chunkOverlap=16';
    const config = parseStrategySpec(spec);
    const chunks = chunkText(text, config.options);
    const withOverlap = chunks.find((c) => c.contextStart !== undefined)!;
    expect(withOverlap).toBeDefined();
    // Evidence from the repeated sentence into the chunk's own body: no chunk span [start, end) holds it.
    const spans: [number, number][] = [[withOverlap.contextStart!, withOverlap.end]];
    expect(chunks.some((c) => c.start <= spans[0]![0] && spans[0]![1] <= c.end)).toBe(false);
    const bodyWord = words.find((w) => text.slice(withOverlap.start, withOverlap.end).includes(w))!;
    const dir = mkdtempSync(join(tmpdir(), 'gw-eval-'));
    temps.push(dir);
    mkdirSync(join(dir, 'corpus'));
    writeFileSync(join(dir, 'corpus', 'museum.md'), text);
    writeFileSync(join(dir, 'questions.jsonl'), JSON.stringify({ id: 'q', question: `Which shelf keeps the ${bodyWord}?`, doc: 'museum.md', answer: '', spans }) + '\n');
    const [run] = await evaluate(loadDataset(dir), loadDataset(dir).questions, [config], { k: 1, budget: 1000 });
    expect(run!.result).toMatchObject({ hitAtK: 1, hitAtBudget: 1, mrr: 1, recall: 1 });
  });
});

describe('strategy specs and baselines', () => {
  test('generic keys map onto each strategy; JSON values may hold commas', () => {
    const chroma = parseStrategySpec(`recursive:chunkSize=200,chunkOverlap=0,unit=tokens,separators=${JSON.stringify(CHROMA_SEPARATORS)}`);
    expect(chroma.options).toEqual({ strategy: 'recursive', chunkSize: 200, chunkOverlap: 0, lengthUnit: 'tokens', separators: CHROMA_SEPARATORS });
    expect(parseStrategySpec('chisel:chunkSize=600').options).toEqual({ strategy: 'chisel', maxCharSize: 600 });
    expect(() => parseStrategySpec('structure:unit=chars')).toThrow(/does not apply/);
    expect(() => parseStrategySpec('nope')).toThrow(/unknown chunking strategy/);
    expect(() => parseStrategySpec('structure:chunkSize=abc')).toThrow(/chunkSize/);
  });

  test('the baselines of the issue, structure first', () => {
    expect(baselineConfigs().map((c) => c.label)).toEqual([
      'structure (default)',
      'LangChain 1000/200 chars',
      'Chroma recursive 800/400 tokens',
      'Chroma recursive 400/200 tokens',
      'Chroma recursive 400/0 tokens',
      'Chroma recursive 200/0 tokens',
      'chisel 600/300',
      'qwen 500',
    ]);
  });
});

const xquad = join(evalDir, 'xquad-en');

describe.skipIf(!hasShared || !existsSync(xquad))('end to end on 50 questions of xquad-en', () => {
  test('every baseline scores, sizes differ as configured', async () => {
    const dataset = loadDataset(xquad);
    const questions = sampleQuestions(dataset.questions, 50, 'groundwork');
    expect(questions.length).toBe(50);
    const runs = await evaluate(dataset, questions, baselineConfigs(), { k: 5, budget: 1000 });
    const byLabel = new Map(runs.map((r) => [r.label, r.result]));
    for (const r of byLabel.values()) {
      expect(r.questions).toBe(50);
      expect(r.hitAtK).toBeGreaterThan(0.8);
      expect(r.partialHitAtK).toBeGreaterThanOrEqual(r.hitAtK);
      expect(r.partialHitAtBudget).toBeGreaterThanOrEqual(r.hitAtBudget);
      expect(r.mrr).toBeGreaterThan(0.5);
      expect(r.iou).toBeLessThanOrEqual(r.recall);
    }
    // Chroma's 800-token chunks are about four times its 200-token ones.
    expect(byLabel.get('Chroma recursive 800/400 tokens')!.meanTokens).toBeGreaterThan(3 * byLabel.get('Chroma recursive 200/0 tokens')!.meanTokens);
    expect(byLabel.get('Chroma recursive 200/0 tokens')!.p90Tokens).toBeLessThanOrEqual(200);
  });
});

import { resolve } from 'node:path';
import { isDatasetDir, loadDataset, sampleQuestions } from '../eval/dataset.js';
import { recommend, runGrid, TUNE_GRID, unitLengths, unitSourceFromDocument, unitSourceFromText, type GridPoint, type Recommendation, type UnitLengths, type UnitSource } from '../eval/tune.js';
import { isGroundworkError } from '../errors.js';
import { walkFiles } from '../library/walk.js';
import { parse } from '../parse.js';
import { commaList, flag, integerValue, parseCommandArgs, stringValue, UsageError } from './args.js';
import { count, formatTable, HELP_FLAG_SPEC } from './common.js';
import { DEFAULT_SEED } from './eval-command.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';

export const TUNE_HELP = `Usage: groundwork tune DATASET_DIR|FOLDER [options]

Recommends a structure chunk size for a corpus. Prints the lengths of its semantic units in cl100k
tokens (P50/P90/max of sections, paragraphs and tables), then, for a dataset folder (corpus/ and
questions.jsonl, as for 'groundwork eval'), hit@k, IoU, MRR and hit@budget of a grid of structure
chunk sizes, and the recommended size with the reason: the best hit@budget, ties going to the best
IoU. A plain folder of documents (any supported format) has no questions: the recommendation then
comes from the unit lengths alone (the smallest size holding 90% of paragraphs whole), and says so.

Options:
  --sizes a,b,...       the grid of chunk sizes (default ${TUNE_GRID.join(',')})
  -k, --k N             chunks retrieved per question (default 5)
  --budget N            prompt budget in cl100k tokens (default 1000)
  --limit N             only N questions, sampled with --seed (default: all)
  --seed S              sampling seed (default: ${DEFAULT_SEED})
  --json                print { units, grid, recommendation } as JSON

Exit codes: 0 done, 1 the folder cannot be read or holds no readable document, 2 usage error.
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  sizes: { type: 'string' },
  k: { type: 'string', short: 'k' },
  budget: { type: 'string' },
  limit: { type: 'string' },
  seed: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function tuneCommand(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(TUNE_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length !== 1) throw new UsageError('expected one DATASET_DIR or FOLDER');
    const dir = resolve(args.positionals[0]!);
    const k = integerValue(args, 'k', 1) ?? 5;
    const budget = integerValue(args, 'budget', 1) ?? 1000;
    const limit = integerValue(args, 'limit', 1);
    const grid = sizesFrom(stringValue(args, 'sizes'));

    let sources: UnitSource[];
    let points: GridPoint[] = [];
    let skipped = 0;
    if (isDatasetDir(dir)) {
      const dataset = loadDataset(dir);
      sources = dataset.documents.map((d) => unitSourceFromText(d.text));
      const questions = sampleQuestions(dataset.questions, limit, stringValue(args, 'seed') ?? DEFAULT_SEED);
      if (questions.length > 0) points = await runGrid(dataset, questions, { k, budget, grid });
    } else {
      ({ sources, skipped } = await parseFolder(dir));
    }
    const lengths = unitLengths(sources);
    const recommendation = recommend(lengths, points, grid);
    if (flag(args, 'json')) {
      io.out(`${JSON.stringify({ documents: sources.length, skipped, units: lengths, grid: points.map((p) => ({ chunkSize: p.chunkSize, ...p.result })), recommendation }, null, 2)}\n`);
    } else {
      io.out(formatTune(dir, sources.length, skipped, lengths, points, recommendation));
    }
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'tune');
  }
}

function sizesFrom(raw: string | undefined): number[] {
  if (raw === undefined) return [...TUNE_GRID];
  const sizes = commaList(raw).map((s) => {
    if (!/^\d+$/.test(s) || Number(s) < 16) throw new UsageError(`--sizes takes integers >= 16, got '${s}'`);
    return Number(s);
  });
  if (sizes.length === 0) throw new UsageError('--sizes needs at least one size');
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** Every readable document under `dir`, parsed; files that fail to parse are counted, not fatal. */
async function parseFolder(dir: string): Promise<{ sources: UnitSource[]; skipped: number }> {
  const sources: UnitSource[] = [];
  let skipped = 0;
  for await (const file of walkFiles([dir])) {
    if ('error' in file) {
      if (file.path === dir) throw file.error;
      skipped++;
      continue;
    }
    try {
      sources.push(unitSourceFromDocument(await parse(file.path)));
    } catch (error) {
      if (!isGroundworkError(error)) throw error;
      skipped++;
    }
  }
  return { sources, skipped };
}

export function formatTune(dir: string, documents: number, skipped: number, lengths: readonly UnitLengths[], grid: readonly GridPoint[], rec: Recommendation): string {
  let out = `${dir}: ${count(documents, 'document')}${skipped > 0 ? ` (${count(skipped, 'file')} skipped: not readable)` : ''}\n\n`;
  out += 'Unit lengths (cl100k tokens):\n\n';
  out += formatTable(
    ['unit', 'count', 'P50', 'P90', 'max'],
    lengths.map((l) => [l.kind, String(l.count), String(l.p50), String(l.p90), String(l.max)]),
    [1, 2, 3, 4],
  );
  if (grid.length > 0) {
    const { k, budget, questions } = grid[0]!.result;
    out += `\nstructure chunk sizes on ${count(questions, 'question')} (k=${k}, budget ${budget} tokens):\n\n`;
    out += formatTable(
      ['chunkSize', `hit@${k}`, 'IoU', 'MRR@10', `hit@${budget}t`, 'chunks', 'mean tok'],
      grid.map(({ chunkSize, result: r }) => [
        String(chunkSize),
        r.hitAtK.toFixed(3),
        r.iou.toFixed(4),
        r.mrr.toFixed(3),
        r.hitAtBudget.toFixed(3),
        String(r.chunks),
        r.meanTokens.toFixed(0),
      ]),
      [0, 1, 2, 3, 4, 5, 6],
    );
  } else {
    out += '\nNo questions here (no questions.jsonl): the recommendation comes from the unit lengths alone.\n';
  }
  out += `\nRecommended chunkSize: ${rec.chunkSize} (${rec.reason}).\n`;
  out += `Use it with: groundwork ingest PATH --chunk-size ${rec.chunkSize}\n`;
  return out;
}

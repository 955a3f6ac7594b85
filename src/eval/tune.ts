import { resolveStructureOptions } from '../chunkers/structure.js';
import { looksLikeMarkdown, unitsFromDocument, unitsFromText, type Unit } from '../chunkers/structure-units.js';
import type { Document } from '../document/types.js';
import { getTokenizer } from '../tokens/index.js';
import type { EvalConfig } from './configs.js';
import type { EvalDataset, EvalQuestion } from './dataset.js';
import { percentile } from './metrics.js';
import { evaluate, type EvalProgress, type EvalResult } from './runner.js';

/**
 * The calibration behind `groundwork tune`: how long a corpus's semantic units are (sections,
 * paragraphs, tables, in cl100k tokens), how a grid of `structure` chunk sizes scores on its
 * questions, and which size to use.
 */

export const TUNE_GRID: readonly number[] = [128, 192, 256, 384, 512, 768, 1024];

export interface UnitLengths {
  kind: 'sections' | 'paragraphs' | 'tables';
  count: number;
  p50: number;
  p90: number;
  max: number;
}

/** A text with its structure units (from a raw Markdown/plain file, or from a parsed Document). */
export interface UnitSource {
  text: string;
  units: Unit[];
}

export function unitSourceFromText(text: string): UnitSource {
  return { text, units: unitsFromText(text, looksLikeMarkdown(text)) };
}

export function unitSourceFromDocument(doc: Document): UnitSource {
  return { text: doc.canonical, units: unitsFromDocument(doc) };
}

/**
 * Token lengths of the units: a section runs from a heading to the next heading of any level (so
 * nested sections are counted by their own text); paragraphs are the text units (list items
 * included), tables the table units.
 */
export function unitLengths(sources: readonly UnitSource[]): UnitLengths[] {
  const tokenizer = getTokenizer('cl100k_base');
  const sections: number[] = [];
  const paragraphs: number[] = [];
  const tables: number[] = [];
  for (const { text, units } of sources) {
    let sectionStart = -1;
    for (const unit of units) {
      if (unit.kind === 'heading') {
        if (sectionStart >= 0) sections.push(tokenizer.count(text.slice(sectionStart, unit.start)));
        sectionStart = unit.start;
      } else if (unit.kind === 'table') {
        tables.push(tokenizer.count(text.slice(unit.start, unit.end)));
      } else if (unit.kind === 'text') {
        paragraphs.push(tokenizer.count(text.slice(unit.start, unit.end)));
      }
    }
    const last = units[units.length - 1];
    if (sectionStart >= 0 && last) sections.push(tokenizer.count(text.slice(sectionStart, last.end)));
  }
  const row = (kind: UnitLengths['kind'], values: number[]): UnitLengths => ({
    kind,
    count: values.length,
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    max: values.length > 0 ? Math.max(...values) : 0,
  });
  return [row('sections', sections), row('paragraphs', paragraphs), row('tables', tables)];
}

export interface GridPoint {
  chunkSize: number;
  result: EvalResult;
}

export interface Recommendation {
  chunkSize: number;
  reason: string;
  /** True when no questions were available: the size comes from the unit lengths alone. */
  fromUnitsOnly: boolean;
}

export function gridConfigs(grid: readonly number[] = TUNE_GRID): EvalConfig[] {
  return grid.map((size) => ({ config: `structure:chunkSize=${size}`, label: `structure ${size}`, options: { strategy: 'structure', chunkSize: size } }));
}

export async function runGrid(
  dataset: EvalDataset,
  questions: readonly EvalQuestion[],
  options: { k: number; budget: number; grid?: readonly number[]; onProgress?: (p: EvalProgress) => void },
): Promise<GridPoint[]> {
  const grid = options.grid ?? TUNE_GRID;
  const evalOptions = { k: options.k, budget: options.budget, ...(options.onProgress && { onProgress: options.onProgress }) };
  const runs = await evaluate(dataset, questions, gridConfigs(grid), evalOptions);
  return runs.map((run, i) => ({ chunkSize: grid[i]!, result: run.result }));
}

/** Sizes whose hit@budget is within this of the best count as tied; IoU then decides. */
const BUDGET_TIE = 0.005;

/**
 * With questions: the size with the best hit@budget (evidence reaching a prompt of the budget),
 * ties (within half a point) going to the best IoU (less text around the evidence), never to the
 * bigger chunk for hit@k. Without: the smallest grid size that holds 90% of paragraphs whole.
 */
export function recommend(lengths: readonly UnitLengths[], grid: readonly GridPoint[], gridSizes: readonly number[] = TUNE_GRID): Recommendation {
  if (grid.length > 0) {
    const best = Math.max(...grid.map((g) => g.result.hitAtBudget));
    const tied = grid.filter((g) => g.result.hitAtBudget >= best - BUDGET_TIE);
    const pick = tied.reduce((a, b) => (b.result.iou > a.result.iou ? b : a));
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const others = tied.length > 1 ? `; ${tied.length - 1} other size(s) within ${BUDGET_TIE * 100} points of it, this one has the best IoU (${pct(pick.result.iou)})` : '';
    return {
      chunkSize: pick.chunkSize,
      reason: `best hit@budget: evidence reaches a ${pick.result.budget}-token prompt for ${pct(pick.result.hitAtBudget)} of the questions${others}`,
      fromUnitsOnly: false,
    };
  }
  const paragraphs = lengths.find((l) => l.kind === 'paragraphs');
  const p90 = paragraphs?.p90 ?? 0;
  const size = gridSizes.find((s) => s >= p90) ?? gridSizes[gridSizes.length - 1]!;
  const reason =
    paragraphs && paragraphs.count > 0
      ? p90 <= size
        ? `no questions, so from unit lengths alone: the smallest size that holds 90% of paragraphs whole (paragraph P90 ${p90} tokens)`
        : `no questions, so from unit lengths alone: paragraph P90 (${p90} tokens) exceeds the grid; long paragraphs will be split by sentences`
      : 'no questions and no paragraphs found: the default size';
  return { chunkSize: paragraphs && paragraphs.count > 0 ? size : resolveStructureOptions({}).chunkSize, reason, fromUnitsOnly: true };
}

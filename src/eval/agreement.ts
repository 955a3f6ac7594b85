import type { EvalConfig } from './configs.js';
import type { EvalDataset, EvalQuestion } from './dataset.js';
import { evaluate, type ConfigRun, type EvalOptions, type ScratchStore } from './runner.js';

/**
 * How far two stores' rankings agree on one dataset: the same documents chunked the same way are
 * indexed into each, every question is ranked by both, and their top-ten lists and scores are
 * compared. Two stores that implement the same BM25 over the same analysis (SQLite's FTS5 and
 * Postgres, src/search/bm25.ts) should agree on nearly every hit; what differs comes from ties
 * broken differently and floating-point sums in another order.
 */
export interface StoreAgreement {
  dataset: string;
  config: string;
  questions: number;
  /** Of all hits in A's top-ten lists, the share also in B's top ten of the same question. */
  overlap: number;
  /** Of all ranks 1..10 over all questions, the share where A and B put the same chunk. */
  sameRank: number;
  /** Questions whose two top-ten lists are equal (same chunks, same order). */
  identicalLists: number;
  k: number;
  hitAtK: [number, number];
  mrr: [number, number];
}

export async function compareStores(
  dataset: EvalDataset,
  questions: readonly EvalQuestion[],
  config: EvalConfig,
  options: Pick<EvalOptions, 'k' | 'budget'>,
  stores: [() => Promise<ScratchStore>, () => Promise<ScratchStore>],
): Promise<StoreAgreement> {
  const [a, b] = await Promise.all(stores.map(async (scratchStore) => (await evaluate(dataset, questions, [config], { ...options, scratchStore }))[0]!));
  return agreementOf(dataset.name, a!, b!);
}

/** The agreement of two runs of one configuration over the same questions. */
export function agreementOf(dataset: string, a: ConfigRun, b: ConfigRun): StoreAgreement {
  let hits = 0;
  let shared = 0;
  let ranks = 0;
  let sameRank = 0;
  let identical = 0;
  a.outcomes.forEach((outcome, q) => {
    const other = b.outcomes[q]!.top;
    const inOther = new Set(other);
    hits += outcome.top.length;
    for (const key of outcome.top) if (inOther.has(key)) shared++;
    const n = Math.max(outcome.top.length, other.length);
    ranks += n;
    for (let i = 0; i < n; i++) if (outcome.top[i] !== undefined && outcome.top[i] === other[i]) sameRank++;
    if (outcome.top.length === other.length && outcome.top.every((key, i) => key === other[i])) identical++;
  });
  return {
    dataset,
    config: a.result.config,
    questions: a.outcomes.length,
    overlap: hits === 0 ? 1 : shared / hits,
    sameRank: ranks === 0 ? 1 : sameRank / ranks,
    identicalLists: identical,
    k: a.result.k,
    hitAtK: [a.result.hitAtK, b.result.hitAtK],
    mrr: [a.result.mrr, b.result.mrr],
  };
}

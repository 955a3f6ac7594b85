import type { Candidate, HitScores, Retriever } from './types.js';
import type { RetrievalFilter } from './filter.js';

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a hit's fused score is
 * sum over lists of weight / (k + rank), ranks from 1, k = 60. Scores of the lists are never
 * compared, only ranks, so BM25 and cosine similarity fuse without calibration.
 *
 * Well-formed output: every block once; sorted by fused score; ties broken by the best rank the
 * hit has in any list, then by block id (so the result does not depend on the order of the lists);
 * a hit first in every list comes first; a list of weight 0 is as if it were not given.
 */
export const RRF_K = 60;

export interface RankedList {
  /** The retriever's name: its scores appear as `scores[name]` and `scores[name + 'Rank']`. */
  name: string;
  /** Best first. A block listed twice counts at its first (best) rank. */
  items: readonly Candidate[];
  /** Default 1; 0 drops the list. */
  weight?: number;
}

export function reciprocalRankFusion(lists: readonly RankedList[], options: { k?: number } = {}): Candidate[] {
  const k = options.k ?? RRF_K;
  if (!(k >= 0) || !Number.isFinite(k)) throw new RangeError(`RRF k must be a finite number >= 0, got ${k}`);
  const entries = new Map<string, { candidate: Candidate; terms: number[]; bestRank: number; scores: HitScores }>();
  for (const list of lists) {
    const weight = list.weight ?? 1;
    if (!(weight >= 0) || !Number.isFinite(weight)) throw new RangeError(`weight of ${list.name} must be a finite number >= 0, got ${weight}`);
    if (weight === 0) continue;
    const seen = new Set<string>();
    let rank = 0;
    for (const item of list.items) {
      const id = item.block.id;
      if (seen.has(id)) continue;
      seen.add(id);
      rank++;
      let entry = entries.get(id);
      if (!entry) entries.set(id, (entry = { candidate: item, terms: [], bestRank: rank, scores: {} }));
      entry.terms.push(weight / (k + rank));
      entry.bestRank = Math.min(entry.bestRank, rank);
      entry.scores[list.name] = item.score;
      entry.scores[`${list.name}Rank`] = rank;
    }
  }
  const fused = [...entries.values()].map((e) => {
    // Summed smallest first: the same terms give the same float whatever the order of the lists.
    const score = e.terms.sort((a, b) => a - b).reduce((sum, t) => sum + t, 0);
    return { e, score };
  });
  fused.sort((a, b) => b.score - a.score || a.e.bestRank - b.e.bestRank || compareIds(a.e.candidate.block.id, b.e.candidate.block.id));
  return fused.map(({ e, score }) => ({ block: e.candidate.block, path: e.candidate.path, score, scores: { ...e.scores, fused: score } }));
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Scores a single retriever's list as fusion would name them (`bm25`, `bm25Rank`), without fusing. */
export function rankedScores(name: string, items: readonly Candidate[]): Candidate[] {
  return items.map((item, i) => ({ ...item, scores: { [name]: item.score, [`${name}Rank`]: i + 1 } }));
}

/**
 * A retriever made of others: each searched for `depth` candidates (filter passed down), the lists
 * fused by RRF with the given weights, the best `k` returned. It has the same contract as the
 * retrievers it fuses, so it can itself be fused.
 */
export function fusionRetriever(
  retrievers: readonly Retriever[],
  options: { name?: string; weights?: Readonly<Record<string, number>>; k?: number; depth?: (k: number) => number } = {},
): Retriever {
  const depth = options.depth ?? ((k: number) => Math.max(k * 4, 50));
  return {
    name: options.name ?? 'hybrid',
    async search(query: string, k: number, filter: RetrievalFilter): Promise<Candidate[]> {
      const active = retrievers.filter((r) => (options.weights?.[r.name] ?? 1) > 0);
      const lists = await Promise.all(active.map(async (r) => ({ name: r.name, weight: options.weights?.[r.name] ?? 1, items: await r.search(query, depth(k), filter) })));
      return reciprocalRankFusion(lists, options.k !== undefined ? { k: options.k } : {}).slice(0, k);
    },
  };
}

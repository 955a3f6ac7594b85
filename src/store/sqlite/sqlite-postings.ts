import type Database from 'better-sqlite3';
import { B, K1, LENGTH_COLUMNS } from '../../search/bm25.js';
import { POSTING_COLUMNS } from './sqlite-fts.js';

/** A block's rowid and its rank as FTS5 reports it (bm25: minus the score, lower is better). */
export interface RankedRowid {
  rowid: number;
  rank: number;
}

/**
 * FTS5's bm25() over the `postings` table instead of the FTS index: the same numbers, in the same
 * order, a fraction of the cost. FTS5 computes bm25() for every row matching any OR-ed term through
 * its auxiliary-function API (about 1.3 us a row on this machine, most of a 100k-block search);
 * here each term's postings are read as two strings of digits from one index range scan and
 * scored in a loop.
 *
 * The arithmetic is FTS5's (sqlite's fts5_aux.c, fts5Bm25Function), step by step, so scores are
 * bit-identical and ties fall as they do there (test/store/sqlite-postings.test.ts compares both
 * on real libraries):
 * - nRow is the index's row count, nToken its token total (padding included), avgdl their ratio;
 * - each term's IDF is log((nRow - nHit + 0.5) / (nHit + 0.5)) with nHit its rows, floored at 1e-6;
 * - a row's frequency of a term is its column's weight added once per occurrence;
 * - the row length D is -LENGTH_COLUMNS (the index stores no sizes: -1 per column);
 * - a row's score is the sum over the terms, in the query's order, of
 *   idf * ((freq * (k1 + 1)) / (freq + k1 * (1 - b + b * D / avgdl))) (that association); its rank is -score;
 * - rows are ordered by rank, then by rowid.
 */
export class PostingsRanker {
  private readonly postingsOf: Database.Statement;

  constructor(db: Database.Database) {
    // Both aggregates step over the same rows of one scan, so the i-th rowid goes with the i-th entry.
    // The IDF is computed by SQLite's ln(), i.e. the C library's log(), which FTS5 calls: V8's
    // Math.log differs from it in the last bit for some arguments, enough to reorder near ties.
    this.postingsOf = db
      .prepare('SELECT count(*), ln((@rows - count(*) + 0.5) / (count(*) + 0.5)), group_concat(rowid), group_concat(entry) FROM postings WHERE term = @term')
      .raw();
  }

  /**
   * The best `n` rows for `terms` (the kept query terms, in the order FTS5 is given them), as the
   * FTS5 query `TOP_ROWIDS_SQL` returns them with the same weights.
   */
  top(terms: readonly string[], n: number, weights: readonly number[], stats: { rows: number; tokens: number }): RankedRowid[] {
    if (n <= 0 || terms.length === 0 || stats.rows <= 0) return [];
    const avgdl = stats.tokens / stats.rows;
    const lengthPart = K1 * (1 - B + (B * -LENGTH_COLUMNS) / avgdl);
    const scores = new Map<number, number>();
    for (const term of terms) {
      const [hits, log, rowids, entries] = this.postingsOf.get({ rows: stats.rows, term }) as [number, number | null, string | null, string | null];
      if (hits === 0 || rowids === null || entries === null) continue;
      // ln() of a non-positive number is NULL: FTS5's floor applies to it as to any idf <= 0.
      const idf = log === null || log <= 0 ? 1e-6 : log;
      const rows = readIntegers(rowids, hits);
      let i = 0;
      let entry = 0;
      let digits = false;
      for (let at = 0; at <= entries.length; at++) {
        const c = at < entries.length ? entries.charCodeAt(at) : 44;
        if (c >= 48 && c <= 57) {
          entry = entry * 10 + (c - 48);
          digits = true;
          continue;
        }
        if (!digits) continue;
        const w = weights[entry % POSTING_COLUMNS]!;
        let freq = 0;
        for (let tf = Math.floor(entry / POSTING_COLUMNS); tf > 0; tf--) freq += w;
        const part = idf * ((freq * (K1 + 1)) / (freq + lengthPart));
        const rowid = rows[i++]!;
        const before = scores.get(rowid);
        scores.set(rowid, before === undefined ? part : before + part);
        entry = 0;
        digits = false;
      }
    }
    return best(scores, n);
  }
}

/** The `count` non-negative integers of a comma-separated list of digits. */
function readIntegers(text: string, count: number): Float64Array {
  const out = new Float64Array(count);
  let i = 0;
  let value = 0;
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === 44) {
      out[i++] = value;
      value = 0;
    } else value = value * 10 + (c - 48);
  }
  out[i] = value;
  return out;
}

/** The best n of `scores`, as FTS5 orders them: rank (-score) ascending, then rowid ascending. */
function best(scores: Map<number, number>, n: number): RankedRowid[] {
  const top: RankedRowid[] = [];
  for (const [rowid, score] of scores) {
    const rank = -1 * score;
    if (top.length === n) {
      const last = top[n - 1]!;
      if (rank > last.rank || (rank === last.rank && rowid > last.rowid)) continue;
    }
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = top[mid]!;
      if (m.rank < rank || (m.rank === rank && m.rowid < rowid)) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, { rowid, rank });
    if (top.length > n) top.pop();
  }
  return top;
}

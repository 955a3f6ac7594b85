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
  /** Scratch score per rowid, valid where `stamp` holds the current query's number (reused, grown as rowids grow). */
  private scores = new Float64Array(0);
  private stamp = new Uint32Array(0);
  private query = 0;

  constructor(db: Database.Database) {
    // One string per term: each posting as rowid * ROWID_SHIFT + entry. The IDF is computed by
    // SQLite's ln(), i.e. the C library's log(), which FTS5 calls: V8's Math.log differs from it in
    // the last bit for some arguments, enough to reorder near ties.
    this.postingsOf = db
      .prepare(`SELECT count(*), ln((@rows - count(*) + 0.5) / (count(*) + 0.5)), group_concat(rowid * ${ROWID_SHIFT} + entry) FROM postings WHERE term = @term`)
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
    if (++this.query === 0xffffffff) {
      this.stamp.fill(0);
      this.query = 1;
    }
    const query = this.query;
    const rows: number[] = [];
    for (const term of terms) {
      const [hits, log, packed] = this.postingsOf.get({ rows: stats.rows, term }) as [number, number | null, string | null];
      if (hits === 0 || packed === null) continue;
      // ln() of a non-positive number is NULL: FTS5's floor applies to it as to any idf <= 0.
      const idf = log === null || log <= 0 ? 1e-6 : log;
      let value = 0;
      for (let at = 0; at <= packed.length; at++) {
        const c = at < packed.length ? packed.charCodeAt(at) : 44;
        if (c !== 44) {
          value = value * 10 + (c - 48);
          continue;
        }
        const entry = value % ROWID_SHIFT;
        const rowid = (value - entry) / ROWID_SHIFT;
        value = 0;
        const w = weights[entry % POSTING_COLUMNS]!;
        let freq = 0;
        for (let tf = Math.floor(entry / POSTING_COLUMNS); tf > 0; tf--) freq += w;
        const part = idf * ((freq * (K1 + 1)) / (freq + lengthPart));
        if (rowid >= this.stamp.length) this.grow(rowid);
        // Each row's parts are added in term order, from 0, as FTS5 sums its phrases.
        if (this.stamp[rowid] !== query) {
          this.stamp[rowid] = query;
          this.scores[rowid] = part;
          rows.push(rowid);
        } else this.scores[rowid] += part;
      }
    }
    const top: RankedRowid[] = [];
    for (const rowid of rows) keep(top, n, rowid, -1 * this.scores[rowid]!);
    return top;
  }

  private grow(rowid: number): void {
    const size = Math.max(rowid + 1, this.stamp.length * 2, 1024);
    const stamp = new Uint32Array(size);
    stamp.set(this.stamp);
    const scores = new Float64Array(size);
    scores.set(this.scores);
    this.stamp = stamp;
    this.scores = scores;
  }
}

/** A posting travels as rowid * ROWID_SHIFT + entry: exact in a double while rowid < 2^31 and entry < 2^22. */
const ROWID_SHIFT = 2 ** 22;

/** Puts (rowid, rank) into `top`, the best n so far in FTS5's order: rank ascending, then rowid ascending. */
function keep(top: RankedRowid[], n: number, rowid: number, rank: number): void {
  if (top.length === n) {
    const last = top[n - 1]!;
    if (rank > last.rank || (rank === last.rank && rowid > last.rowid)) return;
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

import type Database from 'better-sqlite3';
import { blockIndexText } from '../../search/analyze.js';
import { B, K1, LENGTH_COLUMNS, lengthColumn, termCount } from '../../search/bm25.js';

/** A block's rowid and its rank as FTS5 reports it (bm25: minus the score, lower is better). */
export interface RankedRowid {
  rowid: number;
  rank: number;
}

/** A posting's entry: tf * POSTING_COLUMNS + the block's length column (LENGTH_COLUMNS fits below it). */
const POSTING_COLUMNS = 32;

/** Blocks read per step of a build (the thread is given back between steps). */
const BUILD_PAGE = 2000;

/** The code of the process warning a failed build emits (once per index). */
export const MEMORY_INDEX_FAILED = 'GROUNDWORK_MEMORY_INDEX';

/** The default budget: libraries with more blocks keep FTS5's ranking (about 0.5 KB of memory a block). */
export const DEFAULT_MEMORY_INDEX_BLOCKS = 300_000;

/**
 * The library's postings in memory, built from the stored blocks' analysed text (the terms FTS5
 * indexes, by the same analyzer), for a long-lived reader: FTS5's bm25() costs about 1.3 us per
 * matching row (it walks every phrase's positions through its auxiliary-function API), most of a
 * 100k-block search; the same BM25 from these arrays costs a fraction of that. Nothing is written:
 * the index is built in the background, step by step, and is used only while the library is
 * exactly the state it was built from (`PRAGMA data_version` for other connections' commits,
 * `total_changes()` for this connection's); otherwise searches fall back to FTS5 and a rebuild
 * starts. A removed document therefore never comes back.
 *
 * The arithmetic is FTS5's (sqlite's fts5_aux.c, fts5Bm25Function), step by step, so scores are
 * bit-identical and ties fall as they do there (test/store/sqlite-postings.test.ts compares both):
 * - nRow is the index's row count, nToken its token total (padding included), avgdl their ratio;
 * - each term's IDF is log((nRow - nHit + 0.5) / (nHit + 0.5)) with nHit its rows, floored at 1e-6,
 *   computed by SQLite's ln() (the C library's log(), which FTS5 calls: V8's Math.log differs in the
 *   last bit for some arguments, enough to reorder near ties);
 * - a row's frequency of a term is its column's weight added once per occurrence;
 * - the row length D is -LENGTH_COLUMNS (the index stores no sizes: -1 per column);
 * - a row's score is the sum over the terms, in the query's order, of
 *   idf * ((freq * (k1 + 1)) / (freq + k1 * (1 - b + b * D / avgdl))) (that association); its rank is -score;
 * - rows are ordered by rank, then by rowid.
 */
export class MemoryRanker {
  private readonly ln: Database.Statement;
  private readonly version: Database.Statement;
  private readonly changes: Database.Statement;
  private readonly blockCount: Database.Statement;
  private readonly page: Database.Statement;
  /** Per term: [start, end) in `rowids` / `entries`. */
  private terms = new Map<string, number>();
  private starts = new Int32Array(0);
  private rowids = new Int32Array(0);
  private entries = new Int32Array(0);
  /** The state the arrays were built from; undefined while none is usable. */
  private builtAt: string | undefined;
  /** Builds finished (so a generation is never reused, even when a state string repeats). */
  private builds = 0;
  /** Each term's IDF for the current arrays, as computed by SQLite's ln() (by rows, hits). */
  private idfs = new Map<string, number>();
  private building: Promise<void> | undefined;
  private closed = false;
  private warned = false;
  /** Scratch score per rowid, valid where `stamp` holds the current query's number. */
  private scores = new Float64Array(0);
  private stamp = new Uint32Array(0);
  private query = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly maxBlocks: number = DEFAULT_MEMORY_INDEX_BLOCKS,
  ) {
    this.ln = db.prepare('SELECT ln(?)').pluck();
    this.version = db.prepare('PRAGMA data_version').pluck();
    this.changes = db.prepare('SELECT total_changes()').pluck();
    this.blockCount = db.prepare('SELECT count(*) FROM blocks').pluck();
    this.page = db.prepare('SELECT rowid, heading_path, text FROM blocks WHERE rowid > ? ORDER BY rowid LIMIT ?').raw();
  }

  /** The library's state as far as this connection can tell (changes when any connection commits). */
  private state(): string {
    return `${this.version.get() as number}:${this.changes.get() as number}`;
  }

  /**
   * True when the arrays hold exactly the library's current state; else starts a rebuild (unless
   * one runs) and returns false, and the caller ranks with FTS5. Call inside the read's snapshot.
   */
  /** Names the state the arrays hold (changes with every build); undefined while none is usable. */
  get generation(): string | undefined {
    return this.builtAt === undefined ? undefined : `${this.builds}:${this.builtAt}`;
  }

  ready(): boolean {
    if (this.builtAt !== undefined && this.builtAt === this.state()) return true;
    this.builtAt = undefined;
    if (!this.building && !this.closed) {
      // A failed build leaves FTS5 ranking (the same results), said once; the next change tries again.
      this.building = this.build().catch((error: unknown) => this.failed(error)).finally(() => {
        this.building = undefined;
      });
    }
    return false;
  }

  /** Resolves when the build in progress (if any) ends: for tests and benches that want it warm. */
  async settled(): Promise<boolean> {
    for (let i = 0; i < 3; i++) {
      if (this.ready()) return true;
      await this.building;
    }
    return this.ready();
  }

  close(): void {
    this.closed = true;
  }

  /** A build failed: a process warning the first time (searches go on with FTS5's ranking). */
  private failed(error: unknown): void {
    if (this.warned || this.closed) return;
    this.warned = true;
    const reason = error instanceof Error ? error.message : String(error);
    process.emitWarning(`building the in-memory search index failed (${reason}); searches rank with FTS5 (the same results, slower)`, { code: MEMORY_INDEX_FAILED });
  }

  /**
   * Reads every block in pages, giving the thread back between them, and keeps the result only if
   * no connection committed meanwhile (else the next search starts over).
   */
  private async build(): Promise<void> {
    const at = this.state();
    if ((this.blockCount.get() as number) > this.maxBlocks) return;
    const lists = new Map<string, number[]>();
    let maxRowid = 0;
    for (let last = 0; ; ) {
      if (this.closed || this.state() !== at) return;
      const rows = this.page.all(last, BUILD_PAGE) as [number, string, string][];
      if (rows.length === 0) break;
      for (const [rowid, headingPath, text] of rows) {
        const body = blockIndexText({ headingPath: JSON.parse(headingPath) as string[], text });
        const col = lengthColumn(termCount(body));
        const tf = new Map<string, number>();
        for (const term of body.split(' ')) if (term !== '') tf.set(term, (tf.get(term) ?? 0) + 1);
        for (const [term, n] of tf) {
          let list = lists.get(term);
          if (!list) lists.set(term, (list = []));
          list.push(rowid, n * POSTING_COLUMNS + col);
        }
        maxRowid = rowid;
      }
      last = rows[rows.length - 1]![0];
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (this.closed || this.state() !== at || maxRowid >= 2 ** 31) return;
    let total = 0;
    for (const list of lists.values()) total += list.length / 2;
    const terms = new Map<string, number>();
    const starts = new Int32Array(lists.size + 1);
    const rowids = new Int32Array(total);
    const entries = new Int32Array(total);
    let at2 = 0;
    let t = 0;
    for (const [term, list] of lists) {
      terms.set(term, t);
      starts[t++] = at2;
      for (let i = 0; i < list.length; i += 2) {
        rowids[at2] = list[i]!;
        entries[at2++] = list[i + 1]!;
      }
    }
    starts[t] = at2;
    this.terms = terms;
    this.starts = starts;
    this.rowids = rowids;
    this.entries = entries;
    if (this.stamp.length <= maxRowid) {
      this.stamp = new Uint32Array(maxRowid + 1);
      this.scores = new Float64Array(maxRowid + 1);
      this.query = 0;
    }
    this.idfs = new Map();
    this.builds++;
    this.builtAt = at;
  }

  /**
   * The best `n` rows for `terms` (the kept query terms, in the order FTS5 is given them), as the
   * FTS5 query `TOP_ROWIDS_SQL` returns them with the same weights. Only after `ready()` said true.
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
    const { stamp, scores, rowids, entries } = this;
    const rows: number[] = [];
    for (const term of terms) {
      const t = this.terms.get(term);
      if (t === undefined) continue;
      const from = this.starts[t]!;
      const to = this.starts[t + 1]!;
      const idf = this.idf(term, stats.rows, to - from);
      for (let i = from; i < to; i++) {
        const entry = entries[i]!;
        const rowid = rowids[i]!;
        const w = weights[entry % POSTING_COLUMNS]!;
        let freq = 0;
        for (let tf = entry >> 5; tf > 0; tf--) freq += w;
        const part = idf * ((freq * (K1 + 1)) / (freq + lengthPart));
        // Each row's parts are added in term order, from 0, as FTS5 sums its phrases.
        if (stamp[rowid] !== query) {
          stamp[rowid] = query;
          scores[rowid] = part;
          rows.push(rowid);
        } else scores[rowid] += part;
      }
    }
    return best(rows, scores, n);
  }

  /** A term's IDF as FTS5 computes it, once per term and row count for these arrays. */
  private idf(term: string, rows: number, hits: number): number {
    const key = `${rows}:${term}`;
    let idf = this.idfs.get(key);
    if (idf === undefined) {
      // ln() of a non-positive number is NULL: FTS5's floor applies to it as to any idf <= 0.
      const log = this.ln.get((rows - hits + 0.5) / (hits + 0.5)) as number | null;
      idf = log === null || log <= 0 ? 1e-6 : log;
      if (this.idfs.size >= MAX_CACHED_IDFS) this.idfs.clear();
      this.idfs.set(key, idf);
    }
    return idf;
  }
}

/** IDFs kept per build (a term's few bytes each; cleared when full). */
const MAX_CACHED_IDFS = 100_000;

/** The best n of `rows` in FTS5's order: rank (-score) ascending, then rowid ascending. */
function best(rows: number[], scores: Float64Array, n: number): RankedRowid[] {
  const top: RankedRowid[] = [];
  for (const rowid of rows) {
    const rank = -1 * scores[rowid]!;
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

import type pg from 'pg';
import picomatch from 'picomatch';
import { queryTerms, analyze, type TermStats } from '../../search/analyze.js';
import { baseNormaliser, columnWeights, idf, K1 } from '../../search/bm25.js';
import type { RankedBlock, SearchFilter, TextCandidate } from '../types.js';
import { lexemeOf, lengthStatsOf } from './postgres-fts.js';
import { toBlock } from './postgres-rows.js';

type Row = Record<string, any>;

/** A block's score before the rows of the top k are read. */
interface Scored {
  rowid: number;
  score: number;
}

/**
 * BM25 search over a Postgres library, the SQLite store's ranking (src/search/bm25.ts) from the same
 * statistics. A query takes three round trips:
 *
 * 1. The statistics of its terms: their document frequencies, the block count and the length
 *    columns (a handful of indexed rows). The terms are pruned as SQLite prunes them (`queryTerms`)
 *    and each kept term's IDF and every column's weight are computed here.
 * 2. The postings of the kept terms (an index-only scan of the `postings` btree: block rowid,
 *    length column and term frequency per block holding the term), aggregated per term into two
 *    integer arrays (rowids; column and frequency as one int4), with every filter a condition of
 *    the same statement (so k results are k results of the filter). The scores are summed here,
 *    reading the arrays' text digit by digit,
 *    in one fixed term order (blocks with the same terms get bit-identical scores), and the best k
 *    kept (score descending, then rowid, as SQLite breaks ties).
 * 3. The k blocks and their first paths, by rowid (a block removed since step 2 is left out).
 */
export class PostgresSearch {
  constructor(private readonly pool: pg.Pool) {}

  async candidates(query: string, k: number, filter: SearchFilter = {}): Promise<TextCandidate[]> {
    const top = await this.top(query, k, filter);
    if (top.length === 0) return [];
    const { rows } = await this.pool.query(
      `SELECT b.*, (SELECT min(p.path) FROM paths p WHERE p.doc_id = b.doc_id) AS path
       FROM unnest($1::bigint[]) WITH ORDINALITY AS t(rowid, n) JOIN blocks b ON b.rowid = t.rowid ORDER BY t.n`,
      [top.map((t) => t.rowid)],
    );
    const scores = new Map(top.map((t) => [t.rowid, t.score]));
    return rows.map((row: Row) => ({ block: toBlock(row), path: row.path ?? null, score: scores.get(Number(row.rowid))! }));
  }

  async rank(query: string, k: number): Promise<RankedBlock[]> {
    const top = await this.top(query, k, {});
    if (top.length === 0) return [];
    const { rows } = await this.pool.query<{ rowid: number; docId: string; ordinal: number }>(
      `SELECT b.rowid, b.doc_id AS "docId", b.ordinal FROM unnest($1::bigint[]) WITH ORDINALITY AS t(rowid, n) JOIN blocks b ON b.rowid = t.rowid ORDER BY t.n`,
      [top.map((t) => t.rowid)],
    );
    const scores = new Map(top.map((t) => [t.rowid, t.score]));
    return rows.map((row) => ({ docId: row.docId, ordinal: row.ordinal, score: scores.get(Number(row.rowid))! }));
  }

  /**
   * The best k blocks for `query` under `filter`, scored; empty when nothing can match: no
   * searchable term, no term any block holds, or a path glob no document matches.
   */
  private async top(query: string, k: number, filter: SearchFilter): Promise<Scored[]> {
    if (k <= 0) return [];
    const analysed = [...new Set(analyze(query))];
    if (analysed.length === 0) return [];
    const stats = await this.statistics(analysed.map(lexemeOf));
    const terms = queryTerms(query, stats.termStats);
    if (terms.length === 0) return [];
    const lexemes = terms.map(lexemeOf);
    const lengths = stats.lengths;
    const k1l0 = K1 * baseNormaliser(lengths);
    // SQLite hands FTS5 the weights printed to 12 significant digits (rankFunction): the same numbers here.
    const weights = columnWeights(lengths).map((w) => Number(w.toPrecision(12)));

    const params: unknown[] = [lexemes];
    const conditions: string[] = [];
    const joins: string[] = [];
    const docIds = asArray(filter.docId);
    let docIdSet: string[] | undefined = docIds.length > 0 ? docIds : undefined;
    if (filter.path) {
      const matched = await this.documentsAtPaths(filter.path);
      docIdSet = docIdSet ? docIdSet.filter((id) => matched.has(id)) : [...matched];
      if (docIdSet.length === 0) return [];
    }
    const formats = asArray(filter.format);
    const needsBlock = docIdSet !== undefined || formats.length > 0 || filter.pageFrom !== undefined || filter.pageTo !== undefined;
    if (needsBlock) joins.push('JOIN blocks b ON b.rowid = p.rowid');
    if (docIdSet) {
      params.push(docIdSet);
      conditions.push(`b.doc_id = ANY($${params.length}::text[])`);
    }
    if (formats.length > 0) {
      joins.push('JOIN documents d ON d.id = b.doc_id');
      params.push(formats);
      conditions.push(`d.format = ANY($${params.length}::text[])`);
    }
    if (filter.pageFrom !== undefined) {
      params.push(filter.pageFrom);
      conditions.push(`b.page_end >= $${params.length}`);
    }
    if (filter.pageTo !== undefined) {
      params.push(filter.pageTo);
      conditions.push(`b.page_start <= $${params.length}`);
    }
    // The arrays arrive as their text, unparsed (read below without building arrays of strings).
    const statement: pg.QueryConfig = {
      text: `SELECT p.lexeme, array_agg(p.rowid) AS rowids, array_agg(p.col * ${COLUMN_SHIFT} + p.tf) AS entries
             FROM postings p ${joins.join(' ')}
             WHERE p.lexeme = ANY($1::text[]) ${conditions.map((c) => `AND ${c}`).join(' ')}
             GROUP BY p.lexeme`,
      values: params,
      types: RAW,
    };
    const { rows } = await this.pool.query<{ lexeme: string; rowids: string; entries: string }>(statement);
    const postings = new Map(rows.map((row) => [row.lexeme, row]));
    const scores = new Map<number, number>();
    for (const lexeme of lexemes) {
      const row = postings.get(lexeme);
      if (!row) continue;
      const idfOf = idf(stats.blocks, stats.df.get(lexeme) ?? 0);
      addScores(scores, row.rowids, row.entries, idfOf, weights, k1l0);
    }
    return best(scores, k);
  }

  /** Document frequencies of `lexemes`, the block count and the length columns, in one round trip. */
  private async statistics(lexemes: string[]): Promise<{ termStats: TermStats; df: Map<string, number>; blocks: number; lengths: ReturnType<typeof lengthStatsOf> }> {
    const { rows } = await this.pool.query(
      `SELECT (SELECT value FROM index_stats WHERE key = 'blocks') AS blocks,
              (SELECT coalesce(json_agg(json_build_array(col, blocks, terms)), '[]') FROM fts_lengths) AS lengths,
              (SELECT coalesce(json_agg(json_build_array(term, df)), '[]') FROM term_df WHERE term = ANY($1::text[])) AS df`,
      [lexemes],
    );
    const row = rows[0] as { blocks: number | null; lengths: [number, number, number][]; df: [string, number][] };
    const blocks = row.blocks ?? 0;
    const df = new Map(row.df);
    const lengths = lengthStatsOf(row.lengths.map(([col, b, terms]) => ({ col, blocks: b, terms })));
    return { termStats: { blocks, df: (term) => df.get(lexemeOf(term)) ?? 0 }, df, blocks, lengths };
  }

  private documentsAtPaths(glob: string): Promise<Set<string>> {
    return documentsAtPaths(this.pool, glob);
  }
}

/**
 * Documents with a path matching the glob (picomatch, as SQLite's store matches): the paths under
 * the glob's literal base are read and matched here. Shared with postgres-vectors.ts.
 */
export async function documentsAtPaths(db: pg.Pool | pg.PoolClient, glob: string): Promise<Set<string>> {
  const isMatch = picomatch(glob, { dot: true });
  const scan = picomatch.scan(glob);
  const base = !scan.negated && !scan.base.includes('\\') ? scan.base : '';
  const { rows } = await db.query<{ path: string; doc_id: string }>(
    base === '' ? 'SELECT path, doc_id FROM paths' : 'SELECT path, doc_id FROM paths WHERE path LIKE $1',
    base === '' ? [] : [`${base.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`],
  );
  const out = new Set<string>();
  for (const row of rows) if (isMatch(row.path)) out.add(row.doc_id);
  return out;
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
}

/** A posting's column and frequency travel as one int4: col * COLUMN_SHIFT + tf (tf <= MAX_POSITIONS). */
const COLUMN_SHIFT = 1024;

/** Every column of the postings statement as the server sent it: text, unparsed. */
const RAW = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/**
 * The elements of a one-dimensional array of non-negative integers without NULLs, from its text
 * ("{1,2,3}"), in order: `each(value, i)`.
 */
function readIntArray(text: string, each: (value: number, i: number) => void): void {
  let value = 0;
  let i = 0;
  let digits = false;
  for (let at = 1; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits = true;
    } else if (digits) {
      each(value, i++);
      value = 0;
      digits = false;
    }
  }
}

/**
 * Adds one term's contributions to `scores`: idf * (tf * w * (k1 + 1)) / (tf * w + k1 * L0), with
 * w the weight of the block's length column (the expression of src/search/bm25.ts, in its order).
 */
function addScores(scores: Map<number, number>, rowidText: string, entryText: string, idfOf: number, weights: readonly number[], k1l0: number): void {
  const rowids: number[] = [];
  readIntArray(rowidText, (rowid) => rowids.push(rowid));
  readIntArray(entryText, (entry, i) => {
    const w = weights[Math.floor(entry / COLUMN_SHIFT)]!;
    const tf = entry % COLUMN_SHIFT;
    const score = (idfOf * (tf * w * (K1 + 1))) / (tf * w + k1l0);
    const rowid = rowids[i]!;
    scores.set(rowid, (scores.get(rowid) ?? 0) + score);
  });
}

/** The best k of `scores`: score descending, then rowid ascending. */
function best(scores: Map<number, number>, k: number): Scored[] {
  const top: Scored[] = [];
  const before = (a: Scored, b: Scored) => a.score > b.score || (a.score === b.score && a.rowid < b.rowid);
  for (const [rowid, score] of scores) {
    const entry = { rowid, score };
    if (top.length === k && !before(entry, top[k - 1]!)) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(top[mid]!, entry)) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, entry);
    if (top.length > k) top.pop();
  }
  return top;
}

import type pg from 'pg';
import picomatch from 'picomatch';
import { queryTerms, analyze, type TermStats } from '../../search/analyze.js';
import { baseNormaliser, columnWeights, idf, K1 } from '../../search/bm25.js';
import type { RankedBlock, SearchFilter, TextCandidate } from '../types.js';
import { lexemeOf, lengthStatsOf } from './postgres-fts.js';
import { toBlock } from './postgres-rows.js';

type Row = Record<string, any>;

/**
 * BM25 search over a Postgres library, the SQLite store's ranking (src/search/bm25.ts) from the same
 * statistics. A query takes two round trips:
 *
 * 1. The statistics of its terms: their document frequencies, the block count and the length
 *    columns (a handful of indexed rows). The terms are pruned as SQLite prunes them (`queryTerms`)
 *    and each kept term's IDF and every column's weight are computed here.
 * 2. One statement: the GIN index finds the index rows holding any kept term, each row's term
 *    frequencies come from its tsvector (positions counted, only for the query's lexemes), the
 *    scores are summed per block, every filter is a condition of the same statement (so k results
 *    are k results of the filter), and the best k are joined with their blocks and first paths.
 */
export class PostgresSearch {
  constructor(private readonly pool: pg.Pool) {}

  async candidates(query: string, k: number, filter: SearchFilter = {}): Promise<TextCandidate[]> {
    const plan = await this.plan(query, filter);
    if (!plan) return [];
    const { rows } = await this.pool.query(
      `WITH top AS (${plan.sql})
       SELECT b.*, top.score, (SELECT min(p.path) FROM paths p WHERE p.doc_id = b.doc_id) AS path
       FROM top JOIN blocks b ON b.rowid = top.rowid ORDER BY top.score DESC, top.rowid`,
      [...plan.params, k],
    );
    return rows.map((row: Row) => ({ block: toBlock(row), path: row.path ?? null, score: row.score }));
  }

  async rank(query: string, k: number): Promise<RankedBlock[]> {
    const plan = await this.plan(query, {});
    if (!plan) return [];
    const { rows } = await this.pool.query(
      `WITH top AS (${plan.sql})
       SELECT b.doc_id AS "docId", b.ordinal, top.score FROM top JOIN blocks b ON b.rowid = top.rowid ORDER BY top.score DESC, top.rowid`,
      [...plan.params, k],
    );
    return rows as RankedBlock[];
  }

  /**
   * The scoring statement for `query` under `filter` (its LIMIT is the last parameter, added by the
   * caller), or undefined when nothing can match: no searchable term, no term any block holds, or
   * a path glob no document matches.
   */
  private async plan(query: string, filter: SearchFilter): Promise<{ sql: string; params: unknown[] } | undefined> {
    const analysed = [...new Set(analyze(query))];
    if (analysed.length === 0) return undefined;
    const stats = await this.statistics(analysed.map(lexemeOf));
    const terms = queryTerms(query, stats.termStats);
    if (terms.length === 0) return undefined;
    const lexemes = terms.map(lexemeOf);
    const idfs = lexemes.map((lexeme) => idf(stats.blocks, stats.df.get(lexeme) ?? 0));
    const lengths = stats.lengths;
    const l0 = baseNormaliser(lengths);
    // SQLite hands FTS5 the weights printed to 12 significant digits (rankFunction): the same numbers here.
    const weights = columnWeights(lengths).map((w) => Number(w.toPrecision(12)));

    const params: unknown[] = [lexemes, idfs, weights, K1 * l0, tsquery(lexemes)];
    const conditions: string[] = [];
    const joins: string[] = [];
    const docIds = asArray(filter.docId);
    let docIdSet: string[] | undefined = docIds.length > 0 ? docIds : undefined;
    if (filter.path) {
      const matched = await this.documentsAtPaths(filter.path);
      docIdSet = docIdSet ? docIdSet.filter((id) => matched.has(id)) : [...matched];
      if (docIdSet.length === 0) return undefined;
    }
    const formats = asArray(filter.format);
    const needsBlock = docIdSet !== undefined || formats.length > 0 || filter.pageFrom !== undefined || filter.pageTo !== undefined;
    if (needsBlock) joins.push('JOIN blocks b ON b.rowid = t.rowid');
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
    const limit = `$${params.length + 1}`;
    // tf * w * (k1 + 1) / (tf * w + k1 * L0), summed over the block's matched terms (and parts).
    const sql = `
      SELECT t.rowid, sum(q.idf * (m.tf * w.w * ${K1 + 1}) / (m.tf * w.w + $4::float8)) AS score
      FROM block_terms t ${joins.join(' ')}
      CROSS JOIN LATERAL (
        SELECT u.lexeme, cardinality(u.positions)::float8 AS tf FROM unnest(ts_filter(setweight(t.terms, 'A', $1::text[]), '{a}')) u
      ) m
      JOIN unnest($1::text[], $2::float8[]) AS q(lexeme, idf) ON q.lexeme = m.lexeme
      JOIN unnest($3::float8[]) WITH ORDINALITY AS w(w, col) ON w.col = t.col + 1
      WHERE t.terms @@ $5::tsquery ${conditions.map((c) => `AND ${c}`).join(' ')}
      GROUP BY t.rowid ORDER BY score DESC, t.rowid LIMIT ${limit}`;
    return { sql, params };
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

  /**
   * Documents with a path matching the glob (picomatch, as SQLite's store matches): the paths under
   * the glob's literal base are read and matched here.
   */
  private async documentsAtPaths(glob: string): Promise<Set<string>> {
    const isMatch = picomatch(glob, { dot: true });
    const scan = picomatch.scan(glob);
    const base = !scan.negated && !scan.base.includes('\\') ? scan.base : '';
    const { rows } = await this.pool.query<{ path: string; doc_id: string }>(
      base === '' ? 'SELECT path, doc_id FROM paths' : 'SELECT path, doc_id FROM paths WHERE path LIKE $1',
      base === '' ? [] : [`${base.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`],
    );
    const out = new Set<string>();
    for (const row of rows) if (isMatch(row.path)) out.add(row.doc_id);
    return out;
  }
}

/** A tsquery matching any of `lexemes` (literal lexemes: no parser, no dictionary). */
function tsquery(lexemes: readonly string[]): string {
  return lexemes.map((l) => `'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' | ');
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
}

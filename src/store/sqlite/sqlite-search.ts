import type Database from 'better-sqlite3';
import picomatch from 'picomatch';
import { queryTerms, type TermStats } from '../../search/analyze.js';
import type { RankedBlock, SearchFilter } from '../types.js';
import { columnWeights, lengthStatsReader, rankFunction, TOP_ROWIDS_SQL, type LengthStats } from './sqlite-fts.js';
import { MemoryRanker, type RankedRowid } from './sqlite-postings.js';

type Row = Record<string, any>;

/** Filtered searches rank this many FTS candidates per wanted hit (at least MIN) before the exact fallback. */
const FILTER_CANDIDATES_PER_HIT = 20;
const MIN_FILTER_CANDIDATES = 200;

/** A row column some block rows carry: the first path of the block's document (null for none). */
export const FIRST_PATH = 'gw_first_path';

/** Document frequencies kept per state of the in-memory postings (cleared when full). */
const MAX_CACHED_DF = 100_000;

/** A filter as SQL conditions on `b` (blocks) and `d` (documents), with their parameters. */
export interface Conditions {
  sql: string[];
  params: Record<string, unknown>;
}

/**
 * BM25 search over one SQLite library: the pruned MATCH expression (src/search/analyze.ts), the
 * length-column weights (sqlite-fts.ts), and the filters, all applied in SQL. It returns block
 * rows with their rank; turning them into blocks and hits is the store's job.
 */
export class SqliteSearch {
  private readonly termStats: TermStats | undefined;
  private readonly lengthStats: () => LengthStats;
  private readonly topRowids: Database.Statement;
  private readonly topBlocks: Database.Statement;
  private readonly blocksAt: Database.Statement;
  private readonly blockAt: Database.Statement;
  private readonly allPaths: Database.Statement;
  private readonly statements = new Map<string, Database.Statement>();
  /** BM25 from postings held in memory (a long-lived reader that opted in); FTS5 ranks without it or while it is not current. */
  private readonly memory: MemoryRanker | undefined;
  /**
   * The statistics a search ranks with, read once per state of the postings: while they are current
   * no connection has committed since they were built, so the length columns, the block count and
   * every term's document frequency are still the ones read then.
   */
  private frozen: { generation: string; weights: number[]; rows: number; tokens: number; termStats: TermStats } | undefined;

  constructor(
    private readonly db: Database.Database,
    options: { memoryIndex?: { maxBlocks?: number } | undefined } = {},
  ) {
    this.termStats = termStatsOf(db);
    this.lengthStats = lengthStatsReader(db);
    this.topRowids = db.prepare(TOP_ROWIDS_SQL);
    // One statement, no sort: SQLite runs the CTE as a co-routine in FTS5's rank order and joins
    // each rowid to its block, so the order is exactly blockRows' (which orders by candidate position).
    this.topBlocks = db.prepare(
      `WITH top AS (${TOP_ROWIDS_SQL})
       SELECT b.doc_id AS docId, b.ordinal AS ordinal, -top.rank AS score FROM top JOIN blocks b ON b.rowid = top.rowid ORDER BY top.rank`,
    );
    // The block and its document's first path in one step (`FIRST_PATH`: the store reads it otherwise).
    this.blockAt = db.prepare(`SELECT *, (SELECT min(path) FROM paths WHERE doc_id = blocks.doc_id) AS ${FIRST_PATH} FROM blocks WHERE rowid = ?`);
    this.blocksAt = db.prepare('SELECT c.key AS position, b.doc_id AS docId, b.ordinal AS ordinal FROM json_each(@rowids) c JOIN blocks b ON b.rowid = c.value ORDER BY c.key');
    this.allPaths = db.prepare('SELECT path, doc_id FROM paths');
    this.memory = options.memoryIndex && this.termStats ? new MemoryRanker(db, options.memoryIndex.maxBlocks) : undefined;
  }

  /** Resolves once the in-memory postings are current (true), or false when there are none (budget, no opt-in). */
  async memoryReady(): Promise<boolean> {
    return this.memory ? this.memory.settled() : false;
  }

  close(): void {
    this.memory?.close();
  }

  /** `fn` in one read snapshot: the postings' freshness check and the blocks read see one state. */
  private snapshot<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.db.transaction(fn).deferred();
  }

  /**
   * The best `k` block rows (every column of `blocks`, plus `rank`: bm25, lower is better) for
   * `query` that pass `filter`, best first; empty when the query has no searchable term or no
   * document passes the path filter.
   */
  blockRows(query: string, k: number, filter: SearchFilter = {}): Row[] {
    return this.snapshot(() => this.blockRowsIn(query, k, filter));
  }

  private blockRowsIn(query: string, k: number, filter: SearchFilter): Row[] {
    const frozen = this.current();
    const terms = queryTerms(query, frozen?.termStats ?? this.termStats);
    if (terms.length === 0) return [];
    const conditions = this.conditions(filter);
    if (!conditions) return [];
    return this.rankedRows(terms, k, conditions, frozen);
  }

  /** The postings' statistics when the postings hold the current state (call inside the snapshot), else undefined: rank with FTS5. */
  private current(): SqliteSearch['frozen'] {
    const generation = this.memory?.ready() ? this.memory.generation : undefined;
    if (generation === undefined) return undefined;
    if (this.frozen?.generation !== generation) {
      const lengths = this.lengthStats();
      const stats = this.termStats!;
      const df = new Map<string, number>();
      this.frozen = {
        generation,
        // The weights as FTS5 receives them: printed to 12 significant digits by rankFunction.
        weights: columnWeights(lengths).map((w) => Number(w.toPrecision(12))),
        rows: stats.blocks,
        tokens: lengths.tokens,
        termStats: {
          blocks: stats.blocks,
          df: (term) => {
            let n = df.get(term);
            if (n === undefined) {
              if (df.size >= MAX_CACHED_DF) df.clear();
              df.set(term, (n = stats.df(term)));
            }
            return n;
          },
        },
      };
    }
    return this.frozen;
  }

  /** The order `blockRows(query, k)` returns, as (docId, ordinal, score) only. */
  rank(query: string, k: number): RankedBlock[] {
    return this.snapshot(() => this.rankIn(query, k));
  }

  private rankIn(query: string, k: number): RankedBlock[] {
    const frozen = this.current();
    const terms = queryTerms(query, frozen?.termStats ?? this.termStats);
    if (terms.length === 0) return [];
    if (!frozen) return this.topBlocks.all({ match: matchOf(terms), rank: rankFunction(columnWeights(this.lengthStats())), n: k }) as RankedBlock[];
    const top = this.top(terms, k, frozen);
    if (top.length === 0) return [];
    const rows = this.blocksAt.all({ rowids: JSON.stringify(top.map((t) => t.rowid)) }) as { position: number; docId: string; ordinal: number }[];
    return rows.map((row) => ({ docId: row.docId, ordinal: row.ordinal, score: -top[row.position]!.rank }));
  }

  /**
   * The best `n` rowids for `terms` by BM25, with their FTS5 rank: from the in-memory postings when
   * they hold the current state (the same numbers FTS5's bm25() gives, see sqlite-postings.ts), else from FTS5.
   */
  private top(terms: readonly string[], n: number, frozen: SqliteSearch['frozen']): RankedRowid[] {
    if (frozen) return this.memory!.top(terms, n, frozen.weights, { rows: frozen.rows, tokens: frozen.tokens });
    const weights = columnWeights(this.lengthStats()).map((w) => Number(w.toPrecision(12)));
    return this.topRowids.all({ match: matchOf(terms), rank: rankFunction(weights), n }) as RankedRowid[];
  }

  /** SQL conditions for a filter; undefined when nothing can pass (no path matches the glob). */
  conditions(filter: SearchFilter): Conditions | undefined {
    const sql: string[] = [];
    const params: Record<string, unknown> = {};
    let docIds = asArray(filter.docId);
    if (filter.path) {
      // Globs run in JS (picomatch) over the paths table: SQLite's GLOB has no `**`. With document
      // ids given too, both must hold: the glob's documents among those.
      const isMatch = picomatch(filter.path, { dot: true });
      const given = docIds.length > 0 ? new Set(docIds) : undefined;
      const globbed = new Set<string>();
      for (const row of this.allPaths.iterate() as IterableIterator<Row>) if (isMatch(row.path) && (!given || given.has(row.doc_id))) globbed.add(row.doc_id);
      docIds = [...globbed];
      if (docIds.length === 0) return undefined;
    }
    if (docIds.length > 0 || filter.path) sql.push(`b.doc_id IN (SELECT value FROM json_each(@docIds))`), (params.docIds = JSON.stringify(docIds));
    const formats = asArray(filter.format);
    if (formats.length > 0) sql.push(`d.format IN (SELECT value FROM json_each(@formats))`), (params.formats = JSON.stringify(formats));
    if (filter.pageFrom !== undefined) sql.push('b.page_end >= @pageFrom'), (params.pageFrom = filter.pageFrom);
    if (filter.pageTo !== undefined) sql.push('b.page_start <= @pageTo'), (params.pageTo = filter.pageTo);
    return { sql, params };
  }

  /**
   * The best `k` block rows (plus `rank`) for `match` that pass `conditions`. FTS5
   * ranks first and only the winners are joined with their blocks: joining every match (text and
   * all) before sorting costs several times more. With filters, the top candidates are filtered;
   * when too few survive and more candidates exist, the full join is the exact answer.
   */
  private rankedRows(terms: readonly string[], k: number, conditions: Conditions, frozen: SqliteSearch['frozen']): Row[] {
    const filtered = conditions.sql.length > 0;
    const candidates = filtered ? Math.max(k * FILTER_CANDIDATES_PER_HIT, MIN_FILTER_CANDIDATES) : k;
    const top = this.top(terms, candidates, frozen);
    if (top.length === 0) return [];
    if (!filtered) {
      // k lookups by rowid: cheaper than a join over json_each at this size (the ranking and the
      // blocks are read in one snapshot, and the postings were current in it).
      const rows: Row[] = [];
      for (const t of top) {
        const row = this.blockAt.get(t.rowid) as Row | undefined;
        if (row) rows.push(Object.assign(row, { rank: t.rank }));
      }
      return rows;
    }
    const where = filtered ? `WHERE ${conditions.sql.join(' AND ')}` : '';
    const rows = this.cached(
      `SELECT b.*, c.key AS position FROM json_each(@rowids) c JOIN blocks b ON b.rowid = c.value
       ${filtered ? 'JOIN documents d ON d.id = b.doc_id' : ''} ${where} ORDER BY c.key LIMIT @k`,
    ).all({ ...conditions.params, rowids: JSON.stringify(top.map((t) => t.rowid)), k }) as Row[];
    for (const row of rows) row.rank = top[row.position]!.rank;
    if (!filtered || rows.length >= k || top.length < candidates) return rows;
    const match = matchOf(terms);
    const rank = rankFunction(columnWeights(this.lengthStats()));
    return this.cached(
      `SELECT b.*, blocks_fts.rank AS rank FROM blocks_fts JOIN blocks b ON b.rowid = blocks_fts.rowid
       JOIN documents d ON d.id = b.doc_id WHERE blocks_fts MATCH @match AND blocks_fts.rank MATCH @rank AND ${conditions.sql.join(' AND ')}
       ORDER BY blocks_fts.rank LIMIT @k`,
    ).all({ ...conditions.params, match, rank, k }) as Row[];
  }

  /** A prepared statement for SQL built from a few fixed shapes (the filter combinations). */
  private cached(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }
}

/**
 * Document frequencies from term_df (migration 2), one indexed lookup per query term. Undefined for
 * a library that predates them, opened read-only (not migrated): its queries are not pruned.
 */
export function termStatsOf(db: Database.Database): TermStats | undefined {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'term_df'").get()) return undefined;
  const dfOf = db.prepare('SELECT df FROM term_df WHERE term = ?').pluck();
  const blockCount = db.prepare("SELECT value FROM index_stats WHERE key = 'blocks'").pluck();
  return {
    get blocks() {
      return (blockCount.get() as number | undefined) ?? 0;
    },
    df: (term) => (dfOf.get(term) as number | undefined) ?? 0,
  };
}

/** The FTS5 MATCH expression of kept query terms (as `ftsQuery` writes it). */
function matchOf(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
}

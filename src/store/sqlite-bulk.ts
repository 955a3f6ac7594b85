import Database from 'better-sqlite3';
import { ftsQuery, type TermStats } from '../search/analyze.js';
import { termStatsOf } from './sqlite.js';
import { columnWeights, lengthStatsReader, rankFunction, TOP_ROWIDS_SQL, type LengthStats } from './sqlite-fts.js';

/** One ranked result of `RankReader.rank`: which block, of which document. */
export interface RankedBlock {
  docId: string;
  ordinal: number;
}

/**
 * A second, read-only connection to a library file that returns only the ranking of a search:
 * the same pruned MATCH expression, the same BM25 top k from FTS5 and the same order as
 * `SqliteStore.search` (no filters), without snippets or paths. Evaluation runs tens of thousands
 * of queries, and cutting a highlighted snippet for every hit costs more than the search itself.
 */
export class RankReader {
  private readonly db: Database.Database;
  private readonly statement: Database.Statement;
  private readonly termStats: TermStats | undefined;
  private readonly lengthStats: () => LengthStats;

  constructor(file: string) {
    this.db = new Database(file, { readonly: true });
    this.termStats = termStatsOf(this.db);
    this.lengthStats = lengthStatsReader(this.db);
    this.statement = this.db.prepare(
      `WITH top AS (${TOP_ROWIDS_SQL})
       SELECT b.doc_id AS docId, b.ordinal AS ordinal FROM top JOIN blocks b ON b.rowid = top.rowid ORDER BY top.rank`,
    );
  }

  /** The first `k` blocks for `query`, best first; empty when the query has no searchable term. */
  rank(query: string, k: number): RankedBlock[] {
    const match = ftsQuery(query, this.termStats);
    if (!match) return [];
    return this.statement.all({ match, rank: rankFunction(columnWeights(this.lengthStats())), n: k }) as RankedBlock[];
  }

  close(): void {
    this.db.close();
  }
}

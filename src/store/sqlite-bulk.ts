import Database from 'better-sqlite3';
import { ftsQuery } from '../search/analyze.js';

/** One ranked result of `RankReader.rank`: which block, of which document. */
export interface RankedBlock {
  docId: string;
  ordinal: number;
}

/**
 * A second, read-only connection to a library file that returns only the ranking of a search:
 * the same MATCH expression, the same BM25 and the same joins and order as `SqliteStore.search`
 * (no filters), without snippets or paths. Evaluation runs tens of thousands of queries, and
 * cutting a highlighted snippet for every hit costs more than the search itself.
 */
export class RankReader {
  private readonly db: Database.Database;
  private readonly statement: Database.Statement;

  constructor(file: string) {
    this.db = new Database(file, { readonly: true });
    this.statement = this.db.prepare(
      `SELECT b.doc_id AS docId, b.ordinal AS ordinal, bm25(blocks_fts) AS rank FROM blocks_fts JOIN blocks b ON b.rowid = blocks_fts.rowid
       JOIN documents d ON d.id = b.doc_id WHERE blocks_fts MATCH @match ORDER BY rank LIMIT @k`,
    );
  }

  /** The first `k` blocks for `query`, best first; empty when the query has no searchable term. */
  rank(query: string, k: number): RankedBlock[] {
    const match = ftsQuery(query);
    if (!match) return [];
    return this.statement.all({ match, k }) as RankedBlock[];
  }

  close(): void {
    this.db.close();
  }
}

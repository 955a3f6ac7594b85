import { createHash } from 'node:crypto';
import type pg from 'pg';
import { emptyLengthStats, LENGTH_COLUMNS, lengthContribution, termCount, type LengthStats } from '../../search/bm25.js';

/**
 * The full-text index layout on Postgres and the statistics BM25 needs (src/search/bm25.ts).
 *
 * A block's analysed body (`blockIndexText`: jieba-segmented Chinese, stemmed English, stopwords
 * dropped, space-separated) is stored as a tsvector built directly from its terms, never through a
 * Postgres text-search parser: lexeme = term, and the lexeme's positions 1..tf record how often the
 * term occurs. Search does not read the tsvectors: every (term, block) pair is also a row of
 * `postings` (lexeme, block rowid, length column, term frequency; btree on lexeme and rowid that
 * holds the other two), written and deleted with the block in its transaction, from which
 * postgres-search.ts scores; the tsvectors are what deletes, checks and repairs read the block's
 * terms from. Document frequencies (`term_df`), the block count (`index_stats`) and blocks and terms per
 * length column (`fts_lengths`) are kept in tables by every write, inside its transaction, exactly
 * as the SQLite store keeps them, so both compute the same scores.
 *
 * Limits of a tsvector, and what this layout does about them: a lexeme holds at most 256
 * positions (a term counted more often in one block scores as 256 occurrences: BM25 has long
 * saturated by then), a lexeme is at most 2046 bytes (longer terms are shortened to a prefix plus a
 * hash, the same way at query time), and a tsvector holds at most 1 MB of lexemes (a block with
 * more is stored in several parts, each term in one part; scores add up over parts).
 */

/** Positions Postgres keeps per lexeme. */
export const MAX_POSITIONS = 256;
/** Longest term kept as it is, in UTF-8 bytes (a btree key and a lexeme must stay well under a page). */
const MAX_TERM_BYTES = 512;
/** Lexeme bytes per tsvector part (Postgres refuses 1 MB). */
const MAX_PART_BYTES = 512 * 1024;

/** The lexeme a term is stored and looked up as: the term, or a prefix and hash of a long one. */
export function lexemeOf(term: string): string {
  if (term.length * 3 <= MAX_TERM_BYTES || Buffer.byteLength(term) <= MAX_TERM_BYTES) return term;
  const prefix = Buffer.from(term).subarray(0, 128).toString('utf8').replace(/\uFFFD+$/, '');
  return `${prefix}#${createHash('sha256').update(term).digest('hex').slice(0, 32)}`;
}

/** A tsvector literal's quoted lexeme. */
function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** Position lists "1,2,...,n", cached for small n. */
const POSITIONS = Array.from({ length: 17 }, (_, n) => Array.from({ length: n }, (_, i) => i + 1).join(','));
function positions(tf: number): string {
  const n = Math.min(tf, MAX_POSITIONS);
  return n < POSITIONS.length ? POSITIONS[n]! : Array.from({ length: n }, (_, i) => i + 1).join(',');
}

/** One block's index rows: its length in terms, its length column, and its tsvector part(s). */
export interface IndexEntry {
  length: number;
  column: number;
  /** tsvector literals, one per part (one unless the block is huge); '' for a block with no terms. */
  parts: string[];
  /** Its distinct lexemes (each block counts once in a term's document frequency). */
  lexemes: string[];
  /** Each lexeme's frequency (its tsvector position count: at most MAX_POSITIONS), its postings row. */
  tfs: number[];
}

/** The index entry of an analysed body (space-separated terms). */
export function indexEntry(body: string): IndexEntry {
  const length = termCount(body);
  const counts = new Map<string, number>();
  if (body !== '') {
    for (const term of body.split(' ')) {
      if (term === '') continue;
      const lexeme = lexemeOf(term);
      counts.set(lexeme, (counts.get(lexeme) ?? 0) + 1);
    }
  }
  const parts: string[] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const [lexeme, tf] of counts) {
    const size = Buffer.byteLength(lexeme) + 8;
    if (bytes + size > MAX_PART_BYTES && current.length > 0) {
      parts.push(current.join(' '));
      current = [];
      bytes = 0;
    }
    current.push(`${quoteLexeme(lexeme)}:${positions(tf)}`);
    bytes += size;
  }
  if (current.length > 0 || parts.length === 0) parts.push(current.join(' '));
  return {
    length,
    column: lengthContribution(length).column,
    parts,
    lexemes: [...counts.keys()],
    tfs: [...counts.values()].map((tf) => Math.min(tf, MAX_POSITIONS)),
  };
}

/**
 * What one transaction changes in the index statistics: added and removed blocks per length
 * column, their terms and padded tokens, and document-frequency changes per lexeme. Applied once,
 * at the end of the transaction (`apply`), so the hot statistics rows are locked only briefly.
 */
export class IndexDelta {
  private readonly blocks = new Array<number>(LENGTH_COLUMNS).fill(0);
  private readonly terms = new Array<number>(LENGTH_COLUMNS).fill(0);
  private tokens = 0;
  private readonly df = new Map<string, number>();

  /** A block indexed with `entry`. */
  add(entry: { length: number; lexemes: readonly string[] }): void {
    this.count(entry.length, 1);
    for (const lexeme of entry.lexemes) this.df.set(lexeme, (this.df.get(lexeme) ?? 0) + 1);
  }

  /**
   * A deleted index row: its block's length (counted once, for part 0) and the lexemes of the part.
   */
  remove(row: { part: number; length: number; lexemes: readonly string[] }): void {
    if (row.part === 0) this.count(row.length, -1);
    for (const lexeme of row.lexemes) this.df.set(lexeme, (this.df.get(lexeme) ?? 0) - 1);
  }

  get empty(): boolean {
    return this.tokens === 0 && this.blocks.every((n) => n === 0) && [...this.df.values()].every((n) => n === 0);
  }

  private count(length: number, sign: 1 | -1): void {
    const { column, terms, tokens } = lengthContribution(length);
    this.blocks[column]! += sign;
    this.terms[column]! += sign * terms;
    this.tokens += sign * tokens;
  }

  /**
   * Writes the changes. Every writer locks the statistics rows in one order (length columns by
   * number, then the block count, then terms in code-unit order), so concurrent writers wait for
   * each other instead of deadlocking.
   */
  async apply(client: pg.PoolClient): Promise<void> {
    const columns: number[] = [];
    const blocks: number[] = [];
    const terms: number[] = [];
    for (let c = 0; c < LENGTH_COLUMNS; c++) {
      if (this.blocks[c] === 0 && this.terms[c] === 0) continue;
      columns.push(c);
      blocks.push(this.blocks[c]!);
      terms.push(this.terms[c]!);
    }
    if (this.tokens !== 0) {
      columns.push(TOKENS_ROW);
      blocks.push(0);
      terms.push(this.tokens);
    }
    if (columns.length > 0) {
      await client.query(
        `INSERT INTO fts_lengths (col, blocks, terms) SELECT * FROM unnest($1::int[], $2::bigint[], $3::bigint[])
         ON CONFLICT (col) DO UPDATE SET blocks = fts_lengths.blocks + excluded.blocks, terms = fts_lengths.terms + excluded.terms`,
        [columns, blocks, terms],
      );
    }
    const blockDelta = this.blocks.reduce((s, x) => s + x, 0);
    if (blockDelta !== 0) {
      await client.query(
        `INSERT INTO index_stats (key, value) VALUES ('blocks', $1) ON CONFLICT (key) DO UPDATE SET value = greatest(0, index_stats.value + excluded.value)`,
        [blockDelta],
      );
    }
    const changed = [...this.df].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (changed.length > 0) {
      await client.query(
        `INSERT INTO term_df (term, df) SELECT term, df FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS u(term, df, n) ORDER BY n
         ON CONFLICT (term) DO UPDATE SET df = term_df.df + excluded.df`,
        [changed.map(([t]) => t), changed.map(([, n]) => n)],
      );
      const dropped = changed.filter(([, n]) => n < 0).map(([t]) => t);
      if (dropped.length > 0) await client.query('DELETE FROM term_df WHERE term = ANY($1::text[]) AND df <= 0', [dropped]);
    }
  }
}

/** The fts_lengths row holding the padded token total (in `terms`), as the SQLite store keeps it. */
export const TOKENS_ROW = 1000;

/** Length statistics from fts_lengths rows. */
export function lengthStatsOf(rows: readonly { col: number; blocks: number; terms: number }[]): LengthStats {
  const stats = emptyLengthStats();
  for (const row of rows) {
    if (row.col < LENGTH_COLUMNS) {
      stats.blocks[row.col] = Number(row.blocks);
      stats.terms[row.col] = Number(row.terms);
    } else if (row.col === TOKENS_ROW) stats.tokens = Number(row.terms);
  }
  return stats;
}

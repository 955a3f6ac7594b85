import type Database from 'better-sqlite3';
import { blockIndexText } from '../../search/analyze.js';
import { LENGTH_COLUMNS, lengthColumn, MIN_ROW_TOKENS, termCount, type LengthStats } from '../../search/bm25.js';

// The ranking's definition (shared by every store) lives in src/search/bm25.ts.
export { columnWeights, LENGTH_BOUNDS, LENGTH_COLUMNS, lengthColumn, MIN_ROW_TOKENS, termCount, type LengthStats } from '../../search/bm25.js';

/**
 * The layout of the full-text index and the BM25 ranking over it.
 *
 * FTS5's bm25() with stored document sizes reads each matching row's size from a separate b-tree:
 * at 1M blocks that lookup is about two thirds of a query's time. So the index keeps no sizes
 * (`columnsize=0`) and puts length normalisation back with column weights instead. Every block's
 * terms go into one of LENGTH_COLUMNS columns chosen by its length (term count); the query weighs
 * column c by L0 / L(c). BM25 normalises length by dividing term frequency by
 * L(dl) = 1 - b + b * dl / avgdl, and FTS5 multiplies frequencies by the column weight before the
 * same saturation, so a weight L0 / L(dl) turns FTS5's size-less score (which uses the constant
 * L0 = 1 - b - b * columns / avgdl: a contentless table without sizes reports -1 per column) into
 * BM25 exactly, for a block whose length is its column's mean length. Columns are narrow where
 * blocks are common, so the remaining difference is small (measured on the eval sets, see
 * docs/library.md). L0 must be positive, i.e. FTS5's average row length above 3 tokens per column (51):
 * rows shorter than MIN_ROW_TOKENS are padded with a token no query can contain (U+E000, private
 * use: a token character for unicode61, never produced by the analyzer). Padding changes no
 * document frequency and no match, only FTS5's average length, which the weights account for.
 */

/** The padding token and the row length (in tokens) short rows are padded to. */
export const PAD_TOKEN = '\uE000';
const PADDING = Array.from({ length: MIN_ROW_TOKENS + 1 }, (_, n) => ` ${PAD_TOKEN}`.repeat(n));

const COLUMN_NAMES = Array.from({ length: LENGTH_COLUMNS }, (_, c) => `l${c}`);

/** The CREATE statement of the index (columns l0..l16, no content, no sizes). */
export const CREATE_BLOCKS_FTS = `CREATE VIRTUAL TABLE blocks_fts USING fts5(${COLUMN_NAMES.join(', ')}, content='', columnsize=0, tokenize='unicode61 remove_diacritics 2')`;

/** The text FTS5 indexes for a body of `terms` terms: the body, padded when short. */
function indexedText(body: string, terms: number): string {
  return terms >= MIN_ROW_TOKENS ? body : body + PADDING[MIN_ROW_TOKENS - terms]!;
}

/** The `rank MATCH` argument that makes FTS5 order by BM25 with these weights. */
export function rankFunction(weights: readonly number[]): string {
  return `bm25(${weights.map((w) => w.toPrecision(12)).join(', ')})`;
}

/** SQL for the best `@n` rowids of `@match` by BM25 with `@rank` (a `rankFunction` value). */
export const TOP_ROWIDS_SQL = 'SELECT rowid, rank FROM blocks_fts WHERE blocks_fts MATCH @match AND rank MATCH @rank ORDER BY rank LIMIT @n';

/** The fts_lengths row holding FTS5's token total (terms plus padding) in `terms`. */
const TOKENS_ROW = 1000;

/** Reads the current length statistics (a handful of rows). */
export function lengthStatsReader(db: Database.Database): () => LengthStats {
  const rows = db.prepare('SELECT col, blocks, terms FROM fts_lengths');
  return () => {
    const stats: LengthStats = { blocks: new Array<number>(LENGTH_COLUMNS).fill(0), terms: new Array<number>(LENGTH_COLUMNS).fill(0), tokens: 0 };
    for (const row of rows.iterate() as IterableIterator<{ col: number; blocks: number; terms: number }>) {
      if (row.col < LENGTH_COLUMNS) {
        stats.blocks[row.col] = row.blocks;
        stats.terms[row.col] = row.terms;
      } else if (row.col === TOKENS_ROW) stats.tokens = row.terms;
    }
    return stats;
  };
}

/**
 * Writes and deletes index rows and keeps the index's statistics (document frequencies, block
 * count, length columns) in step, inside the caller's transaction: `flush()` before it commits.
 * A contentless table deletes a row by being told its terms again, so `remove` needs the same body
 * `add` was given (the store re-derives it from the block with the same analyzer).
 */
export class FtsIndexWriter {
  private readonly insertRow: Database.Statement[];
  private readonly deleteRow: Database.Statement[];
  private readonly addTermDf: Database.Statement;
  private readonly subtractTermDf: Database.Statement;
  private readonly dropTermDf: Database.Statement;
  private readonly addBlocks: Database.Statement;
  private readonly addLengths: Database.Statement;
  private readonly dfDelta = new Map<string, number>();
  private readonly blockDelta = new Array<number>(LENGTH_COLUMNS).fill(0);
  private readonly termDelta = new Array<number>(LENGTH_COLUMNS).fill(0);
  private tokenDelta = 0;

  constructor(db: Database.Database) {
    this.insertRow = COLUMN_NAMES.map((name) => db.prepare(`INSERT INTO blocks_fts(rowid, ${name}) VALUES (?, ?)`));
    this.deleteRow = COLUMN_NAMES.map((name) => db.prepare(`INSERT INTO blocks_fts(blocks_fts, rowid, ${name}) VALUES ('delete', ?, ?)`));
    this.addTermDf = db.prepare('INSERT INTO term_df(term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df');
    this.subtractTermDf = db.prepare('UPDATE term_df SET df = df + ? WHERE term = ?');
    this.dropTermDf = db.prepare('DELETE FROM term_df WHERE term = ? AND df <= 0');
    this.addBlocks = db.prepare(
      "INSERT INTO index_stats(key, value) VALUES ('blocks', @n) ON CONFLICT(key) DO UPDATE SET value = max(0, value + excluded.value)",
    );
    this.addLengths = db.prepare(
      'INSERT INTO fts_lengths(col, blocks, terms) VALUES (@col, @blocks, @terms) ON CONFLICT(col) DO UPDATE SET blocks = blocks + excluded.blocks, terms = terms + excluded.terms',
    );
  }

  add(rowid: number | bigint, body: string): void {
    const terms = termCount(body);
    const col = lengthColumn(terms);
    this.insertRow[col]!.run(rowid, indexedText(body, terms));
    this.count(body, col, terms, 1);
  }

  remove(rowid: number | bigint, body: string): void {
    const terms = termCount(body);
    const col = lengthColumn(terms);
    this.deleteRow[col]!.run(rowid, indexedText(body, terms));
    this.count(body, col, terms, -1);
  }

  /** Applies the counted statistics; call once per transaction, after the rows. */
  flush(): void {
    for (const [term, n] of this.dfDelta) {
      if (n > 0) this.addTermDf.run(term, n);
      else if (n < 0) {
        this.subtractTermDf.run(n, term);
        this.dropTermDf.run(term);
      }
    }
    this.dfDelta.clear();
    const blocks = this.blockDelta.reduce((s, x) => s + x, 0);
    if (blocks !== 0) this.addBlocks.run({ n: blocks });
    for (let col = 0; col < LENGTH_COLUMNS; col++) {
      if (this.blockDelta[col] !== 0 || this.termDelta[col] !== 0) this.addLengths.run({ col, blocks: this.blockDelta[col], terms: this.termDelta[col] });
      this.blockDelta[col] = 0;
      this.termDelta[col] = 0;
    }
    if (this.tokenDelta !== 0) this.addLengths.run({ col: TOKENS_ROW, blocks: 0, terms: this.tokenDelta });
    this.tokenDelta = 0;
  }

  /** Forgets counts of a transaction that did not commit. */
  discard(): void {
    this.dfDelta.clear();
    this.blockDelta.fill(0);
    this.termDelta.fill(0);
    this.tokenDelta = 0;
  }

  private count(body: string, col: number, terms: number, sign: 1 | -1): void {
    this.blockDelta[col]! += sign;
    this.termDelta[col]! += sign * terms;
    this.tokenDelta += sign * Math.max(terms, MIN_ROW_TOKENS);
    for (const term of new Set(body.split(' '))) if (term !== '') this.dfDelta.set(term, (this.dfDelta.get(term) ?? 0) + sign);
  }
}

/**
 * Rows in the index, read from FTS5's own totals record (the index cannot be scanned without
 * sizes). A check that the index and the blocks table agree.
 */
export function indexedRowCount(db: Database.Database): number {
  const record = db.prepare('SELECT block FROM blocks_fts_data WHERE id = 1').pluck().get() as Buffer | undefined;
  if (!record || record.length === 0) return 0;
  // SQLite varint: big-endian 7-bit groups with a continuation bit (the 9th byte holds 8 bits).
  let value = 0;
  for (let i = 0; i < Math.min(record.length, 9); i++) {
    const byte = record[i]!;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) break;
  }
  return value;
}

/**
 * Re-creates the index from the blocks table with the current analyzer: the migration to this
 * layout, and the repair when the analyzer changed (its terms would no longer match the index's).
 */
export function rebuildIndex(db: Database.Database, onProgress?: (done: number, total: number) => void): void {
  db.exec(`DROP TABLE IF EXISTS blocks_fts; ${CREATE_BLOCKS_FTS};
    DELETE FROM term_df; DELETE FROM fts_lengths; DELETE FROM index_stats WHERE key = 'blocks';`);
  const writer = new FtsIndexWriter(db);
  const total = onProgress ? (db.prepare('SELECT count(*) FROM blocks').pluck().get() as number) : 0;
  // A new library (no blocks yet) has nothing to report.
  const report = total > 0 ? onProgress : undefined;
  let done = 0;
  report?.(0, total);
  // Pages of blocks (better-sqlite3 allows no writes while a read is being iterated).
  const page = db.prepare('SELECT rowid, heading_path, text FROM blocks WHERE rowid > ? ORDER BY rowid LIMIT 2000').raw();
  for (let last = 0; ; ) {
    const rows = page.all(last) as [number, string, string][];
    if (rows.length === 0) break;
    for (const [rowid, headingPath, text] of rows) writer.add(rowid, blockIndexText({ headingPath: JSON.parse(headingPath), text }));
    // Flushed per page: the document-frequency map of a large library would not fit otherwise.
    writer.flush();
    last = rows[rows.length - 1]![0];
    done += rows.length;
    report?.(Math.min(done, total), total);
  }
  writer.flush();
}

/**
 * The BM25 every store ranks by: FTS5's bm25() (k1 1.2, b 0.75, its IDF) over length columns.
 *
 * FTS5's bm25() with stored document sizes reads each matching row's size from a separate b-tree,
 * so the SQLite index keeps no sizes and puts length normalisation back with column weights: every
 * block's terms go into one of LENGTH_COLUMNS columns chosen by its length (term count), and the
 * query weighs column c by L0 / L(mean length of c), where L0 is the constant FTS5 uses in place
 * of a row's length when it has none (src/store/sqlite/sqlite-fts.ts explains the derivation).
 * A block's score is therefore
 *
 *   sum over query terms t in the block of  idf(t) * (tf * w(c) * (k1 + 1)) / (tf * w(c) + k1 * L0)
 *
 * with tf the term's count in the block and c the block's column. Other stores compute exactly
 * this from the same statistics (`LengthStats`, document frequencies, the block count), so their
 * ranking is SQLite's.
 */

/** FTS5's bm25 constants (fixed in SQLite). */
export const K1 = 1.2;
export const B = 0.75;

/**
 * Rows shorter than this many terms are padded in the SQLite index (so FTS5's average row length,
 * and with it L0, stays positive); other stores count the same padded total in `LengthStats.tokens`.
 */
export const MIN_ROW_TOKENS = 72;

/** Upper bounds (exclusive) of the length columns, in terms; the last column takes the rest. */
// Steps of 1.25x: a block's length normaliser is within ~12% of its column mean's.
export const LENGTH_BOUNDS: readonly number[] = [10, 13, 16, 20, 25, 31, 39, 49, 61, 76, 95, 119, 149, 186, 233, 291];
export const LENGTH_COLUMNS = LENGTH_BOUNDS.length + 1;

/** Number of terms of an index body (space-separated terms, as `blockIndexText` writes). */
export function termCount(body: string): number {
  if (body === '') return 0;
  let n = 1;
  for (let i = body.indexOf(' '); i !== -1; i = body.indexOf(' ', i + 1)) n++;
  return n;
}

/** The column a body of `terms` terms is indexed in. */
export function lengthColumn(terms: number): number {
  let c = 0;
  while (c < LENGTH_BOUNDS.length && terms >= LENGTH_BOUNDS[c]!) c++;
  return c;
}

/**
 * Blocks and summed term counts per length column; `tokens` is what FTS5 counts in all (terms plus
 * padding: the sum of max(terms, MIN_ROW_TOKENS)), from which it takes its average row length.
 */
export interface LengthStats {
  blocks: number[];
  terms: number[];
  tokens: number;
}

/** Empty statistics (an index with no blocks). */
export function emptyLengthStats(): LengthStats {
  return { blocks: new Array<number>(LENGTH_COLUMNS).fill(0), terms: new Array<number>(LENGTH_COLUMNS).fill(0), tokens: 0 };
}

/** What one block adds to the length statistics: its column, its terms and its padded tokens. */
export function lengthContribution(terms: number): { column: number; terms: number; tokens: number } {
  return { column: lengthColumn(terms), terms, tokens: Math.max(terms, MIN_ROW_TOKENS) };
}

/** Below this L0 the weights stop being exact (see columnWeights). */
const MIN_L0 = 0.01;

/**
 * FTS5's L0: `1 - b + b * D / avgdl` with D = -columns (a contentless table without sizes reports
 * -1 per column) and avgdl from FTS5's own total, padding included.
 */
export function baseNormaliser(stats: LengthStats): number {
  const blocks = stats.blocks.reduce((s, x) => s + x, 0);
  const terms = stats.terms.reduce((s, x) => s + x, 0);
  if (blocks === 0 || terms === 0) return 1 - B;
  return 1 - B - (B * LENGTH_COLUMNS) / (Math.max(stats.tokens, terms) / blocks);
}

/**
 * The bm25() column weights for the index as it is now: L0 / L(mean length of the column).
 * Padding keeps L0 > 0; the other branch only guards an index written without it (weights large
 * enough that every score stays positive).
 */
export function columnWeights(stats: LengthStats): number[] {
  const blocks = stats.blocks.reduce((s, x) => s + x, 0);
  const terms = stats.terms.reduce((s, x) => s + x, 0);
  if (blocks === 0 || terms === 0) return new Array<number>(LENGTH_COLUMNS).fill(1);
  const avgdl = terms / blocks;
  const l0 = baseNormaliser(stats);
  const normalisers = Array.from({ length: LENGTH_COLUMNS }, (_, c) => {
    const n = stats.blocks[c]!;
    const meanLength = n > 0 ? stats.terms[c]! / n : representativeLength(c);
    return 1 - B + (B * meanLength) / avgdl;
  });
  if (l0 > MIN_L0) return normalisers.map((l) => l0 / l);
  const scale = 2 * K1 * Math.abs(l0) * Math.max(...normalisers) + 1;
  return normalisers.map((l) => scale / l);
}

/** A length for an empty column (only used before any block lands there). */
function representativeLength(c: number): number {
  const lower = c === 0 ? 1 : LENGTH_BOUNDS[c - 1]!;
  const upper = c < LENGTH_BOUNDS.length ? LENGTH_BOUNDS[c]! : lower * 2;
  return Math.sqrt(lower * upper);
}

/** FTS5's IDF of a term in `df` of `blocks` rows: log((N - n + 0.5) / (n + 0.5)), floored at 1e-6. */
export function idf(blocks: number, df: number): number {
  const value = Math.log((blocks - df + 0.5) / (df + 0.5));
  return value <= 0 ? 1e-6 : value;
}

import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';
import { UNICODE61_CHANGED, UNICODE61_FOLD } from './unicode61.js';

/**
 * Text analysis for full-text search, applied the same way at index time and query time.
 * SQLite's own tokenizers do not segment Chinese (trigram misses 2-character words), so runs of
 * Han characters are cut into words by jieba (search mode, which adds sub-words for recall) and
 * Latin words are case-folded, stripped of diacritics and Porter-stemmed. The result is a list of
 * terms, each a single unicode61 token, written space-separated into the FTS column.
 */

interface JiebaLike {
  cutForSearch(text: string, hmm?: boolean): string[];
}

const require = createRequire(import.meta.url);
let jieba: JiebaLike | undefined;

function getJieba(): JiebaLike {
  if (!jieba) {
    // Loaded on first Chinese text only: the dictionary takes ~250 ms to build.
    const { Jieba } = require('@node-rs/jieba') as { Jieba: { withDict(dict: Uint8Array): JiebaLike } };
    const { dict } = require('@node-rs/jieba/dict') as { dict: Uint8Array };
    jieba = Jieba.withDict(dict);
  }
  return jieba;
}

// Words that match nearly every block: they add cost (FTS5 ranks every hit) and no signal.
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by for from has have he her his i if in into is it its of on or our she so ' +
    'that the their them then there these they this those to was we were what when where which who will with you your ' +
    '的 了 是 在 和 与 及 或 等 也 就 都 而 之 其 这 那 有 为 以 于 中 上 下 个 我 你 他 她 它 们 吗 呢 吧 啊'
  ).split(' '),
);

// Han (incl. extensions), kana and hangul runs go to jieba; everything else is split on non-word chars.
// Han symbols that are not letters or digits (radicals, ideographic description characters) are
// separators, as they are to unicode61.
const SEGMENT = /((?:(?=[\p{L}\p{N}])\p{Script=Han})+)|([\p{L}\p{N}\p{M}]+(?:['’][\p{L}]+)?)/gu;
const DIACRITICS = /\p{M}+/gu;
const LATIN_WORD = /^[a-z]+$/;
/**
 * What NFKD can turn a word character into besides letters and digits: '¼' becomes '1⁄4' (U+2044,
 * a math symbol). FTS5's unicode61 splits there, so the analysed terms split there too: the terms
 * indexed and the terms counted in term_df must be the same.
 */
const FOLDED_SEPARATOR = /[^\p{L}\p{N}]+/u;

/**
 * Names what analyze() produces. A library records the version its index was built with and is
 * re-indexed when it differs: change it whenever the terms of some text change (stopwords, rules,
 * a jieba or stemmer upgrade that segments or stems differently).
 */
export const ANALYZER_VERSION = '3 (jieba cutForSearch + HMM, Porter stemmer, stopwords v1, NFKD separators split, unicode61 folds)';

/**
 * A word as FTS5's unicode61 tokenizer would index it: its case folding and diacritic removal
 * (Unicode 6.1 tables) differ from JavaScript's in places ('ς' is 'σ' to it, 'ø' is 'o') and it
 * splits at letters newer than its tables (a space here). Terms are counted in term_df as the
 * analyzer writes them, so they must be what the index holds (src/search/unicode61.ts).
 */
function asUnicode61(word: string): string {
  if (!UNICODE61_CHANGED.test(word)) return word;
  let out = '';
  for (const c of word) out += UNICODE61_FOLD.get(c) ?? c;
  return out;
}

/** Search terms of `text`, in order, stopwords dropped. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(SEGMENT)) {
    if (match[1] !== undefined) {
      for (const word of getJieba().cutForSearch(match[1], true)) {
        // Han words: unicode61 keeps every Han character as it is (src/search/unicode61.ts has none).
        if (!STOPWORDS.has(word)) terms.push(word);
      }
    } else {
      const folded = asUnicode61(match[2]!.toLowerCase().normalize('NFKD').replace(DIACRITICS, '').replace(/['’]/g, ''));
      for (const part of FOLDED_SEPARATOR.test(folded) ? folded.split(FOLDED_SEPARATOR) : [folded]) {
        if (part === '' || STOPWORDS.has(part)) continue;
        terms.push(LATIN_WORD.test(part) && part.length > 2 ? stemmer(part) : part);
      }
    }
  }
  return terms;
}

/** The FTS column content for a block. */
export function indexText(text: string): string {
  return analyze(text).join(' ');
}

/** What a block is found by: its heading path (part of what it is about) and its text. */
export function blockIndexText(block: { headingPath: readonly string[]; text: string }): string {
  return indexText(`${block.headingPath.join(' ')}\n${block.text}`);
}

/** Document frequencies of the index a query runs against. */
export interface TermStats {
  /** Blocks in the index. */
  readonly blocks: number;
  /** Blocks containing `term` (0 when none). */
  df(term: string): number;
}

/**
 * Which query terms are worth scoring. FTS5 computes BM25 for every block matching any OR-ed term,
 * so one common term makes a query cost a share of the whole index while adding little to the
 * ranking (its IDF is low). Terms are taken rarest first: the `minTerms` rarest always, then
 * others while each is in at most `maxDocFraction` of the blocks, at most `maxTerms` in all and
 * at most `maxPostings` matching blocks summed over the terms.
 * The fraction and term cap were chosen on the retrieval eval (losses within 0.005 on xquad-en,
 * xquad-zh, cmrc2018-dev); the postings budget bounds latency on large libraries and, being
 * absolute, only binds there, where it can change the top k (see docs/library.md).
 */
export const QUERY_PRUNING = { maxDocFraction: 0.3, minTerms: 1, maxTerms: 16, maxPostings: 10_000 } as const;

/**
 * The distinct terms of `query` to search for. With `stats`, terms no block contains are dropped
 * (they cannot change a ranking) and common terms are pruned as `QUERY_PRUNING` says.
 */
export function queryTerms(query: string, stats?: TermStats): string[] {
  const unique = [...new Set(analyze(query))];
  if (!stats || stats.blocks === 0 || unique.length === 0) return unique;
  const counted = unique.map((term) => ({ term, df: stats.df(term) })).filter((t) => t.df > 0);
  counted.sort((a, b) => a.df - b.df);
  const maxDf = QUERY_PRUNING.maxDocFraction * stats.blocks;
  const kept: string[] = [];
  let postings = 0;
  for (const { term, df } of counted) {
    const required = kept.length < QUERY_PRUNING.minTerms;
    if (!required && (kept.length >= QUERY_PRUNING.maxTerms || df > maxDf || postings + df > QUERY_PRUNING.maxPostings)) break;
    kept.push(term);
    postings += df;
  }
  return kept;
}

/**
 * An FTS5 MATCH expression for a plain user query: every term quoted (so quotes, AND, -, NEAR,
 * emoji and lone operators are only ever text, never syntax), OR-ed so BM25 ranks by how many and
 * how rare the matched terms are. With `stats`, common terms are pruned (see `queryTerms`).
 * Returns undefined when the query has no searchable term.
 */
export function ftsQuery(query: string, stats?: TermStats): string | undefined {
  const terms = queryTerms(query, stats);
  if (terms.length === 0) return undefined;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

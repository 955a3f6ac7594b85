import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';

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
const SEGMENT = /(\p{Script=Han}+)|([\p{L}\p{N}\p{M}]+(?:['’][\p{L}]+)?)/gu;
const DIACRITICS = /\p{M}+/gu;
const LATIN_WORD = /^[a-z]+$/;

/** Search terms of `text`, in order, stopwords dropped. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(SEGMENT)) {
    if (match[1] !== undefined) {
      for (const word of getJieba().cutForSearch(match[1], true)) {
        if (!STOPWORDS.has(word)) terms.push(word);
      }
    } else {
      const folded = match[2]!.toLowerCase().normalize('NFKD').replace(DIACRITICS, '').replace(/['’]/g, '');
      if (folded === '' || STOPWORDS.has(folded)) continue;
      terms.push(LATIN_WORD.test(folded) && folded.length > 2 ? stemmer(folded) : folded);
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

/**
 * An FTS5 MATCH expression for a plain user query: every term quoted (so quotes, AND, -, NEAR,
 * emoji and lone operators are only ever text, never syntax), OR-ed so BM25 ranks by how many and
 * how rare the matched terms are. Returns undefined when the query has no searchable term.
 */
export function ftsQuery(query: string): string | undefined {
  const unique = [...new Set(analyze(query))];
  if (unique.length === 0) return undefined;
  return unique.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

import { describe, expect, test } from 'vitest';
import { analyze, ftsQuery, QUERY_PRUNING, queryTerms, type TermStats } from '../../src/search/analyze.js';
import { snippet } from '../../src/search/snippet.js';

describe('analyze', () => {
  test('segments Chinese into words with search-mode sub-words', () => {
    const terms = analyze('第三章第二节提到的三个前提条件');
    expect(terms).toContain('前提条件');
    expect(terms).toContain('前提');
    expect(terms).not.toContain('的');
  });

  test('folds case and diacritics, stems English, drops stopwords', () => {
    expect(analyze('The Running Cafés')).toEqual(['run', 'cafe']);
  });

  test('keeps numbers and mixed scripts', () => {
    expect(analyze('GPT-4 模型 2024')).toEqual(['gpt', '4', '模型', '2024']);
  });

  test('splits where folding made a separator, as the FTS tokenizer does (a fraction: 11¼ folds to 111⁄4)', () => {
    // Found by the fuzzer's soak: '11¼' was one term in term_df but two in the FTS index, so
    // `groundwork check` failed on a clean library of corpus/epub/winter-sports.epub.
    expect(analyze('11¼ inches, ½ mile')).toEqual(['111', '4', 'inch', '1', '2', 'mile']);
  });
});

describe('ftsQuery', () => {
  test('quotes every term so user text is never FTS syntax', () => {
    expect(ftsQuery('"quoted" AND -not NEAR(x)')).toBe('"quot" OR "not" OR "near" OR "x"');
  });

  test('returns undefined when nothing is searchable', () => {
    for (const q of ['', '   ', '😀', '-', '"', 'AND', '()', '***']) expect(ftsQuery(q)).toBeUndefined();
  });
});

describe('queryTerms with document frequencies', () => {
  const statsOf = (blocks: number, df: Record<string, number>): TermStats => ({ blocks, df: (term) => df[term] ?? 0 });

  test('without statistics keeps every distinct term in query order', () => {
    expect(queryTerms('river river delta')).toEqual(['river', 'delta']);
  });

  test('drops terms in more than the allowed share of blocks and terms no block has', () => {
    const blocks = 1000;
    const common = Math.ceil(QUERY_PRUNING.maxDocFraction * blocks) + 1;
    const stats = statsOf(blocks, { river: common, delta: 3, flood: 40 });
    expect(queryTerms('river delta flood zzyzx', stats)).toEqual(['delta', 'flood']);
    expect(ftsQuery('river delta flood zzyzx', stats)).toBe('"delta" OR "flood"');
  });

  test('always keeps the rarest term, however common', () => {
    expect(queryTerms('river delta', statsOf(10, { river: 10, delta: 9 }))).toEqual(['delta']);
  });

  test('a query whose terms are in no block has nothing to search', () => {
    expect(ftsQuery('river delta', statsOf(10, {}))).toBeUndefined();
  });

  test('keeps at most maxTerms, the rarest, within the postings budget', () => {
    const words = Array.from({ length: QUERY_PRUNING.maxTerms + 3 }, (_, i) => `w${i}`);
    const df = Object.fromEntries(words.map((w, i) => [w, words.length - i]));
    const kept = queryTerms(words.join(' '), statsOf(1_000_000, df));
    expect(kept).toEqual(words.slice(-QUERY_PRUNING.maxTerms).reverse());

    const budget = QUERY_PRUNING.maxPostings;
    const heavy = statsOf(1_000_000_000, { rare: budget, mid: Math.floor(budget / 2), big: budget * 2 });
    // "big" alone exceeds the budget yet, being the rarest, is always searched.
    expect(queryTerms('big', heavy)).toEqual(['big']);
    expect(queryTerms('rare mid big', heavy)).toEqual(['mid']);
  });
});

describe('snippet', () => {
  test('highlights stemmed English matches', () => {
    expect(snippet('We were running late again.', 'run')).toBe('We were «running» late again.');
  });

  test('highlights Chinese terms as substrings', () => {
    expect(snippet('本节说明三个前提条件。', '前提条件')).toContain('«前提条件»');
  });
});

describe('analyze agrees with the index', () => {
  // term_df counts the terms as analyze() writes them; FTS5 (unicode61) re-tokenizes that text.
  // Each term must come out of the index as exactly itself, or `groundwork check` finds term_df
  // and the index apart (letters newer than unicode61's tables, its own case and diacritic folds).
  test('property: every analysed term is one unicode61 token equal to itself', async () => {
    const fc = (await import('fast-check')).default;
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE f USING fts5(x, tokenize='unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance');`);
    const insert = db.prepare('INSERT INTO f(rowid, x) VALUES (?, ?)');
    const tokens = db.prepare('SELECT term FROM v WHERE doc = ? ORDER BY offset').pluck();
    let rowid = 0;
    const samples = ['ᦰᦱ New Tai Lue', 'ϒς final sigma ΐ', 'ᴬᴮ modifier capitals', '⺀⿰ radicals 汉字', 'cdz᮵뱉䭢暩', 'Søren Œuvre ß ǅ'];
    const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: fc.integer({ min: 0x20, max: 0x2fa1f }).filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c)), maxLength: 30 }));
    const check = (t: string) => {
      const terms = analyze(t);
      insert.run(++rowid, terms.join(' '));
      expect(tokens.all(rowid), t).toEqual(terms);
    };
    for (const s of samples) check(s);
    fc.assert(fc.property(text, (t) => check(t)), { numRuns: 2000, seed: 61 });
  });
});

import { describe, expect, test } from 'vitest';
import { analyze, ftsQuery } from '../../src/search/analyze.js';
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
});

describe('ftsQuery', () => {
  test('quotes every term so user text is never FTS syntax', () => {
    expect(ftsQuery('"quoted" AND -not NEAR(x)')).toBe('"quot" OR "not" OR "near" OR "x"');
  });

  test('returns undefined when nothing is searchable', () => {
    for (const q of ['', '   ', '😀', '-', '"', 'AND', '()', '***']) expect(ftsQuery(q)).toBeUndefined();
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

import { describe, expect, test } from 'vitest';
import { Highlighter, snippet } from '../../src/search/snippet.js';

describe('snippet', () => {
  test('highlights words whose analyzed form is a query term, stems included', () => {
    expect(snippet('They were running late; the run ended at Élan Park.', 'run élan')).toBe('They were «running» late; the «run» ended at «Élan» Park.');
  });

  test('highlights Chinese terms as substrings', () => {
    expect(snippet('履约须满足三个前提条件，否则合同无效。', '前提条件')).toContain('«前提条件»');
  });

  test('starts a third of the width before the first match and marks the cuts', () => {
    const text = `${'alpha '.repeat(100)}needle ${'omega '.repeat(100)}`;
    const out = snippet(text, 'needle', 60);
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
    expect(out).toContain('«needle»');
    expect(out.indexOf('«needle»')).toBeGreaterThan(15);
  });

  test('without a match, the start of the text', () => {
    expect(snippet('Nothing to see here.', 'absent')).toBe('Nothing to see here.');
    expect(snippet('Only stopwords.', 'the of and')).toBe('Only stopwords.');
  });

  test('one Highlighter over many texts cuts what snippet() cuts for each', () => {
    const texts = ['Running water runs.', 'Sunny runners ran.', 'Qualification of the runner', '水运行'];
    const highlighter = new Highlighter('runner running 运行');
    for (const text of texts) expect(highlighter.snippet(text)).toBe(snippet(text, 'runner running 运行'));
    expect(highlighter.snippet('Sunny runners ran.')).toBe('Sunny «runners» ran.');
  });
});

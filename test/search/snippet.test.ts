import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { analyze } from '../../src/search/analyze.js';
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

/**
 * The snippet as it was cut before it stopped reading at the window's end (every match of the whole
 * text collected, merged, then the window cut): the reference the faster cut must equal.
 */
function fullScanSnippet(text: string, query: string, width = 240): string {
  const WORD = /[\p{L}\p{N}\p{M}]+(?:['’]\p{L}+)?/gu;
  const HAN = /\p{Script=Han}/u;
  const terms = new Set(analyze(query));
  const clip = (from: number) => {
    const body = text.slice(from, from + width).replace(/\s+/g, ' ');
    return from + width < text.length ? `${body}…` : body;
  };
  if (terms.size === 0) return clip(0);
  const ranges: [number, number][] = [];
  for (const term of [...terms].filter((t) => HAN.test(t))) {
    for (let i = text.indexOf(term); i !== -1; i = text.indexOf(term, i + term.length)) ranges.push([i, i + term.length]);
  }
  for (const m of text.matchAll(WORD)) {
    if (HAN.test(m[0])) continue;
    const analyzed = analyze(m[0]);
    if (analyzed.length > 0 && analyzed.every((t) => terms.has(t))) ranges.push([m.index, m.index + m[0].length]);
  }
  if (ranges.length === 0) return clip(0);
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  const from = Math.max(0, merged[0]![0] - Math.floor(width / 3));
  const to = Math.min(text.length, from + width);
  let out = from > 0 ? '…' : '';
  let cursor = from;
  for (const [s, e] of merged) {
    if (e <= from || s >= to) continue;
    out += text.slice(cursor, Math.max(s, from)) + '«' + text.slice(Math.max(s, from), Math.min(e, to)) + '»';
    cursor = Math.min(e, to);
  }
  return (out + text.slice(cursor, to) + (to < text.length ? '…' : '')).replace(/\s+/g, ' ');
}

describe('snippet reads only as far as the window', () => {
  const words = ['run', 'Running', 'runs', 'the', 'Élan', 'élan', "o'brien", 'O’Brien', 'park', 'parking', 'U.S.', 'data', 'database', '42', 'x1',
    '前提', '条件', '前提条件', '合同', '无效', '履约须满足', '三个', 'Python中文', '中文', 'naïve', 'ß', 'İstanbul'];
  const gaps = [' ', '  ', '\n', ', ', '。', '，', '-', '', '\t'];
  const text = fc.array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...gaps)), { maxLength: 120 }).map((parts) => parts.map(([w, g]) => w + g).join(''));
  const query = fc.array(fc.constantFrom(...words), { minLength: 0, maxLength: 4 }).map((q) => q.join(' '));

  test('equals the full scan, one highlighter over many texts, any width', () => {
    fc.assert(fc.property(query, fc.array(text, { minLength: 1, maxLength: 6 }), fc.integer({ min: 10, max: 300 }), (q, texts, width) => {
      const highlighter = new Highlighter(q);
      for (const t of texts) expect(highlighter.snippet(t, width)).toBe(fullScanSnippet(t, q, width));
    }), { numRuns: 400 });
  });
});

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { graphemeCeil, graphemeFloor, isGraphemeBoundary, isSimpleCodeUnit } from '../../src/text/graphemes.js';

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Every grapheme boundary of `text` according to Intl.Segmenter. */
function boundaries(text: string): Set<number> {
  const set = new Set<number>([text.length]);
  for (const seg of segmenter.segment(text)) set.add(seg.index);
  return set;
}

describe('isSimpleCodeUnit', () => {
  test('every simple BMP code point forms its own cluster next to letters and itself (checked against Intl.Segmenter)', () => {
    const wrong: string[] = [];
    for (let c = 0; c < 0xd800; c++) {
      if (!isSimpleCodeUnit(c) || c === 0x0d) continue;
      const ch = String.fromCharCode(c);
      for (const s of [`a${ch}`, `${ch}a`, `${ch}${ch}`, `中${ch}`, `${ch}中`]) {
        if ([...segmenter.segment(s)].length !== 2) wrong.push(`U+${c.toString(16)} in ${JSON.stringify(s)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('combining marks, ZWJ, variation selectors and surrogates are not simple', () => {
    for (const c of [0x0301, 0x200d, 0xfe0f, 0x3099, 0xff9e, 0xd83d, 0xde00, 0x1100]) expect(isSimpleCodeUnit(c)).toBe(false);
  });
});

describe('boundaries', () => {
  test.each([
    ['e\u0301x', [0, 2, 3]],
    ['a👨‍👩‍👧b', [0, 1, 9, 10]],
    ['🇫🇷🇩🇪', [0, 4, 8]],
    ['a\r\nb', [0, 1, 3, 4]],
    ['각각', [0, 1, 2]],
    ['\u1100\u1161\u11a8x', [0, 3, 4]],
    ['中文😀', [0, 1, 2, 4]],
  ])('%j', (text, expected) => {
    const found: number[] = [];
    for (let i = 0; i <= text.length; i++) if (isGraphemeBoundary(text, i)) found.push(i);
    expect(found).toEqual(expected);
  });

  test('floor and ceil move to the enclosing cluster edges', () => {
    const text = 'ab👨‍👩‍👧cd';
    expect(graphemeFloor(text, 5)).toBe(2);
    expect(graphemeCeil(text, 5)).toBe(10);
    expect(graphemeFloor(text, 2)).toBe(2);
    expect(graphemeCeil(text, 10)).toBe(10);
    expect(graphemeFloor(text, 0)).toBe(0);
    expect(graphemeCeil(text, text.length)).toBe(text.length);
  });

  test('a long run of regional indicators keeps its pairing', () => {
    const flags = '🇫🇷'.repeat(40);
    for (let i = 0; i <= flags.length; i++) expect(isGraphemeBoundary(flags, i)).toBe(i % 4 === 0);
  });

  const pieces = ['a', ' ', '中', '。', 'e\u0301', '\u0301', '😀', '👍🏽', '👨‍👩‍👧', '\u200d', '🇫🇷', '🇩', '\r', '\n', '각', '\u1100', '\u1161', '\u11a8', 'ก', 'ำ', 'क्ष', '\ufe0f', '\ud83d'];
  test('property: agrees with Intl.Segmenter at every position', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const expected = boundaries(text);
        for (let i = 0; i <= text.length; i++) {
          expect(isGraphemeBoundary(text, i)).toBe(expected.has(i));
          const floor = graphemeFloor(text, i);
          const ceil = graphemeCeil(text, i);
          expect(expected.has(floor) && floor <= i).toBe(true);
          expect(expected.has(ceil) && ceil >= i).toBe(true);
          for (let k = floor + 1; k < ceil; k++) expect(expected.has(k)).toBe(false);
        }
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});

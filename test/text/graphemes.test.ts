import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { graphemeCeil, graphemeFloor, Graphemes, isGraphemeBoundary, isSimpleCodeUnit, isSureBoundary } from '../../src/text/graphemes.js';
import { graphemeBoundaries } from '../chunkers/invariants.js';
import { longClusterText } from '../chunkers/long-clusters.js';

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

  test('combining marks (Cyrillic, Hebrew points, Arabic harakat), Prepend, ZWJ, variation selectors and surrogates are not simple', () => {
    for (const c of [0x0301, 0x0483, 0x05b0, 0x0600, 0x064b, 0x0670, 0x200d, 0xfe0f, 0x3099, 0xff9e, 0xd83d, 0xde00, 0x1100]) expect(isSimpleCodeUnit(c)).toBe(false);
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

describe('isSureBoundary', () => {
  test('never claims a boundary Intl.Segmenter does not make (every non-simple code point of planes 0 and 1 before a space, a Hangul syllable, U+00A9)', () => {
    const wrong: string[] = [];
    for (let c = 0x300; c <= 0x1ffff; c++) {
      if ((c >= 0xd800 && c <= 0xdfff) || (c < 0x10000 && isSimpleCodeUnit(c))) continue;
      const a = String.fromCodePoint(c);
      for (const b of [' ', '\uac00', '\u00a9']) {
        const s = a + b;
        if (isSureBoundary(s, a.length) && segmenter.segment(s).containing(a.length)!.index !== a.length) wrong.push(`U+${c.toString(16)} before ${JSON.stringify(b)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('Prepend, a leading jamo before a syllable, ZWJ before U+00A9 and CR before LF are not sure', () => {
    for (const [s, i] of [['\u0600 ', 1], ['\u1100\uac00', 1], ['👍\u200d\u00a9', 3], ['\r\n', 1], ['a\u0301', 1]] as const) {
      expect(isSureBoundary(s, i)).toBe(false);
      expect(isGraphemeBoundary(s, i)).toBe(false);
    }
  });
});

describe('clusters longer than any window', () => {
  const check = (text: string, order: 'forward' | 'random') => {
    const expected = graphemeBoundaries(text);
    const g = new Graphemes(text);
    const positions = Array.from({ length: text.length + 1 }, (_, i) => i);
    if (order === 'random') positions.sort((a, b) => ((a * 7919) % 1009) - ((b * 7919) % 1009));
    const wrong: string[] = [];
    for (const i of positions) {
      const floor = g.floor(i);
      const ceil = g.ceil(i);
      if (g.isBoundary(i) !== expected.has(i)) wrong.push(`isBoundary(${i})`);
      if (!expected.has(floor) || floor > i) wrong.push(`floor(${i}) = ${floor}`);
      if (!expected.has(ceil) || ceil < i) wrong.push(`ceil(${i}) = ${ceil}`);
      if (i < text.length && expected.has(i) && !expected.has(g.next(i))) wrong.push(`next(${i})`);
      for (let k = floor + 1; k < ceil && wrong.length < 5; k++) if (expected.has(k)) wrong.push(`boundary ${k} inside [${floor}, ${ceil})`);
      if (wrong.length >= 5) break;
    }
    return wrong;
  };

  test.each([
    ['a letter under 5,000 combining marks', `x ${'a' + '\u0301'.repeat(5000)} y`],
    ['a ZWJ chain of 300 emoji', `go ${Array(300).fill('👨').join('\u200d')}!`],
    ['3,001 regional indicators (pairs from the run start)', `${'🇫'.repeat(3001)} end`],
    ['12,000 regional indicators, no sure boundary before them', `\u05d0${'🇫'.repeat(12000)}`],
    ['a Devanagari conjunct chain', `${'क्'.repeat(400)}क text`],
    ['Hebrew with points and no spaces', 'שָׁלוֹם'.repeat(700)],
    ['a space carrying marks', `one \u0301\u0301 two ${' ' + '\u0308'.repeat(300)}`],
  ])('%s: every position agrees with Intl.Segmenter, in any order', (_name, text) => {
    expect(check(text, 'forward')).toEqual([]);
    expect(check(text, 'random')).toEqual([]);
  });

  test('property: agrees with Intl.Segmenter on mixed text with long clusters', () => {
    fc.assert(
      fc.property(longClusterText(4000), fc.boolean(), (text, random) => {
        expect(check(text, random ? 'random' : 'forward')).toEqual([]);
      }),
      { numRuns: 60, seed: 20261202 },
    );
  });

  test('linear: answering every position of a long cluster, a flag run, unspaced Hebrew, a ZWJ chain segments O(length) code units', () => {
    const segment = Intl.Segmenter.prototype.segment;
    let segmented = 0;
    Intl.Segmenter.prototype.segment = function (this: Intl.Segmenter, input: string) {
      segmented += input.length;
      return segment.call(this, input);
    };
    try {
      for (const text of ['b' + '\u0301'.repeat(60_000), '🇫'.repeat(30_000), 'שָׁלוֹם'.repeat(8000), Array(8000).fill('👩').join('\u200d')]) {
        segmented = 0;
        const g = new Graphemes(text);
        // Forward over every position (as a chunker moves), then backward over every 7th (as an
        // overlap steps back): code units handed to the segmenter stay a small multiple of the text.
        for (let i = 0; i <= text.length; i++) g.floor(i);
        expect(segmented).toBeLessThan(text.length * 12);
        for (let i = text.length; i >= 0; i -= 7) g.ceil(i);
        expect(segmented).toBeLessThan(text.length * 24);
      }
    } finally {
      Intl.Segmenter.prototype.segment = segment;
    }
  });
});

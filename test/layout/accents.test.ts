import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { composeAccents } from '../../src/layout/accents.js';
import { ROTATED, SPACE_BEFORE, type PageChars } from '../../src/layout/chars.js';
import { buildRuns } from '../../src/layout/runs.js';

interface Glyph {
  ch: string;
  x0: number;
  x1: number;
  /** Top of the box; 12 pt tall boxes. */
  y0?: number;
  flags?: number;
}

function chars(glyphs: readonly Glyph[]): PageChars {
  const n = glyphs.length;
  return {
    count: n,
    code: Uint32Array.from(glyphs, (g) => g.ch.codePointAt(0)!),
    x0: Float32Array.from(glyphs, (g) => g.x0),
    x1: Float32Array.from(glyphs, (g) => g.x1),
    y0: Float32Array.from(glyphs, (g) => g.y0 ?? 100),
    y1: Float32Array.from(glyphs, (g) => (g.y0 ?? 100) + 12),
    size: new Float32Array(n).fill(10),
    font: new Int32Array(n),
    flags: Uint8Array.from(glyphs, (g) => g.flags ?? 0),
    dir: new Uint8Array(n),
    color: new Uint32Array(n),
  };
}

/** Letters of a word set from x at 6 pt each. */
function word(text: string, x: number, flags = 0): Glyph[] {
  return [...text].map((ch, i) => ({ ch, x0: x + 6 * i, x1: x + 6 * i + 6, ...(i === 0 && { flags }) }));
}

function text(c: PageChars): string {
  return String.fromCodePoint(...c.code.subarray(0, c.count));
}

describe('accents drawn apart from their letter', () => {
  test('a spacing breve after the word, over its g', () => {
    const c = chars([...word('Oguz', 100), { ch: '\u02d8', x0: 107, x1: 111, flags: SPACE_BEFORE }, ...word('wins', 130, SPACE_BEFORE)]);
    expect(composeAccents(c)).toBe(1);
    expect(text(c)).toBe('Oğuzwins');
    // The accent's box and flags left with it; the others keep theirs, in order.
    expect(c.count).toBe(8);
    expect(Array.from(c.x0.subarray(0, 5))).toEqual([100, 106, 112, 118, 130]);
    expect(c.flags[4]).toBe(SPACE_BEFORE);
  });

  test('a combining acute before its letter, raised over it, takes the word’s space with it', () => {
    const c = chars([...word('a', 80), { ch: '\u0301', x0: 101, x1: 105, y0: 92, flags: SPACE_BEFORE }, ...word('ete', 100)]);
    expect(composeAccents(c)).toBe(1);
    expect(text(c)).toBe('aéte');
    expect(c.flags[1]! & SPACE_BEFORE).toBe(SPACE_BEFORE);
  });

  test('a diaeresis over a dotless i makes ï; several accents in a word compose each', () => {
    const c = chars([...word('na\u0131ve', 100), { ch: '\u00a8', x0: 113, x1: 117 }, ...word('Dvorak', 150), { ch: '\u02c7', x0: 169, x1: 173 }, { ch: '\u00b4', x0: 175, x1: 179 }]);
    expect(composeAccents(c)).toBe(3);
    expect(text(c)).toBe('naïveDvořák');
  });

  test('accents not over a letter, over a letter they do not compose with, or turned stay as they are', () => {
    const spaced = chars([...word('x', 100), { ch: '^', x0: 106, x1: 112 }, ...word('2', 112), { ch: '~', x0: 130, x1: 136 }, ...word('user', 136)]);
    expect(composeAccents(spaced)).toBe(0);
    expect(text(spaced)).toBe('x^2~user');
    const noForm = chars([...word('q', 100), { ch: '\u02d8', x0: 101, x1: 105 }]);
    expect(composeAccents(noForm)).toBe(0);
    expect(text(noForm)).toBe('q\u02d8');
    const turned = chars([...word('g', 100), { ch: '\u02d8', x0: 101, x1: 105, flags: ROTATED }]);
    expect(composeAccents(turned)).toBe(0);
    // A line away it belongs to another letter, not this one.
    const below = chars([...word('g', 100), { ch: '\u02d8', x0: 101, x1: 105, y0: 130 }]);
    expect(composeAccents(below)).toBe(0);
  });

  test('a combining mark the file sets right after its letter (one glyph, or the next one) composes in the run (NFC)', () => {
    const glyph = chars([...word('cafe', 100), { ch: '\u0301', x0: 118, x1: 124 }]);
    expect(buildRuns(glyph).map((r) => r.text)).toEqual(['café']);
    const next = chars([...word('cafe', 100), { ch: '\u0301', x0: 124, x1: 124.5 }]);
    expect(buildRuns(next).map((r) => r.text)).toEqual(['café']);
  });

  test('property: without accent characters nothing changes', () => {
    const letter = fc.constantFrom(...'abcdefgOguz,.;1234 中文'.replace(/ /g, ''));
    fc.assert(
      fc.property(fc.array(fc.record({ ch: letter, x0: fc.integer({ min: 0, max: 500 }), w: fc.integer({ min: 1, max: 12 }) }), { maxLength: 60 }), (list) => {
        const c = chars(list.map((g) => ({ ch: g.ch, x0: g.x0, x1: g.x0 + g.w })));
        const before = text(c);
        expect(composeAccents(c)).toBe(0);
        expect(text(c)).toBe(before);
      }),
    );
  });

  test('property: every composed accent removes one character, the letters stay in order', () => {
    const glyph = fc.record({ ch: fc.constantFrom('a', 'e', 'g', 'o', 'u', 'z', '\u02d8', '\u00b4', '\u00a8', '\u0301', '\u0308'), x0: fc.integer({ min: 0, max: 60 }), w: fc.integer({ min: 1, max: 8 }) });
    fc.assert(
      fc.property(fc.array(glyph, { maxLength: 40 }), (list) => {
        const c = chars(list.map((g) => ({ ch: g.ch, x0: g.x0, x1: g.x0 + g.w })));
        const n = c.count;
        const composed = composeAccents(c);
        expect(c.count).toBe(n - composed);
        const out = text(c);
        // Letters keep their order: stripping marks from the output gives the input's letters.
        const letters = (s: string): string => s.normalize('NFD').replace(/[\u0300-\u036f\u02d8\u00b4\u00a8]/g, '');
        expect(letters(out)).toBe(letters(list.map((g) => g.ch).join('')));
      }),
    );
  });
});

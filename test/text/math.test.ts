import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MathIndex, mathSpans } from '../../src/text/math.js';

const spanTexts = (text: string) => mathSpans(text).map((s) => text.slice(s.start, s.end));

describe('mathSpans: where the equations are', () => {
  test('inline and display equations', () => {
    expect(spanTexts('The area $A=\\pi r^{2}$ of a circle.')).toEqual(['$A=\\pi r^{2}$']);
    expect(spanTexts('Before\n\n$$\\sum_{k=0}^{n} k$$\n\nafter $x$ and $y$.')).toEqual(['$$\\sum_{k=0}^{n} k$$', '$x$', '$y$']);
  });

  test('dollar amounts are not math (space after the opener, before the closer, digit after the closer)', () => {
    expect(spanTexts('It costs $5 and $10 today.')).toEqual([]);
    expect(spanTexts('Between $5-$10.')).toEqual([]);
    expect(spanTexts('A $ sign alone, and $ x $ padded.')).toEqual([]);
  });

  test('an escaped dollar is literal, inside and outside math', () => {
    expect(spanTexts('Price \\$5, formula $a\\$b$ here')).toEqual(['$a\\$b$']);
  });

  test('an equation never crosses a blank line', () => {
    expect(spanTexts('$a\n\nb$')).toEqual([]);
    expect(spanTexts('$a\nb$')).toEqual(['$a\nb$']);
    expect(spanTexts('$$a\n\nb$$')).toEqual([]);
  });

  test('a range restricts the search', () => {
    const text = '$a$ and $b$';
    expect(mathSpans(text, 4).map((s) => text.slice(s.start, s.end))).toEqual(['$b$']);
  });

  test('containing: strictly inside a span only', () => {
    const index = new MathIndex('x $abc$ y');
    expect(index.containing(2)).toBeUndefined();
    expect(index.containing(3)).toEqual({ start: 2, end: 7 });
    expect(index.containing(6)).toEqual({ start: 2, end: 7 });
    expect(index.containing(7)).toBeUndefined();
  });

  test('property: spans are in order, disjoint, start and end with a dollar, and hold no blank line', () => {
    const pieces = fc.constantFrom('$', '$$', 'x', 'a b', ' ', '\n', '\n\n', '\\$', '5', '{', '}', '^');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 60 }).map((p) => p.join('')), (text) => {
        let last = 0;
        for (const s of mathSpans(text)) {
          expect(s.start).toBeGreaterThanOrEqual(last);
          expect(s.end).toBeGreaterThan(s.start + 1);
          expect(text[s.start]).toBe('$');
          expect(text[s.end - 1]).toBe('$');
          expect(/\n[ \t]*\n/.test(text.slice(s.start, s.end))).toBe(false);
          last = s.end;
        }
      }),
      { seed: 15, numRuns: 300 },
    );
  });

  test('linear on adversarial input: many openers without closers', () => {
    const text = '$a '.repeat(200_000);
    expect(mathSpans(text)).toEqual([]);
    const closers = '$a$ '.repeat(100_000);
    expect(mathSpans(closers)).toHaveLength(100_000);
  });
});

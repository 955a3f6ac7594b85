import { describe, expect, test } from 'vitest';
import { BOLD, SPACE_BEFORE, type PageChars } from '../../src/layout/chars.js';
import { analysePage } from '../../src/layout/page.js';
import { buildStructure } from '../../src/layout/structure.js';

/** A word with its box, as a layout model, hOCR or ALTO gives it (points, top-left origin). */
interface Word {
  text: string;
  x0: number;
  y0: number;
  size: number;
  bold?: boolean;
}

/** Words spread into characters of equal advance (0.5 em), a space flag before each word but the first. */
function wordsToChars(words: readonly Word[]): PageChars {
  const glyphs: { code: number; x0: number; y0: number; size: number; flags: number }[] = [];
  for (const word of words) {
    let x = word.x0;
    let first = true;
    for (const ch of word.text) {
      glyphs.push({ code: ch.codePointAt(0)!, x0: x, y0: word.y0, size: word.size, flags: (first ? SPACE_BEFORE : 0) | (word.bold ? BOLD : 0) });
      x += word.size * 0.5;
      first = false;
    }
  }
  const n = glyphs.length;
  return {
    count: n,
    code: Uint32Array.from(glyphs, (g) => g.code),
    x0: Float32Array.from(glyphs, (g) => g.x0),
    x1: Float32Array.from(glyphs, (g) => g.x0 + g.size * 0.5),
    y0: Float32Array.from(glyphs, (g) => g.y0),
    y1: Float32Array.from(glyphs, (g) => g.y0 + g.size * 1.2),
    size: Float32Array.from(glyphs, (g) => g.size),
    font: new Int32Array(n),
    flags: Uint8Array.from(glyphs, (g) => g.flags),
    dir: new Uint8Array(n),
  };
}

/** Lines of text set from `x`, one every 12 pt from `y`, words spaced by one advance. */
function column(lines: readonly string[], x: number, y: number, size = 10): Word[] {
  return lines.flatMap((line, i) => {
    let at = x;
    return line.split(' ').map((text) => {
      const word = { text, x0: at, y0: y + i * 12, size };
      at += (text.length + 1) * size * 0.5;
      return word;
    });
  });
}

describe('a source of positioned text other than a PDF', () => {
  test('word boxes become a heading and two columns of paragraphs, read column by column', () => {
    const left = [
      'The first column opens here and it goes on for a few',
      'lines of running text, as a column of a paper does,',
      'until it ends.',
      'A second paragraph on the left side of the page is',
      'short and ends here too.',
    ];
    const right = ['The second column starts at the top of the page, to', 'the right of a gutter, and it ends with its own last', 'sentence.'];
    const words = [
      ...column(['Results'], 72, 72, 16).map((w) => ({ ...w, bold: true })),
      ...column(left.slice(0, 3), 72, 110),
      ...column(left.slice(3), 72, 152),
      ...column(right, 350, 110),
    ];
    const page = analysePage({ index: 0, width: 612, height: 792, chars: wordsToChars(words), rules: { horizontal: [], vertical: [] }, images: 0 });
    const { elements } = buildStructure([page]);
    expect(elements.map((e) => [e.kind, e.text])).toEqual([
      ['heading', 'Results'],
      ['paragraph', left.slice(0, 3).join(' ')],
      ['paragraph', left.slice(3).join(' ')],
      ['paragraph', right.join(' ')],
    ]);
    expect(elements[3]!.bbox).toMatchObject({ x0: 350, y0: 110 });
  });
});

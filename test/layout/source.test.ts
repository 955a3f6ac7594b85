import { describe, expect, test } from 'vitest';
import { BOLD, SPACE_BEFORE, type PageChars } from '../../src/layout/chars.js';
import { analysePage, type PositionedPage } from '../../src/layout/page.js';
import { buildStructure } from '../../src/layout/structure.js';

/** A word with its box, as a layout model, hOCR or ALTO gives it (points, top-left origin). */
interface Word {
  text: string;
  x0: number;
  y0: number;
  size: number;
  bold?: boolean;
}

/** Advance of a character in ems: CJK is set square, Latin at half an em. */
function advance(ch: string): number {
  return /[\u3000-\u9fff\uff00-\uffef]/u.test(ch) ? 1 : 0.5;
}

/** Words spread into characters of their advance, a space flag before each word but the first. */
function wordsToChars(words: readonly Word[]): PageChars {
  const glyphs: { code: number; x0: number; x1: number; y0: number; size: number; flags: number }[] = [];
  for (const word of words) {
    let x = word.x0;
    let first = true;
    for (const ch of word.text) {
      const w = word.size * advance(ch);
      glyphs.push({ code: ch.codePointAt(0)!, x0: x, x1: x + w, y0: word.y0, size: word.size, flags: (first ? SPACE_BEFORE : 0) | (word.bold ? BOLD : 0) });
      x += w;
      first = false;
    }
  }
  const n = glyphs.length;
  return {
    count: n,
    code: Uint32Array.from(glyphs, (g) => g.code),
    x0: Float32Array.from(glyphs, (g) => g.x0),
    x1: Float32Array.from(glyphs, (g) => g.x1),
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
      at += [...`${text} `].reduce((w, ch) => w + advance(ch) * size, 0);
      return word;
    });
  });
}

function positioned(index: number, words: readonly Word[]): PositionedPage {
  return { index, width: 612, height: 792, chars: wordsToChars(words), rules: { horizontal: [], vertical: [] }, images: 0 };
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

  test('Chinese text goes on onto the next page when the first part does not end with 。！？ and the next starts with a CJK character', () => {
    const pages = [
      positioned(0, [
        ...column(['第一章 概述'], 72, 72, 16).map((w) => ({ ...w, bold: true })),
        // Twenty characters a line, the page's text running to its foot.
        ...column(['仓库管理系统记录货物的入库、出库和库存变化，', '并在每天结束时生成报表，供管理人员查看和核对', '每一笔记录的来源以及处理这些记录的操作人员'], 72, 700),
      ]),
      positioned(1, [
        ...column(['的姓名和工号。系统还会保存每一次修改的时间。'], 72, 72),
        ...column(['第二段另起一行，说明系统的部署方式和要求。'], 72, 100),
        ...column(['第三段写在页面底部，以句号结束。'], 72, 740),
      ]),
      positioned(2, [...column(['下一页的文字另起一段，不与上一段相连。'], 72, 72), ...column(['目录 … … … １'], 72, 700)]),
      positioned(3, [...column(['第二章 的标题前面不接目录的页码。'], 72, 72)]),
    ];
    const { elements } = buildStructure(pages.map(analysePage));
    expect(elements.map((e) => [e.kind, e.text, e.page, e.pageEnd])).toEqual([
      ['heading', '第一章 概述', 1, undefined],
      ['paragraph', '仓库管理系统记录货物的入库、出库和库存变化，并在每天结束时生成报表，供管理人员查看和核对每一笔记录的来源以及处理这些记录的操作人员的姓名和工号。系统还会保存每一次修改的时间。', 1, 2],
      ['paragraph', '第二段另起一行，说明系统的部署方式和要求。', 2, undefined],
      ['paragraph', '第三段写在页面底部，以句号结束。', 2, undefined],
      ['paragraph', '下一页的文字另起一段，不与上一段相连。', 3, undefined],
      ['paragraph', '目录 … … … １', 3, undefined],
      ['paragraph', '第二章 的标题前面不接目录的页码。', 4, undefined],
    ]);
    expect(elements[1]!.bboxes!.map((b) => [b.page, b.y0])).toEqual([
      [1, 700],
      [2, 72],
    ]);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { BOLD } from '../../src/layout/chars.js';
import { FontTable } from '../../src/pdf/chars.js';
import { loadEngine, openDocument } from '../../src/pdf/engine.js';
import { findFurniture, isPageNumber } from '../../src/layout/furniture.js';
import { numberingDepth } from '../../src/layout/headings.js';
import type { PageLayout } from '../../src/layout/page.js';
import { pdfDate } from '../../src/pdf/metadata.js';
import { readingOrder, type Box } from '../../src/layout/order.js';
import { readPage } from '../../src/pdf/page.js';
import type { Line } from '../../src/layout/lines.js';
import { joinText, linesText } from '../../src/layout/text.js';
import { pdfParser } from '../../src/parsers/pdf.js';
import { corpus, hasShared } from '../helpers.js';
import { minimalPdfPages, ruledTable } from './fixtures.js';

describe('reading order', () => {
  test('title across two columns, then the left column, then the right', () => {
    const boxes: Box[] = [{ x0: 100, y0: 50, x1: 500, y1: 70 }]; // title
    for (let i = 0; i < 5; i++) boxes.push({ x0: 50, y0: 100 + i * 12, x1: 290, y1: 110 + i * 12 }); // left: 1..5
    for (let i = 0; i < 5; i++) boxes.push({ x0: 310, y0: 100 + i * 12, x1: 550, y1: 110 + i * 12 }); // right: 6..10
    boxes.push({ x0: 50, y0: 200, x1: 550, y1: 210 }); // full-width figure caption
    const order = readingOrder(boxes, { minGutter: 8, minBand: 0.5 }).flat();
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  test('a wide gap inside one line does not split it into columns', () => {
    const boxes: Box[] = [
      { x0: 50, y0: 100, x1: 70, y1: 110 },
      { x0: 100, y0: 100, x1: 300, y1: 110 },
    ];
    expect(readingOrder(boxes, { minGutter: 8, minBand: 0.5 })).toEqual([[0, 1]]);
  });
});

describe('reading order: columns whose lines are not level', () => {
  // Two columns, lines 19 pt apart, the right column's 4 pt lower and with a paragraph gap where
  // the left has a line: that line is a band of its own, with no gutter of its own.
  const left = [100, 119, 138, 157, 176].map((y0) => ({ x0: 50, y0, x1: 290, y1: y0 + 12.6 }));
  const right = [104, 123, 161, 180].map((y0) => ({ x0: 310, y0, x1: 550, y1: y0 + 12.6 }));

  // A footnote line under both columns runs across the gutter: the page has no gutter top to bottom.
  const across = { x0: 50, y0: 209, x1: 550, y1: 220 };

  test('a line of one column level with a gap in the other keeps the columns together', () => {
    const boxes: Box[] = [...left, ...right, across];
    expect(readingOrder(boxes, { minGutter: 9, minBand: 0.5 }).flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('a narrow item under the columns (a table header cell) is not read as a line of a column', () => {
    const boxes: Box[] = [...left, ...right, { x0: 60, y0: 195, x1: 100, y1: 205 }, across];
    expect(readingOrder(boxes, { minGutter: 9, minBand: 0.5 }).flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('reading order: tab stops on a first row', () => {
  test('a first row cut by wide gaps and wrapping to a second line is read row by row', () => {
    const boxes: Box[] = [
      { x0: 90, y0: 100, x1: 252, y1: 114 }, // 文档编号：WMS-OPS-2025-07
      { x0: 275, y0: 100, x1: 330, y1: 114 }, // 版本：V2.3
      { x0: 355, y0: 100, x1: 505, y1: 114 }, // 适用范围：仓储管理服务、
      { x0: 90, y0: 114, x1: 218, y1: 128 }, // AGV 调度服务及边缘网关
    ];
    expect(readingOrder(boxes, { minGutter: 9, minBand: 0.5 }).flat()).toEqual([0, 1, 2, 3]);
  });

  test('a column of many lines beside one line at its top stays a column (a page whose last column ends early)', () => {
    const boxes: Box[] = [];
    for (let i = 0; i < 6; i++) boxes.push({ x0: 50, y0: 100 + i * 14, x1: 290, y1: 112 + i * 14 });
    boxes.push({ x0: 310, y0: 100, x1: 550, y1: 112 });
    expect(readingOrder(boxes, { minGutter: 9, minBand: 0.5 }).flat()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('lines of a paragraph', () => {
  const line = (text: string, x1: number, y0: number, cjkPairs = 0, cjkLoose = 0): Line => ({ text, x0: 90, y0, x1, y1: y0 + 12, size: 12, bold: false, italic: false, mono: false, rtl: false, font: 0, chars: text.length, region: 0, ...(cjkPairs > 0 && { cjkPairs, cjkLoose }) });

  test('CJK set tight and broken by character joins a number or word split across lines without a space', () => {
    const lines = [line('防火墙需要放行管理端口 8443、调度端口 9', 503, 100, 14), line('100、消息队列端口 5672', 230, 114, 6)];
    expect(linesText(lines)).toBe('防火墙需要放行管理端口 8443、调度端口 9100、消息队列端口 5672');
  });

  test('a line ending well short of the edge, or CJK set apart (justified), broke at a word space', () => {
    expect(linesText([line('系统需要安装的操作系统是 Linux', 400, 100, 11), line('Server 以及更新的版本，请在安装前确认', 503, 114, 14)])).toBe('系统需要安装的操作系统是 Linux Server 以及更新的版本，请在安装前确认');
    expect(linesText([line('系统需要安装的操作系统是 Linux', 503, 100, 11, 11), line('Server 版本', 200, 114, 1)])).toBe('系统需要安装的操作系统是 Linux Server 版本');
    expect(linesText([line('the operating system is Linux', 503, 100), line('Server and newer', 200, 114)])).toBe('the operating system is Linux Server and newer');
  });

  test('no space next to wide punctuation or between a curly quote and CJK; Korean keeps its spaces', () => {
    expect(joinText('仓储管理服务、', 'AGV 调度服务')).toBe('仓储管理服务、AGV 调度服务');
    expect(joinText('带有“', '注意”字样')).toBe('带有“注意”字样');
    expect(joinText('재해분류표는 위', '「감염병예방법」')).toBe('재해분류표는 위 「감염병예방법」');
  });
});

describe('text joining', () => {
  test('hyphenation repaired for lowercase Latin, real hyphens kept, no space between CJK', () => {
    expect(joinText('an exam-', 'ple here')).toBe('an example here');
    expect(joinText('the state-of-the-', 'Art')).toBe('the state-of-the-Art');
    expect(joinText('737–8 and 737-', '9 airplanes')).toBe('737–8 and 737-9 airplanes');
    expect(joinText('中文文本', '继续')).toBe('中文文本继续');
    expect(joinText('see https://example.org/', 'docs/start')).toBe('see https://example.org/docs/start');
    expect(joinText('either A /', 'B')).toBe('either A / B');
    expect(joinText('/* note */', '*/')).toBe('/* note */ */');
    expect(joinText('Docket No. FAA–2020–', '0686; or')).toBe('Docket No. FAA–2020–0686; or');
    expect(joinText('the result –', 'as expected')).toBe('the result – as expected');
    expect(joinText('end of line', 'next line')).toBe('end of line next line');
    // One letter before the hyphen is no broken word; a soft hyphen always is one.
    expect(joinText('maps it to a d-', 'dimensional vector')).toBe('maps it to a d-dimensional vector');
    expect(joinText('x-', 'axis')).toBe('x-axis');
    expect(joinText('an exam\u00ad', 'ple')).toBe('an example');
  });
});

describe('headings and furniture patterns', () => {
  test('numbering depth', () => {
    expect(numberingDepth('1. Introduction')).toBe(1);
    expect(numberingDepth('5.1 Hyper Parameter Optimization')).toBe(2);
    expect(numberingDepth('3.2.1 Details')).toBe(3);
    expect(numberingDepth('Chapter 3 Methods')).toBe(1);
    expect(numberingDepth('Appendix A')).toBe(1);
    expect(numberingDepth('第一章 总则')).toBe(1);
    expect(numberingDepth('第一节 范围')).toBe(2);
    expect(numberingDepth('一、总体要求')).toBe(1);
    expect(numberingDepth('Results and discussion')).toBe(0);
  });

  test('page numbers alone', () => {
    for (const t of ['3', 'Page 3 of 12', '- 3 -', '第 3 页 共 12 页', 'xiv', '12 / 40', '１', '－１２－', '第１页']) expect(isPageNumber(t)).toBe(true);
    for (const t of ['3 Results', 'Page three', 'Introduction']) expect(isPageNumber(t)).toBe(false);
  });

  test('PDF dates to ISO', () => {
    expect(pdfDate("D:20200806083000-04'00'")).toBe('2020-08-06T08:30:00-04:00');
    expect(pdfDate('D:20090401163925Z')).toBe('2009-04-01T16:39:25Z');
    expect(pdfDate('yesterday')).toBeUndefined();
  });
});

describe('running headers', () => {
  /** A page with one block of a single line at (64, y) in the top band, and nothing else. */
  function headerPage(index: number, text: string, y: number, size: number): PageLayout {
    const line = { text, x0: 64, y0: y, x1: 64 + text.length * size * 0.5, y1: y + size, size, bold: true, italic: false, mono: false, rtl: false, font: 0, chars: text.length, region: 0 };
    return { index, width: 595, height: 842, items: [{ type: 'block', block: { lines: [line], page: index, x0: line.x0, y0: y, x1: line.x1, y1: line.y1 } }], chars: 0, unmapped: 0, images: 0 };
  }

  test('an occurrence far larger than the usual size is a masthead: it counts as a repeat but stays, and the warning counts only removed pages', () => {
    const pages = [headerPage(0, 'Issues and Views', 120, 26), headerPage(1, 'Issues and Views', 45, 10), headerPage(2, 'Issues and Views', 45, 10), headerPage(3, 'Weekly', 45, 10)];
    const { items, warnings } = findFurniture(pages);
    expect([...items].sort()).toEqual(['1:0', '2:0']);
    expect(warnings).toEqual(["removed running header 'Issues and Views' on 2 pages"]);
  });
});

describe.skipIf(!hasShared)('text objects', () => {
  test('fill-and-stroke text (render mode 2) is bold; the fill colour is kept per character', async () => {
    const engine = await loadEngine();
    const doc = openDocument(engine, readFileSync(corpus('zh-generated/warehouse-manual-zh.pdf')), undefined);
    try {
      const { chars } = readPage(engine, doc, 1, new FontTable());
      const text = String.fromCodePoint(...chars.code.subarray(0, chars.count));
      const heading = text.indexOf('2.1硬件');
      const body = text.indexOf('安装开始前');
      expect(heading).toBeGreaterThanOrEqual(0);
      expect(body).toBeGreaterThan(heading);
      // "2.1" is drawn filled and stroked, its title filled only; both in the heading blue.
      expect(chars.flags[heading]! & BOLD).toBe(BOLD);
      expect(chars.flags[heading + 3]! & BOLD).toBe(0);
      expect(chars.color![heading]).toBe(0x4f81bd);
      expect(chars.color![heading + 3]).toBe(0x4f81bd);
      expect(chars.color![body]).toBe(0);
    } finally {
      doc.close();
    }
  });
});

describe('tables from drawn rules', () => {
  test('a ruled table continued on the next page is joined, its repeated header dropped, its text not in the body', async () => {
    const header = ['Region', 'Sales', 'Growth'];
    const first = ruledTable([header, ['North', '120', '4%'], ['South', '95', '2%']], 72, 700);
    const second = ruledTable([header, ['East', '130', '7%'], ['West', '88', '1%']], 72, 740);
    first.items.unshift({ text: 'Quarterly results by region are shown below.', size: 11, x: 72, y: 730 });
    const bytes = minimalPdfPages([first, second]);
    const draft = await pdfParser.parse({ bytes, name: 't.pdf' }, {});
    const tables = draft.elements.filter((e) => e.kind === 'table');
    expect(tables).toHaveLength(1);
    expect(tables[0]!.table!.rows.map((r) => r.map((c) => c.text))).toEqual([header, ['North', '120', '4%'], ['South', '95', '2%'], ['East', '130', '7%'], ['West', '88', '1%']]);
    expect(tables[0]).toMatchObject({ page: 1, pageEnd: 2 });
    const body = draft.elements.filter((e) => e.kind !== 'table').map((e) => e.text).join(' ');
    expect(body).toBe('Quarterly results by region are shown below.');
  });
});

describe('page geometry', () => {
  const text = 'Rotated pages keep their boxes';
  async function firstBox(spec: Parameters<typeof minimalPdfPages>[0][0]) {
    const draft = await pdfParser.parse({ bytes: minimalPdfPages([spec]), name: 'g.pdf' }, {});
    const el = draft.elements.find((e) => e.kind === 'paragraph')!;
    expect(el.text).toBe(text);
    return el.bbox!;
  }

  test('unrotated: top-left origin, y down', async () => {
    const box = await firstBox({ items: [{ text, size: 12, x: 100, y: 700 }] });
    expect(box.x0).toBeCloseTo(100, 0);
    expect(box.y1).toBeGreaterThan(92 - 1); // baseline at 792 - 700 = 92, descenders below
    expect(box.y0).toBeLessThan(92);
  });

  test('a media box that does not start at 0,0', async () => {
    const box = await firstBox({ items: [{ text, size: 12, x: 300, y: 900 }], mediaBox: [200, 200, 812, 992] });
    expect(box.x0).toBeCloseTo(100, 0);
    expect(box.y0).toBeLessThan(92);
    expect(box.y1).toBeGreaterThan(91);
  });

  test('/Rotate 90: text that runs down the displayed page is read in its own frame, boxes stay on the page', async () => {
    // Upright in user space, so it runs top to bottom once the page is turned 90° clockwise:
    // the page displays 792 wide and 612 high and the text is a tall, narrow box.
    const box = await firstBox({ items: [{ text, size: 12, x: 100, y: 700 }], rotate: 90 });
    expect(box.y1 - box.y0).toBeGreaterThan(5 * (box.x1 - box.x0));
    expect(box.x1).toBeLessThanOrEqual(792);
    expect(box.y1).toBeLessThanOrEqual(612);
    // Turned clockwise, user (x, y) shows at (y, x): the baseline at user y = 700 is x = 700, the
    // glyphs rise towards the right edge, and the text starts at user x = 100, 100 pt from the top.
    expect(box.x0).toBeGreaterThan(695);
    expect(box.x0).toBeLessThan(702);
    expect(box.x1).toBeLessThan(715);
    expect(box.y0).toBeCloseTo(100, 0);
  });
});

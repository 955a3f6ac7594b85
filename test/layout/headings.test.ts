import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { ElementDraft } from '../../src/document/types.js';
import { buildBlocks, wrapSpacing, type Block } from '../../src/layout/blocks.js';
import { isByline, isLabelText } from '../../src/layout/headings.js';
import type { PageLayout } from '../../src/layout/page.js';
import { colorsDiffer, type Line } from '../../src/layout/lines.js';
import { buildStructure } from '../../src/layout/structure.js';
import { corpus, hasShared } from '../helpers.js';
import { markdownHeadings, sequenceF1 } from '../parsers/similarity.js';
import { parseCorpusPdf } from '../pdf/quality.js';

/** A line of text at (x0, y0) in page coordinates (top-left origin), half an em per character. */
function line(text: string, x0: number, y0: number, size: number, style: { bold?: boolean; right?: number; color?: number } = {}): Line {
  const width = text.length * size * 0.5;
  const left = style.right !== undefined ? style.right - width : x0;
  return {
    ...(style.color !== undefined && { color: style.color }),
    text,
    x0: left,
    y0,
    x1: left + width,
    y1: y0 + size,
    size,
    bold: style.bold ?? false,
    italic: false,
    mono: false,
    rtl: false,
    font: 0,
    chars: text.replace(/\s+/g, '').length,
    region: 0,
  };
}

function block(page: number, ...lines: Line[]): Block {
  return {
    lines,
    page,
    x0: Math.min(...lines.map((l) => l.x0)),
    y0: Math.min(...lines.map((l) => l.y0)),
    x1: Math.max(...lines.map((l) => l.x1)),
    y1: Math.max(...lines.map((l) => l.y1)),
  };
}

function page(index: number, ...blocks: Block[]): PageLayout {
  return { index, width: 612, height: 792, items: blocks.map((b) => ({ type: 'block', block: b })), chars: 0, unmapped: 0, images: 0 };
}

const PROSE = 'The quick brown fox jumps over the lazy dog and keeps running';

/** A paragraph of body text (10 pt) of `lines` lines starting at y0. */
function prose(index: number, y0: number, lines = 5): Block {
  return block(index, ...Array.from({ length: lines }, (_, i) => line(PROSE, 72, y0 + i * 12, 10)));
}

function headings(elements: readonly ElementDraft[]): string[] {
  return elements.filter((e) => e.kind === 'heading').map((e) => e.text);
}

describe('heading text', () => {
  test('a heading has words: figure letters, issue numbers and dates are not titles', () => {
    expect(isLabelText('T')).toBe(false);
    expect(isLabelText('제1695호')).toBe(false);
    expect(isLabelText('No. 1695')).toBe(false);
    expect(isLabelText('2020年4月2日')).toBe(false);
    expect(isLabelText('1.2 Scope')).toBe(true);
    expect(isLabelText('(3) 「약관의 규제에 관한 법률」상 약관해석의 원칙')).toBe(true);
    expect(isLabelText('Chapter 3')).toBe(true);
    expect(isLabelText('序言')).toBe(true);
    expect(isLabelText('COVID-19 in 2020')).toBe(true);
  });

  test('bylines: names with marks or in a list; a lone pair of capitalised words is a title', () => {
    expect(isByline('김 창 호*')).toBe(true);
    expect(isByline('Jane Doe¹, John Smith²')).toBe(true);
    expect(isByline('A. Smith, B. Jones and C. Wu')).toBe(true);
    expect(isByline('张三1, 李四2')).toBe(true);
    expect(isByline('Executive Summary')).toBe(false);
    expect(isByline('Results and Discussion')).toBe(false);
    expect(isByline('Data Collection and Data Analysis')).toBe(false);
    expect(isByline('John Smith')).toBe(false);
    expect(isByline('Implement roles and separation of duties')).toBe(false);
  });
});

describe('headings in context', () => {
  test('a cover page keeps only its title as a heading: blurbs, names and the series logo are text', () => {
    const cover = page(
      0,
      block(0, line('Row and Column Access Control', 36, 74, 40, { bold: true }), line('Support in DB2', 36, 117, 40, { bold: true })),
      block(0, line('Implement roles and separation', 36, 293, 14, { bold: true }), line('of duties', 36, 310, 14, { bold: true })),
      block(0, line('Leverage row permissions', 36, 347, 14, { bold: true })),
      block(0, line('Jim Bainbridge', 0, 573, 12, { bold: true, right: 581 })),
      block(0, line('Redpaper', 315, 694, 70, { bold: true })),
    );
    const body = page(1, block(1, line('Preface', 72, 60, 24, { bold: true })), prose(1, 100, 20), prose(1, 360, 20));
    const { elements, title } = buildStructure([cover, body]);
    expect(headings(elements)).toEqual(['Row and Column Access Control Support in DB2', 'Preface']);
    expect(title).toBe('Row and Column Access Control Support in DB2');
  });

  test('a label set just above a larger title is text; a chapter label joins its title', () => {
    const p = page(
      0,
      block(0, line('Front matter', 72, 40, 20, { bold: true })),
      block(0, line('The Real Title', 72, 70, 36, { bold: true })),
      prose(0, 120),
      block(0, line('Chapter 2', 72, 200, 18, { bold: true })),
      block(0, line('Methods of Work', 72, 230, 30, { bold: true })),
      prose(0, 280, 30),
    );
    const found = buildStructure([p]).elements.filter((e) => e.kind === 'heading');
    expect(found.map((e) => e.text)).toEqual(['The Real Title', 'Chapter 2 Methods of Work']);
    expect(found.map((e) => e.level)).toEqual([1, 2]);
  });

  test('a series name set well above the title (more than a line of its size between) stays a heading', () => {
    const p = page(0, block(0, line('Issues and Points', 330, 40, 20, { bold: true })), block(0, line('The Real Title', 72, 100, 36, { bold: true })), prose(0, 150));
    expect(headings(buildStructure([p]).elements)).toEqual(['Issues and Points', 'The Real Title']);
  });

  test('the byline under a title is not a heading', () => {
    const p = page(
      0,
      block(0, line('A Study of Headings', 72, 70, 28, { bold: true })),
      block(0, line('김 창 호*', 400, 110, 11, { bold: true })),
      prose(0, 140, 30),
    );
    const { elements } = buildStructure([p]);
    expect(headings(elements)).toEqual(['A Study of Headings']);
    expect(elements.some((e) => e.kind === 'paragraph' && e.text === '김 창 호*')).toBe(true);
  });

  test('a section number drawn apart from its title is put back in front of it', () => {
    const p = page(0, prose(0, 60), block(0, line('1', 73, 200, 13.5, { bold: true })), block(0, line('Introduction', 99, 201, 13.5, { bold: true })), prose(0, 230, 30));
    const { elements } = buildStructure([p]);
    expect(headings(elements)).toEqual(['1 Introduction']);
    expect(elements.some((e) => e.text === '1')).toBe(false);
  });

  test('running prose in large type is a paragraph, not a heading', () => {
    const lead = block(0, line('Data breaches are rising. Every business must', 72, 60, 14), line('now secure its data and audit who', 72, 78, 14));
    const p = page(0, lead, prose(0, 120, 30));
    expect(headings(buildStructure([p]).elements)).toEqual([]);
  });

  test('a masthead repeated small as the running header stays a heading on the page where it is large', () => {
    const pages = [page(0, block(0, line('Issues and Views', 400, 100, 26, { bold: true })), prose(0, 200, 40))];
    for (let i = 1; i < 4; i++) pages.push(page(i, block(i, line('Issues and Views', 64, 45, 10, { bold: true })), prose(i, 100, 40)));
    const { elements, warnings } = buildStructure(pages);
    expect(headings(elements)).toEqual(['Issues and Views']);
    expect(elements.filter((e) => e.kind === 'page-furniture').map((e) => e.page)).toEqual([2, 3, 4]);
    expect(warnings).toContain("removed running header 'Issues and Views' on 3 pages");
  });
});

describe('colour', () => {
  const BLUE = 0x4f81bd;
  const TEAL = 0x60a0b0;
  /** Body text in black, 12 pt, lines 16 pt apart. */
  const body = (y0: number, n: number): Line[] => Array.from({ length: n }, (_, i) => line(PROSE, 90, y0 + i * 16, 12, { color: 0 }));

  test('a body-size heading set apart by colour alone ends its block and is a heading', () => {
    // Space above the heading, none below it: only the colour tells it from the body.
    const lines = [line('Installation Manual', 90, 100, 16, { color: BLUE }), ...body(130, 3), line('Installation steps', 90, 190, 12, { color: BLUE }), ...body(206, 4)];
    const blocks = buildBlocks(lines, 0, 842);
    expect(blocks.map((b) => b.lines[0]!.text)).toEqual(['Installation Manual', PROSE, 'Installation steps', PROSE]);
    expect(headings(buildStructure([page(0, ...blocks)]).elements)).toEqual(['Installation Manual', 'Installation steps']);
  });

  test('a numbered line in colour is a heading even where no large heading has that colour', () => {
    const blocks = buildBlocks([...body(100, 3), line('2.1 Hardware', 90, 160, 12, { color: TEAL }), ...body(176, 4)], 0, 842);
    expect(headings(buildStructure([page(0, ...blocks)]).elements)).toEqual(['2.1 Hardware']);
  });

  test('coloured text in a colour no heading uses stays text (a highlighted code comment)', () => {
    const blocks = [block(0, line('Installation Manual', 90, 100, 16, { color: BLUE })), block(0, ...body(130, 3)), block(0, line('# main configuration file', 90, 190, 12, { color: TEAL })), block(0, ...body(210, 4))];
    expect(headings(buildStructure([page(0, ...blocks)]).elements)).toEqual(['Installation Manual']);
  });

  test('a paragraph of main text goes on into a line wholly in link colour', () => {
    const lines = [...body(200, 2), line('https://github.com/example/project.', 90, 232, 12, { color: BLUE })];
    expect(buildBlocks(lines, 0, 842)).toHaveLength(1);
  });

  test('colours within a few steps of each other are one colour', () => {
    expect(colorsDiffer(0x000000, 0x231f20)).toBe(false);
    expect(colorsDiffer(0x000000, 0x4f81bd)).toBe(true);
    expect(colorsDiffer(0x4f81bd, undefined)).toBe(false);
  });
});

describe('blocks', () => {
  test('names set flush right form one block despite their ragged left edge', () => {
    const names = ['Jim Bainbridge', 'Hernando Bedoya', 'Rob Bestgen', 'Mike Cain', 'Dan Cruikshank'];
    const lines = names.map((n, i) => line(n, 0, 573 + i * 14, 12, { bold: true, right: 581 }));
    expect(buildBlocks(lines, 0, 792)).toHaveLength(1);
  });

  test('double-spaced paragraphs: a line after one that wrapped goes on at the page\'s usual wrap gap', () => {
    // 12 pt text, lines 30 pt apart; paragraphs of three full lines and a short one, 60 pt apart.
    const paragraph = (y0: number): Line[] => [0, 1, 2].map((i) => line(PROSE, 72, y0 + i * 30, 12)).concat(line('The end.', 72, y0 + 90, 12));
    const lines = [...paragraph(100), ...paragraph(250), ...paragraph(400)];
    expect(wrapSpacing(lines)?.gap).toBe(18);
    expect(buildBlocks(lines, 0, 792, wrapSpacing(lines)).map((b) => b.lines.length)).toEqual([4, 4, 4]);
    // Without the page's wrap gap each line stands alone, as at single spacing.
    expect(buildBlocks(lines, 0, 792)).toHaveLength(12);
  });

  test('widely spaced short lines (no line wraps) stay apart; single-spaced text has no wide wrap gap', () => {
    const items = ['Apples', 'Pears', 'Plums', 'Cherries'].map((t, i) => line(t, 72, 100 + i * 30, 12));
    expect(wrapSpacing(items)).toBeUndefined();
    expect(buildBlocks(items, 0, 792, wrapSpacing(items))).toHaveLength(4);
    const single = [0, 1, 2, 3, 4].map((i) => line(PROSE, 72, 100 + i * 13, 12));
    expect(wrapSpacing(single)).toBeUndefined();
  });

  test('an indented first line in a wide paragraph still opens a new block', () => {
    const lines = [line(PROSE, 72, 100, 10), line(PROSE, 72, 112, 10), line(PROSE.slice(10), 122, 124, 10), line(PROSE, 72, 136, 10)];
    expect(buildBlocks(lines, 0, 792)).toHaveLength(2);
  });
});

describe.skipIf(!hasShared)('headings on corpus files', () => {
  test('normal_4pages: masthead and title, no issue number or byline, section numbers in front of their titles', async () => {
    const doc = await parseCorpusPdf(corpus('pdf/normal_4pages.pdf'));
    const texts = headings(doc.elements);
    expect(texts.slice(0, 3)).toEqual(['이슈와 논점', '코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제', '1 들어가며']);
    expect(texts).not.toContain('제1695호');
    expect(texts).not.toContain('김 창 호*');
    expect(texts).toContain('5 맺으며');
  });

  test('redp5110: the cover yields only its title; the back cover label is text', async () => {
    const doc = await parseCorpusPdf(corpus('pdf/redp5110_sampled.pdf'));
    const cover = doc.elements.filter((e) => e.kind === 'heading' && e.page === 1).map((e) => e.text);
    expect(cover).toEqual(['Row and Column Access Control Support in IBM DB2 for i']);
    expect(headings(doc.elements)).not.toContain('Back cover ®');
    expect(doc.title).toBe('Row and Column Access Control Support in IBM DB2 for i');
    expect(doc.canonical).toContain('Jim Bainbridge');
  });

  test('warehouse-manual-zh: body-size section headings in the heading colour, numbers in faux bold', async () => {
    const path = corpus('zh-generated/warehouse-manual-zh.pdf');
    const doc = await parseCorpusPdf(path);
    const texts = headings(doc.elements);
    expect(texts).toEqual(['智能仓储系统安装与运维手册', '第一章 概述', '第二章 安装', '2.1 硬件与环境准备', '2.2 安装步骤', '2.3 安装后检查', '第三章 配置', '第四章 故障排查']);
    expect(sequenceF1(texts, markdownHeadings(readFileSync(`${path}.expected.md`, 'utf8'))).f1).toBe(1);
    // The heading ends where the black body text starts.
    expect(doc.elements.find((e) => e.kind === 'paragraph' && e.text.startsWith('安装开始前'))).toBeDefined();
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { DocumentDraft, ElementDraft } from '../../src/document/types.js';
import { pdfParser } from '../../src/parsers/pdf.js';
import { corpus, hasShared } from '../helpers.js';
import { accented, minimalPdfPages, type PageSpec, type TextItem } from './fixtures.js';

const LEFT = 72;
const RIGHT = 320;
const MEASURE = 220;
const LEADING = 12;

interface Piece {
  lines: string[];
  /** The piece ends its paragraph: its last line is not justified. */
  ends?: boolean;
  /** The piece opens a paragraph with an indented first line. */
  indent?: boolean;
}

/** Justified 10 pt lines of a column from `top` (PDF y of the first baseline) down. */
function column(pieces: readonly Piece[], x: number, top: number, gap = 0): TextItem[] {
  const items: TextItem[] = [];
  let y = top;
  for (const piece of pieces) {
    piece.lines.forEach((text, i) => {
      const last = i === piece.lines.length - 1;
      const indent = piece.indent && i === 0 ? 12 : 0;
      items.push({ text, size: 10, x: x + indent, y, ...(!(last && piece.ends) && { width: MEASURE - indent }) });
      y -= LEADING;
    });
    y -= gap;
  }
  return items;
}

/** Running header and page number, the same on every page: furniture between the pages' text. */
function furniture(page: number): TextItem[] {
  return [
    { text: 'Groundwork Test Paper on Retrieval', size: 9, x: LEFT, y: 770 },
    { text: String(page), size: 9, x: 300, y: 36 },
  ];
}

const TWO_COLUMNS: PageSpec[] = [
  {
    items: [
      ...furniture(1),
      { text: '1 Introduction', size: 16, x: LEFT, y: 720 },
      ...column(
        [
          {
            lines: [
              'Dense retrieval maps every passage of a corpus',
              'to a vector, and a question to another one, so',
              'that the passages closest to the question are',
              'the ones that answer it best. We train the two',
              'encoders on questions paired with the passages',
              'that answer them, and we take one positive exam-',
            ],
          },
        ],
        LEFT,
        690,
      ),
      { text: '1 The code is released together with the paper.', size: 8, x: LEFT, y: 80 },
      ...column(
        [
          { lines: ['ple for each question and keep the rest of the', 'batch as negatives, which costs nothing.'], ends: true },
          {
            lines: [
              'Earlier systems needed a sparse index built',
              'from term counts, and they could not match a',
              'question to a passage that says it in other',
              'words, as the answer usually does. Although the',
              'sparse methods are fast and set the results on',
              'several benchmarks that are used for open-domain',
            ],
            indent: true,
          },
        ],
        RIGHT,
        740,
      ),
    ],
  },
  {
    items: [
      ...furniture(2),
      ...column([{ lines: ['QA datasets, they also suffer from two known', 'weaknesses that this paper addresses in turn.'], ends: true }], LEFT, 745),
      { text: '2 Method', size: 16, x: LEFT, y: 700 },
      ...column([{ lines: ['We describe the model in this section, and we', 'start with the two encoders and their training'] }], LEFT, 676),
      { text: '3 Results', size: 16, x: RIGHT, y: 745 },
      ...column([{ lines: ['the results of the experiments come after the', 'method, in the order of the research questions.'], ends: true }], RIGHT, 721),
    ],
  },
];

async function parse(pages: PageSpec[]): Promise<DocumentDraft> {
  return pdfParser.parse({ bytes: minimalPdfPages(pages), name: 'columns.pdf' }, {});
}

function body(draft: DocumentDraft): ElementDraft[] {
  return draft.elements.filter((e) => e.kind !== 'page-furniture');
}

describe('paragraphs across columns and pages', () => {
  test('a paragraph goes on in the next column and on the next page; the footnote between keeps its place, headings never join', async () => {
    const draft = await parse(TWO_COLUMNS);
    expect(body(draft).map((e) => [e.kind, e.text])).toEqual([
      ['heading', '1 Introduction'],
      [
        'paragraph',
        'Dense retrieval maps every passage of a corpus to a vector, and a question to another one, so that the passages closest to the question are ' +
          'the ones that answer it best. We train the two encoders on questions paired with the passages that answer them, and we take one positive ' +
          'example for each question and keep the rest of the batch as negatives, which costs nothing.',
      ],
      ['footnote', '1 The code is released together with the paper.'],
      [
        'paragraph',
        'Earlier systems needed a sparse index built from term counts, and they could not match a question to a passage that says it in other words, ' +
          'as the answer usually does. Although the sparse methods are fast and set the results on several benchmarks that are used for open-domain ' +
          'QA datasets, they also suffer from two known weaknesses that this paper addresses in turn.',
      ],
      ['heading', '2 Method'],
      ['paragraph', 'We describe the model in this section, and we start with the two encoders and their training'],
      ['heading', '3 Results'],
      ['paragraph', 'the results of the experiments come after the method, in the order of the research questions.'],
    ]);
    expect(draft.elements.filter((e) => e.kind === 'page-furniture').map((e) => e.page)).toEqual([1, 1, 2, 2]);
  });

  test('a joined paragraph spans its pages and keeps every piece’s box, the first one as its bbox', async () => {
    const draft = await parse(TWO_COLUMNS);
    const [first, second] = body(draft).filter((e) => e.kind === 'paragraph');
    // Across the columns of page 1: two boxes on one page.
    expect(first!.page).toBe(1);
    expect(first!.pageEnd).toBeUndefined();
    expect(first!.bboxes!.map((b) => b.page)).toEqual([1, 1]);
    expect(first!.bboxes![0]).toEqual({ page: 1, ...first!.bbox! });
    expect(first!.bboxes![0]!.x0).toBeCloseTo(LEFT, 0);
    expect(first!.bboxes![1]!.x0).toBeCloseTo(RIGHT, 0);
    // Onto the next page.
    expect(second!.page).toBe(1);
    expect(second!.pageEnd).toBe(2);
    expect(second!.bboxes!.map((b) => b.page)).toEqual([1, 2]);
    expect(second!.bboxes![1]!.y0).toBeLessThan(60);
    // Paragraphs set in one piece have one box and no list.
    expect(body(draft).filter((e) => e.kind === 'paragraph').slice(2).every((e) => e.bboxes === undefined)).toBe(true);
  });

  test('a block below the last in its own column is a new paragraph; one ending like a sentence is not continued', async () => {
    const draft = await parse([
      {
        items: column(
          [
            { lines: ['This paragraph ends in the middle of its line', 'and the next paragraph starts under it in the'] },
            { lines: ['same column: a paragraph of its own, although', 'it starts in lowercase after an unfinished one.'], ends: true },
          ],
          LEFT,
          700,
          14,
        ).concat(column([{ lines: ['next column starts in lowercase but the one', 'before it ended like a sentence, so it stays.'], ends: true }], RIGHT, 700)),
      },
    ]);
    expect(body(draft).map((e) => e.text.slice(0, 24))).toEqual(['This paragraph ends in t', 'same column: a paragraph', 'next column starts in lo']);
  });
});

describe('accents drawn as glyphs of their own', () => {
  test('spacing accents over a letter, drawn after the word or before the letter, compose with it (NFC)', async () => {
    const y = 700;
    const draft = await parse([
      {
        items: [
          ...accented('Barlas Oguz', 8, '\u02d8', 72, y, 12),
          { text: 'and', size: 12, x: 140, y },
          ...accented('resume', 1, '\u00b4', 165, y, 12, true),
          { text: 'and', size: 12, x: 210, y },
          ...accented('naive', 2, '\u00a8', 235, y, 12),
          ...accented('Dvorak', 3, '\u02c7', 280, y, 12),
          { text: '~ and ^ stay where no letter is under them.', size: 12, x: 72, y: y - 16 },
        ],
      },
    ]);
    const text = body(draft).map((e) => e.text).join(' ');
    expect(text).toBe('Barlas Oğuz and résume and naïve Dvořak ~ and ^ stay where no letter is under them.');
    expect(text).toBe(text.normalize('NFC'));
  });

  test.skipIf(!hasShared)('corpus multi-column-2p.pdf: Oğuz, d-dimensional and the paragraph across the page', async () => {
    const bytes = readFileSync(corpus('pdf/multi-column-2p.pdf'));
    const draft = await pdfParser.parse({ bytes, name: 'multi-column-2p.pdf' }, {});
    const paragraphs = body(draft).filter((e) => e.kind === 'paragraph');
    const byStart = (start: string): ElementDraft => paragraphs.find((e) => e.text.startsWith(start))!;
    expect(byStart('Vladimir Karpukhin').text).toContain('Barlas Oğuz');
    // Split by a math symbol's tall box before; now one paragraph, and `d-` keeps its hyphen.
    expect(byStart('Our dense passage retriever').text).toContain('maps any text passage to a d-dimensional real-valued vectors and builds an index');
    // From the foot of page 1's second column onto page 2, continued by a capitalised token.
    const across = byStart('However, it is generally believed');
    expect(across.text).toContain('results on multiple open-domain QA datasets, it also suffers from two weaknesses. First, ICT pretraining');
    expect(across.text.endsWith('the corresponding representations could be suboptimal.')).toBe(true);
    expect([across.page, across.pageEnd, across.bboxes?.length]).toEqual([1, 2, 2]);
    expect(paragraphs.some((e) => e.text.startsWith('QA datasets') || e.text.startsWith('dimensional') || e.text.startsWith('First, ICT'))).toBe(false);
    // Footnotes stay out of the joins.
    expect(body(draft).filter((e) => e.kind === 'footnote').map((e) => e.text.slice(0, 12))).toEqual(['∗Equal contr', '2 For instan', '3The ideal s', '4Exceptions ']);
  });
});

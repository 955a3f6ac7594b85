import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { afterAll, describe, expect, test } from 'vitest';
import { closeOcr, decodeImage, ocrAvailable } from '../../src/ocr/index.js';
import { recognizeWithCli } from '../../src/ocr/engine-cli.js';
import { cliLanguages } from '../../src/ocr/languages.js';
import { encodePnm, type Raster } from '../../src/ocr/raster.js';
import { parseTsv, type TsvPage } from '../../src/ocr/tsv.js';
import type { OcrBlock, OcrBox, OcrWord } from '../../src/ocr/types.js';
import { findVerticalColumns, rereadVerticalColumns, verticalLanguage, type VerticalReaders } from '../../src/ocr/vertical.js';
import { pdfParser } from '../../src/parsers/pdf.js';
import { corpus, hasShared } from '../helpers.js';

afterAll(closeOcr);

const EM = 40;

function page(width: number, height: number): Raster {
  return { width, height, channels: 1, data: new Uint8Array(width * height).fill(255) };
}

function fill(image: Raster, x0: number, y0: number, x1: number, y1: number): void {
  for (let y = y0; y < y1; y++) image.data.fill(0, y * image.width + x0, y * image.width + x1);
}

/** A stand-in for a CJK glyph in an em square: a radical (a bar) beside a framed box with a stroke across, two pieces of ink. */
function glyph(image: Raster, x: number, y: number, em = EM): void {
  const stroke = Math.max(2, Math.round(em / 12));
  fill(image, x + 2, y + 2, x + 2 + stroke, y + em - 2);
  const bx = x + Math.round(em * 0.35);
  fill(image, bx, y + 2, x + em - 2, y + 2 + stroke);
  fill(image, bx, y + em - 2 - stroke, x + em - 2, y + em - 2);
  fill(image, bx, y + 2, bx + stroke, y + em - 2);
  fill(image, x + em - 2 - stroke, y + 2, x + em - 2, y + em - 2);
  fill(image, bx, y + (em >> 1), x + em - 2, y + (em >> 1) + stroke);
}

function column(image: Raster, x: number, y: number, count: number, gap = 8): void {
  for (let i = 0; i < count; i++) glyph(image, x, y + i * (EM + gap));
}

function row(image: Raster, x: number, y: number, count: number, gap = 6): void {
  for (let i = 0; i < count; i++) glyph(image, x + i * (EM + gap), y);
}

describe('findVerticalColumns (synthetic rasters)', () => {
  test('a column of five stacked glyphs beside horizontal lines is found, glyph by glyph', () => {
    const image = page(900, 700);
    column(image, 100, 100, 5);
    for (let line = 0; line < 3; line++) row(image, 260, 120 + line * 56, 10);
    const columns = findVerticalColumns(image);
    expect(columns).toHaveLength(1);
    const [found] = columns;
    expect(found!.glyphs).toHaveLength(5);
    expect(found!.box.x0).toBeLessThanOrEqual(102);
    expect(found!.box.x1).toBeGreaterThanOrEqual(138);
    expect(found!.box.x1).toBeLessThan(150);
    expect(found!.box.y0).toBeLessThanOrEqual(102);
    expect(found!.box.y1).toBeGreaterThanOrEqual(100 + 5 * EM + 4 * 8 - 2);
    expect(found!.em).toBeGreaterThan(EM * 0.8);
    expect(found!.em).toBeLessThan(EM * 1.2);
  });

  test('horizontal text, a paragraph of short lines, a vertical rule and a lone tall letter are no columns', () => {
    const image = page(900, 700);
    for (let line = 0; line < 6; line++) row(image, 60, 60 + line * 52, line % 2 ? 2 : 9);
    fill(image, 700, 50, 704, 650);
    fill(image, 800, 100, 812, 300);
    expect(findVerticalColumns(image)).toEqual([]);
  });

  test('a stack with ink right beside it is part of a wider text, not a column', () => {
    const image = page(600, 500);
    column(image, 100, 60, 5);
    // Glyphs a sixth of an em to the right of the column, level with its middle.
    glyph(image, 100 + EM + 6, 60 + 2 * (EM + 8));
    expect(findVerticalColumns(image)).toEqual([]);
  });

  test('glyphs that touch through a thin stroke are cut apart; one long stroke is not', () => {
    const image = page(600, 500);
    column(image, 100, 60, 4, 4);
    // A hairline joining the second and third glyphs (blur in a small JPEG does this).
    fill(image, 118, 60 + 2 * EM + 4 - 4, 120, 60 + 2 * EM + 8 + 4);
    const columns = findVerticalColumns(image);
    expect(columns).toHaveLength(1);
    expect(columns[0]!.glyphs).toHaveLength(4);
  });

  test('a blank page has no columns', () => {
    expect(findVerticalColumns(page(300, 300))).toEqual([]);
  });

  test('vertical models exist for the CJK languages only', () => {
    expect(verticalLanguage('chi_sim')).toBe('chi_sim_vert');
    expect(verticalLanguage('jpn')).toBe('jpn_vert');
    expect(verticalLanguage('eng')).toBeUndefined();
  });
});

function word(text: string, conf: number, bbox: OcrBox): OcrWord {
  return { text, conf, bbox };
}

function block(words: OcrWord[], number: number): OcrBlock {
  const bbox = { x0: Math.min(...words.map((w) => w.bbox.x0)), y0: Math.min(...words.map((w) => w.bbox.y0)), x1: Math.max(...words.map((w) => w.bbox.x1)), y1: Math.max(...words.map((w) => w.bbox.y1)) };
  const text = words.map((w) => w.text).join(' ');
  return { text, bbox, lines: [{ text, bbox, words, size: bbox.y1 - bbox.y0 }], block: number };
}

function tsvOf(words: OcrWord[]): TsvPage {
  return { width: 100, height: 100, blocks: words.length ? [block(words, 1)] : [], confidence: 0 };
}

describe('rereadVerticalColumns', () => {
  const image = page(900, 700);
  column(image, 100, 100, 5);
  row(image, 260, 400, 6);
  const columns = findVerticalColumns(image);
  const title = block([word('横向', 95, { x0: 260, y0: 40, x1: 340, y1: 80 })], 1);
  const junk = block([word('TAP', 0, { x0: 100, y0: 100, x1: 140, y1: 180 }), word('Ot', 15, { x0: 100, y0: 200, x1: 140, y1: 260 })], 2);
  const english = block([word('English', 97, { x0: 260, y0: 400, x1: 540, y1: 440 })], 3);
  const blocks = [title, junk, english];
  // The whole laid-out line read as one word.
  const lineOf = (text: string, conf: number): VerticalReaders['line'] => async (line) => tsvOf([word(text, conf, { x0: 0, y0: 0, x1: line.width, y1: line.height })]);

  test('junk in the column is replaced by a clearly better CJK reading, in its place', async () => {
    const result = await rereadVerticalColumns(blocks, image, 1, { line: lineOf('竖向文本框', 88) }, columns);
    expect(result.blocks.map((b) => b.text)).toEqual(['横向', '竖向文本框', 'English']);
    expect(result.replaced).toMatchObject([{ source: 'line', text: '竖向文本框' }]);
    const column = result.blocks[1]!;
    expect(column.bbox.x0).toBeLessThan(110);
    expect(column.lines[0]!.words[0]!.bbox.y1).toBeGreaterThan(260);
  });

  test('the vertical model wins when it reads better; words are mapped onto the glyphs in order', async () => {
    const vertical: VerticalReaders['vertical'] = async () => tsvOf([word('竖', 90, { x0: 0, y0: 0, x1: 60, y1: 280 }), word('向文本框', 92, { x0: 0, y0: 50, x1: 60, y1: 280 })]);
    const result = await rereadVerticalColumns(blocks, image, 1, { vertical, line: lineOf('坚向文本杠', 70) }, columns);
    expect(result.replaced).toMatchObject([{ source: 'vertical', text: '竖向文本框' }]);
    const [first, rest] = result.blocks[1]!.lines[0]!.words;
    expect(first!.bbox.y1).toBeLessThan(first!.bbox.y0 + EM * 1.3);
    expect(rest!.bbox.y0).toBeGreaterThanOrEqual(first!.bbox.y1 - 8);
  });

  test('a reading that is not clearly better, or not CJK, changes nothing; well-read words are not read again', async () => {
    expect((await rereadVerticalColumns(blocks, image, 1, { line: lineOf('竖向', 25) }, columns)).blocks).toEqual(blocks);
    expect((await rereadVerticalColumns(blocks, image, 1, { line: lineOf('Tower', 96) }, columns)).blocks).toEqual(blocks);
    const read = block([word('竖向文本框', 91, { x0: 100, y0: 100, x1: 140, y1: 330 })], 2);
    let calls = 0;
    const counting: VerticalReaders['line'] = async () => {
      calls++;
      return tsvOf([]);
    };
    expect((await rereadVerticalColumns([title, read], image, 1, { line: counting }, columns)).blocks).toEqual([title, read]);
    expect(calls).toBe(0);
  });
});

/** The picture inside the corpus's ocr_test_zh.docx (the same one the PDF and PPTX show). */
async function testPicture(): Promise<Raster> {
  const files = unzipSync(readFileSync(corpus('docx/ocr_test_zh.docx')));
  return (await decodeImage(files['word/media/image1.jpeg']!))[0]!;
}

async function cliRead(image: Raster, lang: string, psm: number): Promise<TsvPage> {
  return parseTsv(await recognizeWithCli({ image: encodePnm(image), lang, psm }));
}

const cliHas = (lang: string): boolean => cliLanguages()?.has(lang) ?? false;

describe.skipIf(!hasShared)('vertical text on the corpus', () => {
  test('the test picture holds one vertical column of five glyphs', async () => {
    const columns = findVerticalColumns(await testPicture());
    expect(columns).toHaveLength(1);
    expect(columns[0]!.glyphs).toHaveLength(5);
  });

  // 竖 reads as 坚 with every model tried (chi_sim and chi_sim_vert, 0.5x-2x, binarized): only 向文本框 is asserted.
  test.skipIf(!cliHas('chi_sim'))('without vertical data: the glyphs laid out on one line read with chi_sim', async () => {
    const image = await testPicture();
    const result = await rereadVerticalColumns([], image, 1, { line: (row) => cliRead(row, 'chi_sim', 7) });
    expect(result.replaced).toMatchObject([{ source: 'line' }]);
    expect(result.replaced[0]!.text).toContain('向文本框');
  }, 60_000);

  test.skipIf(!cliHas('chi_sim_vert'))('with chi_sim_vert: the column read as vertical text', async () => {
    const image = await testPicture();
    const none: VerticalReaders['line'] = async () => tsvOf([]);
    const result = await rereadVerticalColumns([], image, 1, { vertical: (crop) => cliRead(crop, 'chi_sim_vert', 5), line: none });
    expect(result.replaced).toMatchObject([{ source: 'vertical' }]);
    expect(result.replaced[0]!.text).toContain('向文本');
  }, 60_000);

  test.skipIf(!ocrAvailable('eng+chi_sim').ok || !ocrAvailable('chi_sim_vert').ok)('ocr_test_zh.pdf: the vertical text box reads as Chinese between the horizontal one and the English text', async () => {
    const bytes = readFileSync(corpus('pdf-scanned/ocr_test_zh.pdf'));
    const draft = await pdfParser.parse({ bytes, name: 'ocr_test_zh.pdf' }, { ocrLang: 'eng+chi_sim' });
    const text = draft.elements.map((e) => e.text).join('\n');
    // Before: `TAP Ot ot Ki` for the vertical box.
    expect(text).toMatch(/横向文本.\n.向文本框\nEnglish text/);
    expect(text).not.toMatch(/TAP|Ki\b/);
  }, 60_000);
});

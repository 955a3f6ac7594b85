import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, test } from 'vitest';
import { closeOcr, ocrAvailable } from '../../src/ocr/index.js';
import { parse } from '../../src/parse.js';
import { imageParser } from '../../src/parsers/image.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared } from '../helpers.js';
import { csvRows } from '../pdf/quality.js';
import { cellAgreement } from './similarity.js';

registerParser(imageParser);
afterAll(closeOcr);

describe('image parser', () => {
  test('OCR off: an image has no text, EMPTY says how to enable it', async () => {
    const png = Uint8Array.from(Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b55', 'hex'));
    await expect(parse(png, { name: 'x.png', ocr: 'off' })).rejects.toMatchObject({ code: 'EMPTY', message: expect.stringContaining('--ocr auto') });
  });

  test('a truncated PNG is CORRUPT', async () => {
    const png = Uint8Array.from(Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b55', 'hex'));
    await expect(parse(png, { name: 'x.png' })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

describe.skipIf(!hasShared)('image parser on the corpus', () => {
  test('table image: the whole ruled table matches the hand-made CSV', async () => {
    const doc = await parse(corpus('images/table-multi-row-column-cells.png'), { ocrLang: 'eng' });
    expect(doc.format).toBe('image');
    expect(doc.metadata).toMatchObject({ width: 1377, height: 648, ocr: { lang: 'eng' } });
    const tables = doc.elements.filter((e) => e.kind === 'table');
    expect(tables).toHaveLength(1);
    const ours = tables[0]!.table!.rows.map((r) => r.map((c) => c.text));
    const expected = csvRows(readFileSync(corpus('images/table-multi-row-column-cells.png.expected.csv'), 'utf8'));
    // Measured 1.0 (0.889 before poorly read header cells were read again on their own).
    expect(cellAgreement(ours, expected)).toBeGreaterThanOrEqual(0.97);
    expect(tables[0]!.bbox!.x0).toBeGreaterThan(40);
    expect(doc.elements.filter((e) => e.kind !== 'table').map((e) => e.text).join(' ')).not.toContain('Blind');
  }, 60_000);

  test('multi-page TIFF: one page each, in order', async () => {
    const doc = await parse(corpus('images/testTIFF_multipage.tif'), { ocrLang: 'eng' });
    expect(doc.pageCount).toBe(2);
    expect(doc.elements.map((e) => [e.page, e.text])).toEqual([
      [1, 'Multipage TIFF Example Page 1'],
      [2, 'Multipage TIFF Example Page 2'],
    ]);
  }, 60_000);

  test.skipIf(ocrAvailable('jpn').ok)('a language without data (jpn here) is UNSUPPORTED, naming the package to install', async () => {
    await expect(parse(corpus('images/jpn-vert.jpeg'), { ocrLang: 'jpn' })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringContaining('@tesseract.js-data/jpn'),
    });
  });
});

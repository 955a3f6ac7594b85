import { afterEach, describe, expect, test } from 'vitest';
import type { OcrPage } from '../../src/ocr/types.js';
import { pdfParser, setPdfOcr } from '../../src/parsers/pdf.js';
import { loadEngine } from '../../src/pdf/engine.js';
import { encodeGrayPng, renderPdfPage } from '../../src/pdf/render.js';
import { minimalPdf, minimalPdfPages, scannedPdf } from './fixtures.js';

function line(text: string, x0: number, y0: number, height: number) {
  const bbox = { x0, y0, x1: x0 + text.length * height * 0.5, y1: y0 + height };
  return { text, bbox, words: [{ text, bbox, conf: 90 }], size: height };
}

describe('OCR of pages without a text layer', () => {
  afterEach(() => setPdfOcr(undefined));

  test('without an OCR engine the page is reported', async () => {
    setPdfOcr(null);
    const draft = await pdfParser.parse({ bytes: scannedPdf(), name: 'scan.pdf' }, {});
    expect(draft.warnings).toContain('page 1 has no text layer; OCR unavailable');
  });

  test('OCR output becomes headings and paragraphs in points', async () => {
    let seen: { width: number; height: number; dpi: number } | undefined;
    setPdfOcr(async (image, options) => {
      seen = { width: image.width, height: image.height, dpi: image.dpi };
      expect(options.lang).toBe('eng');
      // At 300 dpi a 24 pt heading is 100 px tall, 11 pt body text 46 px.
      const page: OcrPage = {
        width: image.width,
        height: image.height,
        angle: 0,
        engine: 'tesseract-cli',
        lang: 'eng',
        confidence: 90,
        sourceWidth: image.width,
        sourceHeight: image.height,
        blocks: [
          { text: 'Scanned Title', bbox: { x0: 300, y0: 300, x1: 900, y1: 400 }, lines: [line('Scanned Title', 300, 300, 100)], block: 1 },
          {
            text: 'First body line of the scan, continued here.',
            bbox: { x0: 300, y0: 500, x1: 2000, y1: 620 },
            lines: [line('First body line of the scan,', 300, 500, 46), line('continued here.', 300, 560, 46)],
            block: 2,
          },
          { text: 'Another paragraph.', bbox: { x0: 300, y0: 700, x1: 1000, y1: 746 }, lines: [line('Another paragraph.', 300, 700, 46)], block: 3 },
        ],
      };
      return page;
    });
    const draft = await pdfParser.parse({ bytes: scannedPdf(), name: 'scan.pdf' }, { ocrLang: 'eng' });
    expect(seen).toEqual({ width: 2550, height: 3300, dpi: 300 });
    expect(draft.elements.map((e) => [e.kind, e.text])).toEqual([
      ['heading', 'Scanned Title'],
      ['paragraph', 'First body line of the scan, continued here.'],
      ['paragraph', 'Another paragraph.'],
    ]);
    expect(draft.elements[0]!.bbox).toEqual({ x0: 72, y0: 72, x1: 216, y1: 96 });
    expect(draft.warnings?.some((w) => w.startsWith('page 1 OCRed (tesseract-cli, eng'))).toBe(true);
  });

  test("ocr 'off' leaves the page alone", async () => {
    setPdfOcr(() => Promise.reject(new Error('must not be called')));
    const draft = await pdfParser.parse({ bytes: scannedPdf(), name: 'scan.pdf' }, { ocr: 'off' });
    expect(draft.elements).toEqual([]);
    expect(draft.warnings).toContain('page 1 has no text layer; OCR is off');
  });

  test("a page is rendered for OCR in a PDFium instance of its own: the same pixels, and the thread's engine does not keep the bitmap", async () => {
    // Larger than the other tests' pages (their renders may have grown the engine's heap already): 3825 x 4950 px, 76 MB as BGRx.
    const bytes = minimalPdfPages([{ items: [], image: true, mediaBox: [0, 0, 918, 1188] }]);
    const engine = await loadEngine();
    const heapBefore = engine.heap().HEAPU8.length;
    const pixels: Uint8Array[] = [];
    setPdfOcr(async (image) => {
      pixels.push(image.data);
      return { width: image.width, height: image.height, angle: 0, engine: 'tesseract-cli', lang: 'eng', confidence: 90, sourceWidth: image.width, sourceHeight: image.height, blocks: [] };
    });
    await pdfParser.parse({ bytes, name: 'scan.pdf' }, { ocrLang: 'eng' });
    expect(pixels).toHaveLength(1);
    // Rendered in the thread's engine, its heap would have grown by the bitmap.
    expect(engine.heap().HEAPU8.length).toBe(heapBefore);
    const inEngine = await renderPdfPage(bytes, 0, { dpi: 300 });
    expect(Buffer.from(pixels[0]!).equals(Buffer.from(inEngine.data))).toBe(true);
  });
});

describe('blank pages', () => {
  test('a page with neither text nor images is not OCRed', async () => {
    setPdfOcr(() => Promise.reject(new Error('must not be called')));
    const draft = await pdfParser.parse({ bytes: minimalPdf([]), name: 'blank.pdf' }, {});
    expect(draft.elements).toEqual([]);
    expect(draft.warnings).toEqual([]);
    setPdfOcr(undefined);
  });
});

describe('page rendering', () => {
  test('renders a page to grey pixels and PNG', async () => {
    const bytes = minimalPdf([{ text: 'MMMMMMMM', size: 40, x: 72, y: 700 }]);
    const image = await renderPdfPage(bytes, 0, { dpi: 72 });
    expect(image).toMatchObject({ width: 612, height: 792, dpi: 72 });
    // Ink under the text (top-left origin: y = 792 - 700 - a little), white paper elsewhere.
    let dark = 0;
    for (let y = 60; y < 92; y++) for (let x = 72; x < 300; x++) if (image.data[y * 612 + x]! < 128) dark++;
    expect(dark).toBeGreaterThan(500);
    expect(image.data[700 * 612 + 500]).toBe(255);
    const png = encodeGrayPng(image);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });
});

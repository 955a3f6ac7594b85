import { ocrBoxToSource } from '../ocr/layout.js';
import type { OcrPage } from '../ocr/types.js';
import type { Block } from './blocks.js';
import type { PageItem } from './layout.js';
import type { Line } from './lines.js';
import type { GrayPage } from './render.js';

/**
 * OCR of PDF pages without a usable text layer, by src/ocr (loaded only when a page needs it;
 * `setPdfOcr` swaps the engine, e.g. in tests). OCR output is
 * mapped back into the same lines and blocks as a text layer (pixels -> points), so headings by
 * size, furniture and paragraph joining work on scans too.
 */
export type PdfOcrFunction = (image: GrayPage, options: { lang: string }) => Promise<OcrPage>;

/** The default: src/ocr (Tesseract CLI or tesseract.js), loaded only when a page needs it. */
const tesseractOcr: PdfOcrFunction = async (image, options) => {
  const { ocrRaster } = await import('../ocr/index.js');
  return ocrRaster({ width: image.width, height: image.height, channels: 1, data: image.data }, { lang: options.lang, dpi: image.dpi });
};

let ocrFunction: PdfOcrFunction | null = tesseractOcr;

/** Replaces the function that OCRs a rendered page: undefined restores the default, null turns OCR off. */
export function setPdfOcr(fn: PdfOcrFunction | null | undefined): void {
  ocrFunction = fn === undefined ? tesseractOcr : fn;
}

export function pdfOcr(): PdfOcrFunction | null {
  return ocrFunction;
}

/**
 * OCR blocks as page items in points; `scale` = 72 / dpi of the render. Lines keep the upright
 * frame the OCR read them in (structure follows the text); a rotated scan's element boxes are mapped
 * back onto the page.
 */
export function ocrToItems(ocr: OcrPage, pageIndex: number, scale: number): PageItem[] {
  const items: PageItem[] = [];
  ocr.blocks.forEach((ocrBlock, b) => {
    const lines: Line[] = ocrBlock.lines
      .filter((l) => l.text.trim() !== '')
      .map((l) => ({
        text: l.text.trim(),
        x0: l.bbox.x0 * scale,
        y0: l.bbox.y0 * scale,
        x1: l.bbox.x1 * scale,
        y1: l.bbox.y1 * scale,
        // Word height in pixels is roughly cap-to-descender: about the font size.
        size: Math.round(l.size * scale * 2) / 2,
        bold: false,
        italic: false,
        mono: false,
        rtl: false,
        font: -1,
        chars: l.text.length,
        region: b,
      }));
    if (lines.length === 0) return;
    const box = ocr.angle === 0 ? ocrBlock.bbox : ocrBoxToSource(ocrBlock.bbox, ocr);
    const block: Block = { lines, x0: box.x0 * scale, y0: box.y0 * scale, x1: box.x1 * scale, y1: box.y1 * scale, page: pageIndex };
    items.push({ type: 'block', block });
  });
  return items;
}

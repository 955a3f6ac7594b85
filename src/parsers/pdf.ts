import type { DocumentDraft } from '../document/types.js';
import { ocrToItems } from '../ocr/items.js';
import type { OcrPage } from '../ocr/types.js';
import type { PageRecognizer } from '../pdf/ocr.js';
import { parsePdf } from '../pdf/parse.js';
import type { GrayPage } from '../pdf/render.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

/**
 * PDF through PDFium (WebAssembly): per-character layout -> runs -> reading order (columns) ->
 * blocks -> headings, lists, captions, footnotes, code, ruled and unruled tables; running headers
 * and footers removed by repetition. See docs/pdf.md.
 */
export const pdfParser: ParserDefinition = {
  formats: ['pdf'],
  version: '2',
  textual: false,
  parse(input: ParseInput, options: ParseOptions): Promise<DocumentDraft> {
    return parsePdf(input.bytes, { ...options, ...(input.name !== undefined && { name: input.name }) }, pageRecognizer());
  },
};

/**
 * OCR of a rendered PDF page: src/ocr (Tesseract CLI or tesseract.js), loaded only when a page
 * needs it; `setPdfOcr` swaps it (tests).
 */
export type PdfOcrFunction = (image: GrayPage, options: { lang: string }) => Promise<OcrPage>;

const tesseractOcr: PdfOcrFunction = async (image, options) => {
  const { ocrRaster } = await import('../ocr/index.js');
  return ocrRaster({ width: image.width, height: image.height, channels: 1, data: image.data }, { lang: options.lang, dpi: image.dpi });
};

let ocrFunction: PdfOcrFunction | null = tesseractOcr;

/** Replaces the function that OCRs a rendered page: undefined restores the default, null turns OCR off. */
export function setPdfOcr(fn: PdfOcrFunction | null | undefined): void {
  ocrFunction = fn === undefined ? tesseractOcr : fn;
}

/**
 * The PDF parser's recognizer: the OCR function's words mapped back into the same lines, blocks
 * and tables as a text layer (pixels -> points), so headings by size, furniture and paragraph
 * joining work on scans too.
 */
function pageRecognizer(): PageRecognizer | null {
  const ocr = ocrFunction;
  if (!ocr) return null;
  return async (image, { lang, pageIndex }) => {
    const page = await ocr(image, { lang });
    return { items: ocrToItems(page, pageIndex, 72 / image.dpi, page.rules), engine: page.engine, lang: page.lang, confidence: page.confidence };
  };
}

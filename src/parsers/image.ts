import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { DEFAULT_OCR_LANG, ocrRaster, ocrPageToElements, type OcrPage } from '../ocr/index.js';
import { decodeImage, imageKind, type Raster } from '../ocr/raster.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

const MIME: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', tiff: 'image/tiff', bmp: 'image/bmp', webp: 'image/webp', gif: 'image/gif' };
/** Below this mean word confidence the document carries a warning that the text may be unreliable. */
const LOW_CONFIDENCE_WARNING = 60;

/**
 * Images (PNG, JPEG, TIFF incl. multi-page, BMP, WebP) through OCR: one page per image page, text
 * as paragraphs, headings, list items and tables (ocr/layout.ts), boxes in image pixels. An image
 * has no text without OCR, so `ocr: 'off'` (or OCR finding nothing) is EMPTY, and missing OCR
 * languages are UNSUPPORTED with what to install.
 */
export const imageParser: ParserDefinition = {
  formats: ['image'],
  version: '2',
  textual: false,
  async parse(input: ParseInput, options: ParseOptions): Promise<DocumentDraft> {
    const kind = imageKind(input.bytes);
    const mime = kind ? MIME[kind]! : 'application/octet-stream';
    if (options.ocr === 'off') {
      throw new GroundworkError('EMPTY', "is an image, which has text only through OCR, and OCR is off: parse with ocr 'auto' (CLI: --ocr auto)");
    }
    let pages: Raster[];
    try {
      pages = await decodeImage(input.bytes);
    } catch (error) {
      throw new GroundworkError('CORRUPT', `the image cannot be decoded: ${(error as Error).message}`, { cause: error });
    }
    const lang = options.ocrLang ?? DEFAULT_OCR_LANG;
    const elements: ElementDraft[] = [];
    const warnings: string[] = [];
    const results: OcrPage[] = [];
    for (let i = 0; i < pages.length; i++) {
      const page = await ocrRaster(pages[i]!, { lang });
      results.push(page);
      elements.push(...ocrPageToElements(page, i + 1, 1, page.rules));
      if (page.angle !== 0) warnings.push(`page ${i + 1}: the image was rotated by ${page.angle} degrees before OCR`);
    }
    const words = results.reduce((n, p) => n + p.blocks.reduce((m, b) => m + b.lines.reduce((k, l) => k + l.words.length, 0), 0), 0);
    const confidence = words ? results.reduce((s, p) => s + p.confidence * p.blocks.reduce((m, b) => m + b.lines.reduce((k, l) => k + l.words.length, 0), 0), 0) / words : 0;
    if (elements.length === 0) {
      throw new GroundworkError('EMPTY', `OCR (${results[0]?.engine ?? 'tesseract'}, languages ${lang}) found no text in the image; if it holds text in another language, pass ocrLang (CLI: --ocr-lang, e.g. jpn)`);
    }
    if (confidence < LOW_CONFIDENCE_WARNING) warnings.push(`OCR confidence is low (${confidence.toFixed(0)}/100): the text may be unreliable`);
    const first = pages[0]!;
    return {
      format: 'image',
      mime,
      pageCount: pages.length,
      metadata: {
        width: first.width,
        height: first.height,
        ...(pages.length > 1 && { pages: pages.map((p) => ({ width: p.width, height: p.height })) }),
        ocr: { engine: results[0]!.engine, lang, confidence: Math.round(confidence * 10) / 10, words },
      },
      elements,
      warnings,
    };
  },
};

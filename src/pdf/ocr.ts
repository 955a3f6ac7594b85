import type { PageItem } from '../layout/page.js';
import type { GrayPage } from './render.js';

/**
 * OCR of PDF pages without a usable text layer goes through this interface, not an import of an
 * engine: the PDF parser (src/parsers/pdf.ts) passes src/ocr's recognizer (or a test's), and
 * `parsePdf` without one reports such pages as unread.
 */

/** A rendered page's text as an OCR engine read it, as layout items in points. */
export interface RecognizedPage {
  /** Blocks and tables in the page's frame (points): headings by size, furniture and joins work on them as on a text layer. */
  items: PageItem[];
  /** For the page's warning: engine, languages, mean word confidence 0-100. */
  engine: string;
  lang: string;
  confidence: number;
}

/**
 * Reads one rendered page (grey pixels at `image.dpi`). Rejects with an UNSUPPORTED
 * GroundworkError when no engine can read `options.lang`.
 */
export type PageRecognizer = (image: GrayPage, options: { lang: string; pageIndex: number }) => Promise<RecognizedPage>;

import type { PageRules } from '../layout/rules.js';

/** Boxes are in pixels of the upright page (after the rotation in `OcrPage.angle`), at the image's own resolution. */
export interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface OcrWord {
  text: string;
  bbox: OcrBox;
  /** Tesseract's word confidence, 0-100. */
  conf: number;
}

export interface OcrLine {
  text: string;
  bbox: OcrBox;
  words: OcrWord[];
  /** Median word height in pixels: the line's type size, for heading detection. */
  size: number;
}

/** One paragraph as Tesseract segmented it, in reading order. */
export interface OcrBlock {
  /** The paragraph's lines joined: hyphenation repaired for Latin text, no spaces inserted between CJK characters. */
  text: string;
  bbox: OcrBox;
  lines: OcrLine[];
  /** Tesseract's block number (1-based): paragraphs of one column or region share it. */
  block: number;
}

export type OcrEngineName = 'tesseract-cli' | 'tesseract.js';

export interface OcrPage {
  width: number;
  height: number;
  blocks: OcrBlock[];
  /** Rotation applied to the image before recognition, clockwise degrees (quarter turns plus deskew). */
  angle: number;
  engine: OcrEngineName;
  lang: string;
  /** Mean word confidence 0-100 (0 when no words were found). */
  confidence: number;
  /** Size of the image as given, before rotation: `ocrBoxToSource` maps boxes back into it. */
  sourceWidth: number;
  sourceHeight: number;
  /**
   * Horizontal and vertical lines drawn on the page (table rules), in the same upright frame and
   * pixels as the words; found on the image that was read, so they line up on rotated scans too.
   */
  rules?: PageRules;
}

export interface OcrOptions {
  /** Tesseract languages joined by '+', the first being the main one. Default 'eng+chi_sim'. */
  lang?: string;
  /** Resolution of the image when known (a rendered PDF page); otherwise Tesseract estimates it from the text. */
  dpi?: number;
  /** Tesseract page segmentation mode. Default 3 (automatic, keeps columns apart). */
  psm?: number;
  /** Force an engine; default: $GROUNDWORK_OCR_ENGINE, else the tesseract CLI when it has the languages, else tesseract.js. */
  engine?: 'cli' | 'tesseract.js';
  /** Look for rotated (90/180/270) and skewed scans. Default true. */
  detectOrientation?: boolean;
}

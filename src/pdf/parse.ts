import type { DocumentDraft } from '../document/types.js';
import { GroundworkError, isGroundworkError } from '../errors.js';
import type { ParseOptions } from '../parsers/types.js';
import { loadEngine, loadScratchEngine, openDocument, type Engine, type OpenedDocument } from './engine.js';
import { damageWarnings, inspectPdf, openFailureReason, type PdfStructure } from './integrity.js';
import type { PageItem, PageLayout } from '../layout/page.js';
import { readMetadata, type PdfMetadata } from './metadata.js';
import { analysePages, pageWorkerCount } from './page-pool.js';
import { PageReader } from './page-range.js';
import type { PageRecognizer } from './ocr.js';
import { renderPageGray, type GrayPage } from './render.js';
import { buildStructure } from '../layout/structure.js';

/** Pages with fewer characters than this and no usable text are treated as having no text layer. */
const MIN_TEXT_CHARS = 8;
/** Render resolution for OCR: small print needs 300 dpi. */
const OCR_DPI = 300;
const DEFAULT_OCR_LANG = 'eng+chi_sim';

/**
 * Parses PDF bytes into a document draft, page by page (each PDFium page is closed before the next
 * is loaded, so memory stays bounded by one page plus the extracted text). Pages without a usable
 * text layer are rendered and read by `recognize` (none: they are reported as unread).
 */
export async function parsePdf(bytes: Uint8Array, options: ParseOptions & { name?: string }, recognize: PageRecognizer | null = null): Promise<DocumentDraft> {
  const engine = await loadEngine();
  // PDFium repairs damaged files silently: the bytes tell what it had to repair.
  const integrity = inspectPdf(bytes);
  const doc = openChecked(engine, bytes, options, integrity);
  // The reader owns the document from here: it may swap it for a fresh copy to bound memory.
  const reader = new PageReader(engine, doc);
  const pages: PageLayout[] = [];
  const warnings: string[] = [];
  let metadata: PdfMetadata;
  try {
    metadata = readMetadata(engine, doc.handle);
    const source = { bytes, password: options.password };
    for (const page of await analysePages(reader, source, pageWorkerCount(doc.pageCount), warnings)) pages.push(page);
    const pageChars = new Array<number>(doc.pageCount).fill(0);
    for (const page of pages) pageChars[page.index] = page.chars;
    warnings.push(...damageWarnings(bytes, integrity, pageChars));
    const totalChars = pages.reduce((n, p) => n + p.chars, 0);
    if ((doc.encrypted || integrity.encrypted) && totalChars === 0 && !options.password) {
      warnings.push('the PDF is encrypted and yielded no text: if it needs a password, supply it (--password)');
    }
    await ocrPages(bytes, pages, options, recognize, warnings);
  } finally {
    reader.close();
  }
  const structure = buildStructure(pages);
  warnings.push(...structure.warnings);
  const title = documentTitle(metadata.title, structure.title);
  return {
    format: 'pdf',
    mime: 'application/pdf',
    pageCount: doc.pageCount,
    ...(title !== undefined && { title }),
    metadata: { ...metadata },
    elements: structure.elements,
    warnings,
  };
}

/** Opens the document; when PDFium cannot, the bytes say why where they can (truncated, no header, broken xref). */
function openChecked(engine: Engine, bytes: Uint8Array, options: ParseOptions & { name?: string }, integrity: PdfStructure): OpenedDocument {
  try {
    return openDocument(engine, bytes, options.password, options.name);
  } catch (error) {
    const reason = isGroundworkError(error) && error.code === 'CORRUPT' ? openFailureReason(integrity) : undefined;
    if (reason === undefined) throw error;
    throw new GroundworkError('CORRUPT', reason, { ...(options.name !== undefined && { file: options.name }), cause: error });
  }
}

/** Why a page needs OCR in 'auto' mode, or undefined when its text layer is usable. */
function missingText(page: PageLayout): string | undefined {
  // A page with no text and no image is blank: nothing to read.
  if (page.chars < MIN_TEXT_CHARS) return page.images > 0 ? 'has no text layer' : undefined;
  if (page.unmapped * 2 > page.chars) return 'has no usable text layer (fonts without a Unicode map)';
  return undefined;
}

/**
 * Renders and OCRs the pages that need it ('auto': no usable text layer; 'on': every page), one at
 * a time so memory holds one rendered page; the OCR text replaces the page's text layer. Each page
 * is rendered by `renderApart`, so the render's memory is gone before the recognizer (a Tesseract
 * process beside this one) runs.
 */
async function ocrPages(bytes: Uint8Array, pages: PageLayout[], options: ParseOptions, ocr: PageRecognizer | null, warnings: string[]): Promise<void> {
  const mode = options.ocr ?? 'auto';
  const lang = options.ocrLang ?? DEFAULT_OCR_LANG;
  for (const page of pages) {
    const why = missingText(page);
    if (mode === 'off' || (mode === 'auto' && !why)) {
      if (why) warnings.push(`page ${page.index + 1} ${why}; OCR is off`);
      continue;
    }
    if (!ocr) {
      warnings.push(`page ${page.index + 1} ${why ?? 'was to be OCRed'}; OCR unavailable`);
      continue;
    }
    try {
      const image = await renderApart(bytes, options.password, page.index);
      const result = await ocr(image, { lang, pageIndex: page.index });
      page.items = mergeOcr(page.items, result.items);
      page.chars = page.items.reduce((n, item) => n + (item.type === 'block' ? item.block.lines.reduce((m, l) => m + l.chars, 0) : 0), 0);
      page.unmapped = 0;
      warnings.push(`page ${page.index + 1} OCRed (${result.engine}, ${result.lang}, mean confidence ${Math.round(result.confidence)})`);
    } catch (error) {
      if (isGroundworkError(error) && error.code === 'UNSUPPORTED') warnings.push(`page ${page.index + 1} ${why ?? 'was to be OCRed'}; OCR unavailable: ${error.message}`);
      else warnings.push(`page ${page.index + 1}: OCR failed (${(error as Error).message})`);
    }
  }
}

/**
 * Renders a page for OCR in a PDFium instance of its own, dropped (and collected, where the process
 * allows it: ingest workers run with `--expose-gc`) once the grey pixels are copied out. The
 * bitmap, 4 bytes a pixel, would otherwise grow the document's engine's heap for good: a worker's
 * tree peaked at its own RSS with that heap plus Tesseract's (docs/robustness.md, "The corpus batch
 * under 512 MB"). The same PDFium renders the same bytes, so the pixels are the same. The file's
 * bytes are copied into the instance for the render; a text-layer page never pays this.
 */
async function renderApart(bytes: Uint8Array, password: string | undefined, index: number): Promise<GrayPage> {
  const image = await renderInScratch(bytes, password, index);
  // The instance is unreachable once renderInScratch has returned (its frame held it).
  (globalThis as { gc?: () => void }).gc?.();
  return image;
}

async function renderInScratch(bytes: Uint8Array, password: string | undefined, index: number): Promise<GrayPage> {
  const engine = await loadScratchEngine();
  const doc = openDocument(engine, bytes, password);
  try {
    return renderPageGray(engine, doc, index, OCR_DPI);
  } finally {
    doc.close();
  }
}

/**
 * A page's text-layer items plus the OCR blocks that do not cover them (text drawn in images
 * beside real text), ordered top to bottom.
 */
function mergeOcr(textItems: PageItem[], ocrItems: PageItem[]): PageItem[] {
  const kept = textItems.filter((item) => item.type === 'table' || item.block.lines.length > 0);
  if (kept.length === 0) return ocrItems;
  const boxes = kept.map((item) => (item.type === 'block' ? item.block : item.table));
  const extra = ocrItems.filter((item) => {
    const b = item.type === 'block' ? item.block : item.table;
    const cx = (b.x0 + b.x1) / 2;
    const cy = (b.y0 + b.y1) / 2;
    return !boxes.some((t) => cx >= t.x0 - 2 && cx <= t.x1 + 2 && cy >= t.y0 - 2 && cy <= t.y1 + 2);
  });
  const top = (item: PageItem): number => (item.type === 'block' ? item.block.y0 : item.table.y0);
  return [...kept, ...extra].sort((a, b) => top(a) - top(b));
}

const FILE_LIKE = /^[^\s/]+\.[a-z0-9]{2,4}$|\.(?:pdf|docx?|pptx?|xlsx?|tex|dvi|indd|qxd)$|^microsoft (?:word|powerpoint|excel) - |^untitled/i;

/** The Info title when it is a real title (not a file name), else the layout's title (the most prominent early heading). */
function documentTitle(metaTitle: string | undefined, layoutTitle: string | undefined): string | undefined {
  if (metaTitle && !FILE_LIKE.test(metaTitle.trim())) return metaTitle.trim();
  return layoutTitle;
}

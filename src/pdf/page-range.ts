import type { FontTable } from './chars.js';
import type { Engine, OpenedDocument } from './engine.js';
import { analysePage, type PageLayout } from '../layout/page.js';
import { readPage } from './page.js';

/** One page read and analysed; a page that cannot be read is reported and left empty. */
export function analyseOne(engine: Engine, doc: OpenedDocument, i: number, fonts: FontTable, warnings: string[]): PageLayout {
  try {
    return analysePage(readPage(engine, doc, i, fonts));
  } catch (error) {
    warnings.push(`page ${i + 1} could not be read (${(error as Error).message}); skipped`);
    return { index: i, width: 0, height: 0, items: [], chars: 0, unmapped: 0, images: 0 };
  }
}

/** Growth of the wasm heap (bytes) since a document was opened after which pages are read from a fresh copy. */
export const RECYCLE_GROWTH = 32 * 1024 * 1024;

/**
 * The open document a thread reads its pages from; it owns the document it is given. PDFium keeps
 * every font and image a document has used until the document is closed, so a file whose pages
 * bring their own fonts (merged reports) would grow the heap with its length. Once the heap has
 * grown by `RECYCLE_GROWTH` since the document was opened, it is closed and opened again from the
 * bytes already in the heap before the next page (what it had cached is freed and reused). Files
 * whose pages share their fonts never grow that much.
 */
export class PageReader {
  private current: OpenedDocument;
  private heapAtOpen: number;
  /** Documents opened so far, the first one included. */
  opened = 1;

  constructor(
    private readonly engine: Engine,
    first: OpenedDocument,
    private readonly growth = RECYCLE_GROWTH,
  ) {
    this.current = first;
    this.heapAtOpen = engine.heap().HEAPU8.length;
  }

  /** The document open now (for rendering pages after the reading). */
  get document(): OpenedDocument {
    return this.current;
  }

  /** Page `index` read and analysed (see `analyseOne`). */
  read(index: number, fonts: FontTable, warnings: string[]): PageLayout {
    if (this.engine.heap().HEAPU8.length - this.heapAtOpen > this.growth) this.reopen();
    return analyseOne(this.engine, this.current, index, fonts, warnings);
  }

  private reopen(): void {
    this.current = this.current.reopen();
    this.heapAtOpen = this.engine.heap().HEAPU8.length;
    this.opened++;
  }

  close(): void {
    this.current.close();
  }
}

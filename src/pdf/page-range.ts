import type { FontTable } from './chars.js';
import type { loadEngine, openDocument } from './engine.js';
import { analysePage, type PageLayout } from './layout.js';
import { readPage } from './page.js';

/** One page read and analysed; a page that cannot be read is reported and left empty. */
export function analyseOne(engine: Awaited<ReturnType<typeof loadEngine>>, doc: ReturnType<typeof openDocument>, i: number, fonts: FontTable, warnings: string[]): PageLayout {
  try {
    return analysePage(readPage(engine, doc, i, fonts));
  } catch (error) {
    warnings.push(`page ${i + 1} could not be read (${(error as Error).message}); skipped`);
    return { index: i, width: 0, height: 0, items: [], chars: 0, unmapped: 0, images: 0 };
  }
}


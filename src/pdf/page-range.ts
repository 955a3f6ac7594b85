import { FontTable } from './chars.js';
import { loadEngine, openDocument } from './engine.js';
import { analysePage, type PageLayout } from './layout.js';
import { readPage } from './page.js';

/** A range of pages of a document analysed with this thread's PDFium (the page workers' task). */
export interface PageRangeTask {
  id: number;
  bytes: Uint8Array;
  password?: string;
  from: number;
  to: number;
}

export type PageRangeResult = { id: number; ok: true; pages: PageLayout[]; warnings: string[] } | { id: number; ok: false; message: string };

export async function analyseRange(task: PageRangeTask): Promise<PageRangeResult> {
  try {
    const engine = await loadEngine();
    const doc = openDocument(engine, task.bytes, task.password);
    const pages: PageLayout[] = [];
    const warnings: string[] = [];
    try {
      const fonts = new FontTable();
      for (let i = task.from; i < task.to; i++) pages.push(analyseOne(engine, doc, i, fonts, warnings));
    } finally {
      doc.close();
    }
    return { id: task.id, ok: true, pages, warnings };
  } catch (error) {
    return { id: task.id, ok: false, message: (error as Error).message };
  }
}

export function analyseOne(engine: Awaited<ReturnType<typeof loadEngine>>, doc: ReturnType<typeof openDocument>, i: number, fonts: FontTable, warnings: string[]): PageLayout {
  try {
    return analysePage(readPage(engine, doc, i, fonts));
  } catch (error) {
    warnings.push(`page ${i + 1} could not be read (${(error as Error).message}); skipped`);
    return { index: i, width: 0, height: 0, items: [], chars: 0, unmapped: 0, images: 0 };
  }
}


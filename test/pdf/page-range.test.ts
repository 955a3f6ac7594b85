import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { FontTable } from '../../src/pdf/chars.js';
import { loadEngine, openDocument } from '../../src/pdf/engine.js';
import type { PageLayout } from '../../src/layout/page.js';
import { PageReader } from '../../src/pdf/page-range.js';
import { renderPageGray } from '../../src/pdf/render.js';
import { corpus, hasShared } from '../helpers.js';

async function readAll(file: string, growth?: number): Promise<{ pages: PageLayout[]; opened: number }> {
  const engine = await loadEngine();
  const reader = new PageReader(engine, openDocument(engine, new Uint8Array(readFileSync(corpus('pdf', file))), undefined), growth);
  try {
    const fonts = new FontTable();
    const pages: PageLayout[] = [];
    for (let i = 0; i < reader.document.pageCount; i++) pages.push(reader.read(i, fonts, []));
    // The document open at the end still renders (OCR renders after the reading).
    expect(renderPageGray(engine, reader.document, 0, 36).width).toBeGreaterThan(0);
    return { pages, opened: reader.opened };
  } finally {
    reader.close();
  }
}

describe.skipIf(!hasShared)('PageReader', () => {
  test('reopening the document (from the bytes already in the heap) before every page reads the same pages', async () => {
    const once = await readAll('federal-register-2020-17221.pdf');
    const always = await readAll('federal-register-2020-17221.pdf', -1);
    expect(once.opened).toBe(1);
    expect(always.opened).toBe(always.pages.length + 1);
    expect(always.pages).toEqual(once.pages);
  });
});

import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { BOLD, ITALIC, MONO } from '../../src/layout/chars.js';
import { FontTable } from '../../src/pdf/chars.js';
import { compiledPdfium, loadEngine, openDocument } from '../../src/pdf/engine.js';
import type { PageLayout } from '../../src/layout/page.js';
import { analyseClaimed, analysePages, pageWorkerCount, splitPages, takePage } from '../../src/pdf/page-pool.js';
import { PageReader } from '../../src/pdf/page-range.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

const saved = process.env.GROUNDWORK_PDF_WORKERS;
afterEach(() => {
  if (saved === undefined) delete process.env.GROUNDWORK_PDF_WORKERS;
  else process.env.GROUNDWORK_PDF_WORKERS = saved;
});

describe('page worker count', () => {
  test('a forced count is capped at one worker per page beyond the first', () => {
    process.env.GROUNDWORK_PDF_WORKERS = '3';
    expect(pageWorkerCount(100)).toBe(3);
    expect(pageWorkerCount(2)).toBe(1);
    expect(pageWorkerCount(1)).toBe(0);
    process.env.GROUNDWORK_PDF_WORKERS = '0';
    expect(pageWorkerCount(100)).toBe(0);
  });

  test('unforced, a one-page document never gets a worker', () => {
    delete process.env.GROUNDWORK_PDF_WORKERS;
    expect(pageWorkerCount(1)).toBe(0);
    expect(pageWorkerCount(50)).toBeGreaterThanOrEqual(0);
  });
});

describe('page split', () => {
  test('each thread reads its own range front to back, then the back of the fullest other range', () => {
    const ranges = splitPages(5, 2); // [0, 3) and [3, 5)
    const first = [0, 1, 2, 3, 4, 5].map(() => takePage(ranges, 0));
    expect(first).toEqual([0, 1, 2, 4, 3, -1]);
    const again = splitPages(5, 2);
    expect([0, 1, 2, 3, 4, 5].map(() => takePage(again, 1))).toEqual([3, 4, 2, 1, 0, -1]);
  });

  test('two threads taking turns never get the same page', () => {
    const ranges = splitPages(9, 3);
    const taken: number[] = [];
    for (let turn = 0; turn < 12; turn++) {
      const page = takePage(ranges, turn % 2);
      if (page >= 0) taken.push(page);
    }
    expect(taken.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('font table', () => {
  test('styles from font names, ids interned per name and style in first-seen order', () => {
    const fonts = new FontTable();
    expect(fonts.nameStyle('ABCDEF+Helvetica-BoldOblique')).toBe(BOLD | ITALIC);
    expect(fonts.nameStyle('CourierNewPSMT')).toBe(MONO);
    expect(fonts.nameStyle('TimesNewRoman')).toBe(0);
    const regular = fonts.intern('Times', 0);
    const bold = fonts.intern('Times', BOLD);
    expect([regular, bold]).toEqual([0, 1]);
    expect(fonts.intern('Times', 0)).toBe(regular);
    expect(fonts.intern('Arial', 0)).toBe(2);
    expect(fonts.names).toEqual(['Times', 'Times', 'Arial']);
    expect(fonts.flags).toEqual([0, BOLD, 0]);
  });
});

/** Pages as plain data without font ids (each thread numbers fonts in the order it meets them). */
function withoutFonts(pages: PageLayout[]): unknown {
  return JSON.parse(JSON.stringify(pages, (key, value: unknown) => (key === 'font' ? undefined : value)));
}

/** Pages of a corpus PDF analysed with `workers` page workers. */
async function pagesOf(file: string, workers: number): Promise<{ pages: PageLayout[]; warnings: string[] }> {
  const bytes = new Uint8Array(readFileSync(corpus('pdf', file)));
  const engine = await loadEngine();
  const reader = new PageReader(engine, openDocument(engine, bytes, undefined));
  const warnings: string[] = [];
  try {
    return { pages: await analysePages(reader, { bytes }, workers, warnings), warnings };
  } finally {
    reader.close();
  }
}

describe.skipIf(!hasShared)('pages shared with page workers', () => {
  if (!hasShared) console.warn(sharedSkipReason);

  test('the compiled PDFium module is kept for page workers', async () => {
    await loadEngine();
    expect(compiledPdfium()).toBeDefined();
  });

  test("a worker's share: its own range, then pages left in others, with the worker's font table", async () => {
    const single = await pagesOf('normal_4pages.pdf', 0);
    const source = readFileSync(corpus('pdf', 'normal_4pages.pdf'));
    const bytes = new Uint8Array(new SharedArrayBuffer(source.length));
    bytes.set(source);
    const ranges = splitPages(4, 2);
    expect(takePage(ranges, 0)).toBe(0); // this thread took page 0
    const result = await analyseClaimed({ id: 7, bytes, ranges, range: 1 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.id).toBe(7);
    expect(result.pages.map((p) => p.index)).toEqual([1, 2, 3]);
    expect(withoutFonts(result.pages)).toEqual(withoutFonts(single.pages.slice(1)));
    expect(result.fonts.names.length).toBeGreaterThan(0);
    expect(result.fonts.flags.length).toBe(result.fonts.names.length);
    expect(takePage(ranges, 0)).toBe(-1);
    const again = await analyseClaimed({ id: 8, bytes, ranges, range: 1 });
    expect(again.ok && again.pages).toEqual([]);
  });

  test.each(['normal_4pages.pdf', 'multi-column-2p.pdf', 'federal-register-2020-17221.pdf'])(
    '%s: the same pages in page order with a worker as with this thread alone',
    async (file) => {
      const single = await pagesOf(file, 0);
      expect(single.pages.length).toBeGreaterThan(1);
      expect(single.pages.map((p) => p.index)).toEqual(single.pages.map((_, i) => i));
      // Run twice: the first run may find the worker still starting (this thread then reads every page).
      for (let run = 0; run < 2; run++) {
        const shared = await pagesOf(file, 1);
        // Font ids are numbered in the order threads meet the fonts: equal up to renaming, one to one.
        const renamed = new Map<number, number>();
        const lines = (pages: PageLayout[]) => pages.flatMap((p) => p.items.flatMap((item) => (item.type === 'block' ? item.block.lines : [])));
        const sharedLines = lines(shared.pages);
        lines(single.pages).forEach((line, i) => {
          const other = sharedLines[i]?.font ?? -1;
          expect(renamed.get(line.font) ?? other).toBe(other);
          renamed.set(line.font, other);
        });
        expect(new Set(renamed.values()).size).toBe(renamed.size);
        expect(withoutFonts(shared.pages)).toEqual(withoutFonts(single.pages));
        expect(shared.warnings).toEqual(single.warnings);
      }
    },
    60_000,
  );
});

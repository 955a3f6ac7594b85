import { readFileSync } from 'node:fs';
import { closeOcr, ocrAvailable, ocrImagePages } from '../src/ocr/index.js';
import { corpus } from '../test/helpers.js';
import { printTable } from './inputs.js';

/** Corpus images with the language they hold (jpn-vert is skipped: no Japanese data ships). */
const IMAGES: [string, string][] = [
  ['images/webp-test.webp', 'eng'],
  ['images/layout-parser-paper-with-table.jpg', 'eng'],
  ['images/table-multi-row-column-cells.png', 'eng'],
  ['images/testRotated+10.png', 'eng'],
  ['images/testTIFF_multipage.tif', 'eng'],
  ['images/chi_sim_image.jpeg', 'chi_sim'],
];

/** Seconds per page of ocrImagePages (decode, orientation, OCR) for each engine available here. */
export async function main(): Promise<void> {
  const engines = (['cli', 'tesseract.js'] as const).filter((engine) => ocrAvailable('eng+chi_sim', engine).ok);
  const rows: string[][] = [];
  const totals = new Map<string, { seconds: number; pages: number }>();
  for (const [file, lang] of IMAGES) {
    const bytes = readFileSync(corpus(file));
    const row = [file.replace('images/', ''), lang];
    for (const engine of engines) {
      // One warm-up run so tesseract.js's worker start-up is not billed to the first image.
      if (!totals.has(engine)) await ocrImagePages(bytes, { lang, engine });
      const start = performance.now();
      const pages = await ocrImagePages(bytes, { lang, engine });
      const seconds = (performance.now() - start) / 1000;
      const total = totals.get(engine) ?? { seconds: 0, pages: 0 };
      totals.set(engine, { seconds: total.seconds + seconds, pages: total.pages + pages.length });
      row.push((seconds / pages.length).toFixed(2));
    }
    rows.push(row);
  }
  const overall = engines.map((e) => totals.get(e)!.seconds / totals.get(e)!.pages);
  rows.push(['all (s/page)', '', ...overall.map((s) => s.toFixed(2))]);
  if (engines.length === 2) rows.push(['tesseract.js / cli', '', '1.00', (overall[1]! / overall[0]!).toFixed(2)]);
  printTable(`OCR seconds per page (OMP_THREAD_LIMIT=1 for the CLI)`, ['image', 'lang', ...engines.map((e) => (e === 'cli' ? 'tesseract CLI s/page' : 'tesseract.js s/page'))], rows);
  await closeOcr();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

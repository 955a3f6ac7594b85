/**
 * The inspector's open time in real Chromium (playwright-core, /usr/bin/chromium) against a server
 * on loopback in this process: a 300-page PDF (corpus pages assembled by test/fixtures/long-pdf.ts,
 * ingested once into a library cached in the temp folder) beside its 14-page source,
 * tracemonkey.pdf, measured in the same run (the ratio says how open time grows with the document).
 *
 * Per document, GW_BENCH_INSPECTOR_ROUNDS rounds (default 5) in a fresh tab each, median:
 *   - open, cold: from navigation to the document view drawn (page image rendered by PDFium for the
 *     first time, its regions, the first 1,000 blocks in the virtualised list), the page-image cache
 *     emptied before each round;
 *   - open, warm: the same with the page image cached;
 *   - all blocks: until the last block request has arrived (the list fills behind the open view);
 *   - canonical text view and compare view (two strategies re-chunked by the server) ready;
 *   - rows in the DOM of the chunk list once open.
 * Run: npm run bench -- inspector
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectorPlugin } from '../src/inspector/plugin.js';
import { Library } from '../src/library/library.js';
import { serve } from '../src/serve/index.js';
import { CORPUS_PDF, longPdf } from '../test/fixtures/long-pdf.js';
import { printTable } from './inputs.js';

const CHROMIUM = '/usr/bin/chromium';
const PAGES = Number(process.env.GW_BENCH_INSPECTOR_PAGES ?? 300);
const ROUNDS = Number(process.env.GW_BENCH_INSPECTOR_ROUNDS ?? 5);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A library holding the long PDF and its source, made once and reused (ingest is not what is measured). */
async function benchLibrary(long: string, source: string): Promise<Library> {
  const dir = join(tmpdir(), `groundwork-bench-inspector-${PAGES}`);
  const fresh = !existsSync(join(dir, 'ready'));
  if (fresh) rmSync(dir, { recursive: true, force: true });
  const library = await Library.open(dir);
  if (fresh) {
    const t0 = performance.now();
    const report = await library.addFiles([long, source], { workers: 1 });
    if (report.rejected.length > 0) throw new Error(`bench/inspector: ingest rejected ${JSON.stringify(report.rejected)}`);
    console.log(`(ingested ${report.pagesAdded} pages, ${report.blocksAdded} blocks in ${((performance.now() - t0) / 1000).toFixed(1)} s, once, into ${dir})`);
    mkdirSync(join(dir, 'ready'));
  }
  return library;
}

export async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`bench/inspector: ${CHROMIUM} is absent (Debian chromium); skipped`);
    return;
  }
  const source = join(CORPUS_PDF, 'tracemonkey.pdf');
  const long = await longPdf(PAGES, source);
  const library = await benchLibrary(long, source);
  const server = await serve(library, { port: 0, host: '127.0.0.1', workers: 1, rateLimit: false, plugins: [inspectorPlugin()] });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  const pageCache = join(library.dir, 'cache', 'pages');
  try {
    const docs = [
      { label: `${PAGES}-page PDF (tracemonkey x ${Math.ceil(PAGES / 14)})`, doc: (await library.document(long))! },
      { label: '14-page source (tracemonkey.pdf)', doc: (await library.document(source))! },
    ];
    /** Navigates a fresh tab to `hash`; ms from navigation start to the view's `ready:` mark (and what `extra` reads). */
    const timed = async (hash: string, ready: string, extra: (page: import('playwright-core').Page) => Promise<Record<string, number>> = async () => ({})): Promise<Record<string, number> & { ready: number }> => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      try {
        await page.goto(`${server.url}/${hash}`);
        await page.waitForSelector(`body[data-ready="${ready}"]`, { timeout: 120_000 });
        const readyAt = await page.evaluate((r) => (globalThis as any).performance.getEntriesByName(`ready:${r}`).at(-1).startTime as number, ready);
        return { ready: readyAt, ...(await extra(page)) };
      } finally {
        await page.close();
      }
    };
    const mark = (name: string) => (page: import('playwright-core').Page) => page.evaluate((n) => (globalThis as any).performance.getEntriesByName(n)[0].startTime as number, name);
    // One untimed round per view: Chromium's and the server's caches and JIT warmed, as for a user's second look.
    for (const { doc } of docs) {
      await timed(`#/doc/${doc.id}`, 'document');
      await timed(`#/text/${doc.id}`, 'text');
    }
    const rows: (string | number)[][] = [];
    const results: Record<string, number>[] = [];
    for (const { label, doc } of docs) {
      const cold: number[] = [];
      const warm: number[] = [];
      const loaded: number[] = [];
      const text: number[] = [];
      const compare: number[] = [];
      let domRows = 0;
      for (let round = 0; round < ROUNDS; round++) {
        for (const f of existsSync(pageCache) ? readdirSync(pageCache) : []) if (f.startsWith(doc.id)) rmSync(join(pageCache, f));
        cold.push((await timed(`#/doc/${doc.id}`, 'document')).ready);
        const w = await timed(`#/doc/${doc.id}`, 'document', async (page) => {
          await page.waitForSelector(`body[data-loaded="${doc.id}"]`, { timeout: 120_000 });
          domRows = await page.locator('#text [role="option"]').count();
          return { loaded: await mark('doc-loaded-end')(page) };
        });
        warm.push(w.ready);
        loaded.push(w.loaded!);
        text.push((await timed(`#/text/${doc.id}`, 'text')).ready);
        const params = new URLSearchParams({ a: JSON.stringify({ strategy: 'structure' }), b: JSON.stringify({ strategy: 'recursive', chunkOptions: { chunkSize: 1000 } }) });
        compare.push((await timed(`#/compare/${doc.id}?${params}`, 'compare')).ready);
      }
      const result = { cold: median(cold), warm: median(warm), loaded: median(loaded), text: median(text), compare: median(compare) };
      results.push(result);
      rows.push([label, doc.blocks, result.cold, result.warm, result.loaded, result.text, result.compare, domRows]);
    }
    const [big, small] = results as [Record<string, number>, Record<string, number>];
    rows.push(['ratio (long / source)', `${(docs[0]!.doc.blocks / docs[1]!.doc.blocks).toFixed(1)}x`,
      ...(['cold', 'warm', 'loaded', 'text', 'compare'] as const).map((k) => `${(big[k]! / small[k]!).toFixed(2)}x`), '']);
    printTable(
      `inspector in Chromium: ms from navigation to the view drawn, median of ${ROUNDS} rounds (load average ${loadavg()[0]!.toFixed(1)})`,
      ['document', 'blocks', 'open, cold page image', 'open, warm', 'all blocks loaded', 'canonical text view', 'compare view (structure vs recursive)', 'chunk rows in the DOM'],
      rows,
    );
  } finally {
    await browser.close();
    await server.close();
    await library.close();
  }
}

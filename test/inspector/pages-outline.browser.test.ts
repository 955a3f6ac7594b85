import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectorPlugin } from '../../src/inspector/plugin.js';
import { Library } from '../../src/library/library.js';
import type { Block } from '../../src/store/types.js';
import { manyHeadingsMarkdown } from '../fixtures/many-headings.js';
import { corpus, hasShared } from '../helpers.js';
import { json, startServer, type Running } from '../serve/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
/** Screenshots kept for a person to look at (gitignored), beside the other inspector tests'. */
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'inspector');
const haveChromium = existsSync(CHROMIUM);
/** A viewport shows a few dozen rows at most; a list that draws every row has thousands. */
const MAX_ROWS = 80;
/** Headings of the generated handbook (plus its title). */
const SECTIONS = 5000;
const SCALE = 110 / 72;

interface Drawn { ordinal: number; index: number; x: number; y: number; w: number; h: number }

describe.skipIf(!haveChromium || !hasShared)('inspector in Chromium: compare on the page, the virtualised outline', () => {
  let running: Running;
  /** The same PDF ingested with `sentence`: the blocks whose boxes side B must draw. */
  let sentence: Library;
  let browser: import('playwright-core').Browser;
  const pdf = corpus('pdf', 'normal_4pages.pdf');
  /** An image document: OCR boxes in the image's own pixels. */
  const image = corpus('images', 'layout-parser-paper-with-table.jpg');
  let pdfId = '';
  let imageId = '';
  let mdId = '';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const md = manyHeadingsMarkdown(SECTIONS);
    running = await startServer({ plugins: [inspectorPlugin()] });
    const report = await running.library.addFiles([pdf, md, image], { workers: 1 });
    expect(report.docsAdded).toBe(3);
    pdfId = (await running.library.document(pdf))!.id;
    imageId = (await running.library.document(image))!.id;
    mdId = (await running.library.document(md))!.id;
    sentence = await Library.open(mkdtempSync(join(tmpdir(), 'gw-inspector-sentence-')));
    expect((await sentence.addFiles([pdf, image], { workers: 0, strategy: 'sentence' })).docsAdded).toBe(2);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await sentence?.close();
  });

  async function open(hash: string, ready: string) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${running.url}/${hash}`);
    await page.waitForSelector(`body[data-ready="${ready}"]`, { timeout: 60_000 });
    return { page, errors };
  }

  const drawnRegions = (page: import('playwright-core').Page, selector: string): Promise<Drawn[]> =>
    page.$$eval(`${selector} rect.region`, (rects) => rects.map((r) => ({
      ordinal: Number(r.getAttribute('data-ordinal')), index: Number(r.getAttribute('data-index')),
      x: Number(r.getAttribute('x')), y: Number(r.getAttribute('y')), w: Number(r.getAttribute('width')), h: Number(r.getAttribute('height')),
    })));

  /** The regions drawn are exactly the blocks' boxes on that page, in order, each at its box scaled to the image. */
  function expectRegions(drawn: Drawn[], blocks: readonly Block[], pageNo: number, scale = SCALE) {
    const expected = blocks.flatMap((b) => (b.bboxes ?? []).filter((x) => (x.page ?? b.pageStart) === pageNo).map((box) => ({ ordinal: b.ordinal, box })));
    expect(expected.length).toBeGreaterThan(0);
    expect(drawn.length).toBe(expected.length);
    drawn.forEach((d, i) => {
      const { ordinal, box } = expected[i]!;
      expect(d.ordinal).toBe(ordinal);
      expect(d.x).toBeCloseTo(box.x0 * scale, 3);
      expect(d.y).toBeCloseTo(box.y0 * scale, 3);
      expect(d.w).toBeCloseTo((box.x1 - box.x0) * scale, 3);
      expect(d.h).toBeCloseTo((box.y1 - box.y0) * scale, 3);
    });
  }

  it('compare on a PDF draws each strategy\'s chunk regions over the page, side by side, where their blocks\' boxes are', async () => {
    const blocksA = await running.library.blocks(pdfId);
    const blocksB = await sentence.blocks((await sentence.document(pdf))!.id);
    // Two different chunkings of the same page, so the two sides must differ.
    expect(blocksB.length).not.toBe(blocksA.length);
    const params = new URLSearchParams({ a: JSON.stringify({ strategy: 'structure' }), b: JSON.stringify({ strategy: 'sentence' }) });
    const { page, errors } = await open(`#/compare/${pdfId}?${params}`, 'compare');
    // the counts and sizes are still there
    expect(Number(await page.getAttribute('#compare-a', 'data-count'))).toBe(blocksA.length);
    expect(Number(await page.getAttribute('#compare-b', 'data-count'))).toBe(blocksB.length);
    expect(await page.locator('#compare-b .histogram').count()).toBe(1);
    const first = Number(await page.getAttribute('#page-a', 'data-page'));
    expect(first).toBe(blocksA[0]!.pageStart);
    expect(await page.getAttribute('#page-b', 'data-page')).toBe(String(first));
    const a = await drawnRegions(page, '#regions-a');
    const b = await drawnRegions(page, '#regions-b');
    expectRegions(a, blocksA, first);
    expectRegions(b, blocksB, first);
    expect(b.map((d) => d.ordinal)).not.toEqual(a.map((d) => d.ordinal));
    // both drawn over the same page image, inside it
    const natural = await page.$eval('#page-image-b', (img) => { const i = img as unknown as { naturalWidth: number; naturalHeight: number }; return [i.naturalWidth, i.naturalHeight]; });
    for (const d of [...a, ...b]) expect(d.x + d.w).toBeLessThanOrEqual(natural[0]! + 1);
    await page.screenshot({ path: join(SHOTS, 'compare-pdf.png'), fullPage: true });

    // the page buttons turn both sides
    await page.click('#compare-pages button[aria-label="next page"]');
    await page.waitForSelector(`#page-b[data-page="${first + 1}"]`);
    await page.waitForSelector(`#page-a[data-page="${first + 1}"]`);
    expectRegions(await drawnRegions(page, '#regions-a'), blocksA, first + 1);
    expectRegions(await drawnRegions(page, '#regions-b'), blocksB, first + 1);

    // a region of A marks its chunk and the overlapping chunks of B, in the lists and on the page
    const regionsA = await drawnRegions(page, '#regions-a');
    const target = regionsA[Math.floor(regionsA.length / 2)]!;
    await page.locator(`#regions-a rect.region[data-index="${target.index}"]`).first().click({ force: true });
    await page.locator(`#a-chunk-${target.ordinal}.marked`).waitFor();
    const chosen = blocksA[target.ordinal]!;
    const overlapping = blocksB.filter((x) => x.start < chosen.end && x.end > chosen.start).map((x) => x.ordinal);
    expect(overlapping.length).toBeGreaterThan(0);
    expect(await page.$$eval('#regions-a rect.region.selected', (rects) => [...new Set(rects.map((r) => Number(r.getAttribute('data-ordinal'))))])).toEqual([target.ordinal]);
    const selectedB = await page.$$eval('#regions-b rect.region.selected', (rects) => [...new Set(rects.map((r) => Number(r.getAttribute('data-ordinal'))))]);
    expect(selectedB.length).toBeGreaterThan(0);
    for (const o of selectedB) expect(overlapping).toContain(o);
    // a chunk on another page, clicked in B's list, brings both sides to its page
    const later = blocksB.find((x) => x.pageStart === first)!;
    await page.$eval('#list-b', async (pane) => {
      pane.scrollTop = 0;
      const raf = (globalThis as any).requestAnimationFrame as (f: () => void) => void;
      await new Promise<void>((r) => raf(() => raf(r)));
    });
    await page.locator(`#b-chunk-${later.ordinal}`).click();
    await page.waitForSelector(`#page-a[data-page="${later.pageStart}"]`);
    await page.waitForSelector(`#page-b[data-page="${later.pageStart}"]`);
    expect(await page.$$eval('#regions-b rect.region.selected', (rects) => [...new Set(rects.map((r) => Number(r.getAttribute('data-ordinal'))))])).toEqual([later.ordinal]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('an image document: its chunk regions over the image in its own pixels, in the Chunks view and on both sides of Compare', async () => {
    const blocksA = await running.library.blocks(imageId);
    const blocksB = await sentence.blocks((await sentence.document(image))!.id);
    const doc = await open(`#/doc/${imageId}`, 'document');
    expect(await doc.page.getAttribute('#pagepane', 'data-page')).toBe('1');
    const natural = await doc.page.$eval('#page-image', (img) => { const i = img as unknown as { naturalWidth: number; naturalHeight: number }; return [i.naturalWidth, i.naturalHeight]; });
    const drawn = await drawnRegions(doc.page, '#regions');
    expectRegions(drawn, blocksA, 1, 1);
    for (const d of drawn) expect(d.x + d.w <= natural[0]! + 1 && d.y + d.h <= natural[1]! + 1).toBe(true);
    await doc.page.screenshot({ path: join(SHOTS, 'image-document.png') });
    expect(doc.errors).toEqual([]);
    await doc.page.close();
    const params = new URLSearchParams({ a: JSON.stringify({ strategy: 'structure' }), b: JSON.stringify({ strategy: 'sentence' }) });
    const { page, errors } = await open(`#/compare/${imageId}?${params}`, 'compare');
    expectRegions(await drawnRegions(page, '#regions-a'), blocksA, 1, 1);
    expectRegions(await drawnRegions(page, '#regions-b'), blocksB, 1, 1);
    await page.screenshot({ path: join(SHOTS, 'compare-image.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('the outline of a document with thousands of headings is a virtualised list: a window of rows in the DOM, scrolling reaches the last heading', async () => {
    const detail = await json(await fetch(`${running.url}/v1/documents/${mdId}`));
    const flat: string[] = [];
    const firstOrdinals: (number | undefined)[] = [];
    const walk = (nodes: { title: string; firstOrdinal?: number; children: unknown[] }[]) => {
      for (const n of nodes) {
        flat.push(n.title);
        firstOrdinals.push(n.firstOrdinal);
        walk(n.children as never);
      }
    };
    walk(detail.outline);
    expect(flat.length).toBe(SECTIONS + 1);
    expect(flat.at(-1)).toContain(`(heading ${SECTIONS})`);
    const { page, errors } = await open(`#/doc/${mdId}`, 'document');
    const openMs = await page.evaluate(() => performance.getEntriesByName('doc-open')[0]!.duration);
    console.log(`inspector: a Markdown document with ${flat.length} headings opened in ${openMs.toFixed(0)} ms (performance measure doc-open)`);
    const rows = () => page.$$eval('#outline-list .heading', (els) => els.map((e) => ({ index: Number(e.getAttribute('data-index')), text: e.firstChild!.textContent!, setsize: e.getAttribute('aria-setsize') })));
    const check = (drawn: Awaited<ReturnType<typeof rows>>) => {
      expect(drawn.length).toBeGreaterThan(3);
      expect(drawn.length).toBeLessThan(MAX_ROWS);
      for (const r of drawn) {
        expect(r.text).toBe(flat[r.index]);
        expect(r.setsize).toBe(String(flat.length));
      }
    };
    const top = await rows();
    check(top);
    expect(top[0]!.index).toBe(0);
    // drag to the end: the last heading is drawn and in view, the first is gone
    for (let i = 0; i < 30; i++) {
      const done = await page.$eval('#outline-list', async (pane) => {
        pane.scrollTop = pane.scrollHeight;
        const raf = (globalThis as any).requestAnimationFrame as (f: () => void) => void;
        await new Promise<void>((r) => raf(() => raf(r)));
        return Math.abs(pane.scrollTop + pane.clientHeight - pane.scrollHeight) < 2;
      });
      if (done) break;
    }
    const bottom = await rows();
    check(bottom);
    expect(bottom.at(-1)!.index).toBe(flat.length - 1);
    expect(await page.locator('#heading-0').count()).toBe(0);
    const last = page.locator(`#heading-${flat.length - 1}`);
    expect(await last.textContent()).toContain(`(heading ${SECTIONS})`);
    const inView = await page.evaluate(() => {
      const d = (globalThis as any).document;
      const pane = d.querySelector('#outline-list').getBoundingClientRect();
      const row = d.querySelector(`#outline-list .heading:last-child`).getBoundingClientRect();
      return row.height > 0 && row.top >= pane.top - 1 && row.bottom <= pane.bottom + 1;
    });
    expect(inView).toBe(true);
    // a heading selects the first chunk of its section
    const blocks = await running.library.blocks(mdId);
    const section = firstOrdinals.at(-1)!;
    expect(blocks[section]!.text).toContain(`(heading ${SECTIONS})`);
    await last.click();
    expect(await page.getAttribute(`#chunk-${section}`, 'aria-selected')).toBe('true');
    await page.screenshot({ path: join(SHOTS, 'outline.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});

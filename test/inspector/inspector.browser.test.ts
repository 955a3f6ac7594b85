import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextualize } from '../../src/embed/documents.js';
import { inspectorPlugin, INSPECTOR_CSP } from '../../src/inspector/plugin.js';
import { newKey, parseKeys } from '../../src/serve/auth.js';
import { followJob, form, json, startServer, type Running } from '../serve/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const PDF = '/work/shared/corpus/pdf/normal_4pages.pdf';
/** Screenshots kept for a person to look at (gitignored). */
export const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'inspector');
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`inspector browser tests skipped: ${CHROMIUM} is absent (CI installs chromium)`);

describe.skipIf(!haveChromium)('inspector in Chromium', () => {
  let running: Running;
  let browser: import('playwright-core').Browser;
  let docId: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    running = await startServer({ plugins: [inspectorPlugin()] });
    const report = await running.library.addFiles([PDF], { workers: 0 });
    expect(report.docsAdded).toBe(1);
    docId = (await running.library.documents())[0]!.id;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  it('serves the page with content types and a CSP that allows nothing remote', async () => {
    const page = await fetch(`${running.url}/`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(INSPECTOR_CSP);
    expect(INSPECTOR_CSP).not.toMatch(/https?:|\*/);
    const js = await fetch(`${running.url}/inspector/app.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const openapi = await (await fetch(`${running.url}/openapi.json`)).json() as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toContain('/v1/documents/{id}/blocks');
  });

  it('draws every chunk region of a PDF page where its block\'s boxes are, and selects both ways', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // a file the server rejects, to be listed with what to do about it
    const bad = await json(await fetch(`${running.url}/v1/documents`, { method: 'POST', body: form([{ name: 'broken.pdf', bytes: '%PDF-1.7\n1 0 obj <<' }]) }));
    expect((await followJob(running.url, bad.id)).last.event).toBe('failed');
    await page.goto(`${running.url}/`);
    await page.waitForSelector('body[data-ready="library"]');
    expect(await page.locator('#documents tbody tr').count()).toBe(1);
    // format, pages, blocks, tokens of the document, from the library
    const stored = (await running.library.blocks(docId))!;
    const cells = await page.$$eval('#documents tbody tr td', (tds) => tds.map((td) => td.textContent));
    const headers = await page.$$eval('#documents thead th', (ths) => ths.map((th) => th.textContent));
    expect(headers).toEqual(['document', 'format', 'pages', 'blocks', 'tokens', 'warnings']);
    expect(cells.slice(1, 5)).toEqual(['pdf', '4', String(stored.length), String(stored.reduce((n, b) => n + b.tokens, 0))]);
    const rejected = await page.textContent('#rejected li');
    expect(rejected).toContain('broken.pdf');
    expect(rejected).toContain('[CORRUPT]');
    expect(rejected).toMatch(/what to do: the file is damaged or truncated/);
    await page.screenshot({ path: join(SHOTS, 'library.png') });

    await page.click('#documents a');
    await page.waitForSelector('body[data-ready="document"]');
    const openMs = await page.evaluate(() => performance.getEntriesByName('doc-open')[0]!.duration);
    console.log(`inspector: ${PDF} (4 pages) opened in ${openMs.toFixed(0)} ms (performance measure doc-open: fetch document + blocks, first page image and regions)`);
    const blocks = (await running.library.blocks(docId))!;
    const pageNo = Number(await page.getAttribute('#pagepane', 'data-page'));
    const expected = blocks.flatMap((b) => (b.bboxes ?? []).filter((x) => (x.page ?? b.pageStart) === pageNo).map((box) => ({ ordinal: b.ordinal, box })));
    expect(expected.length).toBeGreaterThan(0);
    const drawn = await page.$$eval('#regions rect.region', (rects) => rects.map((r) => ({
      ordinal: Number(r.getAttribute('data-ordinal')), x: Number(r.getAttribute('x')), y: Number(r.getAttribute('y')), w: Number(r.getAttribute('width')), h: Number(r.getAttribute('height')),
    })));
    expect(drawn.length).toBe(expected.length);
    const scale = 110 / 72;
    drawn.forEach((d, i) => {
      const { ordinal, box } = expected[i]!;
      expect(d.ordinal).toBe(ordinal);
      expect(d.x).toBeCloseTo(box.x0 * scale, 3);
      expect(d.y).toBeCloseTo(box.y0 * scale, 3);
      expect(d.w).toBeCloseTo((box.x1 - box.x0) * scale, 3);
      expect(d.h).toBeCloseTo((box.y1 - box.y0) * scale, 3);
    });
    // the image's own size: the boxes lie inside it
    const natural = await page.$eval('#page-image', (img) => { const i = img as unknown as { naturalWidth: number; naturalHeight: number }; return [i.naturalWidth, i.naturalHeight]; });
    for (const d of drawn) expect(d.x + d.w).toBeLessThanOrEqual(natural[0]! + 1);

    // region -> text span
    const target = drawn[Math.floor(drawn.length / 2)]!;
    await page.click(`#regions rect.region[data-ordinal="${target.ordinal}"]`);
    expect(await page.getAttribute(`#chunk-${target.ordinal}`, 'aria-selected')).toBe('true');
    expect(await page.locator('#regions rect.region.selected').first().getAttribute('data-ordinal')).toBe(String(target.ordinal));
    // text span -> region, and the keyboard
    await page.click(`#chunk-${drawn[0]!.ordinal}`);
    expect(await page.locator('#regions rect.region.selected').first().getAttribute('data-ordinal')).toBe(String(drawn[0]!.ordinal));
    await page.focus('#text');
    await page.keyboard.press('ArrowDown');
    expect(await page.getAttribute(`#chunk-${drawn[0]!.ordinal + 1}`, 'aria-selected')).toBe('true');
    expect(await page.textContent('#detail')).toContain(`chunk #${drawn[0]!.ordinal + 1}`);
    expect(await page.textContent('#detail')).toContain(contextualize(blocks[drawn[0]!.ordinal + 1]!).text);
    await page.screenshot({ path: join(SHOTS, 'document.png') });

    // search, then follow a hit to its chunk on its page
    const word = blocks.map((b) => b.text).join(" ").match(/\b[A-Za-z]{6,}\b/)![0];
    await page.fill('#q', word);
    await page.click('#search-form button');
    await page.waitForSelector('body[data-ready="search"]');
    expect(await page.locator('#hits li').count()).toBeGreaterThan(0);
    expect(await page.textContent('#hits li .scores')).toMatch(/bm25 \d/);
    await page.screenshot({ path: join(SHOTS, 'search.png') });
    const href = (await page.getAttribute('#hits li a.hit-link', 'href'))!;
    await page.click('#hits li a.hit-link');
    await page.waitForSelector('body[data-ready="document"]');
    const ordinal = Number(new URLSearchParams(href.split('?')[1]).get('chunk'));
    expect(await page.getAttribute(`#chunk-${ordinal}`, 'aria-selected')).toBe('true');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('on a server with keys, asks for one, keeps it in the tab only, and draws the page with it', async () => {
    const reader = newKey('viewer', 'read-only');
    const keyed = await startServer({ plugins: [inspectorPlugin()], keys: parseKeys(reader.line, 'test') }, running.dir);
    // the same library folder, opened a second time, behind a key
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${keyed.url}/`);
      await page.waitForSelector('body[data-ready="key"]');
      expect(await page.textContent('#key-message')).toMatch(/API key is required/);
      expect(await page.isHidden('#forget-key')).toBe(true);
      await page.fill('#api-key', 'gw_wrong');
      await page.click('#key-form button');
      await page.waitForSelector('body[data-ready="key"] #key-message:has-text("refused")');
      expect(await page.textContent('#key-message')).toMatch(/The key was refused: unknown API key/);
      await page.fill('#api-key', reader.key);
      await page.click('#key-form button');
      await page.waitForSelector('body[data-ready="library"]');
      expect(await page.locator('#documents tbody tr').count()).toBe(1);
      expect(await page.isVisible('#forget-key')).toBe(true);
      await page.click('#documents a');
      await page.waitForSelector('body[data-ready="document"]');
      // the page image came with the key (an <img src> cannot send one): a blob: URL, drawn, with its regions
      const image = await page.$eval('#page-image', (img) => { const i = img as unknown as { src: string; naturalWidth: number }; return { src: i.src, width: i.naturalWidth }; });
      expect(image.src).toMatch(/^blob:/);
      expect(image.width).toBeGreaterThan(0);
      expect(await page.locator('#regions rect.region').count()).toBeGreaterThan(0);
      // the key is in this tab's sessionStorage, never in the address
      expect(page.url()).not.toContain(reader.key);
      expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('groundwork.apiKey'))).toBe(reader.key);
      await page.click('#forget-key');
      await page.waitForSelector('body[data-ready="key"]');
      expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('groundwork.apiKey'))).toBeNull();
      await page.screenshot({ path: join(SHOTS, 'key.png') });
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await keyed.server.close();
      await keyed.library.close();
    }
  }, 120_000);
});

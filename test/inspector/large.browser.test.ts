import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Block } from '../../src/store/types.js';
import { inspectorPlugin } from '../../src/inspector/plugin.js';
import { longPdf } from '../fixtures/long-pdf.js';
import { corpus, hasShared } from '../helpers.js';
import { json, post, startServer, type Running } from '../serve/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
/** Screenshots kept for a person to look at (gitignored), beside inspector.browser.test.ts's. */
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'inspector');
const haveChromium = existsSync(CHROMIUM);
/** Pages of the long PDF here (the bench opens a 300-page one: bench/inspector.ts); over 1,000 chunks, so the page fetches its blocks in more than one request (1,000 a request). */
const LONG_PAGES = 90;
/** A viewport shows a few dozen rows at most; a list that draws every row has hundreds. */
const MAX_ROWS = 80;

describe.skipIf(!haveChromium || !hasShared)('inspector in Chromium: large documents, compare, Chinese', () => {
  let running: Running;
  let browser: import('playwright-core').Browser;
  const ids: Record<'long' | 'zh' | 'md', string> = { long: '', zh: '', md: '' };
  const files = { long: '', zh: corpus('zh-generated', 'warehouse-manual-zh.pdf'), md: corpus('md', 'wiki.md') };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    files.long = await longPdf(LONG_PAGES);
    running = await startServer({ plugins: [inspectorPlugin()] });
    const report = await running.library.addFiles(Object.values(files), { workers: 1 });
    expect(report.docsAdded).toBe(3);
    for (const key of Object.keys(ids) as (keyof typeof ids)[]) ids[key] = (await running.library.document(files[key]))!.id;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  async function open(hash: string, ready: string) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${running.url}/${hash}`);
    await page.waitForSelector(`body[data-ready="${ready}"]`, { timeout: 60_000 });
    return { page, errors };
  }

  /** Scrolls a pane to its end the way a user drags the scrollbar down, until the end stays put. */
  async function scrollToEnd(page: import('playwright-core').Page, selector: string) {
    for (let i = 0; i < 30; i++) {
      const done = await page.$eval(selector, async (pane) => {
        pane.scrollTop = pane.scrollHeight;
        const raf = (globalThis as any).requestAnimationFrame as (f: () => void) => void;
        await new Promise<void>((r) => raf(() => raf(r)));
        return Math.abs(pane.scrollTop + pane.clientHeight - pane.scrollHeight) < 2;
      });
      if (done) return;
    }
    throw new Error(`${selector} did not settle at its end`);
  }

  /** Whether the element lies inside the pane's visible box (its top at least, when it is taller than the pane). */
  async function inView(page: import('playwright-core').Page, pane: string, selector: string): Promise<boolean> {
    return page.evaluate(([p, s]) => {
      const document = (globalThis as any).document;
      const a = document.querySelector(p!)!.getBoundingClientRect();
      const el = document.querySelector(s!);
      if (!el) return false;
      const b = el.getBoundingClientRect();
      return b.height > 0 && b.top >= a.top - 1 && (b.bottom <= a.bottom + 1 || (b.height > a.height && b.top < a.bottom));
    }, [pane, selector]);
  }

  it('draws a bounded number of chunk rows for a long PDF, and scrolling and the keyboard reach the last chunk', async () => {
    const blocks = (await running.library.blocks(ids.long))!;
    expect(blocks.length).toBeGreaterThan(1000);
    const last = blocks.at(-1)!;
    const { page, errors } = await open(`#/doc/${ids.long}`, 'document');
    await page.waitForSelector(`body[data-loaded="${ids.long}"]`);
    const rows = () => page.locator('#text [role="option"]').count();
    expect(await rows()).toBeGreaterThanOrEqual(3);
    expect(await rows()).toBeLessThan(MAX_ROWS);
    expect(await page.getAttribute('#chunk-0', 'aria-setsize')).toBe(String(blocks.length));
    // drag to the end: the last chunk is drawn and visible, the first is gone, the count stays bounded
    await scrollToEnd(page, '#text');
    expect(await inView(page, '#text', `#chunk-${last.ordinal}`)).toBe(true);
    expect(await page.locator('#chunk-0').count()).toBe(0);
    expect(await rows()).toBeLessThan(MAX_ROWS);
    expect(await page.textContent(`#chunk-${last.ordinal}`)).toContain(last.text.slice(0, 40));
    // the keyboard: Home selects the first chunk, End the last (the page follows, its regions drawn)
    await page.focus('#text');
    await page.keyboard.press('Home');
    expect(await page.getAttribute('#chunk-0', 'aria-selected')).toBe('true');
    expect(await inView(page, '#text', '#chunk-0')).toBe(true);
    await page.keyboard.press('End');
    expect(await page.getAttribute(`#chunk-${last.ordinal}`, 'aria-selected')).toBe('true');
    await page.waitForSelector(`#pagepane[data-page="${last.pageStart}"]`);
    const drawn = await page.locator('#regions rect.region').count();
    const expected = blocks.flatMap((b) => (b.bboxes ?? []).filter((x) => (x.page ?? b.pageStart) === last.pageStart)).length;
    expect(drawn).toBe(expected);
    await page.locator(`#regions rect.region.selected[data-ordinal="${last.ordinal}"]`).first().waitFor();
    // a chunk far down, opened by its link, is selected and in view
    await page.goto(`${running.url}/#/doc/${ids.long}?chunk=${Math.floor(blocks.length * 0.7)}`);
    await page.waitForSelector('body[data-ready="document"]');
    const mid = Math.floor(blocks.length * 0.7);
    expect(await page.getAttribute(`#chunk-${mid}`, 'aria-selected')).toBe('true');
    expect(await inView(page, '#text', `#chunk-${mid}`)).toBe(true);
    // the page itself does not scroll: the panes do
    expect(await page.evaluate(() => (globalThis as any).scrollY)).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'long-document.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('shows the canonical text cut at every chunk boundary, virtualised, to its end', async () => {
    const blocks = (await running.library.blocks(ids.long))!;
    const response = await fetch(`${running.url}/v1/documents/${ids.long}/text`);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const canonical = await response.text();
    const openapi = await (await fetch(`${running.url}/openapi.json`)).json() as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/v1/documents/{id}/text', '/v1/documents/{id}/chunk']));
    expect((await fetch(`${running.url}/v1/documents/${'0'.repeat(64)}/text`)).status).toBe(404);
    expect(canonical.length).toBeGreaterThan(blocks.at(-1)!.end - 1);
    const { page, errors } = await open(`#/text/${ids.long}`, 'text');
    const segments = () => page.$$eval('#canonical .seg', (rows) => rows.map((r) => ({
      start: Number(r.getAttribute('data-start')), end: Number(r.getAttribute('data-end')), chunk: Number(r.getAttribute('data-chunk')),
      text: [...r.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(''),
      boundaries: [...r.querySelectorAll('.boundary')].map((b) => Number(b.id.slice('boundary-'.length))),
    })));
    const check = (drawn: Awaited<ReturnType<typeof segments>>) => {
      expect(drawn.length).toBeGreaterThan(3);
      expect(drawn.length).toBeLessThan(2 * MAX_ROWS);
      for (const s of drawn) {
        expect(s.text).toBe(canonical.slice(s.start, s.end).replace(/\n+$/, ''));
        for (const k of s.boundaries) expect(blocks[k]!.start).toBe(s.start);
        if (s.chunk >= 0) expect(blocks[s.chunk]!.start <= s.start && s.start < blocks[s.chunk]!.end).toBe(true);
      }
    };
    const top = await segments();
    check(top);
    expect(top[0]!.start).toBe(0);
    await scrollToEnd(page, '#canonical');
    const bottom = await segments();
    check(bottom);
    expect(bottom.at(-1)!.end).toBe(canonical.length);
    expect(bottom.flatMap((s) => s.boundaries)).toContain(blocks.length - 1);
    await page.screenshot({ path: join(SHOTS, 'canonical.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('compares two strategies side by side: counts, sizes and boundaries from POST /v1/documents/{id}/chunk', async () => {
    const stored = (await running.library.blocks(ids.md))!;
    const b = { strategy: 'recursive', chunkOptions: { chunkSize: 300, chunkOverlap: 0 } };
    const expectedB = (await json(await post(`${running.url}/v1/documents/${ids.md}/chunk`, b))).chunks as { start: number; tokens: number }[];
    expect(expectedB.length).not.toBe(stored.length);
    const params = new URLSearchParams({ a: JSON.stringify({ strategy: 'structure' }), b: JSON.stringify(b) });
    const { page, errors } = await open(`#/compare/${ids.md}?${params}`, 'compare');
    expect(Number(await page.getAttribute('#compare-a', 'data-count'))).toBe(stored.length);
    expect(Number(await page.getAttribute('#compare-b', 'data-count'))).toBe(expectedB.length);
    expect(Number(await page.getAttribute('#boundaries .ticks-a', 'data-ticks'))).toBe(stored.length);
    expect(Number(await page.getAttribute('#boundaries .ticks-b', 'data-ticks'))).toBe(expectedB.length);
    const histogram = await page.$$eval('#compare-b .histogram rect', (rects) => rects.reduce((n, r) => n + Number(r.getAttribute('data-count')), 0));
    expect(histogram).toBe(expectedB.length);
    const startsA = new Set(stored.map((x) => x.start));
    const shared = new Set(expectedB.map((x) => x.start).filter((s) => startsA.has(s))).size;
    expect(await page.textContent('#shared')).toContain(`${shared} chunk starts in common`);
    const tokens = expectedB.map((c) => c.tokens).sort((x, y) => x - y);
    expect(await page.textContent('#compare-b .summary')).toContain(`min ${tokens[0]} / median ${tokens[Math.floor(tokens.length / 2)]} / max ${tokens.at(-1)}`);
    // a chunk of A marks the chunks of B that overlap its span
    const chosen: Block = stored[Math.floor(stored.length / 2)]!;
    await page.click(`#a-chunk-${chosen.ordinal}`);
    const marked = await page.$$eval('#compare-b .chunk.marked', (rows) => rows.map((r) => Number(r.getAttribute('data-ordinal'))));
    const overlapping = (await json(await post(`${running.url}/v1/documents/${ids.md}/chunk`, b))).chunks
      .filter((c: { start: number; end: number }) => c.start < chosen.end && c.end > chosen.start).map((c: { index: number }) => c.index);
    expect(marked.length).toBeGreaterThan(0);
    for (const m of marked) expect(overlapping).toContain(m);
    await page.screenshot({ path: join(SHOTS, 'compare.png') });
    // another strategy from the form; options the strategy rejects show its error
    await page.fill('#compare-b input[name="strategy"]', 'token');
    await page.fill('#compare-b input[name="options"]', '{"chunkOptions":{"chunkSize":64}}');
    await page.click('#compare-b button[type="submit"]');
    await page.waitForFunction(() => (globalThis as any).document.body.dataset.ready === 'compare' && (globalThis as any).location.hash.includes('token'));
    const tokenChunks = (await json(await post(`${running.url}/v1/documents/${ids.md}/chunk`, { strategy: 'token', chunkOptions: { chunkSize: 64 } }))).chunks;
    expect(Number(await page.getAttribute('#compare-b', 'data-count'))).toBe(tokenChunks.length);
    await page.fill('#compare-b input[name="options"]', '{"chunkOptions":{"chunkSize":-1}}');
    await page.click('#compare-b button[type="submit"]');
    await page.waitForFunction(() => (globalThis as any).document.body.dataset.ready === 'compare' && (globalThis as any).location.hash.includes('-1'));
    expect(await page.textContent('#compare-b [role="alert"]')).toMatch(/chunkSize/);
    expect(Number(await page.getAttribute('#compare-a', 'data-count'))).toBe(stored.length);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('searches with a format filter: the form sends it, every hit is of that format, a hit opens its chunk', async () => {
    // A word both the Markdown file and a PDF hold, so that the filter changes what comes back.
    const words = [...new Set((await running.library.blocks(ids.md)).flatMap((b) => b.text.match(/\b[a-z]{6,}\b/g) ?? []))];
    let word = '';
    for (const w of words.slice(0, 200)) {
      const hits = (await running.library.search(w, { k: 20, mode: 'bm25' })).hits;
      if (hits.some((h) => h.docId === ids.md) && hits.some((h) => h.docId !== ids.md)) { word = w; break; }
    }
    expect(word, 'a word in wiki.md and in a PDF').not.toBe('');
    const expected = (await running.library.search(word, { k: 20, mode: 'bm25', filter: { format: 'markdown' } })).hits;
    const { page, errors } = await open('', 'library');
    // the format filter offers the library's formats
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#format option').length > 1);
    expect(await page.$$eval('#format option', (o) => o.map((x) => (x as any).value))).toEqual(['', ...Object.keys((await running.library.stats()).byFormat)]);
    await page.fill('#q', word);
    await page.selectOption('#mode', 'bm25');
    await page.selectOption('#format', 'markdown');
    await page.click('#search-form button');
    await page.waitForSelector('body[data-ready="search"]');
    expect(new URLSearchParams((await page.evaluate(() => (globalThis as any).location.hash as string)).split('?')[1]).get('format')).toBe('markdown');
    const links = await page.$$eval('#hits a.hit-link', (a) => a.map((x) => x.getAttribute('href')!));
    expect(links.length).toBe(expected.length);
    for (const [i, href] of links.entries()) expect(href).toBe(`#/doc/${ids.md}?page=1&chunk=${expected[i]!.block.ordinal}`);
    expect(await page.textContent('h2')).toContain('within format markdown');
    // a reload keeps the search and its filter in the form
    await page.reload();
    await page.waitForSelector('body[data-ready="search"]');
    expect(await page.inputValue('#format')).toBe('markdown');
    expect(await page.inputValue('#q')).toBe(word);
    await page.click('#hits a.hit-link');
    await page.waitForSelector('body[data-ready="document"]');
    expect(await page.getAttribute(`#chunk-${expected[0]!.block.ordinal}`, 'aria-selected')).toBe('true');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('renders Chinese text with a CJK font (the glyphs Chromium used, not boxes)', async () => {
    const blocks = (await running.library.blocks(ids.zh))!;
    const zh = blocks.find((b) => /[\u4e00-\u9fff]{4}/.test(b.text))!;
    const { page, errors } = await open(`#/doc/${ids.zh}`, 'document');
    await page.locator(`#chunk-${zh.ordinal}`).scrollIntoViewIfNeeded();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: `#chunk-${zh.ordinal}` });
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    const cjk = fonts.filter((f) => /CJK|WenQuanYi|Droid Sans Fallback/i.test(f.familyName));
    expect(cjk.length, JSON.stringify(fonts)).toBeGreaterThan(0);
    expect(cjk.reduce((n, f) => n + f.glyphCount, 0)).toBeGreaterThanOrEqual([...zh.text.matchAll(/[\u4e00-\u9fff]/g)].length);
    await page.screenshot({ path: join(SHOTS, 'chinese.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});

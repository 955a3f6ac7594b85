import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/index.js';
import { parseHtmlDocument } from '../../src/parsers/html-dom.js';
import { mainText } from '../../src/parsers/html-walk.js';
import { parseHtml } from '../../src/parsers/html.js';
import { projectRoot } from '../helpers.js';

/**
 * Pages as documentation and blog generators emit them (written for these tests from each
 * generator's public page structure: its landmarks, class names and chrome, around an article of
 * our own). Each must keep its article, headings in order, and drop its navigation, sidebars,
 * tables of contents, pagers and footers.
 */
interface GeneratorCase {
  file: string;
  headings: string[];
  /** The document's title, when it is not the first heading (the page's <title> names the page differently). */
  title?: string;
  /** Article text that must survive (paragraph openings, list items, table cells, code). */
  keeps: string[];
  /** Chrome that must not. */
  drops: string[];
}

const CASES: GeneratorCase[] = [
  {
    // <body class="navigation-with-keyboard">: the class that made the whole page EMPTY.
    file: 'docusaurus.html',
    headings: ['Configure the cache', 'Where pages are kept', 'When pages expire'],
    keeps: ['Fieldnotes renders every notebook page', 'By default the cache lives', 'max_size_mb: 2048', 'Renaming a notebook expires every page', 'Run fieldnotes cache stats'],
    drops: ['Skip to main content', 'Welcome to Fieldnotes', 'Back up a notebook', 'On this page', 'Edit this page', 'Copyright', 'Discord', 'Blog'],
  },
  {
    file: 'mkdocs-material.html',
    headings: ['Measuring discharge', 'The velocity-area method', 'Recording a gauging'],
    title: 'Discharge - Gauge',
    keeps: ['Discharge is the volume of water', 'The channel is divided into panels', 'Use at least twenty verticals', 'Measure depth and velocity at every vertical', '0.58'],
    drops: ['Skip to content', 'Initializing search', 'Setting up stations', 'Fitting rating curves', 'Table of contents', 'Made with', 'Copyright', '¶'],
  },
  {
    // <div class="wy-grid-for-nav"> wraps the whole page.
    file: 'sphinx-rtd.html',
    headings: ['Reading survey files', 'Supported formats', 'Datum handling'],
    keeps: ['Tidewater reads the soundings', 'Bathymetric Attributed Grid', 'read_xyz("harbour.xyz"', 'Depths from survey logs older than 1990'],
    drops: ['Search docs', 'User guide', 'Changelog', 'View page source', 'Previous', 'Copyright', 'Built with', '¶'],
  },
  {
    file: 'sphinx-furo.html',
    headings: ['Scheduling jobs', 'Recurring jobs', 'Retries'],
    keeps: ['Quernstone runs jobs on a pool of workers', 'A recurring job takes a cron expression', 'def nightly_report', 'How many times a failed job is tried again'],
    drops: ['Skip to content', 'Hide navigation sidebar', 'Deploying workers', 'Back to top', 'View this page', 'Toggle table of contents', 'On this page', 'Made with', 'Copyright', '¶'],
  },
  {
    file: 'hugo-papermod.html',
    headings: ['Sourdough at altitude', 'Why dough rises faster', 'Adjusting the recipe'],
    keeps: ['I moved to a village at two thousand metres', 'Lower air pressure lets the gas', 'Bake ten degrees hotter', 'Water boils at about 93 °C'],
    drops: ['Archive', 'Table of Contents', 'Keeping a rye starter alive', 'Powered by', 'Hugo', '©'],
  },
  {
    file: 'jekyll-just-the-docs.html',
    headings: ['Lending rules', 'Loan periods', 'Late returns'],
    keeps: ['Every member with a valid card', 'Books and audiobooks', 'We do not charge fines', 'Staff may waive a replacement charge'],
    drops: ['Skip to main content', 'Interlibrary loans', 'Events and room booking', 'a documentation theme for Jekyll', 'Handbook on GitHub', 'Copyright', 'Edit this page'],
  },
  {
    // <div class="VPContent has-sidebar"> holds the article.
    file: 'vitepress.html',
    headings: ['Routing', 'Route parameters', 'Nested routes'],
    keeps: ['Pathfinder matches the address in the browser', 'A segment that starts with a colon', "path: '/trails/:id'", 'Keep nesting shallow'],
    drops: ['Skip to content', 'Main Navigation', 'Sidebar Navigation', 'Loading data before a route', 'On this page', 'Edit this page', 'Released under the MIT License', '\u200b'],
  },
  {
    // Tailwind variants such as `navigation-open:flex` on the wrapper that holds the article.
    file: 'gitbook.html',
    headings: ['Webhooks', 'Register an endpoint', 'Verify signatures'],
    keeps: ['Ledgerline sends an HTTP POST request', 'Each endpoint gets its own signing secret', 'Reject requests whose signature does not match', 'Failed deliveries are retried'],
    drops: ['Ask or search', 'Ctrl', 'Overview', 'Powered by GitBook', 'On this page', 'Guides'],
  },
  {
    file: 'confluence-export.html',
    // The export's attachment list is part of the exported page.
    headings: ['Operations : Restoring a database from backup', 'Before you start', 'Steps', 'Attachments:'],
    keeps: ['This runbook restores a production PostgreSQL database', 'Never restore over the running primary', 'pg_restore --jobs 4', 'Typical restore time'],
    drops: ['Operations Home', 'Runbooks', 'Document generated by Confluence', 'Atlassian'],
  },
  {
    file: 'notion-export.html',
    headings: ['Onboarding checklist for new editors', 'First day', 'Style rules', 'People to meet'],
    keeps: ['Welcome to the editorial team', 'Collect your laptop and building badge', 'Every quotation needs a named source', 'When in doubt about a correction', 'Picture desk'],
    drops: ['webkit printing magic', 'box-sizing', 'font-family'],
  },
];

const fixtureDir = join(projectRoot, 'test', 'fixtures', 'site-generators');

describe('html: site-generator pages keep their article and drop their chrome', () => {
  test.each(CASES)('$file', async ({ file, headings, title, keeps, drops }) => {
    const doc = await parse(join(fixtureDir, file));
    expect(doc.elements.filter((el) => el.kind === 'heading').map((el) => el.text)).toEqual(headings);
    expect(doc.title).toBe(title ?? headings[0]);
    for (const text of keeps) expect(doc.canonical, text).toContain(text);
    for (const text of drops) expect(doc.canonical, text).not.toContain(text);
  });

  test('the fixtures are the generators\' own structure: each carries the markers named in its comment', () => {
    const read = (file: string) => readFileSync(join(fixtureDir, file), 'utf8');
    expect(read('docusaurus.html')).toContain('<body class="navigation-with-keyboard">');
    expect(read('sphinx-rtd.html')).toContain('<div class="wy-grid-for-nav">');
    expect(read('vitepress.html')).toContain('<div class="VPContent has-sidebar"');
    expect(read('gitbook.html')).toMatch(/class="[^"]*navigation-open:flex[^"]*"/);
  });
});

const CHROME_CLASSES = ['navigation-with-keyboard', 'has-sidebar', 'sidebar-layout', 'wy-grid-for-nav', 'menu-open', 'nav-shift', 'footer-sticky', 'banner-visible', 'cookie-consent-shown', 'share-enabled', 'modal-root', 'comments-enabled'];
const CHROME_ROLES = ['navigation', 'banner', 'complementary', 'contentinfo', 'dialog', 'menu'];
const ARTICLE = '<h1>Tide tables</h1><p>Tide tables give the times and heights of high and low water for every day of the year at a port, computed from its harmonic constants.</p><p>Heights are given above chart datum, so a negative height means the water falls below the charted depths.</p>';

describe('html: the boilerplate filter never removes the page', () => {
  test('<html>, <body>, <main> and <article> are kept whatever their classes and roles say', () => {
    const html = `<html class="nav-open"><body class="navigation-with-keyboard sidebar" role="navigation"><nav>Home | Blog</nav>` +
      `<main class="menu" role="banner"><article class="share-bar" role="complementary">${ARTICLE}</article></main><footer>© 2025</footer></body></html>`;
    const { elements } = parseHtml(html, { mainContent: true });
    expect(elements.map((el) => el.text)).toEqual(['Tide tables', expect.stringContaining('harmonic constants'), expect.stringContaining('chart datum')]);
  });

  test('a wrapper holding most of the text is kept, though its class names a sidebar; the real sidebar still goes', () => {
    const html = `<body><div class="layout has-sidebar"><div class="sidebar"><a href="/a">Tides</a> <a href="/b">Currents</a></div>` +
      `<div class="page-sidebar-right">${ARTICLE}</div></div></body>`;
    const { elements } = parseHtml(html, { mainContent: true });
    expect(elements.map((el) => el.text).join('\n')).toContain('harmonic constants');
    expect(elements.map((el) => el.text).join('\n')).not.toContain('Currents');
  });

  test('mainText: the chain is the deepest element with most of the running text and its ancestors; links and nav do not count', () => {
    const html = `<html><body><nav>${'Index of every page '.repeat(50)}</nav><div id="outer"><div id="links">${'<a href="/x">a long link to another page</a> '.repeat(50)}</div>` +
      `<div id="inner">${'<p>The flood stream runs for six hours on the ebb side of the channel.</p>'.repeat(3)}</div></div></body></html>`;
    const document = parseHtmlDocument(html);
    const main = mainText(document.documentElement!);
    const ids = [...main.chain].map((node) => (node as unknown as { localName: string; getAttribute(n: string): string | null }))
      .map((el) => el.getAttribute('id') ?? el.localName);
    expect(ids).toEqual(['html', 'body', 'outer', 'inner']);
    expect(main.landmark).toBeUndefined();
  });

  test('a page that is all navigation is kept whole rather than rejected as EMPTY, with a warning', async () => {
    const html = '<html><body><nav><ul><li><a href="/a">Annual report 2024</a></li><li><a href="/b">Annual report 2023</a></li></ul></nav></body></html>';
    const doc = await parse(new TextEncoder().encode(html), { name: 'index.html' });
    expect(doc.canonical).toContain('Annual report 2024');
    expect(doc.warnings.join(' ')).toMatch(/would have removed all of the page/);
  });

  test('property: an article wrapped in any nesting of chrome-named wrappers (classes, ids, roles) keeps its text', () => {
    const wrapper = fc.record({
      tag: fc.constantFrom('div', 'section', 'span', 'main', 'article', 'form'),
      cls: fc.subarray(CHROME_CLASSES, { maxLength: 3 }),
      role: fc.option(fc.constantFrom(...CHROME_ROLES), { nil: undefined }),
      id: fc.option(fc.constantFrom('sidebar', 'nav', 'menu', 'footer'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(wrapper, { minLength: 1, maxLength: 6 }), fc.subarray(CHROME_CLASSES, { maxLength: 2 }), (wrappers, bodyClasses) => {
        let inner = ARTICLE;
        for (const w of wrappers) {
          const attrs = `${w.cls.length ? ` class="${w.cls.join(' ')}"` : ''}${w.role ? ` role="${w.role}"` : ''}${w.id ? ` id="${w.id}"` : ''}`;
          inner = `<${w.tag}${attrs}>${inner}</${w.tag}>`;
        }
        const html = `<html><body class="${bodyClasses.join(' ')}"><nav class="navbar"><a href="/">Home</a></nav>${inner}<footer class="footer">© 2025 Harbour office</footer></body></html>`;
        const text = parseHtml(html, { mainContent: true }).elements.map((el) => el.text).join('\n');
        expect(text).toContain('harmonic constants');
        expect(text).toContain('below the charted depths');
        expect(text).not.toContain('Harbour office');
      }),
      { seed: 11, numRuns: 200 },
    );
  });
});

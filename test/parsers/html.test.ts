import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { buildDocument } from '../../src/document/build.js';
import { parse } from '../../src/index.js';
import type { Document, ElementDraft } from '../../src/document/types.js';
import { htmlParser, judgeArticle, parseHtml } from '../../src/parsers/html.js';
import type { ParseOptions } from '../../src/parsers/types.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { cellAgreement, expectDoclingMatch, markdownHeadings, markdownTables, sequenceF1, tokenF1 } from './similarity.js';

function toDocument(html: string, options: ParseOptions = {}): Document {
  const draft = htmlParser.parse({ bytes: new TextEncoder().encode(html), text: html }, options);
  return buildDocument(draft as Exclude<typeof draft, Promise<unknown>>, { id: 'test', bytes: html.length });
}

/** End to end: detection (encoding included) and parsing through the public parse(). */
function corpusDocument(name: string): Promise<Document> {
  return parse(corpus('html', name));
}

function elementsOf(html: string, mainContent = false): ElementDraft[] {
  return parseHtml(html, { mainContent }).elements;
}

function summary(elements: readonly ElementDraft[]): (string | number | undefined)[][] {
  return elements.map((el) => [el.kind, el.level ?? el.depth, el.text]);
}

function cells(el: ElementDraft | undefined): string[][] {
  return (el?.table?.rows ?? []).map((row) => row.map((cell) => cell.text));
}

describe('html: blocks and text', () => {
  test('headings, paragraphs of inline children, <br> as newline, whitespace collapsed as a browser does', () => {
    const html = '<body><h1>  Main\n title </h1><p>Some   <b>bold</b>\n <i>and</i><a href="/x">linked</a> text.<br>  Next line</p>' +
      '<div>Loose div text <span>with span</span><div>inner block</div>tail text</div><h3>Deep</h3></body>';
    expect(summary(elementsOf(html))).toEqual([
      ['heading', 1, 'Main title'],
      ['paragraph', undefined, 'Some bold andlinked text.\nNext line'],
      ['paragraph', undefined, 'Loose div text with span'],
      ['paragraph', undefined, 'inner block'],
      ['paragraph', undefined, 'tail text'],
      ['heading', 3, 'Deep'],
    ]);
  });

  test('lists: depth, ordered numbers from start/value/reversed, nested lists, text after a nested list', () => {
    const html = '<ol start="4"><li>four</li><li>five<ul><li>sub <b>a</b></li><li><p>sub b</p><p>second para</p></li></ul>after sub</li>' +
      '<li value="10">ten</li></ol><ol reversed><li>two</li><li>one</li></ol><ul><li><input type="checkbox" checked> done</li></ul>';
    expect(elementsOf(html).map((el) => [el.depth, el.ordered, el.number, el.text])).toEqual([
      [0, true, 4, 'four'],
      [0, true, 5, 'five'],
      [1, false, undefined, 'sub a'],
      [1, false, undefined, 'sub b\nsecond para'],
      [0, true, 5, 'after sub'],
      [0, true, 10, 'ten'],
      [0, true, 2, 'two'],
      [0, true, 1, 'one'],
      [0, false, undefined, '[x] done'],
    ]);
  });

  test('tables: thead rows are header rows, colspan/rowspan recorded, spanned rows repeat the text', () => {
    const html = '<table><caption>Sales <i>2025</i></caption><thead><tr><th rowspan="2">Region</th><th colspan="2">Q1</th></tr>' +
      '<tr><th>Jan</th><th>Feb</th></tr></thead><tbody><tr><td rowspan="2">North</td><td>1</td><td>2</td></tr>' +
      '<tr><td>3</td><td>4</td></tr></tbody></table>';
    const elements = elementsOf(html);
    expect(elements.map((el) => el.kind)).toEqual(['caption', 'table']);
    expect(elements[0]!.text).toBe('Sales 2025');
    const table = elements[1]!.table!;
    expect(table.headerRows).toBe(2);
    expect(table.caption).toBe('Sales 2025');
    expect(cells(elements[1])).toEqual([
      ['Region', 'Q1', ''],
      ['Region', 'Jan', 'Feb'],
      ['North', '1', '2'],
      ['North', '3', '4'],
    ]);
    expect(table.rows[0]![0]).toEqual({ text: 'Region', rowSpan: 2 });
    expect(table.rows[0]![1]).toEqual({ text: 'Q1', colSpan: 2 });
    expect(table.rows[2]![0]).toEqual({ text: 'North', rowSpan: 2 });
    expect(elements[1]!.text).toBe('Region\tQ1\t\nRegion\tJan\tFeb\nNorth\t1\t2\nNorth\t3\t4');
  });

  test('tables: leading all-<th> rows are headers; nested tables flatten into their cell; layout tables are walked as blocks', () => {
    const html = '<table><tr><th>K</th><th>V</th></tr><tr><td>a <b>b</b></td><td><table><tr><td>n1</td><td>n2</td></tr></table></td></tr></table>' +
      '<table role="presentation"><tr><td><h2>Inside layout</h2><p>para</p></td><td>side</td></tr></table>' +
      '<table><tr><td><p>only one column</p></td></tr><tr><td>second</td></tr></table>';
    const elements = elementsOf(html);
    expect(elements[0]!.table!.headerRows).toBe(1);
    expect(cells(elements[0])).toEqual([['K', 'V'], ['a b', 'n1 n2']]);
    expect(summary(elements.slice(1))).toEqual([
      ['heading', 2, 'Inside layout'],
      ['paragraph', undefined, 'para'],
      ['paragraph', undefined, 'side'],
      ['paragraph', undefined, 'only one column'],
      ['paragraph', undefined, 'second'],
    ]);
  });

  test('table rows left outside their table by a stray end tag are read as a table; spacer rows and columns dropped', () => {
    const html = '<center><table border="1"></center><tr><td>Grade</td><td></td><td>X1</td></tr><tr><td></td><td></td><td></td></tr>' +
      '<tr><td>Class</td><td></td><td>Steel</td></tr><p>after</p>';
    const elements = elementsOf(html);
    expect(elements.map((el) => el.kind)).toEqual(['table', 'paragraph']);
    expect(cells(elements[0])).toEqual([['Grade', 'X1'], ['Class', 'Steel']]);
  });

  test('pre keeps whitespace and takes its language from class="language-x"; inline code is text', () => {
    const html = '<p>Run <code>npm  test</code></p><pre><code class="language-TypeScript">\nconst a = 1;\n  if (a) {\n    go();\n  }\n</code></pre><pre class="lang-sh">ls</pre>';
    const elements = elementsOf(html);
    expect(elements[0]!.text).toBe('Run npm test');
    expect(elements[1]).toEqual({ kind: 'code', text: 'const a = 1;\n  if (a) {\n    go();\n  }', language: 'typescript' });
    expect(elements[2]).toEqual({ kind: 'code', text: 'ls', language: 'sh' });
  });

  test('blockquote is one quote element; figure gives image (alt) and caption; images in text follow their paragraph', () => {
    const html = '<blockquote><p>First</p><p>Second <em>part</em></p><ul><li>x</li><li>y</li></ul></blockquote>' +
      '<figure><img src="a.png" alt="A duck"><figcaption>Fig. 1: a <b>duck</b></figcaption></figure>' +
      '<p>Text <img src="i.png" alt="inline icon"> more</p><img src="deco.png" alt="">';
    expect(elementsOf(html).map((el) => [el.kind, el.kind === 'image' ? el.alt : el.text])).toEqual([
      ['quote', 'First\n\nSecond part\n\nx\ny'],
      ['image', 'A duck'],
      ['caption', 'Fig. 1: a duck'],
      ['paragraph', 'Text more'],
      ['image', 'inline icon'],
    ]);
  });

  test('scripts, styles, templates, hidden elements and comments are never content', () => {
    const html = '<p>keep</p><script>var x = "no";</script><style>p{}</style><noscript>no js</noscript><template><p>tpl</p></template>' +
      '<p hidden>hidden</p><p style="display: none">gone</p><div aria-hidden="true">aria</div><!-- comment --><p>also kept</p>';
    expect(elementsOf(html, true).map((el) => el.text)).toEqual(['keep', 'also kept']);
  });

  test('pathologically deep nesting is flattened below a depth limit instead of overflowing the stack', () => {
    expect(summary(elementsOf(`${'<div><blockquote>'.repeat(10000)}deep`))).toEqual([['quote', undefined, 'deep']]);
  });

  test('fragments without <html> parse; CRLF is normalised', () => {
    expect(summary(elementsOf('<h2>Frag</h2>\r\n<p>one\r\ntwo</p>'))).toEqual([
      ['heading', 2, 'Frag'],
      ['paragraph', undefined, 'one two'],
    ]);
    expect(summary(elementsOf('plain words only'))).toEqual([['paragraph', undefined, 'plain words only']]);
  });
});

describe('html: metadata', () => {
  test('title, meta description/author/keywords/og:*, canonical link and html lang are kept', () => {
    const html = '<!DOCTYPE html><html lang="zh-CN"><head><title> Page  title </title><meta name="description" content="A page.">' +
      '<meta name="author" content="Ada"><meta name="keywords" content="one, two ,three"><meta property="og:site_name" content="Site">' +
      '<meta name="viewport" content="width=device-width"><link rel="canonical" href="https://x.test/p"></head><body><p>正文内容</p></body></html>';
    const doc = toDocument(html);
    expect(doc.title).toBe('Page title');
    expect(doc.language).toBe('zh-CN');
    expect(doc.metadata).toEqual({
      title: 'Page title',
      description: 'A page.',
      author: 'Ada',
      keywords: ['one', 'two', 'three'],
      'og:site_name': 'Site',
      canonicalUrl: 'https://x.test/p',
    });
    expect(doc.format).toBe('html');
  });

  test('without <title> the first level-1 heading names the document', () => {
    expect(toDocument('<body><h1>产品指南</h1><p>text</p></body>').title).toBe('产品指南');
  });
});

const PARAGRAPH = (topic: string): string =>
  `<p>${topic} is discussed at length in this paragraph, which exists to look like real article prose: it has several clauses, ` +
  `commas, and enough words that a reader-mode extractor scores it as content rather than chrome. ${topic} matters here.</p>`;

const ARTICLE_PAGE = `<!DOCTYPE html><html lang="en"><head><title>Ducks of the world - Bird Site</title></head><body>
<div id="topbar"><a href="/">Home</a> | <a href="/a">Birds</a> | <a href="/b">Fish</a> | <a href="/c">Mammals</a> | <a href="/d">Insects</a> | <a href="/e">Reptiles</a> | <a href="/f">Contact us today</a></div>
<nav><ul><li><a href="/1">Navigation link one</a></li><li><a href="/2">Navigation link two</a></li></ul></nav>
<div class="page"><div class="article-body">
<h1>Ducks of the world</h1>
${PARAGRAPH('Plumage')}
<h2>Feeding</h2>
${PARAGRAPH('Dabbling')}
${PARAGRAPH('Diving')}
<h2>Breeding</h2>
${PARAGRAPH('Nesting')}
<ul><li>Eggs are laid in spring, usually eight to twelve of them.</li><li>Ducklings leave the nest within a day of hatching.</li></ul>
</div></div>
<div id="links-box"><a href="/x1">Sponsored link number one</a> <a href="/x2">Sponsored link number two</a> <a href="/x3">Sponsored link number three</a> <a href="/x4">Sponsored link four</a></div>
<footer><p>Copyright 2025 Bird Site. All rights reserved.</p></footer>
</body></html>`;

describe('html: main content', () => {
  test('an article page keeps its article (Readability): chrome dropped, headings and levels kept', () => {
    const doc = toDocument(ARTICLE_PAGE);
    expect(doc.warnings.join(' ')).toMatch(/kept the main content \(Readability\)/);
    const headings = doc.elements.filter((el) => el.kind === 'heading').map((el) => [el.level, el.text]);
    expect(headings).toEqual([
      [1, 'Ducks of the world'],
      [2, 'Feeding'],
      [2, 'Breeding'],
    ]);
    expect(doc.elements.filter((el) => el.kind === 'list-item')).toHaveLength(2);
    expect(doc.canonical).not.toMatch(/Navigation link|Sponsored link|Copyright|Contact us/);
    expect(doc.title).toBe('Ducks of the world');
  });

  test('htmlMainContent: false keeps the whole page, chrome included', () => {
    const doc = toDocument(ARTICLE_PAGE, { htmlMainContent: false });
    expect(doc.canonical).toMatch(/Navigation link one/);
    expect(doc.canonical).toMatch(/Copyright 2025/);
    expect(doc.title).toBe('Ducks of the world - Bird Site');
  });

  test('non-article pages keep the whole body minus nav/header/footer/aside/form and boilerplate roles/classes', () => {
    const html = '<body><header><a href="/">Logo</a></header><div role="navigation">Menu stuff</div><div class="cookie-banner">We use cookies</div>' +
      '<aside>Side notes</aside><form><label>Search</label></form><h1>Datasheet</h1><table><tr><th>Grade</th><th>C</th></tr><tr><td>X1</td><td>0.4</td></tr></table>' +
      '<article><header><h2>Kept header inside article</h2></header><p>Body</p></article><footer>Footer text</footer></body>';
    const doc = toDocument(html);
    expect(doc.warnings).toEqual([]);
    expect(summary(doc.elements)).toEqual([
      ['heading', 1, 'Datasheet'],
      ['table', undefined, 'Grade\tC\nX1\t0.4'],
      ['heading', 2, 'Kept header inside article'],
      ['paragraph', undefined, 'Body'],
    ]);
  });

  test('the article is refused when it keeps too little text or drops the tables, or removes nothing', () => {
    const para = (n: number): ElementDraft => ({ kind: 'paragraph', text: 'x'.repeat(n) });
    const table = (n: number): ElementDraft => ({ kind: 'table', text: 'y'.repeat(n) });
    expect(judgeArticle([para(1000)], [para(800)]).useArticle).toBe(true);
    expect(judgeArticle([para(1000)], [para(200)]).useArticle).toBe(false);
    expect(judgeArticle([para(600), table(400)], [para(590)]).useArticle).toBe(false);
    expect(judgeArticle([para(600), table(400)], [para(500), table(400)]).useArticle).toBe(true);
    expect(judgeArticle([para(1000)], [para(990)]).useArticle).toBe(false);
  });
});

describe.skipIf(!hasShared)('html: shared corpus', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  const files = hasShared ? readdirSync(corpus('html')).filter((f) => f.endsWith('.html')) : [];

  test.each(files)('%s parses to a non-empty document', async (name) => {
    const doc = await corpusDocument(name);
    expect(doc.elements.length).toBeGreaterThan(0);
    expect(doc.canonical.trim().length).toBeGreaterThan(0);
  });

  // Small docling pages: docling keeps everything and so do we. Heading-sequence F1 (LCS of
  // normalised heading texts) = 1, token-level F1 of the canonical text (words / CJK characters,
  // markup removed) >= 0.95, and every table cell-equal to docling's (rowspans repeated down).
  test.each(['example_08.html', 'table_05.html'])('%s matches docling: headings F1 = 1, text F1 >= 0.95, tables cell-equal', async (name) => {
    const doc = await corpusDocument(name);
    expectDoclingMatch(doc, readFileSync(corpus('html', `${name}.expected.md`), 'utf8'));
  });

  // docling keeps Wikipedia's chrome (table of contents, 136 language links, navboxes); we drop it.
  // So the measures are one-sided: precision (share of our tokens / headings found in docling's
  // output) >= 0.95 and recall >= 0.75 for text (chrome is about a fifth of docling's tokens) and
  // >= 0.9 for headings (only 'Contents' may go); the infobox's key/value rows all present.
  test('wiki_duck.html: main article kept, chrome dropped (one-sided F1 against docling)', async () => {
    const doc = await corpusDocument('wiki_duck.html');
    const expected = readFileSync(corpus('html', 'wiki_duck.html.expected.md'), 'utf8');
    const text = tokenF1(doc.canonical, expected);
    expect(text.precision).toBeGreaterThanOrEqual(0.95);
    expect(text.recall).toBeGreaterThanOrEqual(0.75);
    const headings = sequenceF1(doc.elements.filter((el) => el.kind === 'heading').map((el) => el.text), markdownHeadings(expected));
    expect(headings.precision).toBeGreaterThanOrEqual(0.95);
    expect(headings.recall).toBeGreaterThanOrEqual(0.9);
    expect(doc.title).toBe('Duck');
    expect(doc.language).toBe('en');
    expect(doc.canonical).not.toMatch(/Afrikaans|Jump to content|Toggle the table of contents/);
    const infobox = cells(doc.elements.find((el) => el.kind === 'table'));
    const keyValueRows = markdownTables(expected)[0]!.filter((row) => row.length === 2 && /:$/.test(row[0]!));
    expect(keyValueRows.length).toBeGreaterThan(5);
    for (const row of keyValueRows) {
      expect(infobox.some((ours) => cellAgreement([ours], [row]) === 1), row.join(' | ')).toBe(true);
    }
  });

  test('the measures can fail: a different document scores below every threshold used above', async () => {
    const wikiExpected = readFileSync(corpus('html', 'wiki_duck.html.expected.md'), 'utf8');
    const other = readFileSync(corpus('md', 'wiki.md'), 'utf8');
    expect(tokenF1(other, wikiExpected).precision).toBeLessThan(0.95);
    expect(tokenF1(other, wikiExpected).recall).toBeLessThan(0.1);
    const table05 = readFileSync(corpus('html', 'table_05.html.expected.md'), 'utf8');
    expect(tokenF1((await corpusDocument('example_08.html')).canonical, table05).f1).toBeLessThan(0.3);
    const pivot = markdownTables(readFileSync(corpus('html', 'example_08.html.expected.md'), 'utf8'))[1]!;
    // A table without the rowspan repetition (what a naive grid gives) is not cell-equal.
    const naive = pivot.map((row, r) => (r > 1 ? row.map((cell, c) => (c < 2 && r % 3 !== 2 ? '' : cell)) : row));
    expect(cellAgreement(naive, pivot)).toBeLessThan(1);
  });

  // unstructured's elements for the cp1252 page: same element kinds, and token F1 >= 0.9 (its own
  // decode turned a few characters into Central European ones, e.g. 'très' -> 'trčs').
  test('fake-html-cp1252.html matches unstructured: element kinds and text F1 >= 0.9', async () => {
    const doc = await corpusDocument('fake-html-cp1252.html');
    expect(doc.encoding).toBe('windows-1252');
    const expected = JSON.parse(readFileSync(corpus('html', 'fake-html-cp1252.html.expected.json'), 'utf8')) as { type: string; text: string }[];
    const kindOf: Record<string, string> = { Title: 'heading', NarrativeText: 'paragraph', UncategorizedText: 'paragraph', CodeSnippet: 'code', ListItem: 'list-item', Table: 'table' };
    expect(doc.elements.map((el) => el.kind)).toEqual(expected.map((el) => kindOf[el.type]));
    expect(tokenF1(doc.elements.map((el) => el.text).join('\n\n'), expected.map((el) => el.text).join('\n\n')).f1).toBeGreaterThanOrEqual(0.9);
    expect(doc.elements[3]!.text).toContain('Die schöne Frau hat einen Kaffee mit Kuchen gegessen.');
  });

  test('example-10k-1p.html (Inline XBRL filing): text inside ix: tags kept, data tables kept, spacer columns dropped', async () => {
    const doc = await corpusDocument('example-10k-1p.html');
    expect(doc.canonical).toContain('Galaxy Gaming, Inc.');
    expect(doc.canonical).toContain('23,718,968 common shares as of March 28, 2022');
    const tables = doc.elements.filter((el) => el.kind === 'table').map(cells);
    expect(tables).toContainEqual([['Title of each class', 'Trading symbol', 'Name of exchange on which registered'], ['Common stock', 'GLXZ', 'OTCQB marketplace']]);
  });

  test('example-steelJIS-datasheet-utf-16.html: the data sheet tables survive sloppy markup', async () => {
    const doc = await corpusDocument('example-steelJIS-datasheet-utf-16.html');
    expect(doc.encoding).toBe('utf-16le');
    expect(doc.metadata.author).toBe('SteelJIS(.com)');
    const tables = doc.elements.filter((el) => el.kind === 'table').map(cells);
    expect(tables).toContainEqual([['C', 'Si', 'Mn', 'P', 'S', 'Cr', 'Mo'], ['0.39 - 0.46', '0.2 - 0.35', '0.65 - 1.1', 'max 0.025', 'max 0.025', '0.75 - 1.2', '0.15 - 0.25']]);
    expect(tables.some((t) => t[0]![0] === 'Grade :' && t[0]![1] === 'SNB22-3')).toBe(true);
  });

  test('html.sample.zh.html: Chinese headings, paragraphs and table', async () => {
    const doc = await corpusDocument('html.sample.zh.html');
    expect(summary(doc.elements.filter((el) => el.kind !== 'table'))).toEqual([
      ['heading', 1, '产品指南'],
      ['paragraph', undefined, '第一步：打开应用。第二步：点击设置完成配置。'],
      ['heading', 2, '使用条款'],
      ['paragraph', undefined, '欢迎使用我们的智能助手，它能帮你快速完成任务。'],
    ]);
    const table = doc.elements.find((el) => el.kind === 'table')!;
    expect(table.table!.headerRows).toBe(1);
    expect(cells(table)).toEqual([['姓名', '年龄'], ['张三', '30'], ['李四', '25']]);
  });
});

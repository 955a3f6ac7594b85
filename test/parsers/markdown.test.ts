import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { buildDocument } from '../../src/document/build.js';
import { parse } from '../../src/index.js';
import type { Document, ElementDraft } from '../../src/document/types.js';
import { markdownParser, normaliseMarkdownSource, parseFrontMatter, parseMarkdown } from '../../src/parsers/markdown.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { cellAgreement, expectDoclingMatch, markdownHeadings, markdownTables, sequenceF1, tokenF1 } from './similarity.js';

function toDocument(text: string): Document {
  const draft = markdownParser.parse({ bytes: new TextEncoder().encode(text), text }, {});
  return buildDocument(draft as Exclude<typeof draft, Promise<unknown>>, { id: 'test', bytes: text.length });
}

/** End to end: detection (encoding included) and parsing through the public parse(). */
function corpusDocument(name: string): Promise<Document> {
  return parse(corpus('md', name));
}

function kinds(elements: readonly ElementDraft[]): string[] {
  return elements.map((el) => el.kind);
}

describe('markdown: blocks', () => {
  test('ATX and setext headings keep their levels; the title is the first level-1 heading', () => {
    const { elements, title } = parseMarkdown('Intro line\n\nSetext One\n==========\n\nSetext Two\n----------\n\n### Three ###\n\n# Second H1\n');
    expect(elements.filter((el) => el.kind === 'heading').map((el) => [el.level, el.text])).toEqual([
      [1, 'Setext One'],
      [2, 'Setext Two'],
      [3, 'Three'],
      [1, 'Second H1'],
    ]);
    expect(title).toBe('Setext One');
  });

  test('nested lists: depth, ordered, numbers from the start number, task items', () => {
    const md = ['3. three', '4. four', '   - sub a', '   - [x] sub done', '     1. deep', '- [ ] open task', '* other marker'].join('\n');
    const items = parseMarkdown(md).elements.filter((el) => el.kind === 'list-item');
    expect(items.map((el) => [el.depth, el.ordered, el.number, el.text])).toEqual([
      [0, true, 3, 'three'],
      [0, true, 4, 'four'],
      [1, false, undefined, 'sub a'],
      [1, false, undefined, '[x] sub done'],
      [2, true, 1, 'deep'],
      [0, false, undefined, '[ ] open task'],
      [0, false, undefined, 'other marker'],
    ]);
  });

  test('a loose list item keeps its paragraphs; text after a nested list continues the item', () => {
    const md = '1. first para\n\n   second para\n\n   - nested\n\n   after nested\n2. next\n';
    const items = parseMarkdown(md).elements.filter((el) => el.kind === 'list-item');
    expect(items.map((el) => [el.depth, el.number, el.text])).toEqual([
      [0, 1, 'first para\nsecond para'],
      [1, undefined, 'nested'],
      [0, 1, 'after nested'],
      [0, 2, 'next'],
    ]);
  });

  test('GFM table: header row, cells as plain text (inline markup rendered, escaped pipes, alignment ignored)', () => {
    const md = '| **Name** | `code` | Link |\n|:--|:-:|--:|\n| *a* | `x\\|y` | [docs](https://example.com) |\n| b \\| c | ~~old~~ | ![logo](l.png) |\n';
    const [table] = parseMarkdown(md).elements;
    expect(table!.kind).toBe('table');
    expect(table!.table!.headerRows).toBe(1);
    expect(table!.table!.rows.map((row) => row.map((cell) => cell.text))).toEqual([
      ['Name', 'code', 'Link'],
      ['a', 'x|y', 'docs'],
      ['b | c', 'old', 'logo'],
    ]);
    expect(table!.text).toBe('Name\tcode\tLink\na\tx|y\tdocs\nb | c\told\tlogo');
  });

  test('fenced code with ``` inside ~~~, language from the info string; indented code has none', () => {
    const md = '~~~markdown title="x"\n```js\nlet a = 1;\n```\n~~~\n\n    indented();\n    more();\n';
    const [fenced, indented] = parseMarkdown(md).elements;
    expect(fenced).toMatchObject({ kind: 'code', language: 'markdown', text: '```js\nlet a = 1;\n```' });
    expect(indented).toMatchObject({ kind: 'code', text: 'indented();\nmore();' });
    expect(indented!.language).toBeUndefined();
    // The canonical rendering switches fences so the inner ``` survives.
    expect(toDocument(md).canonical).toContain('~~~~markdown\n```js\nlet a = 1;\n```\n~~~~');
  });

  test('block quotes become one quote element with nested content flattened', () => {
    const md = '> # Quoted title\n>\n> First *para*\n> > nested quote\n>\n> - item one\n> - item two\n';
    const elements = parseMarkdown(md).elements;
    expect(kinds(elements)).toEqual(['quote']);
    expect(elements[0]!.text).toBe('Quoted title\n\nFirst para\n\nnested quote\n\nitem one\nitem two');
  });

  test('HTML blocks are read as HTML (text kept, tags stripped, an HTML list stays a list); comments dropped', () => {
    const md = '<div align="center">\n  <b>Bold</b> words &amp; more\n</div>\n\n<!-- a comment -->\n\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n';
    const elements = parseMarkdown(md).elements;
    expect(elements.map((el) => [el.kind, el.text])).toEqual([
      ['paragraph', 'Bold words & more'],
      ['list-item', 'one'],
      ['list-item', 'two'],
    ]);
  });

  test('thematic breaks and link definitions are dropped', () => {
    const md = 'before\n\n---\n\n***\n\n[ref]: https://example.com\n\nafter [ref]\n';
    expect(parseMarkdown(md).elements.map((el) => el.text)).toEqual(['before', 'after ref']);
  });
});

describe('markdown: inline text', () => {
  test('links keep their text only; emphasis, code spans and escapes become plain text; entities decode', () => {
    const [p] = parseMarkdown('See **the [guide](https://x.test/g)** and `npm i` \\*now\\* &amp; &copy; &#x4E2D; <https://auto.test>\n').elements;
    expect(p!.text).toBe('See the guide and npm i *now* & © 中 https://auto.test');
  });

  test('a paragraph of only images becomes image elements; an inline image keeps its alt in the text', () => {
    const md = '[![build](b.svg)](https://ci) ![coverage](c.svg)\n\nText with ![an icon](i.png) inside.\n\n![](no-alt.png)\n';
    const elements = parseMarkdown(md).elements;
    expect(elements.map((el) => [el.kind, el.kind === 'image' ? el.alt : el.text])).toEqual([
      ['image', 'build'],
      ['image', 'coverage'],
      ['paragraph', 'Text with an icon inside.'],
    ]);
  });

  test('soft breaks become spaces (none between CJK characters); hard breaks stay newlines', () => {
    const [latin, cjk, hard] = parseMarkdown('one\ntwo\n\n第一行\n第二行\n\nline one  \nline two<br>line three\n').elements;
    expect(latin!.text).toBe('one two');
    expect(cjk!.text).toBe('第一行第二行');
    expect(hard!.text).toBe('line one\nline two\nline three');
  });

  test('CJK headings and text', () => {
    const { elements, title } = parseMarkdown('# 第三章 安装\n\n## 3.2 前提条件\n\n安装前请确认：系统满足要求。\n');
    expect(elements.map((el) => [el.kind, el.level, el.text])).toEqual([
      ['heading', 1, '第三章 安装'],
      ['heading', 2, '3.2 前提条件'],
      ['paragraph', undefined, '安装前请确认：系统满足要求。'],
    ]);
    expect(title).toBe('第三章 安装');
  });
});

describe('markdown: front matter', () => {
  test('YAML front matter becomes metadata, not content, and names the title', () => {
    const md = '---\ntitle: "Install: guide"\ntags: [setup, linux]\nauthors:\n  - Ada\n  - Linus\ndraft: false\nversion: 2\n---\n# Heading\n\nBody.\n';
    const { elements, metadata, title } = parseMarkdown(md);
    expect(metadata).toEqual({ title: 'Install: guide', tags: ['setup', 'linux'], authors: ['Ada', 'Linus'], draft: false, version: 2 });
    expect(title).toBe('Install: guide');
    expect(elements.map((el) => el.text)).toEqual(['Heading', 'Body.']);
    expect(md.slice(elements[0]!.sourceStart, elements[0]!.sourceEnd)).toBe('# Heading');
  });

  test('a thematic break that is not at the very start is not front matter', () => {
    expect(parseMarkdown('Text\n\n---\nkey: value\n---\n').metadata).toEqual({});
    expect(parseMarkdown('---\nlang: de\n---\nText\n').language).toBe('de');
    expect(parseFrontMatter('nested:\n  a: 1\n  b: 2\nplain: x # comment')).toEqual({ nested: 'a: 1\nb: 2', plain: 'x' });
  });
});

const ROUND_TRIP_FIXTURE = [
  '---',
  'title: Fixture',
  '---',
  '# Guide',
  '',
  'Intro with **bold** and a [link](https://x.test).',
  '',
  '- alpha item',
  '  - beta nested',
  '    1. gamma deep',
  '- delta item',
  '',
  '  delta second paragraph',
  '',
  '  ```sh',
  '  echo inside-item',
  '  ```',
  '- epsilon',
  '',
  '| Col one | Col two |',
  '| --- | --- |',
  '| cell | *more* |',
  '',
  '> quoted words',
  '',
  '```python',
  'print("hi")',
  '```',
  '',
  'Setext heading',
  '--------------',
  '',
  '<p>html words</p>',
  '',
  '![diagram](d.png)',
  '',
  '第二章 结束',
].join('\n');

function firstWord(el: ElementDraft): string {
  const text = el.kind === 'image' ? el.alt ?? '' : el.text;
  return /[\p{L}\p{N}]+/u.exec(text)?.[0] ?? '';
}

describe('markdown: source offsets', () => {
  test('every element spans its source: the slice contains the first word of its text, in document order', () => {
    const source = normaliseMarkdownSource(ROUND_TRIP_FIXTURE);
    const { elements } = parseMarkdown(ROUND_TRIP_FIXTURE);
    expect(kinds(elements)).toEqual([
      'heading', 'paragraph', 'list-item', 'list-item', 'list-item', 'list-item', 'code', 'list-item',
      'table', 'quote', 'code', 'heading', 'paragraph', 'image', 'paragraph',
    ]);
    let previous = 0;
    for (const el of elements) {
      expect(el.sourceStart).toBeGreaterThanOrEqual(previous);
      expect(el.sourceEnd).toBeGreaterThan(el.sourceStart!);
      const slice = source.slice(el.sourceStart, el.sourceEnd);
      expect(slice, `${el.kind} ${el.text}`).toContain(firstWord(el));
      expect(slice).toBe(slice.trim() === slice ? slice : slice.trimEnd());
      previous = el.sourceStart!;
    }
    const byText = new Map(elements.map((el) => [el.text, source.slice(el.sourceStart, el.sourceEnd)]));
    expect(byText.get('beta nested')).toBe('- beta nested');
    expect(byText.get('gamma deep')).toBe('1. gamma deep');
    expect(byText.get('delta item\ndelta second paragraph')).toBe('- delta item\n\n  delta second paragraph');
    expect(byText.get('echo inside-item')).toBe('```sh\n  echo inside-item\n  ```');
    expect(byText.get('Setext heading')).toBe('Setext heading\n--------------');
  });

  test('CRLF input gives the same elements as LF, with offsets into the LF-normalised text', () => {
    const lf = parseMarkdown(ROUND_TRIP_FIXTURE).elements;
    const crlf = parseMarkdown(ROUND_TRIP_FIXTURE.replace(/\n/g, '\r\n')).elements;
    expect(crlf).toEqual(lf);
    expect(parseMarkdown('\ufeff# T\r\n\r\nbody\r').elements.map((el) => [el.text, el.sourceStart, el.sourceEnd])).toEqual([
      ['T', 0, 3],
      ['body', 5, 9],
    ]);
  });

  test('the canonical text renders every element; element spans slice it exactly', () => {
    const doc = toDocument(ROUND_TRIP_FIXTURE);
    expect(doc.title).toBe('Fixture');
    expect(doc.metadata).toEqual({ title: 'Fixture' });
    for (const el of doc.elements) expect(doc.canonical.slice(el.start, el.end)).toContain(firstWord(el));
    expect(doc.canonical.startsWith('# Guide\n\nIntro with bold and a link.\n\n- alpha item\n  - beta nested\n    1. gamma deep\n')).toBe(true);
  });
});

describe('markdown: limits', () => {
  test('absurdly deep nesting is refused with LIMIT_EXCEEDED, not a stack-overflow crash', () => {
    const run = (): unknown => markdownParser.parse({ bytes: new Uint8Array(), text: `${'> '.repeat(3000)}deep` }, {});
    expect(run).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED' }));
    // Deep but sane nesting still parses.
    expect(parseMarkdown(`${'> '.repeat(200)}deep`).elements.map((el) => el.text)).toEqual(['deep']);
  });
});

describe.skipIf(!hasShared)('markdown: shared corpus', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  const dir = corpus('md');
  const files = hasShared ? readdirSync(dir).filter((f) => f.endsWith('.md') && !f.includes('.expected.')) : [];

  test.each(files)('%s parses to a non-empty document', async (name) => {
    const doc = await corpusDocument(name);
    expect(doc.elements.length).toBeGreaterThan(0);
    expect(doc.canonical.trim().length).toBeGreaterThan(0);
  });

  // docling renders Markdown back to Markdown, so its ground truth differs from ours only in list
  // markers and spacing: we require heading-sequence F1 (LCS of normalised heading texts) = 1 and
  // token-level F1 (multiset of words / CJK characters, markup removed) >= 0.95 on the canonical text.
  const withExpected = hasShared ? files.filter((f) => files.length > 0 && readdirSync(dir).includes(`${f}.expected.md`)) : [];
  test.each(withExpected)('%s matches docling: headings F1 = 1, text token F1 >= 0.95, tables cell-equal', async (name) => {
    const doc = await corpusDocument(name);
    expectDoclingMatch(doc, readFileSync(corpus('md', `${name}.expected.md`), 'utf8'));
  });

  test('the measures can fail: another document scores far below the thresholds', async () => {
    const wiki = await corpusDocument('wiki.md');
    const nestedExpected = readFileSync(corpus('md', 'nested.md.expected.md'), 'utf8');
    expect(tokenF1(wiki.canonical, nestedExpected).f1).toBeLessThan(0.3);
    const headings = wiki.elements.filter((el) => el.kind === 'heading').map((el) => el.text);
    expect(sequenceF1(headings, markdownHeadings(nestedExpected)).f1).toBeLessThan(0.5);
    const table = markdownTables(readFileSync(corpus('md', 'ending_with_table.md.expected.md'), 'utf8'))[0]!;
    const shifted = table.map((row) => [...row.slice(1), row[0]!]);
    expect(cellAgreement(shifted, table)).toBeLessThan(0.5);
  });

  test('nested.md keeps list depths as docling does, and its HTML list as list items', async () => {
    const doc = await corpusDocument('nested.md');
    const items = doc.elements.filter((el) => el.kind === 'list-item');
    expect(items.slice(0, 6).map((el) => [el.depth, el.text])).toEqual([
      [0, 'abc'], [1, 'abc123'], [2, 'abc1234'], [3, 'abc12345'], [4, 'a.'], [4, 'b.'],
    ]);
    expect(items.slice(-5).map((el) => [el.depth, el.text])).toEqual([
      [0, 'First item'], [0, 'Second item with subitems:'], [1, 'Subitem 1'], [1, 'Subitem 2'], [0, 'Last list item'],
    ]);
    // The trailing HTML comment (with a table inside) is not content.
    expect(doc.canonical).not.toContain('Nested Table');
  });

  test('markdown.sample.zh.md: CJK headings, table, list, yaml code, data-URI image alt', async () => {
    const doc = await corpusDocument('markdown.sample.zh.md');
    expect(doc.title).toBe('健康检查套餐对比');
    expect(kinds(doc.elements)).toEqual(['heading', 'paragraph', 'heading', 'table', 'paragraph', 'heading', 'list-item', 'list-item', 'paragraph', 'code', 'image']);
    expect(doc.elements[3]!.table!.rows[2]!.map((c) => c.text)).toEqual(['心电图', '不包含', '包含']);
    expect(doc.elements[9]).toMatchObject({ language: 'yaml', text: 'name: health-check\nversion: 1' });
    expect(doc.elements[10]!.alt).toBe('示意图');
  });

  test('umlauts-non-utf8.md is detected as windows-1252 and keeps its umlauts', async () => {
    const doc = await corpusDocument('umlauts-non-utf8.md');
    expect(doc.encoding).toBe('windows-1252');
    expect(doc.elements.map((el) => el.text)).toEqual(['können', 'können', 'äöüß']);
  });

  test('codeblock.md: three fenced blocks with languages', async () => {
    const code = (await corpusDocument('codeblock.md')).elements.filter((el) => el.kind === 'code');
    expect(code.map((el) => el.language)).toEqual(['html', 'xml', 'xml']);
    expect(code[0]!.text.startsWith('<!DOCTYPE html>')).toBe(true);
  });
});

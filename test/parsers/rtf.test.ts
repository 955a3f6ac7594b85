import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { interpretRtf } from '../../src/parsers/rtf-interpreter.js';
import { rtfParser } from '../../src/parsers/rtf.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

registerParser(rtfParser);

/** RTF source as bytes, one byte per char (RTF is 7-bit; \'hh escapes carry the rest). */
const rtf = (source: string): Uint8Array => Uint8Array.from(source, (c) => c.charCodeAt(0));
const summary = (source: string) => interpretRtf(rtf(source)).elements.map((e) => [e.kind, e.level ?? e.depth, e.text]);

const STYLES = '{\\stylesheet{\\s0 Normal;}{\\s1\\sbasedon0 heading 1;}{\\s2\\outlinelevel1 My Section;}{\\*\\cs10 Default Paragraph Font;}}';

describe('rtf: text and destinations', () => {
  test('paragraphs, \\line, escapes and character words; font/colour tables, pictures, field instructions and unknown \\* destinations skipped', () => {
    const source = '{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\froman Times;}}{\\colortbl;\\red0\\green0\\blue0;}' +
      '{\\*\\generator Writer;}{\\*\\unknownthing hidden text}' +
      '\\pard Caf\\\'e9 \\ldblquote quoted\\rdblquote  \\{braces\\} back\\\\slash\\line second line\\par' +
      '{\\pict\\pngblip 89504e47}{\\field{\\*\\fldinst HYPERLINK "http://x"}{\\fldrslt link text}} and \\\'80 euro\\par}';
    expect(summary(source)).toEqual([
      ['paragraph', undefined, 'Café “quoted” {braces} back\\slash\nsecond line'],
      ['paragraph', undefined, 'link text and € euro'],
    ]);
  });

  test('\\uN with \\ucN fallback skipping (including \\\'hh fallbacks and a control word), surrogate pairs', () => {
    const source = '{\\rtf1\\ansi\\uc1 A\\u8364?B\\uc2\\u20320\\\'c4\\\'e3C\\uc1\\u-10179\\\'3f\\u-8704\\\'3fD\\uc1\\u233\\plain E\\par}';
    expect(summary(source)).toEqual([['paragraph', undefined, 'A€B你C😀DéE']]);
  });

  test('\\\'hh bytes decode with the font\'s \\fcharset (Shift_JIS 128, GB2312 134) or \\ansicpg', () => {
    const source = '{\\rtf1\\ansi\\ansicpg1251\\deff0{\\fonttbl{\\f0\\fnil Arial;}{\\f1\\fnil\\fcharset128 MS Mincho;}{\\f2\\fnil\\fcharset134 SimSun;}}' +
      '\\pard\\f1 \\\'93\\\'fa\\\'96\\\'7b\\par\\f2 \\\'d6\\\'d0\\\'ce\\\'c4\\par\\f0 \\\'cf\\\'f0\\\'e8\\\'e2\\\'e5\\\'f2\\par}';
    const result = interpretRtf(rtf(source));
    expect(result.elements.map((e) => e.text)).toEqual(['日本', '中文', 'Привет']);
    expect(result.codePage).toBe('windows-1251');
  });

  test('\\info title, author and dates become metadata; \\bin data is skipped', () => {
    const source = '{\\rtf1\\ansi{\\info{\\title Quarterly \\\'e9tude}{\\author Ann}{\\creatim\\yr2024\\mo3\\dy5\\hr14\\min7}}' +
      '\\pard Body {\\*\\blob\\bin4 }}{}}text\\par}';
    const result = interpretRtf(rtf(source));
    expect(result.title).toBe('Quarterly étude');
    expect(result.metadata).toMatchObject({ title: 'Quarterly étude', author: 'Ann', created: '2024-03-05T14:07:00' });
    expect(result.elements.map((e) => e.text)).toEqual(['Body text']);
  });

  test('headings from styles named "heading N", from a style\'s \\outlinelevel and from a paragraph\'s \\outlinelevel', () => {
    const source = `{\\rtf1\\ansi${STYLES}\\pard\\s1 Intro\\par\\pard\\s0 Plain text.\\par\\pard\\s2 Details\\par\\pard\\outlinelevel2 Deep\\par\\pard Tail\\par}`;
    expect(summary(source)).toEqual([
      ['heading', 1, 'Intro'],
      ['paragraph', undefined, 'Plain text.'],
      ['heading', 2, 'Details'],
      ['heading', 3, 'Deep'],
      ['paragraph', undefined, 'Tail'],
    ]);
  });

  test('tables: cells and rows, a header row (\\trhdr), paragraphs inside a cell, closed by the next paragraph', () => {
    const source = '{\\rtf1\\ansi\\pard Before\\par' +
      '\\trowd\\trhdr\\cellx1000\\cellx2000\\pard\\intbl Name\\cell Qty\\cell\\row' +
      '\\trowd\\cellx1000\\cellx2000\\pard\\intbl Apples\\par green\\cell 3\\cell\\row' +
      '\\pard After\\par}';
    const elements = interpretRtf(rtf(source)).elements;
    expect(elements.map((e) => e.kind)).toEqual(['paragraph', 'table', 'paragraph']);
    expect(elements[1]!.table).toEqual({ headerRows: 1, rows: [[{ text: 'Name' }, { text: 'Qty' }], [{ text: 'Apples\ngreen' }, { text: '3' }]] });
  });

  test('lists from \\listtext (numbers, bullets, depth by indent) and old-style \\pntext', () => {
    const source = '{\\rtf1\\ansi' +
      '{\\listtext 1.\\tab}\\pard\\ls1\\li720 First\\par' +
      '{\\listtext \\\'b7\\tab}\\pard\\ls2\\li1440 Nested\\par' +
      '{\\listtext 2.\\tab}\\pard\\ls1\\li720 Second\\par' +
      '\\pard Normal\\par' +
      '{\\pntext\\f1 a)\\tab}\\pard{\\*\\pn\\pnlvlbody\\pnlcltr}Letter\\par}';
    const elements = interpretRtf(rtf(source)).elements;
    expect(elements.map((e) => [e.kind, e.depth, e.ordered, e.number, e.text])).toEqual([
      ['list-item', 0, true, 1, 'First'],
      ['list-item', 1, false, undefined, 'Nested'],
      ['list-item', 0, true, 2, 'Second'],
      ['paragraph', undefined, undefined, undefined, 'Normal'],
      ['list-item', 0, true, undefined, 'Letter'],
    ]);
  });

  test('footnotes follow their paragraph; headers and footers are page furniture', () => {
    const source = '{\\rtf1\\ansi{\\header\\pard Running head\\par}{\\footer\\pard Page \\chpgn\\par}\\pard Claim{\\super\\chftn}{\\footnote\\pard\\plain{\\chftn} Source: report.\\par} holds.\\par}';
    expect(summary(source)).toEqual([
      ['page-furniture', undefined, 'Running head'],
      ['page-furniture', undefined, 'Page'],
      ['paragraph', undefined, 'Claim holds.'],
      ['footnote', undefined, 'Source: report.'],
    ]);
  });

  test('not RTF is CORRUPT; an RTF with no text is EMPTY', async () => {
    expect(() => interpretRtf(rtf('hello'))).toThrow(/not RTF/);
    await expect(parse(rtf('{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}\\pard\\par}'), { name: 'x.rtf' })).rejects.toMatchObject({ code: 'EMPTY' });
  });

  test('unbalanced and truncated input never throws', () => {
    expect(summary('{\\rtf1 a}}} b\\par')).toEqual([['paragraph', undefined, 'a b']]);
    expect(summary('{\\rtf1 {{{ text \\u')).toEqual([['paragraph', undefined, 'text']]);
  });
});

describe.skipIf(!hasShared)('rtf: corpus (Apache Tika test files)', () => {
  if (!hasShared) console.warn(sharedSkipReason);

  test('every corpus RTF parses', async () => {
    for (const name of readdirSync(corpus('rtf')).filter((n) => n.endsWith('.rtf'))) {
      const doc = await parse(corpus('rtf', name));
      expect(doc.format, name).toBe('rtf');
      expect(doc.elements.length, name).toBeGreaterThan(0);
    }
  });

  test('testRTF.rtf: cp1252 \\rquote text and \\info metadata', async () => {
    const doc = await parse(corpus('rtf', 'testRTF.rtf'));
    expect(doc.canonical).toBe('Test d’indexation Word');
    expect(doc.metadata).toMatchObject({ title: 'Test d’indexation Word', author: 'Bibliotheque', company: 'Universite Laval' });
  });

  test('testRTFJapanese.rtf: Shift_JIS \\\'hh runs by \\fcharset128 and \\uN text, no fallback \'?\' left; lists and a table', async () => {
    const doc = await parse(corpus('rtf', 'testRTFJapanese.rtf'));
    expect(doc.canonical).toContain('ゾルゲと尾崎、淡々と最期');
    expect(doc.canonical).toContain('古書店で処刑記録見つかる');
    expect(doc.canonical).toContain('社会運動史を研究する渡部富哉さん（東京都三鷹市）');
    expect(doc.canonical).not.toMatch(/[?\ufffd]/);
    expect(doc.elements.filter((e) => e.kind === 'list-item').map((e) => [e.depth, e.ordered])).toEqual([
      [0, true], [0, true], [0, true], [0, true], [1, false], [1, false],
    ]);
    expect(doc.elements.some((e) => e.kind === 'table')).toBe(true);
  });

  test('testRTFListMicrosoftWord.rtf: ordered, bulleted and nested lists', async () => {
    const doc = await parse(corpus('rtf', 'testRTFListMicrosoftWord.rtf'));
    expect(doc.canonical).toBe([
      'A short ordered list:', '1. one\n2. two\n3. three',
      'A short unordered list:', '- first\n- second\n- third',
      'A nested list:', '1. a\n  - aa\n  - ab\n2. b\n3. c',
    ].join('\n\n'));
  });

  test('testRTFTableCellSeparation.rtf: cells stay separate, cp1252 umlauts', async () => {
    const doc = await parse(corpus('rtf', 'testRTFTableCellSeparation.rtf'));
    expect(doc.elements).toHaveLength(1);
    expect(doc.elements[0]!.table?.rows.map((r) => r.map((c) => c.text))).toEqual([['a', 'b'], ['c', 'd'], ['ä', 'ë'], ['ö', 'ü']]);
  });
});

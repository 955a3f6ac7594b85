import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { detect } from '../../src/detect/detect.js';
import { textParser } from '../../src/parsers/text.js';
import { corpus, hasShared } from '../helpers.js';

const parseText = (text: string) => textParser.parse({ bytes: new Uint8Array(), text }, {}) as ReturnType<typeof textParser.parse> & { elements: { text: string; sourceStart?: number; sourceEnd?: number; page?: number }[]; title?: string; pageCount?: number };

describe('text parser (inline)', () => {
  test('paragraphs by blank lines, offsets exact, whitespace-only lines are blank', () => {
    const text = 'Title line\n\n  First para\nstill first  \n \t \nSecond para\n\n\n';
    const draft = parseText(text);
    expect(draft.elements.map((e) => e.text)).toEqual(['Title line', 'First para\nstill first', 'Second para']);
    for (const el of draft.elements) expect(text.slice(el.sourceStart, el.sourceEnd)).toBe(el.text);
    expect(draft.title).toBe('Title line');
  });
  test('no title for a sentence or a multi-line first paragraph', () => {
    expect(parseText('This is a sentence.\n\nMore.').title).toBeUndefined();
    expect(parseText('line one\nline two\n\nMore').title).toBeUndefined();
    expect(parseText('Only one paragraph').title).toBeUndefined();
  });
  test('form feeds are page breaks', () => {
    const draft = parseText('page one\fpage two a\n\npage two b\f');
    expect(draft.elements.map((e) => [e.text, e.page])).toEqual([['page one', 1], ['page two a', 2], ['page two b', 2]]);
    expect(draft.pageCount).toBe(2);
  });
  test('empty and whitespace-only text gives no elements', () => {
    expect(parseText('').elements).toEqual([]);
    expect(parseText(' \n\n\t\n').elements).toEqual([]);
  });
});

describe.skipIf(!hasShared)('text parser on corpus/txt', () => {
  const files = ['UDHR_first_article_all.txt', 'candide-windows-1252.txt', 'chatgpt-prompt-guide_zh.txt', 'fake-text-utf-16-be.txt', 'rashomon-shift-jis.txt', 'sunzi-bingfa-simplified-gbk.txt', 'sunzi-bingfa-traditional-big5.txt', 'unsu-joh-eun-nal-euc-kr.txt'];
  test.each(files)('%s: paragraphs cover every non-blank character, offsets exact', (file) => {
    const detection = detect(readFileSync(corpus('txt', file)), { name: file });
    expect(detection.format).toBe('text');
    const text = detection.text!;
    const draft = parseText(text);
    expect(draft.elements.length).toBeGreaterThan(1);
    for (const el of draft.elements) expect(text.slice(el.sourceStart, el.sourceEnd)).toBe(el.text);
    const visible = (t: string): string => t.replace(/[\s\u200b\ufeff]+/g, '');
    const joined = visible(draft.elements.map((e) => e.text).join(''));
    expect(joined.length).toBe(visible(text).length);
    expect(joined === visible(text)).toBe(true);
  });
  test('UDHR: unstructured\'s element texts each lie inside one of our paragraphs (>= 95%)', () => {
    const expected = JSON.parse(readFileSync(corpus('txt', 'UDHR_first_article_all.txt.expected.json'), 'utf8')) as { text: string }[];
    const detection = detect(readFileSync(corpus('txt', 'UDHR_first_article_all.txt')), { name: 'x.txt' });
    const norm = (t: string): string => t.replace(/\s+/g, ' ').trim();
    const ours = parseText(detection.text!).elements.map((e) => norm(e.text));
    // Measure: share of unstructured's element texts (whitespace-normalised) contained in a single paragraph of ours.
    // unstructured splits our blank-line paragraphs further (a language name line becomes its own Title).
    const found = expected.filter((e) => ours.some((p) => p.includes(norm(e.text)))).length;
    expect(found / expected.length).toBeGreaterThanOrEqual(0.95);
  });
});

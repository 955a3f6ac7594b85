import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { odtParser } from '../../src/parsers/odt.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { markdownHeadings, sequenceF1, tokenF1 } from './similarity.js';

registerParser(odtParser);

const NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"';

const CONTENT = `<office:document-content ${NS}><office:automatic-styles>
<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Title"/>
<text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="1"/><text:list-level-style-bullet text:level="2" text:bullet-char="•"/></text:list-style>
</office:automatic-styles><office:body><office:text>
<text:p text:style-name="P1">Doc Title</text:p>
<text:h text:outline-level="1">Chapter <text:span>one</text:span></text:h>
<text:p>Words<text:s text:c="2"/>spaced<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>The note.</text:p></text:note-body></text:note> and <text:a xlink:href="https://example.org">a link</text:a>.</text:p>
<text:h text:outline-level="2">Lists</text:h>
<text:list text:style-name="L1"><text:list-item><text:p>one</text:p><text:list><text:list-item><text:p>bullet</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>two</text:p></text:list-item></text:list>
<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>A</text:p></table:table-cell><table:table-cell><text:p>B</text:p></table:table-cell><table:table-cell><text:p>C</text:p></table:table-cell></table:table-row></table:table-header-rows>
<table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>wide</text:p></table:table-cell><table:covered-table-cell/><table:table-cell table:number-rows-spanned="2"><text:p>tall</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell><text:p>x</text:p></table:table-cell><table:table-cell><text:p>y</text:p></table:table-cell><table:covered-table-cell/></table:table-row>
<table:table-row table:number-rows-repeated="1000"><table:table-cell table:number-columns-repeated="1000"/></table:table-row></table:table>
<text:p><draw:frame><draw:image xlink:href="Pictures/a.png"/><svg:title>A photo of a cat</svg:title></draw:frame></text:p>
</office:text></office:body></office:document-content>`;

const STYLES = `<office:document-styles ${NS}><office:styles><style:style style:name="Title" style:display-name="Title" style:family="paragraph"/></office:styles>
<office:master-styles><style:master-page style:name="Standard"><style:footer><text:p>Footer text</text:p></style:footer></style:master-page></office:master-styles></office:document-styles>`;

const META = `<office:document-meta ${NS}><office:meta><dc:title>Meta Title</dc:title><meta:initial-creator>Ann</meta:initial-creator><meta:keyword>k1</meta:keyword><meta:keyword>k2</meta:keyword><meta:document-statistic meta:page-count="2"/></office:meta></office:document-meta>`;

function odt(): Uint8Array {
  return zipSync({
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'content.xml': strToU8(CONTENT),
    'styles.xml': strToU8(STYLES),
    'meta.xml': strToU8(META),
    'META-INF/manifest.xml': strToU8('<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>'),
  });
}

describe('ODT parser (inline fixture)', async () => {
  const doc = await parse(odt(), { name: 'fixture.odt' });
  const kinds = (kind: string) => doc.elements.filter((e) => e.kind === kind);

  test('headings from text:h and the Title style; text:s spaces; notes after their paragraph; links', () => {
    expect(kinds('heading').map((e) => [e.level, e.text])).toEqual([[1, 'Doc Title'], [1, 'Chapter one'], [2, 'Lists']]);
    expect(kinds('paragraph').map((e) => e.text)).toEqual(['Words  spaced[1] and a link.']);
    expect(kinds('footnote').map((e) => e.text)).toEqual(['[1] The note.']);
    expect(doc.metadata.hyperlinks).toEqual([{ text: 'a link', url: 'https://example.org' }]);
  });

  test('lists: depth and numbering from the list style', () => {
    expect(kinds('list-item').map((e) => [e.depth, e.ordered, e.number, e.text])).toEqual([
      [0, true, 1, 'one'],
      [1, false, undefined, 'bullet'],
      [0, true, 2, 'two'],
    ]);
  });

  test('tables: header rows, spans, covered cells, repeated empty rows/cells dropped', () => {
    expect(kinds('table')[0]!.table).toEqual({
      headerRows: 1,
      rows: [
        [{ text: 'A' }, { text: 'B' }, { text: 'C' }],
        [{ text: 'wide', colSpan: 2 }, { text: '' }, { text: 'tall', rowSpan: 2 }],
        [{ text: 'x' }, { text: 'y' }, { text: 'tall' }],
      ],
    });
  });

  test('image alt text, master-page footer as furniture, meta.xml metadata', () => {
    expect(kinds('image').map((e) => e.alt)).toEqual(['A photo of a cat']);
    expect(kinds('page-furniture').map((e) => e.text)).toEqual(['Footer text']);
    expect(doc.title).toBe('Meta Title');
    expect(doc.pageCount).toBe(2);
    expect(doc.metadata).toMatchObject({ author: 'Ann', keywords: 'k1, k2' });
  });
});

describe.skipIf(!hasShared)(`ODT parser on the corpus${hasShared ? '' : ` (${sharedSkipReason})`}`, () => {
  test('text_document_01.odt matches docling: token F1 >= 0.97, headings F1 = 1', async () => {
    const doc = await parse(corpus('odt', 'text_document_01.odt'));
    const md = readFileSync(corpus('odt', 'text_document_01.odt.expected.md'), 'utf8');
    expect(tokenF1(doc.canonical, md).f1).toBeGreaterThanOrEqual(0.97);
    expect(sequenceF1(doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text), markdownHeadings(md)).f1).toBe(1);
    expect(doc.elements.filter((e) => e.kind === 'list-item').map((e) => e.depth)).toEqual([0, 0, 1, 1, 2, 1, 0, 2]);
  });

  test('calibre-demo.odt matches the officeParser text baseline (token F1 >= 0.97)', async () => {
    const doc = await parse(corpus('odt', 'calibre-demo.odt'));
    expect(tokenF1(doc.canonical, readFileSync(corpus('odt', 'calibre-demo.odt.expected.txt'), 'utf8')).f1).toBeGreaterThanOrEqual(0.97);
    expect(doc.elements.filter((e) => e.kind === 'table').length).toBeGreaterThanOrEqual(4);
  });

  test('testFooter.odt: the master-page footer (styles.xml) is page furniture', async () => {
    const doc = await parse(corpus('odt', 'testFooter.odt'));
    expect(doc.elements.filter((e) => e.kind === 'page-furniture').map((e) => e.text)).toEqual(['Here is footer text']);
    expect(doc.canonical).toContain('Here is some text on page 2');
  });

  test('testODTnotaZipFile.odt is refused (CORRUPT when read as ODT)', async () => {
    await expect(parse(corpus('adversarial', 'testODTnotaZipFile.odt'), { format: 'odt' })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

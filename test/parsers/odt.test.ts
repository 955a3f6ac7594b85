import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import { ocrAvailable } from '../../src/ocr/index.js';
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

/** An ODT whose body is `body` (inside office:text), with the given files added to the package. */
function odtWith(body: string, files: Record<string, Uint8Array>): Uint8Array {
  return zipSync({
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'content.xml': strToU8(`<office:document-content ${NS}><office:body><office:text>${body}</office:text></office:body></office:document-content>`),
    ...files,
  });
}

/** A GIF header: a picture format OCR cannot read. */
const GIF = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0]);
const picture = (href: string, alt = ''): string =>
  `<text:p><draw:frame draw:name="f"><draw:image xlink:href="${href}"/>${alt ? `<svg:title>${alt}</svg:title>` : ''}</draw:frame></text:p>`;
const CHART_FRAME = '<text:p><draw:frame><draw:object xlink:href="./Object 1"/><draw:image xlink:href="./ObjectReplacements/Object 1"/></draw:frame></text:p>';

describe('ODT pictures and OCR', () => {
  const files = { 'Pictures/a.gif': GIF, 'Pictures/b.gif': GIF, 'ObjectReplacements/Object 1': GIF };
  const body = `<text:p>Before.</text:p>${picture('Pictures/a.gif')}${picture('Pictures/b.gif', 'Logo')}${CHART_FRAME}<text:p>After.</text:p>`;

  test("ocr 'auto': alt text only; pictures and objects without alt are counted; no OCR warning", async () => {
    const doc = await parse(odtWith(body, files), { name: 'p.odt' });
    expect(doc.elements.map((e) => [e.kind, e.kind === 'image' ? e.alt : e.text, e.ocrText])).toEqual([
      ['paragraph', 'Before.', undefined],
      ['image', 'Logo', undefined],
      ['paragraph', 'After.', undefined],
    ]);
    expect(doc.warnings).toEqual(['2 image(s) without alt text were skipped']);
  });

  test("ocr 'on': only the two pictures go to OCR (not the chart's replacement image); undecodable ones are reported", async () => {
    const doc = await parse(odtWith(body, files), { name: 'p.odt', ocr: 'on' });
    expect(doc.elements.map((e) => [e.kind, e.kind === 'image' ? e.alt : e.text, e.ocrText])).toEqual([
      ['paragraph', 'Before.', undefined],
      ['image', 'Logo', undefined],
      ['paragraph', 'After.', undefined],
    ]);
    // Either both are reported as GIF (a format OCR cannot read), or OCR is unavailable for both.
    expect(doc.warnings.join('\n')).toMatch(/^2 embedded picture\(s\) (?:in a format OCR cannot read|were not OCR'd)/m);
    expect(doc.warnings).toContain('2 image(s) without alt text were skipped');
  });

  test("ocr 'on': a picture missing from the package keeps its alt text; the miss is a warning, not a failure", async () => {
    const doc = await parse(odtWith(picture('Pictures/gone.png', 'Gone'), {}), { name: 'g.odt', ocr: 'on' });
    expect(doc.elements.map((e) => [e.kind, e.alt, e.ocrText])).toEqual([['image', 'Gone', undefined]]);
    if (ocrAvailable('eng').ok) expect(doc.warnings).toEqual(["embedded picture 'Pictures/gone.png' is missing from the package"]);
  });
});

describe.skipIf(!hasShared || !ocrAvailable('eng').ok)('ODT: OCR of pictures (corpus images, tesseract)', () => {
  test("an alt-less frame (SVG first, then webp-test.webp as its alternative) is OCR'd in place with ocr 'on' only", async () => {
    const webp = new Uint8Array(readFileSync(corpus('images', 'webp-test.webp')));
    const svg = strToU8('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
    const frame = '<text:p><draw:frame><draw:image xlink:href="Pictures/fig.svg"/><draw:image xlink:href="./Pictures/fig.webp"/></draw:frame></text:p>';
    const bytes = odtWith(`<text:h text:outline-level="1">Report</text:h><text:p>Before the figure.</text:p>${frame}<text:p>After the figure.</text:p>`, {
      'Pictures/fig.svg': svg,
      'Pictures/fig.webp': webp,
    });
    const plain = await parse(bytes, { name: 'w.odt' });
    expect(plain.elements.some((e) => e.kind === 'image')).toBe(false);
    const doc = await parse(bytes, { name: 'w.odt', ocr: 'on' });
    expect(doc.elements.map((e) => e.kind)).toEqual(['heading', 'paragraph', 'image', 'paragraph']);
    // docling's ground truth for the picture: "Docling bundles PDF document conversion to JSON and Markdown ..."
    expect(doc.elements[2]!.ocrText).toMatch(/Docling bundles PDF document conversion/);
    const at = doc.canonical.indexOf('Docling bundles');
    expect(doc.canonical.indexOf('Before the figure.')).toBeLessThan(at);
    expect(doc.canonical.indexOf('After the figure.')).toBeGreaterThan(at);
    expect(doc.warnings).toEqual([]);
  }, 60_000);

  test("calibre-demo.odt: the quotes picture keeps its alt text and gains the OCR text", async () => {
    const alt = '165 Inspirational Quotes To Keep You Motivated In Life';
    const plain = await parse(corpus('odt', 'calibre-demo.odt'));
    expect(plain.elements.filter((e) => e.kind === 'image').map((e) => [e.alt, e.ocrText])).toEqual([[alt, undefined]]);
    const doc = await parse(corpus('odt', 'calibre-demo.odt'), { ocr: 'on' });
    const at = doc.elements.findIndex((e) => e.kind === 'image');
    expect(doc.elements[at]?.alt).toBe(alt);
    expect(doc.elements[at]?.ocrText).toMatch(/Be the change that you wish to see in the world/);
    // In place: right after the paragraph that introduces centered images.
    expect(doc.elements[at - 1]?.text).toMatch(/^Centered images like this/);
  }, 60_000);
});

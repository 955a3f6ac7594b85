import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, test } from 'vitest';
import { ocrAvailable } from '../../src/ocr/index.js';
import { parse } from '../../src/parse.js';
import { odpParser } from '../../src/parsers/odp.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared } from '../helpers.js';

beforeAll(() => registerParser(odpParser));

const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"';

const frame = (cls: string, y: string, inner: string, x = '2cm'): string =>
  `<draw:frame presentation:class="${cls}" svg:x="${x}" svg:y="${y}" svg:width="20cm" svg:height="3cm"><draw:text-box>${inner}</draw:text-box></draw:frame>`;

function odp(): Uint8Array {
  const styles = '<office:automatic-styles><text:list-style style:name="L2"><text:list-level-style-number text:level="1" style:num-format="1"/></text:list-style></office:automatic-styles>';
  const page1 = `<draw:page draw:name="p1">${frame('title', '1cm', '<text:p>Launch plan</text:p>')}${frame('subtitle', '5cm', '<text:p>Spring 2025</text:p>')}</draw:page>`;
  const page2 =
    '<draw:page draw:name="p2">' +
    frame('outline', '12cm', '<text:p>Footnote text at the bottom</text:p>') +
    frame('outline', '4cm', '<text:list><text:list-item><text:p>Market</text:p><text:list><text:list-item><text:p>Europe</text:p></text:list-item></text:list></text:list-item></text:list>') +
    frame('outline', '4.1cm', '<text:list text:style-name="L2"><text:list-item><text:p>Build</text:p></text:list-item><text:list-item><text:p>Ship</text:p></text:list-item></text:list>', '15cm') +
    frame('title', '1cm', '<text:p>Agenda</text:p>') +
    '<draw:frame svg:x="2cm" svg:y="8cm"><table:table><table:table-row><table:table-cell><text:p>Phase</text:p></table:table-cell><table:table-cell><text:p>Weeks</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell office:value-type="float" office:value="1"><text:p>Pilot</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="6"><text:p>6</text:p></table:table-cell></table:table-row></table:table></draw:frame>' +
    '<draw:frame svg:x="2cm" svg:y="10cm"><draw:image/><svg:title>Logo</svg:title><svg:desc>Company logo, blue</svg:desc></draw:frame>' +
    frame('page-number', '18cm', '<text:p>2</text:p>') +
    `<presentation:notes><draw:page-thumbnail/>${frame('notes', '1cm', '<text:p>Say hello.</text:p>')}</presentation:notes>` +
    '</draw:page>';
  return zipSync({
    mimetype: strToU8('application/vnd.oasis.opendocument.presentation'),
    'content.xml': strToU8(`<office:document-content ${NS}>${styles}<office:body><office:presentation>${page1}${page2}</office:presentation></office:body></office:document-content>`),
  });
}

describe('odp parser', () => {
  test('one page per slide, titles as headings, reading order, lists, tables, images, notes', async () => {
    const doc = await parse(odp(), { name: 'deck.odp' });
    expect(doc.format).toBe('odp');
    expect(doc.pageCount).toBe(2);
    expect(doc.title).toBe('Launch plan');
    expect(doc.elements.filter((e) => e.kind === 'heading').map((e) => [e.text, e.level, e.slide, e.page])).toEqual([
      ['Launch plan', 1, 1, 1],
      ['Agenda', 2, 2, 2],
    ]);
    const slide2 = doc.elements.filter((e) => e.slide === 2 && e.kind !== 'page-furniture');
    expect(slide2.map((e) => [e.kind, e.text.split('\n')[0], e.depth, e.ordered, e.number])).toEqual([
      ['heading', 'Agenda', undefined, undefined, undefined],
      ['list-item', 'Market', 0, false, undefined],
      ['list-item', 'Europe', 1, false, undefined],
      ['list-item', 'Build', 0, true, 1],
      ['list-item', 'Ship', 0, true, 2],
      ['table', 'Phase\tWeeks', undefined, undefined, undefined],
      ['image', '', undefined, undefined, undefined],
      ['paragraph', 'Footnote text at the bottom', undefined, undefined, undefined],
      ['paragraph', 'Notes: Say hello.', undefined, undefined, undefined],
    ]);
    expect(slide2.find((e) => e.kind === 'image')?.alt).toBe('Company logo, blue');
    expect(slide2.find((e) => e.kind === 'table')?.table?.rows.map((r) => r.map((c) => c.text))).toEqual([['Phase', 'Weeks'], ['Pilot', '6']]);
    expect(doc.elements.find((e) => e.kind === 'page-furniture')?.text).toBe('2');
  });
});

/** A frame at [x, y, width, height] in cm. */
const placed = (cls: string, [x, y, width, height]: [number, number, number, number], inner: string): string =>
  `<draw:frame${cls ? ` presentation:class="${cls}"` : ''} svg:x="${x}cm" svg:y="${y}cm" svg:width="${width}cm" svg:height="${height}cm">${inner}</draw:frame>`;
const textBox = (text: string): string => `<draw:text-box><text:p>${text}</text:p></draw:text-box>`;
const TABLE = '<table:table><table:table-row><table:table-cell><text:p>Role</text:p></table:table-cell><table:table-cell><text:p>CPU</text:p></table:table-cell></table:table-row></table:table>';

function odpPage(page: string): Uint8Array {
  return zipSync({
    mimetype: strToU8('application/vnd.oasis.opendocument.presentation'),
    'content.xml': strToU8(`<office:document-content ${NS}><office:body><office:presentation><draw:page draw:name="p1">${page}</draw:page></office:presentation></office:body></office:document-content>`),
  });
}

describe('odp reading order (columns)', () => {
  const texts = (doc: { elements: readonly { kind: string; text: string }[] }): string[] => doc.elements.map((e) => `${e.kind}:${e.text.split('\t')[0]}`);

  test('a caption under the title on the left is read before a table on the right that starts higher', async () => {
    const doc = await parse(
      odpPage(
        placed('', [10, 0.5, 15, 12], TABLE) +
          placed('outline', [1, 3, 8, 9], textBox('Check the nodes against the table.')) +
          placed('title', [1, 0.55, 8, 2], textBox('Hardware')) +
          // A background rectangle over the whole slide shows nothing and must not hide the gutter.
          '<draw:custom-shape svg:x="0cm" svg:y="0cm" svg:width="28cm" svg:height="15.75cm"><text:p/></draw:custom-shape>',
      ),
      { name: 'caption.odp' },
    );
    expect(texts(doc)).toEqual(['heading:Hardware', 'paragraph:Check the nodes against the table.', 'table:Role']);
  });

  test('level shapes read left to right; a group is one unit covering its children; full width last', async () => {
    const group = `<draw:g>${placed('', [15, 5, 10, 2], textBox('group lower'))}${placed('', [15, 2, 10, 2], textBox('group upper'))}</draw:g>`;
    const doc = await parse(
      odpPage(
        placed('', [1, 13, 26, 2], textBox('full width')) +
          group +
          placed('', [1, 2.2, 12, 3], textBox('left top')) +
          placed('', [1, 6, 12, 3], textBox('left below')),
      ),
      { name: 'group.odp' },
    );
    expect(texts(doc)).toEqual(['paragraph:left top', 'paragraph:left below', 'paragraph:group upper', 'paragraph:group lower', 'paragraph:full width']);
  });
});

const XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"';

/** One slide: a title, text above and below a picture frame (alt text optional), and the package files given. */
function odpWithPicture(pictureFrame: string, files: Record<string, Uint8Array>): Uint8Array {
  const page =
    '<draw:page draw:name="p1">' +
    frame('title', '1cm', '<text:p>Results</text:p>') +
    frame('outline', '14cm', '<text:p>Below the picture.</text:p>') +
    pictureFrame +
    frame('outline', '4cm', '<text:p>Above the picture.</text:p>') +
    '</draw:page>';
  return zipSync({
    mimetype: strToU8('application/vnd.oasis.opendocument.presentation'),
    'content.xml': strToU8(`<office:document-content ${NS} ${XLINK}><office:body><office:presentation>${page}</office:presentation></office:body></office:document-content>`),
    ...files,
  });
}

const pictureAt = (href: string, alt = ''): string =>
  `<draw:frame svg:x="2cm" svg:y="7cm" svg:width="10cm" svg:height="5cm"><draw:image xlink:href="${href}"/>${alt ? `<svg:desc>${alt}</svg:desc>` : ''}</draw:frame>`;
/** A GIF header: a picture format OCR cannot read. */
const GIF = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0]);
const shape = (e: { kind: string; text: string; alt?: string; ocrText?: string }) => [e.kind, e.kind === 'image' ? e.alt : e.text, e.ocrText];

describe('odp pictures and OCR', () => {
  test("ocr 'auto': a picture without alt text is counted in a warning, with alt text it is an image in reading order", async () => {
    const without = await parse(odpWithPicture(pictureAt('Pictures/a.gif'), { 'Pictures/a.gif': GIF }), { name: 'a.odp' });
    expect(without.elements.map(shape)).toEqual([
      ['heading', 'Results', undefined],
      ['paragraph', 'Above the picture.', undefined],
      ['paragraph', 'Below the picture.', undefined],
    ]);
    expect(without.warnings).toEqual(['1 picture(s) without alt text were skipped (no text to keep)']);
    const withAlt = await parse(odpWithPicture(pictureAt('Pictures/a.gif', 'Sales chart'), { 'Pictures/a.gif': GIF }), { name: 'b.odp' });
    expect(withAlt.elements.map(shape)[2]).toEqual(['image', 'Sales chart', undefined]);
    expect(withAlt.warnings).toEqual([]);
  });

  test("ocr 'on': a picture OCR cannot decode keeps its alt text; without alt it is dropped and counted", async () => {
    const withAlt = await parse(odpWithPicture(pictureAt('Pictures/a.gif', 'Sales chart'), { 'Pictures/a.gif': GIF }), { name: 'b.odp', ocr: 'on' });
    expect(withAlt.elements.map(shape)[2]).toEqual(['image', 'Sales chart', undefined]);
    expect(withAlt.warnings.join('\n')).toMatch(/^1 embedded picture\(s\) (?:in a format OCR cannot read|were not OCR'd)/m);
    const without = await parse(odpWithPicture(pictureAt('Pictures/a.gif'), { 'Pictures/a.gif': GIF }), { name: 'a.odp', ocr: 'on' });
    expect(without.elements.some((e) => e.kind === 'image')).toBe(false);
    expect(without.warnings).toContain('1 picture(s) without alt text were skipped (no text to keep)');
  });
});

describe.skipIf(!hasShared || !ocrAvailable('eng').ok)('odp: OCR of pictures (corpus images, tesseract)', () => {
  test("an alt-less picture (images/webp-test.webp) is OCR'd at its place in the slide's reading order with ocr 'on' only", async () => {
    const bytes = odpWithPicture(pictureAt('Pictures/fig.webp'), { 'Pictures/fig.webp': new Uint8Array(readFileSync(corpus('images', 'webp-test.webp'))) });
    const plain = await parse(bytes, { name: 'w.odp' });
    expect(plain.elements.some((e) => e.kind === 'image')).toBe(false);
    const doc = await parse(bytes, { name: 'w.odp', ocr: 'on' });
    expect(doc.elements.map((e) => [e.kind, e.slide, e.page])).toEqual([
      ['heading', 1, 1],
      ['paragraph', 1, 1],
      ['image', 1, 1],
      ['paragraph', 1, 1],
    ]);
    // docling's ground truth for the picture: "Docling bundles PDF document conversion to JSON and Markdown ..."
    expect(doc.elements[2]!.ocrText).toMatch(/Docling bundles PDF document conversion/);
    const at = doc.canonical.indexOf('Docling bundles');
    expect(doc.canonical.indexOf('Above the picture.')).toBeLessThan(at);
    expect(doc.canonical.indexOf('Below the picture.')).toBeGreaterThan(at);
    expect(doc.warnings).toEqual([]);
  }, 60_000);
});

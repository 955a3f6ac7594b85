import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, test, vi } from 'vitest';
import { ocrAvailable } from '../../src/ocr/index.js';
import { parse } from '../../src/parse.js';
import { decodeDataUri, epubParser } from '../../src/parsers/epub.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared, sharedSkipReason, storedZip } from '../helpers.js';
import { cellAgreement, markdownHeadings, markdownTables, sequenceF1, tokenF1 } from './similarity.js';

registerParser(epubParser);


const CONTAINER = '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>';
const xhtml = (body: string) => `<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>${body}</body></html>`;
const OPF = `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:title>Field Guide</dc:title><dc:creator>Ana Lima</dc:creator><dc:creator>Bo Chen</dc:creator>
    <dc:language>en</dc:language><dc:date>2024-05-01</dc:date><dc:identifier id="id">urn:isbn:123</dc:identifier>
    <meta property="dcterms:modified">2024-06-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c2" href="text/Chapter%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="img" href="images/fig.png" media-type="image/png"/>
  </manifest>
  <spine><itemref idref="nav" linear="no"/><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>`;
const NAV = xhtml('<nav epub:type="toc" xmlns:epub="http://www.idpf.org/2007/ops"><h1>Contents</h1><ol><li><a href="text/ch1.xhtml">Birds</a><ol><li><a href="text/ch1.xhtml#s">Shore birds</a></li></ol></li><li><a href="text/Chapter%202.xhtml">Trees</a></li></ol></nav>');

function book(overrides: Record<string, string | undefined> = {}): Uint8Array {
  const files: Record<string, string | undefined> = {
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': CONTAINER,
    'OPS/book.opf': OPF,
    'OPS/nav.xhtml': NAV,
    'OPS/text/ch1.xhtml': xhtml('<h1>Birds</h1><p>Birds have feathers.</p><h2 id="s">Shore birds</h2><ul><li>Gull</li><li>Tern</li></ul><p><img src="../images/fig.png" alt="A gull in flight"/></p>'),
    'OPS/text/Chapter 2.xhtml': xhtml('<h1>Trees</h1><table><tr><th>Tree</th><th>Leaf</th></tr><tr><td>Oak</td><td>lobed</td></tr></table>'),
    ...overrides,
  };
  return storedZip(Object.fromEntries(Object.entries(files).filter((entry): entry is [string, string] => entry[1] !== undefined)));
}

describe('epub: package, spine, chapters', () => {
  test('chapters in spine order through the HTML walker; metadata from the OPF; the nav document is the TOC, not content', async () => {
    const doc = await parse(book(), { name: 'guide.epub' });
    expect(doc.format).toBe('epub');
    expect(doc.title).toBe('Field Guide');
    expect(doc.language).toBe('en');
    expect(doc.metadata).toMatchObject({
      author: ['Ana Lima', 'Bo Chen'],
      date: '2024-05-01',
      identifier: 'urn:isbn:123',
      modified: '2024-06-01T00:00:00Z',
      chapters: 2,
      toc: [{ title: 'Birds', level: 1 }, { title: 'Shore birds', level: 2 }, { title: 'Trees', level: 1 }],
    });
    expect(doc.elements.map((e) => [e.kind, e.level ?? e.depth, e.kind === 'image' ? e.alt : e.text])).toEqual([
      ['heading', 1, 'Birds'],
      ['paragraph', undefined, 'Birds have feathers.'],
      ['heading', 2, 'Shore birds'],
      ['list-item', 0, 'Gull'],
      ['list-item', 0, 'Tern'],
      ['image', undefined, 'A gull in flight'],
      ['heading', 1, 'Trees'],
      ['table', undefined, 'Tree\tLeaf\nOak\tlobed'],
    ]);
    expect(doc.elements[7]!.table?.headerRows).toBe(1);
  });

  test('EPUB 2: the NCX gives the TOC when there is no nav document', async () => {
    const opf = OPF.replace(' properties="nav"', '').replace('<item id="img"', '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/><item id="img"').replace('<spine>', '<spine toc="ncx">').replace('<itemref idref="nav" linear="no"/>', '');
    const ncx = '<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap><navPoint id="a"><navLabel><text>Part One</text></navLabel><content src="text/ch1.xhtml"/><navPoint id="b"><navLabel><text>Section &amp; more</text></navLabel><content src="text/ch1.xhtml#s"/></navPoint></navPoint></navMap></ncx>';
    const doc = await parse(book({ 'OPS/book.opf': opf, 'OPS/toc.ncx': ncx, 'OPS/nav.xhtml': undefined }), { name: 'old.epub' });
    expect(doc.metadata.toc).toEqual([{ title: 'Part One', level: 1 }, { title: 'Section & more', level: 2 }]);
  });

  test('a missing spine document is a warning; a DRM-encrypted chapter is ENCRYPTED; a broken package is CORRUPT', async () => {
    const missing = await parse(book({ 'OPS/text/Chapter 2.xhtml': undefined }), { name: 'm.epub' });
    expect(missing.warnings).toEqual(["spine item 'text/Chapter%202.xhtml' is missing from the archive: skipped"]);
    const encryption = '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference URI="OPS/text/ch1.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>';
    await expect(parse(book({ 'META-INF/encryption.xml': encryption }), { name: 'drm.epub' })).rejects.toMatchObject({ code: 'ENCRYPTED' });
    const fontsOnly = encryption.replace('http://www.w3.org/2001/04/xmlenc#aes128-cbc', 'http://www.idpf.org/2008/embedding');
    await expect(parse(book({ 'META-INF/encryption.xml': fontsOnly }), { name: 'fonts.epub' })).resolves.toMatchObject({ format: 'epub' });
    await expect(parse(book({ 'OPS/book.opf': '<package><metadata>' }), { name: 'bad.epub' })).rejects.toMatchObject({ code: 'CORRUPT' });
    await expect(parse(book({ 'META-INF/container.xml': undefined, 'OPS/book.opf': undefined }), { name: 'none.epub' })).rejects.toMatchObject({ code: 'CORRUPT' });
    await expect(parse(new TextEncoder().encode('not a zip at all'), { name: 'x.epub' })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

describe.skipIf(!hasShared)('epub: corpus with ground truth', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  const read = (...parts: string[]) => readFileSync(corpus(...parts), 'utf8');

  // Measures (test/parsers/similarity.ts): token F1 of the canonical text against the expected text,
  // heading F1 by longest common subsequence, table cell agreement by position.
  test('epub_purvis_poetry (docling): token F1 >= 0.99, headings F1 >= 0.95, TOC from the nav document', async () => {
    const doc = await parse(corpus('epub', 'epub_purvis_poetry.epub'));
    const expected = read('epub', 'epub_purvis_poetry.epub.expected.md');
    expect(tokenF1(doc.canonical, expected).f1).toBeGreaterThanOrEqual(0.99);
    expect(sequenceF1(doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text), markdownHeadings(expected)).f1).toBeGreaterThanOrEqual(0.95);
    expect(doc.title).toBe('Poetry');
    expect(doc.metadata.author).toBe('Sarah Louisa Forten Purvis');
    expect((doc.metadata.toc as { title: string }[]).map((t) => t.title)).toContain('The Grave of the Slave');
  });

  test('calibre-demo (officeParser text): token F1 >= 0.95; the first three tables match cell for cell', async () => {
    const doc = await parse(corpus('epub', 'calibre-demo.epub'));
    const expected = read('epub', 'calibre-demo.epub.expected.txt');
    expect(tokenF1(doc.canonical, expected).f1).toBeGreaterThanOrEqual(0.95);
    const ours = doc.elements.filter((e) => e.kind === 'table').map((e) => e.table!.rows.map((r) => r.map((c) => c.text)));
    markdownTables(expected).slice(0, 3).forEach((table, i) => expect(cellAgreement(ours[i] ?? [], table)).toBe(1));
    expect((doc.metadata.toc as unknown[]).length).toBeGreaterThan(5);
  });

  test('warehouse-manual-zh (pandoc EPUB 3, Chinese): token F1 >= 0.99, headings F1 = 1 (title page not doubled), both tables exact', async () => {
    const doc = await parse(corpus('zh-generated', 'warehouse-manual-zh.epub'));
    const expected = read('zh-generated', 'warehouse-manual-zh.epub.expected.md');
    expect(tokenF1(doc.canonical, expected).f1).toBeGreaterThanOrEqual(0.99);
    expect(sequenceF1(doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text), markdownHeadings(expected)).f1).toBe(1);
    const ours = doc.elements.filter((e) => e.kind === 'table').map((e) => e.table!.rows.map((r) => r.map((c) => c.text)));
    const tables = markdownTables(expected);
    expect(tables).toHaveLength(2);
    tables.forEach((table, i) => expect(cellAgreement(ours[i] ?? [], table)).toBe(1));
    expect(doc.language).toBe('zh-CN');
  });

  test('winter-sports (Project Gutenberg, EPUB 2 with NCX): chapters, headings and TOC', async () => {
    const doc = await parse(corpus('epub', 'winter-sports.epub'));
    expect(doc.title).toBe('Winter Sports in Switzerland');
    expect(doc.metadata.author).toBe('E. F. Benson');
    const headings = doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text);
    expect(headings.some((h) => /CHAPTER I\b/.test(h))).toBe(true);
    expect((doc.metadata.toc as { title: string; level: number }[]).some((t) => t.level === 2)).toBe(true);
    expect(doc.canonical.length).toBeGreaterThan(100_000);
  });
});

/** The fixture book with its first chapter replaced and pictures added under OPS/images/. */
function bookWithPictures(
  chapterBody: string,
  pictures: Record<string, Uint8Array>,
  { opf = OPF, chapter2Body = '<h1>Trees</h1><p>Oaks.</p>' }: { opf?: string; chapter2Body?: string } = {},
): Uint8Array {
  const files: Record<string, Uint8Array> = {
    mimetype: strToU8('application/epub+zip'),
    'META-INF/container.xml': strToU8(CONTAINER),
    'OPS/book.opf': strToU8(opf),
    'OPS/nav.xhtml': strToU8(NAV),
    'OPS/text/ch1.xhtml': strToU8(xhtml(chapterBody)),
    'OPS/text/Chapter 2.xhtml': strToU8(xhtml(chapter2Body)),
  };
  for (const [name, bytes] of Object.entries(pictures)) files[`OPS/images/${name}`] = bytes;
  return zipSync(files);
}

/** A GIF header: a picture format OCR cannot read. */
const GIF = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0]);
const PICTURES_CHAPTER =
  '<p>Before the figure.</p><p><img src="../images/fig.gif" alt=""/></p><p>After the figure.</p>' +
  '<p><img src="../images/logo.gif" alt="  Company\n  logo "/></p><blockquote><p>Quoted <img src="../images/q.gif" alt="quoted alt"/></p></blockquote>';

describe('epub: pictures and OCR', () => {
  const imagesOf = (doc: { elements: readonly { kind: string; alt?: string; ocrText?: string }[] }) =>
    doc.elements.filter((e) => e.kind === 'image').map((e) => [e.alt, e.ocrText]);

  test("ocr 'auto': alt text only (whitespace collapsed), pictures without alt dropped, no OCR warning", async () => {
    const doc = await parse(bookWithPictures(PICTURES_CHAPTER, { 'fig.gif': GIF, 'logo.gif': GIF, 'q.gif': GIF }), { name: 'p.epub' });
    expect(imagesOf(doc)).toEqual([['Company logo', undefined]]);
    expect(doc.elements.find((e) => e.kind === 'quote')?.text).toBe('Quoted\n\nquoted alt');
    expect(doc.warnings.join('\n')).not.toMatch(/OCR/);
  });

  test("ocr 'on': pictures OCR cannot decode keep their alt text, alt-less ones are dropped and counted; quotes untouched", async () => {
    const doc = await parse(bookWithPictures(PICTURES_CHAPTER, { 'fig.gif': GIF, 'logo.gif': GIF, 'q.gif': GIF }), { name: 'p.epub', ocr: 'on' });
    expect(imagesOf(doc)).toEqual([['Company logo', undefined]]);
    expect(doc.elements.find((e) => e.kind === 'quote')?.text).toBe('Quoted\n\nquoted alt');
    // Either the two package pictures are reported unreadable (GIF), or OCR is unavailable for both.
    expect(doc.warnings.join('\n')).toMatch(/2 embedded picture\(s\) (?:in a format OCR cannot read|were not OCR'd)/);
    expect(doc.warnings).toContain('1 picture(s) without alt text had no OCR text and were skipped');
    expect(doc.canonical).not.toContain('\uE000');
  });

  test("ocr 'on': a picture missing from the package is a warning, not a failure", async () => {
    const doc = await parse(bookWithPictures('<p><img src="../images/gone.png" alt="Gone"/></p>', {}), { name: 'g.epub', ocr: 'on' });
    expect(imagesOf(doc)).toEqual([['Gone', undefined]]);
    if (ocrAvailable('eng').ok) expect(doc.warnings).toContain("embedded picture 'OPS/images/gone.png' is missing from the package");
  });
});

describe('epub: remote and inline (data:) pictures', () => {
  test("ocr 'on': http(s) and protocol-relative pictures are never fetched nor looked up in the package", async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      const chapter =
        '<p><img src="https://example.com/chart.png" alt="Remote chart"/></p><p><img src="http://example.com/b.png"/></p>' +
        '<p><img src="//example.com/c.png"/></p><svg xmlns="http://www.w3.org/2000/svg"><image href="https://example.com/d.png"/></svg><p>Text.</p>';
      const doc = await parse(bookWithPictures(chapter, {}), { name: 'r.epub', ocr: 'on' });
      expect(fetchSpy).not.toHaveBeenCalled();
      expect(doc.elements.filter((e) => e.kind === 'image').map((e) => [e.alt, e.ocrText])).toEqual([['Remote chart', undefined]]);
      // Nothing was handed to OCR, so not even an "OCR unavailable" or "missing from the package" warning.
      expect(doc.warnings).toEqual([]);
    } finally {
      fetchSpy.mockRestore();
    }
  });

  test("ocr 'on': a malformed data: URI is a warning, its alt text stays, the book still parses", async () => {
    const chapter =
      '<p>Before.</p><p><img src="data:image/png;base64,@@not*base64@@" alt="Broken chart"/></p>' +
      '<p><img src="data:image/png;base64"/></p><svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,"/></svg><p>After.</p>';
    const doc = await parse(bookWithPictures(chapter, {}), { name: 'd.epub', ocr: 'on' });
    expect(doc.elements.map((e) => [e.kind, e.kind === 'image' ? e.alt : e.text])).toEqual([
      ['paragraph', 'Before.'],
      ['image', 'Broken chart'],
      ['paragraph', 'After.'],
      ['heading', 'Trees'],
      ['paragraph', 'Oaks.'],
    ]);
    expect(doc.warnings).toEqual([
      "a picture in 'OPS/text/ch1.xhtml' has a malformed data: URI (not valid base64): not OCR'd",
      "a picture in 'OPS/text/ch1.xhtml' has a malformed data: URI (no comma before the data): not OCR'd",
      "a picture in 'OPS/text/ch1.xhtml' has a malformed data: URI (no data): not OCR'd",
    ]);
    expect(doc.canonical).not.toContain('\uE000');
  });

  test('decodeDataUri: base64 (whitespace, no padding, any case), percent-encoded bytes, stray % kept', () => {
    expect([...decodeDataUri('data:image/png;base64,iVBO\nRw0K')]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]);
    expect([...decodeDataUri('data:image/png; BASE64 ,iVBORw')]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect([...decodeDataUri('data:image/png;base64,iVBORw==')]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect([...decodeDataUri('data:image/png;base64,iV%42ORw')]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect([...decodeDataUri('data:image/png,%89PNG%0d%0A')]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]);
    expect(new TextDecoder().decode(decodeDataUri('data:,100%zz é'))).toBe('100%zz é');
    expect(() => decodeDataUri('data:image/png;base64,iVBORw=')).toThrow('not valid base64');
    expect(() => decodeDataUri('data:image/png;base64,iVBOR')).toThrow('not valid base64');
    expect(() => decodeDataUri('data:image/png;base64,')).toThrow('no data');
  });
});

/** The fixture OPF with `picture` (under OPS/images/) declared as the cover the EPUB 3 way, or EPUB 2's <meta name="cover">. */
function opfWithCover(picture: string, style: 'epub3' | 'epub2'): string {
  const item = `<item id="cover-pic" href="images/${picture}" media-type="image/webp"${style === 'epub3' ? ' properties="cover-image"' : ''}/>`;
  const withItem = OPF.replace('<item id="img"', `${item}<item id="img"`);
  return style === 'epub3' ? withItem : withItem.replace('</metadata>', '<meta name="cover" content="cover-pic"/></metadata>');
}

/** Every byte outside unreserved ASCII as %XX: a percent-encoded (not base64) data: URI body. */
function percentEncoded(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`;
  return out;
}

describe.skipIf(!hasShared || !ocrAvailable('eng').ok)('epub: OCR of pictures (corpus images, tesseract)', () => {
  test("an alt-less picture (images/webp-test.webp) is OCR'd in place with ocr 'on' only", async () => {
    const bytes = bookWithPictures(
      '<h1>Birds</h1><p>Before the figure.</p><div><img src="../images/fig.webp"/></div><p>After the figure.</p>',
      { 'fig.webp': new Uint8Array(readFileSync(corpus('images', 'webp-test.webp'))) },
    );
    const plain = await parse(bytes, { name: 'w.epub' });
    expect(plain.elements.some((e) => e.kind === 'image')).toBe(false);
    const doc = await parse(bytes, { name: 'w.epub', ocr: 'on' });
    expect(doc.elements.slice(0, 4).map((e) => e.kind)).toEqual(['heading', 'paragraph', 'image', 'paragraph']);
    const image = doc.elements[2]!;
    expect(image.alt).toBe('');
    // docling's ground truth for the picture: "Docling bundles PDF document conversion to JSON and Markdown ..."
    expect(image.ocrText).toMatch(/Docling bundles PDF document conversion/);
    const at = doc.canonical.indexOf('Docling bundles');
    expect(doc.canonical.indexOf('Before the figure.')).toBeLessThan(at);
    expect(doc.canonical.indexOf('After the figure.')).toBeGreaterThan(at);
  }, 60_000);

  test('epub_purvis_poetry: the title page picture (alt="") is OCR\'d at the title page, before the imprint; the OPF cover no chapter shows comes first', async () => {
    const doc = await parse(corpus('epub', 'epub_purvis_poetry.epub'), { ocr: 'on' });
    const imprint = doc.elements.findIndex((e) => e.kind === 'heading' && e.text === 'Imprint');
    const titlePage = doc.elements[imprint - 1]!;
    expect([titlePage.kind, titlePage.alt]).toEqual(['image', '']);
    expect(titlePage.ocrText).toMatch(/SARAH LOUISA FORTEN PURVIS/);
    // images/cover.jpg (properties="cover-image") is in no spine document: shown first, as a reader does.
    expect(doc.elements[0]).toMatchObject({ kind: 'image', alt: '', ocrText: expect.stringMatching(/POETRY\s+SARAH LOUISA FORTEN PURVIS/) });
    expect(doc.elements.filter((e) => e.kind === 'image' && e.ocrText)).toHaveLength(2);
  }, 60_000);

  const WEBP = () => new Uint8Array(readFileSync(corpus('images', 'webp-test.webp')));
  const DOCLING = /Docling bundles PDF document conversion/;

  test("an SVG-wrapped cover (<svg><image xlink:href>) is OCR'd in place, once: the OPF declares it and chapter 2 shows it again", async () => {
    const cover =
      '<div><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" viewBox="0 0 2000 2829">' +
      '<image width="2000" height="2829" xlink:href="../images/cover.webp"/></svg></div><h1>Birds</h1><p>Gulls.</p>';
    const bytes = bookWithPictures(cover, { 'cover.webp': WEBP() }, {
      opf: opfWithCover('cover.webp', 'epub3'),
      chapter2Body: '<h1>Trees</h1><p><img src="../images/cover.webp" alt="The cover again"/></p>',
    });
    const plain = await parse(bytes, { name: 'c.epub' });
    expect(plain.elements.filter((e) => e.kind === 'image').map((e) => [e.alt, e.ocrText])).toEqual([['The cover again', undefined]]);
    const doc = await parse(bytes, { name: 'c.epub', ocr: 'on' });
    expect(doc.elements.map((e) => [e.kind, e.kind === 'image' ? e.alt : e.text])).toEqual([
      ['image', ''],
      ['heading', 'Birds'],
      ['paragraph', 'Gulls.'],
      ['heading', 'Trees'],
      ['image', 'The cover again'],
    ]);
    expect(doc.elements[0]!.ocrText).toMatch(DOCLING);
    expect(doc.elements[4]!.ocrText).toBeUndefined();
    expect(doc.canonical.match(/Docling bundles/g)).toHaveLength(1);
  }, 60_000);

  test("an EPUB 2 cover (<meta name=\"cover\">) no chapter shows is OCR'd at the start of the book", async () => {
    const bytes = bookWithPictures('<h1>Birds</h1><p>Gulls.</p>', { 'cover.webp': WEBP() }, { opf: opfWithCover('cover.webp', 'epub2') });
    const doc = await parse(bytes, { name: 'c2.epub', ocr: 'on' });
    expect(doc.elements.slice(0, 2).map((e) => e.kind)).toEqual(['image', 'heading']);
    expect(doc.elements[0]!.ocrText).toMatch(DOCLING);
    expect((await parse(bytes, { name: 'c2.epub' })).elements.some((e) => e.kind === 'image')).toBe(false);
  }, 60_000);

  test("data: URI pictures, base64 in <img src> and percent-encoded in SVG 2 <image href>, are decoded and OCR'd in place", async () => {
    const png = new Uint8Array(readFileSync(corpus('images', 'table-multi-row-column-cells.png')));
    const chapter =
      `<p>Before the table.</p><p><img src="data:image/png;base64,${Buffer.from(png).toString('base64')}" alt="Results"/></p><p>Between.</p>` +
      `<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png,${percentEncoded(png)}"/></svg><p>After.</p>`;
    const doc = await parse(bookWithPictures(chapter, {}), { name: 'u.epub', ocr: 'on' });
    expect(doc.elements.slice(0, 5).map((e) => [e.kind, e.kind === 'image' ? e.alt : e.text])).toEqual([
      ['paragraph', 'Before the table.'],
      ['image', 'Results'],
      ['paragraph', 'Between.'],
      ['image', ''],
      ['paragraph', 'After.'],
    ]);
    // unstructured's ground truth for the picture: rows "Low Vision", "Dexterity", "Mobility".
    for (const at of [1, 3]) expect(doc.elements[at]!.ocrText).toMatch(/Low Vision[\s\S]*Dexterity[\s\S]*Mobility/);
    expect(doc.warnings).toEqual([]);
  }, 60_000);
});

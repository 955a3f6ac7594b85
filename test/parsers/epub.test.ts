import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { epubParser } from '../../src/parsers/epub.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { cellAgreement, markdownHeadings, markdownTables, sequenceF1, tokenF1 } from './similarity.js';

registerParser(epubParser);

/** A ZIP of stored (uncompressed) entries: enough to build EPUB fixtures without a zip library. */
function storedZip(files: Record<string, string>): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const nameBytes = Buffer.from(name, 'utf8');
    const data = Buffer.from(text, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  const zip = Buffer.concat([...locals, directory, end]);
  return new Uint8Array(zip.buffer, zip.byteOffset, zip.byteLength);
}

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

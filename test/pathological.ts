import { strToU8, zipSync, type Zippable } from 'fflate';

/**
 * Generators of valid files that are extreme in one way (nesting, width, size): the inputs the
 * limits exist for. Each returns the file's bytes; deterministic (no randomness), and XML parts
 * carry a counter in every element so they do not compress like a zip bomb.
 */

const encode = (text: string) => new TextEncoder().encode(text);

export function deepJsonArray(depth: number): Uint8Array {
  return encode(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
}

export function deepJsonObject(depth: number): Uint8Array {
  return encode(`${'{"text":'.repeat(depth)}"x"${'}'.repeat(depth)}`);
}

export function deepJsonLines(depth: number): Uint8Array {
  return encode(`{"text":"a sane record"}\n${'['.repeat(depth)}${']'.repeat(depth)}\n`);
}

export function deepMarkdownQuotes(depth: number): Uint8Array {
  return encode(`${'> '.repeat(depth)}deep\n`);
}

export function deepMarkdownList(depth: number): Uint8Array {
  return encode(`${Array.from({ length: depth }, (_, i) => `${' '.repeat(i * 2)}- item ${i}`).join('\n')}\n`);
}

export function deepHtml(depth: number): Uint8Array {
  return encode(`<html><body><p>Before the nest.</p>${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}<p>After the nest.</p></body></html>`);
}

export function deepRtf(depth: number): Uint8Array {
  return encode(`{\\rtf1\\ansi ${'{'.repeat(depth)}deep${'}'.repeat(depth)}}`);
}

export function deepMultipartEml(depth: number): Uint8Array {
  let part = 'Content-Type: text/plain\n\nleaf text\n';
  for (let i = 0; i < depth; i++) part = `Content-Type: multipart/mixed; boundary="m${i}"\n\n--m${i}\n${part}\n--m${i}--\n`;
  return encode(`From: a@example.org\nSubject: deep multipart\nMIME-Version: 1.0\n${part}`);
}

/** `open(i)` / `close` repeated `depth` times around `inner`. */
function nest(depth: number, open: (i: number) => string, close: string, inner: string): string {
  const parts: string[] = [];
  for (let i = 0; i < depth; i++) parts.push(open(i));
  parts.push(inner);
  for (let i = 0; i < depth; i++) parts.push(close);
  return parts.join('');
}

export function docx(body: string): Uint8Array {
  return zipSync({
    '[Content_Types].xml': strToU8('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'),
    '_rels/.rels': strToU8('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'),
    'word/document.xml': strToU8(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`),
  });
}

const PARA = '<w:p><w:r><w:t>deep</w:t></w:r></w:p>';

export function deepDocxTables(depth: number): Uint8Array {
  return docx(nest(depth, (i) => `<w:tbl><w:tr w:rsidR="${i}"><w:tc>`, '</w:tc></w:tr></w:tbl>', PARA));
}

export function deepOdtSections(depth: number): Uint8Array {
  const body = nest(depth, (i) => `<text:section text:name="s${i}">`, '</text:section>', '<text:p>deep</text:p>');
  const files: Zippable = {
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'META-INF/manifest.xml': strToU8('<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>'),
    'content.xml': strToU8(`<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>${body}</office:text></office:body></office:document-content>`),
  };
  return zipSync(files);
}

export function deepEpub(depth: number): Uint8Array {
  const chapter = `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c</title></head><body><p>Chapter opening.</p>${nest(depth, (i) => `<div id="d${i}">`, '</div>', 'deep chapter text')}</body></html>`;
  const files: Zippable = {
    mimetype: [strToU8('application/epub+zip'), { level: 0 }],
    'META-INF/container.xml': strToU8('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'),
    'OEBPS/content.opf': strToU8('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">x</dc:identifier><dc:title>Deep</dc:title><dc:language>en</dc:language></metadata><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>'),
    'OEBPS/c1.xhtml': strToU8(chapter),
  };
  return zipSync(files);
}

/** A CSV `columns` wide and `rows` long (plus a header row). */
export function wideCsv(columns: number, rows: number): Uint8Array {
  const lines = [Array.from({ length: columns }, (_, c) => `col${c}`).join(',')];
  for (let r = 0; r < rows; r++) lines.push(Array.from({ length: columns }, (_, c) => `${r}.${c}`).join(','));
  return encode(`${lines.join('\n')}\n`);
}

/** One line of `bytes` words (letters and spaces, no newline): the long-line case. */
export function singleLineText(bytes: number): Uint8Array {
  const word = 'lorem ipsum dolor sit amet consectetur adipiscing elit ';
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) out[i] = word.charCodeAt(i % word.length);
  return out;
}

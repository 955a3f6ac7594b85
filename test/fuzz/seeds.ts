/**
 * Seed files for the parsers, grouped by the format Groundwork detects in them: the shared corpus
 * (every primary file, ground truth left out), the project's samples, and small generated files for
 * formats the corpus lacks (ODP, ODS) or that must exist without it. Plus each format's signature
 * (magic bytes, a container's identifying entries), for "noise behind the magic" and "wrong magic".
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { detect } from '../../src/detect/detect.js';
import { corpusDir, projectRoot } from '../helpers.js';

export interface Seed {
  /** Where it came from: `corpus/docx/x.docx`, `samples/...`, `generated/...`. */
  origin: string;
  /** File name handed to parse() (its extension is a detection hint, as for a user's file). */
  name: string;
  bytes: Uint8Array;
  /** Detected format: the fuzz format key. */
  format: string;
}

/** Formats whose parser needs a service that does not exist here (audio: a transcription endpoint). */
export const SERVICE_FORMATS = new Set(['audio']);

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:math="http://www.w3.org/1998/Math/MathML" xmlns:xlink="http://www.w3.org/1999/xlink"';

const odfCell = (text: string, attrs = ''): string => `<table:table-cell office:value-type="string"${attrs}><text:p>${text}</text:p></table:table-cell>`;

function odf(mimetype: string, body: string, extra: Record<string, string> = {}): Uint8Array {
  return zipSync({
    mimetype: [strToU8(mimetype), { level: 0 }],
    'content.xml': strToU8(`<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS}><office:body>${body}</office:body></office:document-content>`),
    'META-INF/manifest.xml': strToU8('<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="' + mimetype + '"/></manifest:manifest>'),
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strToU8(v)])),
  });
}

const frame = (cls: string, y: string, inner: string): string =>
  `<draw:frame presentation:class="${cls}" svg:x="2cm" svg:y="${y}" svg:width="20cm" svg:height="3cm"><draw:text-box>${inner}</draw:text-box></draw:frame>`;

/** Small files written here, so every parser has seeds even without the shared corpus. */
export function generatedSeeds(): { name: string; bytes: Uint8Array }[] {
  const text = (name: string, content: string) => ({ name, bytes: strToU8(content) });
  return [
    {
      name: 'budget.ods',
      bytes: odf(
        'application/vnd.oasis.opendocument.spreadsheet',
        '<office:spreadsheet><table:table table:name="Costs">' +
          `<table:table-row>${odfCell('Item')}${odfCell('Cost')}${odfCell('Due')}</table:table-row>` +
          `<table:table-row>${odfCell('Rent', ' table:number-rows-spanned="2"')}<table:table-cell office:value-type="currency" office:value="1200"><text:p>1,200.00</text:p></table:table-cell>${odfCell('March')}</table:table-row>` +
          `<table:table-row><table:covered-table-cell/>${odfCell('800')}<table:table-cell table:number-columns-repeated="1020"/></table:table-row>` +
          '<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>' +
          '</table:table><table:table table:name="Notes"><table:table-row>' +
          odfCell('Paid <text:s text:c="2"/>late<office:annotation><text:p>comment</text:p></office:annotation>') +
          '</table:table-row></table:table></office:spreadsheet>',
      ),
    },
    {
      name: 'deck.odp',
      bytes: odf(
        'application/vnd.oasis.opendocument.presentation',
        '<office:presentation>' +
          `<draw:page draw:name="p1">${frame('title', '1cm', '<text:p>Launch plan</text:p>')}${frame('subtitle', '5cm', '<text:p>Spring 2025</text:p>')}</draw:page>` +
          `<draw:page draw:name="p2">${frame('title', '1cm', '<text:p>Agenda</text:p>')}` +
          frame('outline', '4cm', '<text:list><text:list-item><text:p>Market</text:p><text:list><text:list-item><text:p>Europe</text:p></text:list-item></text:list></text:list-item></text:list>') +
          '<draw:frame svg:x="2cm" svg:y="8cm"><table:table><table:table-row><table:table-cell><text:p>Phase</text:p></table:table-cell><table:table-cell><text:p>Weeks</text:p></table:table-cell></table:table-row></table:table></draw:frame>' +
          '<draw:frame svg:x="2cm" svg:y="10cm"><draw:image/><svg:title>Logo</svg:title></draw:frame>' +
          `<presentation:notes><draw:page-thumbnail/>${frame('notes', '1cm', '<text:p>Say hello.</text:p>')}</presentation:notes></draw:page>` +
          '</office:presentation>',
      ),
    },
    {
      name: 'formula.odt',
      bytes: odf(
        'application/vnd.oasis.opendocument.text',
        '<office:text><text:h text:outline-level="1">Area</text:h><text:p>The area is <draw:frame><draw:object xlink:href="./Object 1"/></draw:frame> square units.</text:p>' +
          '<text:list><text:list-item><text:p>one</text:p></text:list-item></text:list></office:text>',
        { 'Object 1/content.xml': '<math:math xmlns:math="http://www.w3.org/1998/Math/MathML"><math:semantics><math:mrow><math:mi>π</math:mi><math:msup><math:mi>r</math:mi><math:mn>2</math:mn></math:msup></math:mrow></math:semantics></math:math>' },
      ),
    },
    text('notes.md', '# Title\n\nSome *emphasis* and `code` and $x^2$ inline.\n\n## Table\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n- item\n  - nested\n    1. deep\n\n```js\nconst x = 1;\n```\n\n> quote\n\n$$\\int_0^1 x\\,dx$$\n'),
    text('page.html', '<!DOCTYPE html><html><head><title>T</title></head><body><nav>menu</nav><main><h1>Head</h1><p>Para <b>bold</b> &amp; more.</p><table><tr><th>a</th><th>b</th></tr><tr><td colspan="2">c</td></tr></table><ul><li>x<ul><li>y</li></ul></li></ul><pre><code>code</code></pre></main><footer>foot</footer></body></html>'),
    text('data.csv', 'name,"quoted, cell",n\n"Ada ""A"" L",x,1\nBob,"multi\nline",2\n'),
    text('records.json', '{"title":"T","items":[{"text":"first record"},{"text":"second","nested":{"deep":[1,2,{"text":"third"}]}}]}'),
    text('lines.jsonl', '{"text":"one"}\n{"text":"two"}\n'),
    text('captions.vtt', 'WEBVTT\n\nNOTE a note\n\n1\n00:00:00.000 --> 00:00:02.000\n<v Alice>Hello <b>there</b>\n\n00:00:02.000 --> 00:00:04.500 align:start\n<v Bob>Hi <c.loud>you</c>\n'),
    text('doc.rtf', '{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times;}}{\\info{\\title T}}\\pard Hello {\\b bold} \\u20320?\\u22909? world\\par\\trowd\\cellx1000\\cellx2000\\intbl a\\cell b\\cell\\row\\pard end\\par}'),
    text('mail.eml', 'From: a@example.com\r\nTo: b@example.com\r\nSubject: =?utf-8?B?5L2g5aW9?=\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello there.\r\n--b\r\nContent-Type: text/csv; name="a.csv"\r\nContent-Disposition: attachment; filename="a.csv"\r\nContent-Transfer-Encoding: base64\r\n\r\nYSxiCjEsMgo=\r\n--b--\r\n'),
    text('plain.txt', 'First paragraph. Second sentence!\n\n第二段。中文句子？\n\nThird\r\nparagraph with\ttabs.\n'),
  ];
}

let cache: Seed[] | undefined;

/** Every seed, in a stable order (origin), each with its detected format. */
export function loadSeeds(): Seed[] {
  if (cache) return cache;
  const files: { origin: string; name: string; bytes: Uint8Array }[] = [];
  if (existsSync(corpusDir)) {
    for (const path of walk(corpusDir)) {
      const rel = relative(corpusDir, path);
      if (/\.expected\.|^MANIFEST\./.test(rel) || statSync(path).size === 0) continue;
      files.push({ origin: `corpus/${rel}`, name: rel.split('/').pop()!, bytes: new Uint8Array(readFileSync(path)) });
    }
  }
  const samples = join(projectRoot, 'samples');
  if (existsSync(samples)) {
    for (const path of walk(samples)) files.push({ origin: `samples/${relative(samples, path)}`, name: path.split('/').pop()!, bytes: new Uint8Array(readFileSync(path)) });
  }
  for (const g of generatedSeeds()) files.push({ origin: `generated/${g.name}`, ...g });
  cache = files.map((f) => {
    let format: string;
    try {
      const d = detect(f.bytes, { name: f.name });
      format = d.encrypted ? 'encrypted' : d.format;
    } catch {
      format = 'unknown';
    }
    return { ...f, format };
  });
  return cache;
}

/** Seeds by format, formats in a stable order. */
export function seedsByFormat(seeds: readonly Seed[] = loadSeeds()): Map<string, Seed[]> {
  const map = new Map<string, Seed[]>();
  for (const s of [...seeds].sort((a, b) => a.format.localeCompare(b.format) || a.origin.localeCompare(b.origin))) {
    let list = map.get(s.format);
    if (!list) map.set(s.format, (list = []));
    list.push(s);
  }
  return map;
}

const b = (s: string): Uint8Array => strToU8(s, true);

/** Zipped identifying entries of each container format, with `main` holding the payload. */
function container(format: string, main: Uint8Array): Uint8Array | undefined {
  const ct = b('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>');
  const rels = (target: string) => b(`<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/></Relationships>`);
  switch (format) {
    case 'docx':
      return zipSync({ '[Content_Types].xml': ct, '_rels/.rels': rels('word/document.xml'), 'word/document.xml': main });
    case 'pptx':
      return zipSync({ '[Content_Types].xml': ct, '_rels/.rels': rels('ppt/presentation.xml'), 'ppt/presentation.xml': b('<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:sldIdLst><p:sldId id="256" r:id="rId2" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"/></p:sldIdLst></p:presentation>'), 'ppt/_rels/presentation.xml.rels': b('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>'), 'ppt/slides/slide1.xml': main });
    case 'xlsx':
      return zipSync({ '[Content_Types].xml': ct, '_rels/.rels': rels('xl/workbook.xml'), 'xl/workbook.xml': b('<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>'), 'xl/_rels/workbook.xml.rels': b('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'), 'xl/worksheets/sheet1.xml': main, 'xl/sharedStrings.xml': main });
    case 'odt':
    case 'odp':
    case 'ods': {
      const mime = { odt: 'text', odp: 'presentation', ods: 'spreadsheet' }[format];
      return zipSync({ mimetype: [b(`application/vnd.oasis.opendocument.${mime}`), { level: 0 }], 'content.xml': main });
    }
    case 'epub':
      return zipSync({
        mimetype: [b('application/epub+zip'), { level: 0 }],
        'META-INF/container.xml': b('<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'),
        'content.opf': b('<package xmlns="http://www.idpf.org/2007/opf"><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>'),
        'c.xhtml': main,
      });
    case 'zip':
      return zipSync({ 'a.txt': main, 'b.html': main });
    default:
      return undefined;
  }
}

/** What a file of each format starts with (text formats: a minimal opening that detection keys on). */
export const MAGIC: Readonly<Record<string, Uint8Array>> = {
  pdf: b('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<'),
  png: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
  jpeg: Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]),
  gif: b('GIF89a'),
  webp: b('RIFF\x00\x10\x00\x00WEBPVP8 '),
  tiff: Uint8Array.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00]),
  bmp: Uint8Array.from([0x42, 0x4d, 0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0, 0, 0]),
  zip: Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]),
  cfb: Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
  rtf: b('{\\rtf1\\ansi '),
  html: b('<!DOCTYPE html><html><body>'),
  eml: b('From: a@example.com\r\nTo: b@example.com\r\nSubject: x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\n'),
  vtt: b('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n'),
  json: b('{"text":'),
  transcribe: b('{"jobName":"j","results":{"transcripts":[{"transcript":"x"}],"items":'),
  markdown: b('# '),
  wav: b('RIFF\x24\x08\x00\x00WAVEfmt '),
  utf16: Uint8Array.from([0xff, 0xfe]),
};

/** The signatures that lead to a given format's parser (its own one, or a container skeleton). */
export function magicsFor(format: string): string[] {
  switch (format) {
    case 'image':
      return ['png', 'jpeg', 'gif', 'webp', 'tiff', 'bmp'];
    case 'jsonl':
    case 'json':
      return ['json'];
    case 'csv':
    case 'tsv':
    case 'text':
      return ['utf16'];
    case 'audio':
      return ['wav'];
    case 'docx': case 'pptx': case 'xlsx': case 'odt': case 'odp': case 'ods': case 'epub': case 'zip':
      return [`${format}-container`];
    default:
      return MAGIC[format] ? [format] : [];
  }
}

/** A signature's bytes followed by `payload`: plain concatenation, or the container built around it. */
export function behindMagic(magic: string, payload: Uint8Array): Uint8Array {
  if (magic.endsWith('-container')) return container(magic.slice(0, -'-container'.length), payload)!;
  const head = MAGIC[magic]!;
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

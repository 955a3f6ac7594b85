import type { Format } from '../document/types.js';
import { cfbEntryNames, isCfbMagic } from './cfb.js';
import { decodeText } from './encoding.js';
import { isPdf, isRtf, matchMagic } from './magic.js';
import { sniffText } from './sniff.js';
import type { Detection } from './types.js';
import { isZipMagic, listZip } from './zip.js';

/**
 * What a file is. Content decides over the name: signature bytes first (PDF, ZIP and CFB containers
 * classified by their entries, images, audio, RTF), then the decoded text's shape (e-mail, WebVTT,
 * AWS Transcribe JSON, JSON/JSONL, HTML). The extension decides among text formats the content does
 * not settle (.md, .csv, .txt), and names a binary format whose bytes are not that format (a `.odt`
 * that is not a zip is reported as odt, so its parser rejects it as CORRUPT rather than it being
 * read as text). Text formats come back decoded (`text`, `encoding`), newlines normalised to LF.
 */
export function detect(bytes: Uint8Array, opts: { name?: string; format?: Format } = {}): Detection {
  const ext = extensionOf(opts.name);
  if (opts.format) return forced(bytes, opts.format);
  if (isPdf(bytes)) return binary('pdf', 'magic');
  if (isZipMagic(bytes)) return detectZip(bytes, ext);
  if (isCfbMagic(bytes)) return detectCfb(bytes, ext);
  if (isRtf(bytes)) return textual(bytes, 'rtf', 'magic');
  const magic = matchMagic(bytes);
  if (magic) return { format: magic.format, mime: magic.mime, by: 'magic' };

  const extFormat = EXTENSION_FORMATS[ext];
  if (bytes.length === 0) return { format: extFormat ?? 'text', mime: mimeOf(extFormat ?? 'text'), encoding: 'utf-8', text: '', by: extFormat ? 'extension' : 'sniff' };
  if (extFormat && BINARY_FORMATS.has(extFormat)) return binary(extFormat, 'extension');
  const { text, encoding } = decodeText(bytes);
  if (looksBinary(text)) return { format: 'unknown', mime: 'application/octet-stream', by: 'sniff' };
  const sniffed = sniffText(text, extFormat);
  return { format: sniffed.format, mime: sniffed.mime ?? mimeOf(sniffed.format), encoding, text, by: sniffed.by };
}

/** Lower-case extension without the dot ('' when none). */
export function extensionOf(name: string | undefined): string {
  if (!name) return '';
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

function forced(bytes: Uint8Array, format: Format): Detection {
  return TEXT_FORMATS.has(format) ? textual(bytes, format, 'forced') : binary(format, 'forced');
}

function binary(format: Format, by: Detection['by']): Detection {
  return { format, mime: mimeOf(format), by };
}

function textual(bytes: Uint8Array, format: Format, by: Detection['by']): Detection {
  const { text, encoding } = decodeText(bytes);
  return { format, mime: mimeOf(format), encoding, text, by };
}

const OOXML_PARTS: readonly [string, Format][] = [
  ['word/', 'docx'],
  ['ppt/', 'pptx'],
  ['xl/', 'xlsx'],
];

const ZIP_MIMETYPES: Record<string, Format> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.text-template': 'odt',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.presentation-template': 'odp',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.spreadsheet-template': 'ods',
  'application/epub+zip': 'epub',
};

/**
 * OOXML: `[Content_Types].xml` plus a `word/`, `ppt/` or `xl/` part. ODF and EPUB: the `mimetype`
 * entry. An archive whose entries do not say which kind it is (truncated, or an OOXML package
 * without its main part) takes its extension when that names a zip-based format, so that format's
 * parser gives the precise error.
 */
function detectZip(bytes: Uint8Array, ext: string): Detection {
  const { names, mimetype } = listZip(bytes);
  const byMimetype = mimetype ? ZIP_MIMETYPES[mimetype] : undefined;
  if (byMimetype) return binary(byMimetype, 'zip-entries');
  if (names.includes('[Content_Types].xml')) {
    for (const [prefix, format] of OOXML_PARTS) if (names.some((n) => n.startsWith(prefix))) return binary(format, 'zip-entries');
  }
  if (names.includes('META-INF/container.xml') && names.some((n) => n.endsWith('.opf'))) return binary('epub', 'zip-entries');
  const extFormat = EXTENSION_FORMATS[ext];
  if (extFormat && ZIP_FORMATS.has(extFormat)) return binary(extFormat, 'extension');
  return binary('zip', 'magic');
}

/**
 * Legacy Office by its main stream; password-protected OOXML is a CFB holding `EncryptionInfo` and
 * `EncryptedPackage`, whose kind only the extension tells (the package itself is encrypted).
 */
function detectCfb(bytes: Uint8Array, ext: string): Detection {
  const names = new Set(cfbEntryNames(bytes));
  const extFormat = EXTENSION_FORMATS[ext];
  if (names.has('EncryptionInfo') && names.has('EncryptedPackage')) {
    const format: Format = extFormat === 'docx' || extFormat === 'xlsx' || extFormat === 'pptx' ? extFormat : 'unknown';
    return { format, mime: format === 'unknown' ? 'application/x-cfb' : mimeOf(format), by: 'cfb-entries', encrypted: true };
  }
  if (names.has('WordDocument')) return binary('doc', 'cfb-entries');
  if (names.has('Workbook') || names.has('Book')) return binary('xls', 'cfb-entries');
  if (names.has('PowerPoint Document')) return binary('ppt', 'cfb-entries');
  if (extFormat === 'doc' || extFormat === 'xls' || extFormat === 'ppt') return binary(extFormat, 'extension');
  return { format: 'unknown', mime: 'application/x-cfb', by: 'magic' };
}

/** Text with many control characters (other than tab, newline, form feed, escape) is binary. */
function looksBinary(text: string): boolean {
  const n = Math.min(text.length, 8192);
  let controls = 0;
  let nuls = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 || c === 9 || c === 10 || c === 12 || c === 27) continue;
    controls++;
    if (c === 0) nuls++;
  }
  return controls > n * 0.1 || nuls > n * 0.01;
}

export const EXTENSION_FORMATS: Record<string, Format> = {
  txt: 'text', text: 'text', log: 'text',
  // Source code and configuration: '#' comments must not make them Markdown.
  xml: 'text', yaml: 'text', yml: 'text', toml: 'text', ini: 'text', cfg: 'text', conf: 'text', properties: 'text',
  py: 'text', js: 'text', mjs: 'text', ts: 'text', java: 'text', c: 'text', h: 'text', cpp: 'text', cs: 'text', go: 'text',
  rs: 'text', rb: 'text', php: 'text', sh: 'text', sql: 'text', css: 'text', kt: 'text', swift: 'text', r: 'text', lua: 'text',
  md: 'markdown', markdown: 'markdown', mdown: 'markdown', mkd: 'markdown', mkdn: 'markdown',
  html: 'html', htm: 'html', xhtml: 'html',
  json: 'json', jsonl: 'jsonl', ndjson: 'jsonl',
  csv: 'csv', tsv: 'tsv', tab: 'tsv',
  pdf: 'pdf',
  docx: 'docx', docm: 'docx', dotx: 'docx', dotm: 'docx',
  pptx: 'pptx', pptm: 'pptx', potx: 'pptx', ppsx: 'pptx',
  xlsx: 'xlsx', xlsm: 'xlsx', xltx: 'xlsx',
  odt: 'odt', ott: 'odt', odp: 'odp', otp: 'odp', ods: 'ods', ots: 'ods',
  epub: 'epub',
  eml: 'eml',
  rtf: 'rtf',
  vtt: 'vtt',
  png: 'image', jpg: 'image', jpeg: 'image', gif: 'image', webp: 'image', tif: 'image', tiff: 'image', bmp: 'image', heic: 'image', avif: 'image',
  wav: 'audio', mp3: 'audio', m4a: 'audio', mp4: 'audio', ogg: 'audio', oga: 'audio', flac: 'audio', webm: 'audio', aac: 'audio',
  zip: 'zip',
  doc: 'doc', dot: 'doc', xls: 'xls', xlt: 'xls', ppt: 'ppt', pps: 'ppt', pot: 'ppt',
};

/** Formats whose parsers read decoded text (the detector decodes it for them). */
export const TEXT_FORMATS: ReadonlySet<Format> = new Set<Format>(['text', 'markdown', 'html', 'json', 'jsonl', 'csv', 'tsv', 'eml', 'rtf', 'vtt', 'transcribe']);

const BINARY_FORMATS: ReadonlySet<Format> = new Set<Format>(['pdf', 'docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods', 'epub', 'image', 'audio', 'zip', 'doc', 'xls', 'ppt']);
const ZIP_FORMATS: ReadonlySet<Format> = new Set<Format>(['docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods', 'epub', 'zip']);

const MIMES: Record<Format, string> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  json: 'application/json',
  jsonl: 'application/x-ndjson',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  odt: 'application/vnd.oasis.opendocument.text',
  odp: 'application/vnd.oasis.opendocument.presentation',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  epub: 'application/epub+zip',
  eml: 'message/rfc822',
  rtf: 'application/rtf',
  vtt: 'text/vtt',
  transcribe: 'application/json',
  image: 'image/*',
  audio: 'audio/*',
  zip: 'application/zip',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  unknown: 'application/octet-stream',
};

export function mimeOf(format: Format): string {
  return MIMES[format];
}

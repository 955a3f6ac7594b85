import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { detect, extensionOf } from '../../src/detect/detect.js';
import type { Format } from '../../src/document/types.js';
import { corpus, hasShared, storedZip } from '../helpers.js';


const DOCX_ENTRIES = { '[Content_Types].xml': '<Types/>', '_rels/.rels': '<Relationships/>', 'word/document.xml': '<w:document/>' };
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('detect (inline fixtures)', () => {
  test.each([
    [DOCX_ENTRIES, 'x.doc', 'docx'],
    [{ '[Content_Types].xml': '', 'ppt/presentation.xml': '' }, 'x.zip', 'pptx'],
    [{ '[Content_Types].xml': '', 'xl/workbook.xml': '' }, 'x.docx', 'xlsx'],
    [{ mimetype: 'application/vnd.oasis.opendocument.text', 'content.xml': '' }, 'x', 'odt'],
    [{ mimetype: 'application/vnd.oasis.opendocument.presentation', 'content.xml': '' }, 'x', 'odp'],
    [{ mimetype: 'application/vnd.oasis.opendocument.spreadsheet', 'content.xml': '' }, 'x', 'ods'],
    [{ mimetype: 'application/epub+zip', 'META-INF/container.xml': '' }, 'x.zip', 'epub'],
    [{ 'a.txt': 'hello' }, 'x.zip', 'zip'],
    [{ 'a.txt': 'hello' }, 'x.docx', 'docx'], // a plain zip named .docx: the docx parser gives the precise error
  ] as const)('zip %# named %s is %s', (entries, name, format) => {
    expect(detect(storedZip(entries), { name }).format).toBe(format);
  });

  test('a truncated docx (no central directory) is classified from its local headers', () => {
    const bytes = storedZip(DOCX_ENTRIES, { truncate: true });
    expect(detect(bytes, { name: 'x.bin' })).toMatchObject({ format: 'docx', by: 'zip-entries' });
  });

  test('magic bytes beat the extension', () => {
    expect(detect(text('%PDF-1.7\n...'), { name: 'a.txt' }).format).toBe('pdf');
    expect(detect(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), { name: 'a.txt' })).toMatchObject({ format: 'image', mime: 'image/png' });
    expect(detect(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0]), {})).toMatchObject({ format: 'image', mime: 'image/jpeg' });
    expect(detect(text('GIF89a....'), {})).toMatchObject({ format: 'image', mime: 'image/gif' });
    expect(detect(text('RIFF\0\0\0\0WEBPVP8 '), {})).toMatchObject({ format: 'image', mime: 'image/webp' });
    expect(detect(text('RIFF\0\0\0\0WAVEfmt '), {})).toMatchObject({ format: 'audio', mime: 'audio/wav' });
    expect(detect(text('ID3\x04\0\0\0\0\0\0'), {})).toMatchObject({ format: 'audio', mime: 'audio/mpeg' });
    expect(detect(new Uint8Array([0xff, 0xfb, 0x90, 0x64, 0, 0]), {})).toMatchObject({ format: 'audio', mime: 'audio/mpeg' });
    expect(detect(text('\0\0\0\x20ftypM4A \0\0\0\0'), {})).toMatchObject({ format: 'audio', mime: 'audio/mp4' });
    expect(detect(new Uint8Array([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]), {})).toMatchObject({ format: 'image', mime: 'image/tiff' });
    expect(detect(text('{\\rtf1\\ansi hello}'), { name: 'a.txt' })).toMatchObject({ format: 'rtf', text: '{\\rtf1\\ansi hello}' });
  });

  test('a UTF-16LE BOM is not mistaken for an MPEG frame', () => {
    const bytes = new Uint8Array([0xff, 0xfe, ...Buffer.from('plain words here', 'utf16le')]);
    expect(detect(bytes, {})).toMatchObject({ format: 'text', encoding: 'utf-16le', text: 'plain words here' });
  });

  test('text sniffing without a name', () => {
    const cases: [string, Format][] = [
      ['WEBVTT\n\n00:00.000 --> 00:01.000\nHi', 'vtt'],
      ['From: a@b.c\nTo: d@e.f\nSubject: hi\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nBody', 'eml'],
      ['{"jobName":"j","results":{"transcripts":[{"transcript":"hi"}],"items":[]}}', 'transcribe'],
      ['{"text": "a"}\n{"text": "b"}\n', 'jsonl'],
      ['{\n  "text": "a"\n}\n', 'json'],
      ['[1] Introduction\nThis is prose, not JSON.', 'text'],
      ['<!DOCTYPE html><html><body><p>x</p></body></html>', 'html'],
      ['<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>', 'html'],
      ['<div><p>a</p><span>b</span><table><tr><td>c</td></tr></table></div>', 'html'],
      ['# Title\n\nSome text with a [link](http://x.y).\n\n## Part\n\n- item\n- item\n', 'markdown'],
      ['a,b,c\n1,2,3\n4,5,6\n7,8,9\n', 'csv'],
      ['a;b;c\n1;2;3\n4;5;6\n', 'csv'],
      ['a\tb\tc\n1\t2\t3\n4\t5\t6\n', 'tsv'],
      ['Just some words.\n\nAnother paragraph, with a comma.\n', 'text'],
      ['- one\n- two\n- three\n- four\n', 'text'],
    ];
    for (const [content, format] of cases) expect([content, detect(text(content), {}).format]).toEqual([content, format]);
  });

  test('the extension decides among text formats, except for e-mail and WebVTT', () => {
    expect(detect(text('# Title\n\nbody'), { name: 'notes.txt' }).format).toBe('text');
    expect(detect(text('# Title\n\nbody'), { name: 'notes.md' }).format).toBe('markdown');
    expect(detect(text('a,b\n1,2\n'), { name: 'data.csv' }).format).toBe('csv');
    expect(detect(text('a,b\n1,2\n'), { name: 'data.tsv' }).format).toBe('tsv');
    expect(detect(text('{"a":1}'), { name: 'x.txt' }).format).toBe('text');
    expect(detect(text('From: a@b.c\nTo: x@y.z\nSubject: s\nMessage-ID: <1@b.c>\n\nhello'), { name: 'mail.txt' }).format).toBe('eml');
    expect(detect(text('# a comment\nx = 1\n'), { name: 'script.py' }).format).toBe('text');
  });

  test('a binary format name on text content keeps the format (its parser reports CORRUPT)', () => {
    expect(detect(text('This is not a zip file!\n'), { name: 'a.odt' })).toMatchObject({ format: 'odt', by: 'extension' });
  });

  test('binary junk is unknown; empty input follows the extension; forced format decodes text', () => {
    expect(detect(new Uint8Array([1, 2, 3, 0, 0, 5, 6, 7, 0, 9, 1, 2]), {}).format).toBe('unknown');
    expect(detect(new Uint8Array(), { name: 'e.txt' })).toMatchObject({ format: 'text', text: '' });
    expect(detect(text('a\r\nb'), { format: 'markdown' })).toMatchObject({ format: 'markdown', by: 'forced', text: 'a\nb' });
    expect(detect(text('abc'), { format: 'pdf' })).toEqual({ format: 'pdf', mime: 'application/pdf', by: 'forced' });
  });

  test('extensionOf', () => {
    expect(extensionOf('/a/b.tar/C.DOCX')).toBe('docx');
    expect(extensionOf('.bashrc')).toBe('');
    expect(extensionOf(undefined)).toBe('');
  });
});

/** Every corpus file: path -> format, encrypted flag. */
const CORPUS_FORMATS: Record<string, Format | [Format, 'encrypted']> = {};
const byFolder: Record<string, Format> = {
  pdf: 'pdf', 'pdf-scanned': 'pdf', docx: 'docx', pptx: 'pptx', xlsx: 'xlsx', html: 'html', md: 'markdown', txt: 'text',
  eml: 'eml', epub: 'epub', odt: 'odt', rtf: 'rtf', images: 'image', zip: 'zip', audio: 'audio',
};
const exceptions: Record<string, Format | [Format, 'encrypted']> = {
  'csv/stanley-cups-with-emoji.tsv': 'tsv',
  'json/arbitrary-records.ndjson': 'jsonl',
  'dialog/webvtt_example_01.vtt': 'vtt',
  'adversarial/aes-256-r6.pdf': 'pdf',
  'adversarial/droste.zip': 'zip',
  'adversarial/empty-0-bytes.pdf': 'pdf',
  'adversarial/empty.txt': 'text',
  'adversarial/eng_spa_mult.doc': 'docx',
  'adversarial/fake-email.txt': 'eml',
  'adversarial/large_size_archive.docx': 'docx',
  'adversarial/many_entries_archive.docx': 'docx',
  'adversarial/oversized_archive.docx': 'docx',
  'adversarial/password.pdf': 'pdf',
  'adversarial/password_protected.xlsx': ['xlsx', 'encrypted'],
  'adversarial/testODTnotaZipFile.odt': 'odt',
  'adversarial/testWORD_protected_passtika.docx': ['docx', 'encrypted'],
  'adversarial/testWORD_truncated.docx': 'docx',
  'adversarial/xref_command_missing.pdf': 'pdf',
  'adversarial/zen_of_python_corrupted.pdf': 'pdf',
  'adversarial/zip-slip-relative-path.zip': 'zip',
  'zh-generated/warehouse-manual-zh.docx': 'docx',
  'zh-generated/warehouse-manual-zh.pdf': 'pdf',
  'zh-generated/warehouse-manual-zh.odt': 'odt',
  'zh-generated/warehouse-manual-zh.pptx': 'pptx',
  'zh-generated/warehouse-manual-zh.epub': 'epub',
  'zh-generated/warehouse-manual-zh.html': 'html',
};

describe.skipIf(!hasShared)('detect every corpus file', () => {
  const manifest = hasShared ? (JSON.parse(readFileSync(corpus('MANIFEST.json'), 'utf8')) as { path: string }[]) : [];
  for (const { path } of manifest) {
    const folder = path.split('/')[0]!;
    CORPUS_FORMATS[path] = exceptions[path] ?? byFolder[folder] ?? (folder === 'csv' ? 'csv' : folder === 'json' ? 'json' : folder === 'dialog' ? 'transcribe' : 'unknown');
  }

  test('the manifest lists all 132 primary files', () => {
    expect(manifest.length).toBe(132);
  });

  test.each(Object.entries(CORPUS_FORMATS))('%s -> %s', (path, expected) => {
    const [format, encrypted] = Array.isArray(expected) ? expected : [expected, undefined];
    const detection = detect(readFileSync(corpus(path)), { name: path.split('/').pop() });
    expect(detection.format).toBe(format);
    expect(detection.encrypted === true).toBe(encrypted === 'encrypted');
  });

  test('detection does not trust the name: eng_spa_mult.doc and fake-email.txt are sniffed', () => {
    expect(detect(readFileSync(corpus('adversarial/eng_spa_mult.doc')), { name: 'eng_spa_mult.doc' }).by).toBe('zip-entries');
    expect(detect(readFileSync(corpus('adversarial/fake-email.txt')), { name: 'fake-email.txt' }).by).toBe('sniff');
    // Without a name the content alone still gives the format.
    expect(detect(readFileSync(corpus('adversarial/fake-email.txt')), {}).format).toBe('eml');
    expect(detect(readFileSync(corpus('docx/word_tables.docx')), {}).format).toBe('docx');
    expect(detect(readFileSync(corpus('json/arbitrary-records.ndjson')), {}).format).toBe('jsonl');
    expect(detect(readFileSync(corpus('csv/csv-semicolon.csv')), {}).format).toBe('csv');
  });
});

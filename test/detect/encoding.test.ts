import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { decodeText, detectEncoding, normalizeNewlines, textDecoderLabel } from '../../src/detect/encoding.js';
import { corpus, hasShared } from '../helpers.js';

const utf16le = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf16le'));
const utf16be = (s: string): Uint8Array => {
  const b = Buffer.from(s, 'utf16le');
  return new Uint8Array(b.swap16());
};

describe('encoding detection (inline fixtures)', () => {
  test('UTF-8 with and without BOM; BOM stripped', () => {
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toEqual({ text: 'hi', encoding: 'utf-8' });
    expect(decodeText(new TextEncoder().encode('中文 ok'))).toEqual({ text: '中文 ok', encoding: 'utf-8' });
  });
  test('UTF-16 with BOM and BOM-less by NUL pattern', () => {
    expect(decodeText(new Uint8Array([0xff, 0xfe, ...utf16le('Hello, world')]))).toEqual({ text: 'Hello, world', encoding: 'utf-16le' });
    expect(decodeText(new Uint8Array([0xfe, 0xff, ...utf16be('Hello')]))).toEqual({ text: 'Hello', encoding: 'utf-16be' });
    expect(decodeText(utf16le('This is plain text.\r\nSecond line.'))).toEqual({ text: 'This is plain text.\nSecond line.', encoding: 'utf-16le' });
    expect(decodeText(utf16be('This is plain text.'))).toEqual({ text: 'This is plain text.', encoding: 'utf-16be' });
  });
  test('windows-1252 bytes (smart quotes, accents)', () => {
    const bytes = new Uint8Array([...Buffer.from('Caf', 'latin1'), 0xe9, 0x20, 0x93, ...Buffer.from('quoted', 'latin1'), 0x94, 0x20, 0x96, 0x20, ...Buffer.from('d', 'latin1'), 0xe9, ...Buffer.from('j', 'latin1'), 0xe0]);
    expect(decodeText(bytes)).toEqual({ text: 'Café “quoted” – déjà', encoding: 'windows-1252' });
  });
  test('ISO-2022-JP escapes in 7-bit text', () => {
    // ESC $ B <JIS X 0208 for 日本> ESC ( B
    const bytes = new Uint8Array([0x1b, 0x24, 0x42, 0x46, 0x7c, 0x4b, 0x5c, 0x1b, 0x28, 0x42]);
    expect(decodeText(bytes)).toEqual({ text: '日本', encoding: 'iso-2022-jp' });
  });
  test('a declared charset is used when the bytes are not UTF-8', () => {
    const html = Buffer.concat([Buffer.from('<html><head><meta charset="gbk"></head><body>'), Buffer.from([0xd6, 0xd0, 0xce, 0xc4]), Buffer.from('</body></html>')]);
    expect(detectEncoding(new Uint8Array(html))).toBe('gb18030');
  });
  test('a mostly-UTF-8 file with one broken byte stays UTF-8', () => {
    const good = Buffer.from('中文内容，'.repeat(20));
    const bytes = new Uint8Array(Buffer.concat([good, Buffer.from([0xff]), good]));
    expect(detectEncoding(bytes)).toBe('utf-8');
  });
  test('newline normalisation and label mapping', () => {
    expect(normalizeNewlines('a\r\nb\rc\n')).toBe('a\nb\nc\n');
    expect(textDecoderLabel('CP932')).toBe('shift_jis');
    expect(textDecoderLabel('CP949')).toBe('euc-kr');
    expect(textDecoderLabel('GB2312')).toBe('gb18030');
    expect(textDecoderLabel('UTF-8-SIG')).toBe('utf-8');
    expect(textDecoderLabel('ISO-8859-1')).toBe('windows-1252');
    expect(textDecoderLabel('iso8859-15')).toBe('iso-8859-15');
    expect(textDecoderLabel('cp500')).toBeUndefined();
  });
});

const TWINS = [
  ['candide-windows-1252.txt', 'windows-1252'],
  ['rashomon-shift-jis.txt', 'shift_jis'],
  ['sunzi-bingfa-simplified-gbk.txt', 'gb18030'],
  ['sunzi-bingfa-traditional-big5.txt', 'big5'],
  ['unsu-joh-eun-nal-euc-kr.txt', 'euc-kr'],
] as const;

describe.skipIf(!hasShared)('corpus decoding', () => {
  test.each(TWINS)('%s decodes exactly to its .expected.txt twin (%s)', (file, encoding) => {
    const decoded = decodeText(readFileSync(corpus('txt', file)));
    expect(decoded.encoding).toBe(encoding);
    expect(decoded.text).toBe(readFileSync(corpus('txt', `${file}.expected.txt`), 'utf8'));
  });

  // Short samples are where statistical detectors fail: every line of each twin with non-ASCII bytes.
  test.each(TWINS)('line by line, %s is detected as %s on at least 97%% of its lines', (file, encoding) => {
    const bytes = readFileSync(corpus('txt', file));
    let lines = 0;
    let right = 0;
    for (let start = 0; start < bytes.length; ) {
      let end = bytes.indexOf(0x0a, start);
      if (end < 0) end = bytes.length;
      const line = bytes.subarray(start, end);
      start = end + 1;
      if (line.length < 4 || !line.some((b) => b >= 0x80)) continue;
      lines++;
      if (detectEncoding(line) === encoding) right++;
    }
    expect(lines).toBeGreaterThan(40);
    expect(right / lines).toBeGreaterThanOrEqual(0.97);
  });

  test.each([
    ['txt/fake-text-utf-16-be.txt', 'utf-16be', 'This is a test document to use for unit tests.'],
    ['csv/stanley-cups-utf-16.csv', 'utf-16be', 'Stanley Cups,,\nTeam,Location,Stanley Cups'],
    ['html/example-steelJIS-datasheet-utf-16.html', 'utf-16le', '\n<head>'],
    ['eml/fake-email-utf-16-le.eml', 'utf-16le', 'MIME-Version: 1.0\nDate:'],
    ['html/fake-html-cp1252.html', 'windows-1252', '<!DOCTYPE html>'],
    ['md/umlauts-non-utf8.md', 'windows-1252', '## können\n\nkönnen\n\näöüß'],
    ['txt/UDHR_first_article_all.txt', 'utf-8', 'Universal Declaration of Human Right'],
  ])('%s is %s', (path, encoding, prefix) => {
    const decoded = decodeText(readFileSync(corpus(path)));
    expect(decoded.encoding).toBe(encoding);
    expect(decoded.text.startsWith(prefix)).toBe(true);
    expect(decoded.text).not.toContain('\uFFFD');
    expect(decoded.text).not.toContain('\r');
  });
});

import { readFileSync } from 'node:fs';
import { zipSync, strToU8 } from 'fflate';
import { describe, expect, test } from 'vitest';
import { DEFAULT_ZIP_LIMITS, ZipArchive, isUnsafeEntryName } from '../../src/archive/zip.js';
import { GroundworkError } from '../../src/errors.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GroundworkError);
    return (error as GroundworkError).code;
  }
  return undefined;
}

/** Offsets of the central directory records of a zip written by fflate, to patch declared sizes. */
function centralRecords(zip: Uint8Array): number[] {
  const out: number[] = [];
  for (let p = 0; p + 4 <= zip.length; p++) {
    if (zip[p] === 0x50 && zip[p + 1] === 0x4b && zip[p + 2] === 1 && zip[p + 3] === 2) out.push(p);
  }
  return out;
}

describe('ZipArchive (inline fixtures)', () => {
  const zip = zipSync({
    'a.txt': strToU8('\uFEFFhello'),
    'dir/b.xml': strToU8('<x>' + 'y'.repeat(5000) + '</x>'),
    'stored.bin': [new Uint8Array([1, 2, 3]), { level: 0 }],
  });

  test('lists entries and reads stored and deflated entries', () => {
    const archive = ZipArchive.open(zip);
    expect(archive.entries.map((e) => e.name)).toEqual(['a.txt', 'dir/b.xml', 'stored.bin']);
    expect(archive.entries[1]!.method).toBe(8);
    expect(archive.entries[2]!.method).toBe(0);
    expect(archive.readText('a.txt')).toBe('hello');
    expect(archive.readText('dir/b.xml')).toHaveLength(5007);
    expect([...archive.read('stored.bin')]).toEqual([1, 2, 3]);
    expect(archive.inflatedBytes).toBe(8 + 5007 + 3);
    expect(archive.has('DIR/B.XML')).toBe(true);
    expect(archive.readTextIfPresent('missing.xml')).toBeUndefined();
    expect(codeOf(() => archive.read('missing.xml'))).toBe('CORRUPT');
  });

  test('not a zip, or truncated -> CORRUPT', () => {
    expect(codeOf(() => ZipArchive.open(strToU8('just some text, not an archive')))).toBe('CORRUPT');
    expect(codeOf(() => ZipArchive.open(zip.subarray(0, zip.length - 30)))).toBe('CORRUPT');
    expect(codeOf(() => ZipArchive.open(new Uint8Array(0)))).toBe('CORRUPT');
  });

  test('a liar entry (inflates past its declared size) is stopped at the declared size', () => {
    const liar = zipSync({ 'liar.txt': strToU8('z'.repeat(100_000)) });
    const [record] = centralRecords(liar);
    new DataView(liar.buffer).setUint32(record! + 24, 1000, true);
    const archive = ZipArchive.open(liar);
    expect(archive.entries[0]!.uncompressedSize).toBe(1000);
    expect(codeOf(() => archive.read('liar.txt'))).toBe('LIMIT_EXCEEDED');
  });

  test('an entry that inflates short of its declared size is CORRUPT', () => {
    const short = zipSync({ 's.txt': strToU8('z'.repeat(1000)) });
    const [record] = centralRecords(short);
    new DataView(short.buffer).setUint32(record! + 24, 5000, true);
    expect(codeOf(() => ZipArchive.open(short).read('s.txt'))).toBe('CORRUPT');
  });

  test('limits: entry count, declared total, ratio, per-entry size, total inflated across reads', () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 12; i++) files[`f${i}.txt`] = strToU8(`file ${i}`);
    const many = zipSync(files);
    expect(codeOf(() => ZipArchive.open(many, { limits: { maxEntries: 10 } }))).toBe('LIMIT_EXCEEDED');
    expect(ZipArchive.open(many).entries).toHaveLength(12);

    const bomb = zipSync({ 'zeros.bin': new Uint8Array(4 * 1024 * 1024) });
    expect(codeOf(() => ZipArchive.open(bomb))).toBe('LIMIT_EXCEEDED');
    expect(codeOf(() => ZipArchive.open(bomb, { limits: { maxRatio: 100_000, maxTotalUncompressed: 1024 * 1024 } }))).toBe('LIMIT_EXCEEDED');
    const relaxed = ZipArchive.open(bomb, { limits: { maxRatio: 100_000, maxEntrySize: 1024 * 1024 } });
    expect(codeOf(() => relaxed.read('zeros.bin'))).toBe('LIMIT_EXCEEDED');

    const two = zipSync({ 'a.txt': strToU8('a'.repeat(600)), 'b.txt': strToU8('b'.repeat(600)) });
    expect(codeOf(() => ZipArchive.open(two, { limits: { maxTotalUncompressed: 1000 } }))).toBe('LIMIT_EXCEEDED');
  });

  test('the total inflated across reads is capped, even when each entry fits', () => {
    const two = zipSync({ 'a.txt': strToU8('a'.repeat(600)), 'b.txt': strToU8('b'.repeat(600)) });
    // Declared total 1200 passes a 1200 cap; reading a twice must not pass it.
    const archive = ZipArchive.open(two, { limits: { maxTotalUncompressed: 1200 } });
    archive.read('a.txt');
    archive.read('b.txt');
    expect(codeOf(() => archive.read('a.txt'))).toBe('LIMIT_EXCEEDED');
  });

  test('zip-slip names are refused: the whole archive is CORRUPT', () => {
    for (const name of ['../evil.txt', 'a/../../evil.txt', '/abs/path.txt', '..\\evil.txt', 'C:\\x.txt', 'c:/x.txt', 'ok/..']) {
      expect(isUnsafeEntryName(name), name).toBe(true);
      const evil = zipSync({ 'fine.txt': strToU8('fine'), [name]: strToU8('evil') });
      expect(codeOf(() => ZipArchive.open(evil)), name).toBe('CORRUPT');
    }
    for (const name of ['a/b.txt', 'a..b.txt', '..a/b', 'dir/', '[Content_Types].xml']) expect(isUnsafeEntryName(name), name).toBe(false);
  });

  test('encrypted entries are listed but refuse to read with ENCRYPTED', () => {
    const plain = zipSync({ 'secret.txt': strToU8('secret') });
    const view = new DataView(plain.buffer);
    for (const p of centralRecords(plain)) view.setUint16(p + 8, view.getUint16(p + 8, true) | 1, true);
    const archive = ZipArchive.open(plain);
    expect(archive.entries[0]!.encrypted).toBe(true);
    expect(codeOf(() => archive.read('secret.txt'))).toBe('ENCRYPTED');
  });

  test('default limits', () => {
    expect(DEFAULT_ZIP_LIMITS).toEqual({ maxEntries: 10_000, maxTotalUncompressed: 1024 ** 3, maxEntrySize: 256 * 1024 ** 2, maxRatio: 200 });
  });
});

describe.skipIf(!hasShared)(`ZipArchive on the corpus${hasShared ? '' : ` (${sharedSkipReason})`}`, () => {
  const open = (path: string) => ZipArchive.open(readFileSync(corpus(path)), { file: path });

  test.each([
    ['adversarial/oversized_archive.docx', 'LIMIT_EXCEEDED'],
    ['adversarial/large_size_archive.docx', 'LIMIT_EXCEEDED'],
    ['adversarial/many_entries_archive.docx', 'LIMIT_EXCEEDED'],
    ['adversarial/zip-slip-relative-path.zip', 'CORRUPT'],
    ['adversarial/testWORD_truncated.docx', 'CORRUPT'],
    ['adversarial/testODTnotaZipFile.odt', 'CORRUPT'],
  ])('%s is refused with %s, in bounded memory', (path, code) => {
    const before = process.memoryUsage().rss;
    expect(codeOf(() => open(path))).toBe(code);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
  });

  test('the bombs are also stopped when their ratio limit is lifted: size caps hold', () => {
    const before = process.memoryUsage().rss;
    const bytes = readFileSync(corpus('adversarial/large_size_archive.docx'));
    expect(codeOf(() => ZipArchive.open(bytes, { limits: { maxRatio: 1e9 } }).read('word/document.xml'))).toBe('LIMIT_EXCEEDED');
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
  });

  test('legacy entry-name encodings: GBK and Shift_JIS without the UTF-8 flag', () => {
    const gbk = JSON.parse(readFileSync(corpus('zip/gbk.zip.expected.json'), 'utf8')) as { entry_names: string[] };
    expect(open('zip/gbk.zip').entries.map((e) => e.name)).toEqual(gbk.entry_names);
    const sjis = JSON.parse(readFileSync(corpus('zip/testZipEntryNameCharsetShiftSJIS.zip.expected.json'), 'utf8')) as { entry_names: string[] };
    expect(open('zip/testZipEntryNameCharsetShiftSJIS.zip').entries.map((e) => e.name)).toEqual(sjis.entry_names);
  });

  test('every entry of a real archive reads to its declared size', () => {
    const archive = open('zip/test-documents.zip');
    for (const entry of archive.entries) expect(archive.read(entry.name).length).toBe(entry.uncompressedSize);
  });
});

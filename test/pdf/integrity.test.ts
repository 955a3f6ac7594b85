import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, test } from 'vitest';
import { GroundworkError } from '../../src/errors.js';
import { loadEngine, openDocument } from '../../src/pdf/engine.js';
import { checkContentStreams, damageWarnings, inspectPdf, pageContentObjects, streamCheckBudget } from '../../src/pdf/integrity.js';
import { pdfParser } from '../../src/parsers/pdf.js';
import { corpus, hasShared } from '../helpers.js';
import { minimalPdf } from './fixtures.js';

const latin1 = (text: string): Uint8Array => Buffer.from(text, 'latin1');

/** A PDF from object bodies (object i + 1) with a correct xref table; `trailer` is extra trailer entries. */
function buildPdf(objects: (string | Uint8Array)[], trailer = ''): Uint8Array {
  const parts: Uint8Array[] = [latin1('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  const push = (part: Uint8Array): void => {
    parts.push(part);
    length += part.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    push(latin1(`${i + 1} 0 obj\n`));
    push(typeof body === 'string' ? latin1(body) : body);
    push(latin1('\nendobj\n'));
  });
  const xref = length;
  const entries = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  push(latin1(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`));
  push(latin1(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailer}>>\nstartxref\n${xref}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A stream object body with the given (already encoded) data. */
function streamBody(data: Uint8Array, dict = ''): Uint8Array {
  return Buffer.concat([latin1(`<< /Length ${data.length} ${dict}>>\nstream\n`), data, latin1('\nendstream')]);
}

/** One page whose content stream is `content` (FlateDecode when `flate`). */
function onePage(content: Uint8Array, flate: boolean): Uint8Array {
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    streamBody(content, flate ? '/Filter /FlateDecode ' : ''),
  ]);
}

const TEXT = latin1('BT /F1 12 Tf 72 700 Td (A line of text long enough to be more than a few characters) Tj ET\n'.repeat(20));

describe('structure check, inline files', () => {
  test('a sound file: no damage, not truncated, not encrypted', () => {
    const bytes = minimalPdf([{ text: 'Hello', size: 12, x: 72, y: 700 }]);
    const structure = inspectPdf(bytes);
    expect(structure).toMatchObject({ headerOffset: 0, truncated: false, encrypted: false, damage: [] });
    expect(pageContentObjects(bytes, structure, 10)).toEqual([[4]]);
  });

  test('bytes inserted in the middle: xref entries no longer point at their objects', () => {
    const sound = minimalPdf([{ text: 'Hello', size: 12, x: 72, y: 700 }]);
    const at = Buffer.from(sound).indexOf('3 0 obj');
    const shifted = Buffer.concat([sound.subarray(0, at), latin1('% inserted by a text editor\n'), sound.subarray(at)]);
    // startxref still lands inside the (shifted) file but no longer on `xref`.
    expect(inspectPdf(shifted).damage[0]).toMatchObject({ kind: 'startxref-off-target' });
    // Fix startxref only: the table's entries after the insertion are now wrong.
    const text = shifted.toString('latin1');
    const xrefAt = text.lastIndexOf('xref\n0 ');
    const fixed = latin1(text.replace(/startxref\n\d+/, `startxref\n${xrefAt}`));
    const damage = inspectPdf(fixed).damage;
    expect(damage).toHaveLength(1);
    expect(damage[0]).toMatchObject({ kind: 'xref-entry-off-target' });
  });

  test('no %%EOF at the end: truncated; no %PDF- header: not a PDF', () => {
    const sound = minimalPdf([{ text: 'Hello', size: 12, x: 72, y: 700 }]);
    const cut = inspectPdf(sound.subarray(0, sound.length - 40));
    expect(cut.truncated).toBe(true);
    expect(cut.damage).toEqual([{ kind: 'no-startxref' }]);
    expect(inspectPdf(latin1('hello, this is text')).headerOffset).toBe(-1);
    // Padding after %%EOF (NULs, spaces) is not truncation.
    const padded = inspectPdf(Buffer.concat([sound, new Uint8Array(5000)]));
    expect(padded).toMatchObject({ truncated: false, damage: [] });
  });

  test('content streams: sound, damaged checksum, cut short and garbage are told apart', () => {
    const deflated = deflateSync(TEXT);
    const check = (data: Uint8Array): unknown[] => {
      const pdf = onePage(data, true);
      return checkContentStreams(pdf, inspectPdf(pdf), [0], 1 << 20);
    };
    expect(check(deflated)).toEqual([]);
    const badChecksum = Uint8Array.from(deflated);
    badChecksum[badChecksum.length - 1]! ^= 0xff;
    expect(check(badChecksum)).toEqual([expect.objectContaining({ page: 0, object: 5, reason: 'checksum' })]);
    expect(check(deflated.subarray(0, deflated.length >> 1))).toEqual([expect.objectContaining({ reason: 'cut-short' })]);
    expect(check(latin1('this is not deflate data at all'))).toEqual([expect.objectContaining({ reason: 'corrupt' })]);
  });

  test('the stream check stops at its byte budget', () => {
    const pdf = onePage(latin1('not deflate'), true);
    expect(checkContentStreams(pdf, inspectPdf(pdf), [0], 4)).toEqual([]);
  });

  test('xref stream with PNG predictor and pages in an object stream', () => {
    const pdf = objectStreamPdf(deflateSync(TEXT));
    const structure = inspectPdf(pdf);
    expect(structure.damage).toEqual([]);
    expect(pageContentObjects(pdf, structure, 10)).toEqual([[5]]);
    expect(checkContentStreams(pdf, structure, [0], 1 << 20)).toEqual([]);
  });
});

/**
 * Objects 1-3 (catalog, pages, page) live in object stream 4; object 5 is the content stream
 * (`content`, FlateDecode); 6 is the xref stream, with a PNG Up predictor.
 */
function objectStreamPdf(content: Uint8Array): Buffer {
  const objStmBody = '<< /Type /Catalog /Pages 2 0 R >> << /Type /Pages /Kids [3 0 R] /Count 1 >> << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R >>';
  const first = objStmBody.indexOf('<< /Type /Pages');
  const third = objStmBody.indexOf('<< /Type /Page ');
  const header = `1 0 2 ${first} 3 ${third} `;
  const parts: Uint8Array[] = [latin1('%PDF-1.5\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [0];
  const add = (num: number, body: Uint8Array): void => {
    offsets[num] = length;
    const part = Buffer.concat([latin1(`${num} 0 obj\n`), body, latin1('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  };
  add(4, streamBody(deflateSync(latin1(header + objStmBody)), `/Type /ObjStm /N 3 /First ${header.length} /Filter /FlateDecode `));
  add(5, streamBody(content, '/Filter /FlateDecode '));
  offsets[6] = length;
  // Rows of [type, offset (2 bytes), index], each behind a PNG "Up" filter byte.
  const rows = [[0, 0, 0, 255], [2, 0, 4, 0], [2, 0, 4, 1], [2, 0, 4, 2], [1, offsets[4]! >> 8, offsets[4]! & 255, 0], [1, offsets[5]! >> 8, offsets[5]! & 255, 0], [1, offsets[6]! >> 8, offsets[6]! & 255, 0]];
  const predicted: number[] = [];
  rows.forEach((row, r) => {
    predicted.push(2);
    row.forEach((v, c) => predicted.push((v - (r > 0 ? rows[r - 1]![c]! : 0)) & 255));
  });
  add(6, streamBody(deflateSync(Uint8Array.from(predicted)), '/Type /XRef /Size 7 /W [1 2 1] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >> '));
  parts.push(latin1(`startxref\n${offsets[6]}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** The file with its `startxref` offset overwritten (same length) to point at byte 0: PDFium must rebuild the xref. */
function breakStartxref(pdf: Uint8Array): Buffer {
  const text = Buffer.from(pdf).toString('latin1');
  const at = text.lastIndexOf('startxref');
  const fixed = text.slice(at).replace(/startxref(\s+)(\d+)/, (_, space: string, digits: string) => `startxref${space}${'0'.padStart(digits.length, '0')}`);
  return Buffer.from(text.slice(0, at) + fixed, 'latin1');
}

/** A deflated content stream whose Adler-32 checksum is wrong: it inflates whole, then fails the check. */
function badChecksum(data: Uint8Array): Uint8Array {
  const bad = Uint8Array.from(deflateSync(data));
  bad[bad.length - 1]! ^= 0xff;
  return bad;
}

describe('content streams when the xref is unusable: objects found by scanning', () => {
  test('the corrupt stream of a file with a broken startxref is named', () => {
    const pdf = breakStartxref(onePage(badChecksum(TEXT), true));
    const structure = inspectPdf(pdf);
    expect(structure.damage).toEqual([{ kind: 'startxref-off-target', offset: 0 }]);
    expect(structure.xref).toBeUndefined();
    expect(pageContentObjects(pdf, structure, 10)).toEqual([[5]]);
    expect(checkContentStreams(pdf, structure, [0], 1 << 20)).toEqual([expect.objectContaining({ page: 0, object: 5, reason: 'checksum' })]);
    // The same budget as with a sound xref: nothing is inflated beyond it.
    expect(checkContentStreams(pdf, structure, [0], 4)).toEqual([]);
    expect(damageWarnings(pdf, structure, [100])).toEqual([
      "the PDF's cross-reference table is damaged (startxref points at byte 0, not at an xref table or stream); PDFium rebuilt it by scanning the file: text may be incomplete",
      'content stream of page 1 (object 5) fails its zlib checksum (the bytes are damaged): its text may be partial or wrong',
    ]);
  });

  test('the last definition of an object wins, unless an earlier one has a higher generation', () => {
    const base = Buffer.from(onePage(badChecksum(TEXT), true));
    const update = (header: string, data: Uint8Array): Buffer => Buffer.concat([latin1(`${header} obj\n`), streamBody(data, '/Filter /FlateDecode '), latin1('\nendobj\n')]);
    // An update appended after the (now stale) trailer redefines object 5: a sound stream replaces the damaged one.
    const repaired = breakStartxref(Buffer.concat([base, update('5 0', deflateSync(TEXT))]));
    expect(checkContentStreams(repaired, inspectPdf(repaired), [0], 1 << 20)).toEqual([]);
    const sound = Buffer.from(onePage(deflateSync(TEXT), true));
    const damaged = breakStartxref(Buffer.concat([sound, update('5 0', badChecksum(TEXT))]));
    expect(checkContentStreams(damaged, inspectPdf(damaged), [0], 1 << 20)).toEqual([expect.objectContaining({ object: 5, reason: 'checksum' })]);
    // A later generation-0 copy does not replace a generation-1 definition.
    const generations = breakStartxref(Buffer.concat([sound, update('5 1', badChecksum(TEXT)), update('5 0', deflateSync(TEXT))]));
    expect(checkContentStreams(generations, inspectPdf(generations), [0], 1 << 20)).toEqual([expect.objectContaining({ object: 5, reason: 'checksum' })]);
  });

  test('headers quoted inside stream data are not taken for objects', () => {
    // Object 6, after the sound object 5, is an uncompressed content stream that quotes a corrupt object 5.
    const quoted = latin1('BT /F1 12 Tf 72 600 Td (see below) Tj ET\n% 5 0 obj << /Filter /FlateDecode /Length 8 >> stream\nnotzlib!\nendstream endobj\n');
    const pdf = breakStartxref(
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [5 0 R 6 0 R] >>',
        '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
        streamBody(deflateSync(TEXT), '/Filter /FlateDecode '),
        streamBody(quoted),
      ]),
    );
    const structure = inspectPdf(pdf);
    expect(pageContentObjects(pdf, structure, 10)).toEqual([[5, 6]]);
    expect(checkContentStreams(pdf, structure, [0], 1 << 20)).toEqual([]);
  });

  test('pages in an object stream: found through the cross-reference stream, or by reading the object streams', () => {
    const pdf = breakStartxref(objectStreamPdf(badChecksum(TEXT)));
    const expected = [expect.objectContaining({ page: 0, object: 5, reason: 'checksum' })];
    expect(checkContentStreams(pdf, inspectPdf(pdf), [0], 1 << 20)).toEqual(expected);
    // With the xref stream unreadable too (not a /Type /XRef any more), object stream 4 is read to find objects 1-3.
    const noXrefStream = Buffer.from(pdf.toString('latin1').replace('/Type /XRef', '/Type /XXXX'), 'latin1');
    expect(checkContentStreams(noXrefStream, inspectPdf(noXrefStream), [0], 1 << 20)).toEqual(expected);
  });

  test('an /Encrypt entry beside the /Root found by the scan: the streams are ciphertext, not checked', () => {
    // The trailer is more than 4 KB from the end (junk appended), so the structure check's tail does not see it.
    const junk = latin1(`% ${'x'.repeat(6000)}\n`);
    const withTrailer = (extra: string): Buffer =>
      breakStartxref(Buffer.concat([Buffer.from(onePage(badChecksum(TEXT), true).toString().replace('/Root 1 0 R', `/Root 1 0 R ${extra}`), 'latin1'), junk]));
    const plain = withTrailer('');
    const encrypted = withTrailer('/Encrypt 9 0 R');
    expect(inspectPdf(encrypted).encrypted).toBe(false);
    expect(checkContentStreams(plain, inspectPdf(plain), [0], 1 << 20)).toHaveLength(1);
    expect(checkContentStreams(encrypted, inspectPdf(encrypted), [0], 1 << 20)).toEqual([]);
  });

  test('a scan that runs out of steps is not used: no check rather than one on half-read objects', () => {
    const damaged = Buffer.from(breakStartxref(onePage(badChecksum(TEXT), true)));
    const withTinyObjects = (count: number): Buffer => {
      const at = damaged.indexOf('1 0 obj');
      return Buffer.concat([damaged.subarray(0, at), latin1('99 0 obj 1 endobj\n'.repeat(count)), damaged.subarray(at)]);
    };
    const few = withTinyObjects(1000);
    expect(checkContentStreams(few, inspectPdf(few), [0], 1 << 20)).toEqual([expect.objectContaining({ page: 0, object: 5, reason: 'checksum' })]);
    // 100,000 objects of 18 bytes: more steps than 4096 + size / 64 allows.
    const many = withTinyObjects(100_000);
    expect(checkContentStreams(many, inspectPdf(many), [0], 1 << 20)).toEqual([]);
  });

  test('adversarial bytes: no exception, work bounded', () => {
    const header = '%PDF-1.4\n';
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const tokens = ['1 0 obj', 'endobj', '<<', '>>', 'stream\n', 'endstream', '(', ')', '<', '/Root 1 0 R', '/Type /ObjStm', '/Type /XRef', '/Kids [1 0 R 2 0 R]', '/Contents 2 0 R', '/Pages 1 0 R', '9999999 0 obj', '2 0 R', 'trailer'];
    const soup = header + Array.from({ length: 20000 }, () => tokens[Math.floor(random() * tokens.length)]).join(' ');
    const nasty = [
      soup,
      header + '1 0 obj << '.repeat(20000),
      header + '1 0 obj (unclosed '.repeat(5000),
      header + '1 0 obj << /Length 5 >> stream\n'.repeat(5000),
      header + '1 0 obj %'.repeat(20000),
      header + 'Root'.repeat(50000),
    ];
    for (const text of nasty) {
      const bytes = latin1(text);
      const structure = inspectPdf(bytes);
      expect(structure.xref).toBeUndefined();
      expect(pageContentObjects(bytes, structure, 100).length).toBeLessThanOrEqual(100);
      expect(() => checkContentStreams(bytes, structure, [0, 1, 2], streamCheckBudget(bytes.length))).not.toThrow();
    }
    // A page tree that is its own kid; a catalog that is its own page tree: each node is visited once.
    const cyclic = latin1(header + '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj 2 0 obj << /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] >> endobj 3 0 obj << /Type /Page /Contents 4 0 R >> endobj trailer << /Root 1 0 R >>');
    expect(pageContentObjects(cyclic, inspectPdf(cyclic), 100)).toEqual([[4]]);
    const selfRooted = latin1(header + '1 0 obj << /Type /Catalog /Pages 1 0 R /Kids [1 0 R] >> endobj trailer << /Root 1 0 R >>');
    expect(pageContentObjects(selfRooted, inspectPdf(selfRooted), 100)).toEqual([]);
  });
});

/** RC4, for a fixture encrypted with the standard security handler (revision 2, empty user password). */
function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = new Uint8Array(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[k] = data[k]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

/**
 * A blank page in a file encrypted with an empty user password: PDFium opens it and finds no text.
 * PDFium checks /U against the key, so a wrong RC4 or key here would fail as ENCRYPTED.
 */
function encryptedBlankPdf(): Uint8Array {
  const pad = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');
  const owner = pad; // any 32 bytes: only an owner password would be checked against it
  const id = Buffer.alloc(16, 7);
  const permissions = Buffer.alloc(4);
  permissions.writeInt32LE(-4);
  const key = createHash('md5').update(Buffer.concat([pad, owner, permissions, id])).digest().subarray(0, 5);
  const user = Buffer.from(rc4(key, pad));
  return buildPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
      `<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${user.toString('hex')}> /P -4 >>`,
    ],
    `/Encrypt 4 0 R /ID [<${id.toString('hex')}> <${id.toString('hex')}>] `,
  );
}

async function parseError(bytes: Uint8Array): Promise<unknown> {
  try {
    await pdfParser.parse({ bytes, name: 'x.pdf' }, {});
  } catch (error) {
    return error;
  }
  throw new Error('expected the parse to fail');
}

describe('parse: damage reported', () => {
  test('garbage bytes: CORRUPT naming the missing header', async () => {
    const error = await parseError(latin1('this is not a pdf at all'));
    expect(error).toBeInstanceOf(GroundworkError);
    expect((error as GroundworkError).code).toBe('CORRUPT');
    expect((error as GroundworkError).message).toContain('no %PDF- header');
  });

  test('encrypted with an empty user password and no text: the encrypted warning', async () => {
    const bytes = encryptedBlankPdf();
    expect(inspectPdf(bytes).encrypted).toBe(true);
    const draft = await pdfParser.parse({ bytes, name: 'e.pdf' }, { ocr: 'off' });
    expect(draft.pageCount).toBe(1);
    expect(draft.warnings).toContain('the PDF is encrypted and yielded no text: if it needs a password, supply it (--password)');
  });
});

describe.skipIf(!hasShared)('structure check, corpus', () => {
  const sound = [
    'pdf/2305.03393v1-pg9.pdf',
    'pdf/XiaoBiaoSong.pdf',
    'pdf/china.pdf',
    'pdf/code_and_formula.pdf',
    'pdf/federal-register-2020-17221.pdf',
    'pdf/header-test-doc.pdf',
    'pdf/multi-column-2p.pdf',
    'pdf/normal_4pages.pdf',
    'pdf/poem.pdf',
    'pdf/redp5110_sampled.pdf',
    'pdf/right_to_left_01.pdf',
    'pdf/scotus-transcript-p1.pdf',
    'pdf/spanning_cells.pdf',
    'pdf/tracemonkey.pdf',
    'pdf-scanned/loremipsum-flat.pdf',
    'pdf-scanned/ocr_test.pdf',
    'pdf-scanned/ocr_test_zh.pdf',
    'zh-generated/warehouse-manual-zh.pdf',
    'adversarial/password.pdf',
    'adversarial/aes-256-r6.pdf',
  ];

  test('sound corpus files: no damage and no warnings, every page found with its content streams', async () => {
    const engine = await loadEngine();
    for (const file of sound) {
      const bytes = readFileSync(corpus(file));
      const structure = inspectPdf(bytes);
      expect({ file, truncated: structure.truncated, damage: structure.damage }).toEqual({ file, truncated: false, damage: [] });
      const encrypted = file.startsWith('adversarial/');
      expect(structure.encrypted).toBe(encrypted);
      if (encrypted) continue;
      const doc = openDocument(engine, bytes, undefined);
      const pages = pageContentObjects(bytes, structure, 10_000);
      doc.close();
      expect({ file, pages: pages.length }).toEqual({ file, pages: doc.pageCount });
      const chars = pages.map(() => 100);
      expect({ file, warnings: damageWarnings(bytes, structure, chars) }).toEqual({ file, warnings: [] });
    }
  });

  test('xref_command_missing.pdf: the broken xref is reported, the text kept', async () => {
    const bytes = readFileSync(corpus('adversarial/xref_command_missing.pdf'));
    expect(inspectPdf(bytes).damage).toEqual([{ kind: 'startxref-off-target', offset: 455 }]);
    const draft = await pdfParser.parse({ bytes, name: 'xref_command_missing.pdf' }, {});
    expect(draft.elements.map((e) => e.text).join(' ')).toContain('Reduced test-case');
    expect(draft.warnings).toContain(
      "the PDF's cross-reference table is damaged (startxref points at byte 455, not at an xref table or stream); PDFium rebuilt it by scanning the file: text may be incomplete",
    );
  });

  test('zen_of_python_corrupted.pdf: the corrupt content stream is reported, the text kept', async () => {
    const bytes = readFileSync(corpus('adversarial/zen_of_python_corrupted.pdf'));
    const draft = await pdfParser.parse({ bytes, name: 'zen_of_python_corrupted.pdf' }, {});
    const text = draft.elements.map((e) => e.text).join('\n');
    expect(text).toContain('zen_of_python.txt');
    expect(text).toContain('Beautiful is better than ugly');
    expect(draft.warnings).toContain('content stream of page 1 (object 5) fails its zlib checksum (the bytes are damaged): its text may be partial or wrong');
  });

  test('the scan finds the page contents the xref lists, in every sound corpus file', () => {
    for (const file of sound) {
      const bytes = readFileSync(corpus(file));
      const structure = inspectPdf(bytes);
      if (structure.encrypted) continue;
      const scanned = pageContentObjects(bytes, { ...structure, xref: undefined, damage: [{ kind: 'no-startxref' }] }, 10_000);
      expect({ file, pages: scanned }).toEqual({ file, pages: pageContentObjects(bytes, structure, 10_000) });
    }
  });

  test('zen_of_python_corrupted.pdf with its startxref broken too: both kinds of damage reported, the text kept', async () => {
    const bytes = breakStartxref(readFileSync(corpus('adversarial/zen_of_python_corrupted.pdf')));
    const draft = await pdfParser.parse({ bytes, name: 'zen_of_python_corrupted.pdf' }, {});
    expect(draft.elements.map((e) => e.text).join('\n')).toContain('Beautiful is better than ugly');
    expect(draft.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^the PDF's cross-reference table is damaged \(startxref points at byte 0, /),
        'content stream of page 1 (object 5) fails its zlib checksum (the bytes are damaged): its text may be partial or wrong',
      ]),
    );
  });

  /** The text of each page (1-based) of a parse. */
  const pageTexts = (elements: readonly { page?: number; text?: string }[], pages: number): string[] =>
    Array.from({ length: pages }, (_, p) => elements.filter((e) => e.page === p + 1).map((e) => e.text ?? '').join('\n'));

  /** The file with eight bytes in the middle of object `num`'s stream data flipped. */
  const corruptStream = (pdf: Buffer, num: number): Buffer => {
    const text = pdf.toString('latin1');
    const header = new RegExp(`(?<![0-9])${num} 0 obj`).exec(text);
    const keyword = header ? /stream\r?\n/.exec(text.slice(header.index)) : null;
    const length = header ? /\/Length (\d+)(?! \d+ R)/.exec(text.slice(header.index)) : null;
    if (!header || !keyword || !length) throw new Error(`object ${num} is not a stream with a direct length`);
    const data = header.index + keyword.index + keyword[0].length;
    const damaged = Buffer.from(pdf);
    const middle = data + (Number(length[1]) >> 1);
    for (let k = middle; k < middle + 8; k++) damaged[k]! ^= 0x55;
    return damaged;
  };

  test.each([
    // A classic xref table without its `xref` keyword (as in xref_command_missing.pdf), page 2's stream damaged.
    { file: 'pdf/multi-column-2p.pdf', damagedPage: 2, cut: 'keyword' },
    // An xref stream that startxref no longer points at; pages in object streams; page 1's first stream damaged.
    { file: 'pdf/normal_4pages.pdf', damagedPage: 1, cut: 'startxref' },
  ])('$file with its xref cut ($cut) and a content stream corrupted: the warning names page and object, the other pages keep their text', async ({ file, damagedPage, cut }) => {
    const original = readFileSync(corpus(file));
    const soundStructure = inspectPdf(original);
    const object = pageContentObjects(original, soundStructure, 100)[damagedPage - 1]![0]!;
    let broken: Buffer;
    if (cut === 'keyword') {
      const table = Buffer.from(original);
      const at = original.toString('latin1').lastIndexOf('xref\n0 ');
      table.write('    ', at, 'latin1');
      broken = table;
    } else {
      broken = breakStartxref(original);
    }
    const bytes = corruptStream(broken, object);
    const structure = inspectPdf(bytes);
    expect(structure.xref).toBeUndefined();
    expect(structure.damage).toHaveLength(1);
    const [sound, damaged] = await Promise.all([
      pdfParser.parse({ bytes: original, name: file }, { ocr: 'off' }),
      pdfParser.parse({ bytes, name: file }, { ocr: 'off' }),
    ]);
    expect(damaged.warnings).toContainEqual(expect.stringMatching(new RegExp(`^content stream of page ${damagedPage} \\(object ${object}\\) (fails its zlib checksum|is corrupt|ends early)`)));
    expect(damaged.warnings).toContainEqual(expect.stringMatching(/^the PDF's cross-reference table is damaged/));
    const before = pageTexts(sound.elements, sound.pageCount!);
    const after = pageTexts(damaged.elements, damaged.pageCount!);
    expect(after).toHaveLength(before.length);
    for (let p = 0; p < before.length; p++) {
      if (p + 1 !== damagedPage) expect({ page: p + 1, text: after[p] }).toEqual({ page: p + 1, text: before[p] });
    }
  });

  describe('truncated copies', () => {
    const dir = mkdtempSync(join(tmpdir(), 'groundwork-truncated-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const truncatedCopy = (file: string, fraction: number): Uint8Array => {
      const full = readFileSync(corpus(file));
      const path = join(dir, file.replace(/\//g, '_'));
      writeFileSync(path, full.subarray(0, Math.round(full.length * fraction)));
      return readFileSync(path);
    };

    test('cut beyond repair: CORRUPT, the reason names the truncation', async () => {
      const bytes = truncatedCopy('pdf/tracemonkey.pdf', 0.5);
      const error = await parseError(bytes);
      expect(error).toBeInstanceOf(GroundworkError);
      expect((error as GroundworkError).code).toBe('CORRUPT');
      expect((error as GroundworkError).message).toMatch(/the PDF is truncated \(it ends after \d+ bytes without %%EOF\)/);
    });

    test('cut but readable: the pages PDFium rebuilt, with a truncation warning naming the empty page', async () => {
      const bytes = truncatedCopy('pdf/code_and_formula.pdf', 0.6);
      const draft = await pdfParser.parse({ bytes, name: 'code_and_formula.pdf' }, { ocr: 'off' });
      expect(draft.pageCount).toBe(2);
      expect(draft.elements.map((e) => e.text).join(' ')).toContain('JavaScript Code Example');
      expect(draft.warnings).toContain(
        `the PDF looks truncated (it ends after ${bytes.length} bytes without %%EOF); PDFium read what is there: pages or text at the end may be missing; page 2 yielded no text`,
      );
    });
  });
});

import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, test } from 'vitest';
import { GroundworkError } from '../../src/errors.js';
import { loadEngine, openDocument } from '../../src/pdf/engine.js';
import { checkContentStreams, damageWarnings, inspectPdf, pageContentObjects } from '../../src/pdf/integrity.js';
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
    const structure = inspectPdf(minimalPdf([{ text: 'Hello', size: 12, x: 72, y: 700 }]));
    expect(structure).toMatchObject({ headerOffset: 0, truncated: false, encrypted: false, damage: [] });
    expect(pageContentObjects(structure, 10)).toEqual([[4]]);
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
    // Objects 1-3 live in object stream 4; object 5 is the content; 6 is the xref stream.
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
    add(5, streamBody(deflateSync(TEXT), '/Filter /FlateDecode '));
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
    const pdf = Buffer.concat(parts);
    const structure = inspectPdf(pdf);
    expect(structure.damage).toEqual([]);
    expect(pageContentObjects(structure, 10)).toEqual([[5]]);
    expect(checkContentStreams(pdf, structure, [0], 1 << 20)).toEqual([]);
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
      const pages = pageContentObjects(structure, 10_000);
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

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from '../src/parse.js';
import { corpus, failure, hasShared } from './helpers.js';

describe('parse() errors name the file and the cause', () => {
  test('EMPTY, TOO_LARGE, IO', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-parse-'));
    try {
      writeFileSync(join(dir, 'empty.md'), '');
      writeFileSync(join(dir, 'blank.txt'), '  \n\n \n');
      writeFileSync(join(dir, 'big.txt'), 'x'.repeat(2000));
      expect((await failure(parse(join(dir, 'empty.md')))).code).toBe('EMPTY');
      expect((await failure(parse(join(dir, 'blank.txt')))).code).toBe('EMPTY');
      const large = await failure(parse(join(dir, 'big.txt'), { maxBytes: 1000 }));
      expect(large.code).toBe('TOO_LARGE');
      expect(large.file).toBe(join(dir, 'big.txt'));
      const missing = await failure(parse(join(dir, 'nope.pdf')));
      expect([missing.code, missing.message]).toEqual(['IO', expect.stringContaining('no such file')]);
      expect((await failure(parse(dir))).code).toBe('IO');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('legacy binary Office formats are UNSUPPORTED with what to do', async () => {
    const error = await failure(parse(new TextEncoder().encode('not really a doc'), { name: 'old.doc', format: 'doc' }));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toMatch(/legacy binary Word document.*save it as \.docx/);
    expect(error.file).toBe('old.doc');
  });

  test.skipIf(!hasShared)('encrypted OOXML is ENCRYPTED, a truncated one CORRUPT', async () => {
    expect((await failure(parse(corpus('adversarial', 'password_protected.xlsx')))).code).toBe('ENCRYPTED');
    expect((await failure(parse(corpus('adversarial', 'testWORD_protected_passtika.docx')))).code).toBe('ENCRYPTED');
    expect((await failure(parse(corpus('adversarial', 'testWORD_truncated.docx')))).code).toBe('CORRUPT');
  });

  test('bytes parse like files, the name helping detection', async () => {
    const doc = await parse(new TextEncoder().encode('# Title\n\nBody text.\n'), { name: 'note.md' });
    expect(doc.format).toBe('markdown');
    expect(doc.elements.map((e) => e.kind)).toEqual(['heading', 'paragraph']);
    expect(doc.canonical).toBe('# Title\n\nBody text.');
  });
});

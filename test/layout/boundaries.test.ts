import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { projectRoot } from '../helpers.js';

/** Every module a folder of src/ imports (static `from '...'` and dynamic `import('...')`), as `folder/file` paths. */
function importsOf(folder: string): { file: string; target: string }[] {
  const dir = join(projectRoot, 'src', folder);
  const out: { file: string; target: string }[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.ts')) continue;
    const source = readFileSync(join(dir, name), 'utf8');
    for (const m of source.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = m[1]!.startsWith('./') ? `${folder}/${m[1]!.slice(2)}` : m[1]!.slice(3);
      out.push({ file: `${folder}/${name}`, target });
    }
  }
  return out;
}

const crossing = (folder: string, forbidden: readonly string[]): string[] =>
  importsOf(folder)
    .filter(({ target }) => forbidden.some((f) => target.startsWith(`${f}/`)))
    .map(({ file, target }) => `${file} -> ${target}`);

describe('module boundaries of positioned text', () => {
  test('src/layout depends on neither the PDF reader nor OCR', () => {
    expect(importsOf('layout').length).toBeGreaterThan(10);
    expect(crossing('layout', ['pdf', 'ocr', 'parsers'])).toEqual([]);
  });

  test('src/pdf and src/ocr do not import each other (OCR of a PDF page goes through PageRecognizer)', () => {
    expect(crossing('pdf', ['ocr'])).toEqual([]);
    expect(crossing('ocr', ['pdf'])).toEqual([]);
    // Both build on src/layout.
    expect(importsOf('pdf').some(({ target }) => target.startsWith('layout/'))).toBe(true);
    expect(importsOf('ocr').some(({ target }) => target.startsWith('layout/'))).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { detect } from '../../src/detect/detect.js';
import type { DocumentDraft } from '../../src/document/types.js';
import { csvParser, detectDelimiter, hasHeaderRow, readDelimited } from '../../src/parsers/csv.js';
import { corpus, hasShared } from '../helpers.js';

const parse = (text: string, name = 'a.csv'): DocumentDraft => csvParser.parse({ bytes: new Uint8Array(), text, name }, {}) as DocumentDraft;
const grid = (draft: DocumentDraft): string[][] => draft.elements[0]!.table!.rows.map((r) => r.map((c) => c.text));

describe('csv parser (inline)', () => {
  test('quoted fields with delimiters, doubled quotes and embedded newlines', () => {
    const draft = parse('name,note\n"Lozano, Dr","said ""hi""\nthen left"\nplain,  spaced  \n');
    expect(grid(draft)).toEqual([['name', 'note'], ['Lozano, Dr', 'said "hi"\nthen left'], ['plain', 'spaced']]);
    expect(draft.elements[0]!.table!.headerRows).toBe(1);
    expect(draft.elements[0]!.text).toBe('name\tnote\nLozano, Dr\tsaid "hi"\nthen left\nplain\tspaced');
  });
  test('delimiter detection: comma, semicolon, tab, pipe', () => {
    expect(detectDelimiter('a;b;c\n1;2;3\n')).toBe(';');
    expect(detectDelimiter('a\tb\n1\t2\n')).toBe('\t');
    expect(detectDelimiter('a|b|c\n1|2|3\n')).toBe('|');
    expect(detectDelimiter('a,b\n"x;y;z",2\n')).toBe(',');
    expect(detectDelimiter('just one column\nvalue\n')).toBe(',');
  });
  test('ragged rows are padded to the widest row, with a warning', () => {
    const draft = parse('1,2\na,b,c\n');
    expect(grid(draft)).toEqual([['1', '2', ''], ['a', 'b', 'c']]);
    expect(draft.warnings).toEqual(['1 of 2 rows have fewer fields than the widest row (3); they are padded with empty cells']);
  });
  test('blank lines skipped, CR tolerated, unterminated quote runs to the end', () => {
    expect(readDelimited('a,b\n\n1,2', ',').rows).toEqual([['a', 'b'], ['1', '2']]);
    expect(readDelimited('a,b\r\n1,2\r\n', ',').rows).toEqual([['a', 'b'], ['1', '2']]);
    expect(readDelimited('a,"b\n1,2', ',')).toEqual({ rows: [['a', 'b\n1,2']], unterminatedQuote: true });
    expect(readDelimited('', ',').rows).toEqual([]);
  });
  test('header rule', () => {
    expect(hasHeaderRow([['Team', 'City'], ['Blues', 'STL']])).toBe(true);
    expect(hasHeaderRow([['', 'title', 'url'], ['0', 'x', 'y']])).toBe(true); // pandas index column
    expect(hasHeaderRow([['1', '2'], ['a', 'b']])).toBe(false); // numbers are data
    expect(hasHeaderRow([['Title', '', ''], ['a', 'b', 'c']])).toBe(false); // a title row
    expect(hasHeaderRow([['a', 'a'], ['b', 'c']])).toBe(false); // duplicate names
    expect(hasHeaderRow([['only', 'row']])).toBe(false);
  });
  test('tsv by name, and an empty file gives no element', () => {
    expect(parse('a,b\tc\n1,2\t3\n', 'x.tsv').elements[0]!.table!.rows[0]!.map((c) => c.text)).toEqual(['a,b', 'c']);
    expect(parse('\n\n').elements).toEqual([]);
  });
});

/** Cells of the first pipe table in docling's Markdown ground truth. */
function markdownTable(md: string): string[][] {
  return md
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|(\s*-+\s*\|)+\s*$/.test(l))
    .map((l) => l.slice(1, -1).split(' | ').map((c) => c.trim()));
}

describe.skipIf(!hasShared)('csv parser on corpus/csv', () => {
  const load = (file: string): DocumentDraft => {
    const detection = detect(readFileSync(corpus('csv', file)), { name: file });
    return csvParser.parse({ bytes: new Uint8Array(), text: detection.text!, name: file }, {}) as DocumentDraft;
  };

  // Measure: cell-level exact match ratio over docling's grid (row by row, column by column); threshold 0.99.
  test.each(['csv-comma.csv', 'csv-semicolon.csv', 'csv-too-many-columns.csv'])('%s matches docling ground truth cell by cell (>= 0.99)', (file) => {
    const expected = markdownTable(readFileSync(corpus('csv', `${file}.expected.md`), 'utf8'));
    const ours = grid(load(file));
    expect(ours.length).toBe(expected.length);
    let cells = 0;
    let same = 0;
    expected.forEach((row, r) =>
      row.forEach((cell, c) => {
        cells++;
        if ((ours[r]?.[c] ?? '') === cell) same++;
      }),
    );
    expect(same / cells).toBeGreaterThanOrEqual(0.99);
  });

  // Python's csv module reads this file as 173 rows of 6 fields; so must we.
  test('Chinese GitHub-issue export: quoted fields with commas, pandas header', () => {
    const draft = load('langchain-ChatGLM_closed_zh.csv');
    const rows = grid(draft);
    expect(rows[0]).toEqual(['', 'title', 'file', 'url', 'detail', 'id']);
    expect(draft.elements[0]!.table!.headerRows).toBe(1);
    expect(rows.every((r) => r.length === 6)).toBe(true);
    expect(draft.warnings).toBeUndefined();
    expect(rows.length).toBe(173);
    expect(rows[1]![1]).toBe('加油~以及一些建议');
  });

  test('UTF-16BE CSV with a title row and an emoji TSV', () => {
    const utf16 = grid(load('stanley-cups-utf-16.csv'));
    expect(utf16.slice(0, 3)).toEqual([['Stanley Cups', '', ''], ['Team', 'Location', 'Stanley Cups'], ['Blues', 'STL', '1']]);
    const tsv = load('stanley-cups-with-emoji.tsv');
    expect(tsv.format).toBe('tsv');
    // The file itself spells the skin-tone modifier as the literal text `\U+1F3FB`.
    expect(grid(tsv).at(-1)).toEqual(['👨\\U+1F3FB🔧', 'TOR', '15']);
  });
});

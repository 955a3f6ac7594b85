import { decodeText } from '../detect/encoding.js';
import { sniffDelimiter } from '../detect/sniff.js';
import type { DocumentDraft, TableCell } from '../document/types.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

/**
 * CSV and TSV as one `table` element. An own reader (RFC 4180 plus the usual leniencies) rather than
 * csv-parse: it is ~100 lines, needs no stream plumbing, and works on the already decoded,
 * LF-normalised text (BOM and UTF-16 are the detector's job).
 * - Delimiter: tab for .tsv; otherwise the one of `,` `;` tab `|` with the most consistent count per
 *   record over the first 50 records (comma when nothing is consistent).
 * - Quotes: `"` opens a quoted field only at the field's start; `""` inside is a quote; quoted
 *   fields may hold delimiters and newlines; text after a closing quote is kept (lenient).
 * - Blank lines are skipped; cells are trimmed; ragged rows are padded to the widest row (warned).
 * - Header: the first row is a header when the table has at least two rows and that row's non-empty
 *   cells are all distinct, none is a number, and fewer than half of its cells are empty (a
 *   `Title,,` row is data, a pandas `,title,body` row is a header).
 */
export const csvParser: ParserDefinition = {
  formats: ['csv', 'tsv'],
  version: '1',
  textual: true,
  parse(input: ParseInput, options: ParseOptions): DocumentDraft {
    const text = input.text ?? decodeText(input.bytes).text;
    const tsv = options.format === 'tsv' || /\.(tsv|tab)$/i.test(input.name ?? '');
    const delimiter = tsv ? '\t' : detectDelimiter(text);
    const { rows, unterminatedQuote } = readDelimited(text, delimiter);
    const warnings: string[] = [];
    if (unterminatedQuote) warnings.push('a quoted field is not closed before the end of the file; it runs to the end');
    const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
    const ragged = rows.filter((r) => r.length !== width).length;
    if (ragged > 0) warnings.push(`${ragged} of ${rows.length} rows have fewer fields than the widest row (${width}); they are padded with empty cells`);
    for (const row of rows) while (row.length < width) row.push('');
    const headerRows = hasHeaderRow(rows) ? 1 : 0;
    const cells: TableCell[][] = rows.map((row) => row.map((t) => ({ text: t })));
    const format = tsv || delimiter === '\t' ? 'tsv' : 'csv';
    return {
      format,
      mime: format === 'tsv' ? 'text/tab-separated-values' : 'text/csv',
      metadata: { delimiter, rows: rows.length, columns: width },
      elements: rows.length === 0 ? [] : [{ kind: 'table', text: rows.map((r) => r.join('\t')).join('\n'), table: { rows: cells, headerRows }, sourceStart: 0, sourceEnd: text.trimEnd().length }],
      ...(warnings.length > 0 && { warnings }),
    };
  },
};

const SNIFF_RECORDS = 50;

export function detectDelimiter(text: string): string {
  const lines: string[] = [];
  let start = 0;
  // Whole records (a quoted newline does not end one), so counts are per record.
  while (start < text.length && lines.length < SNIFF_RECORDS) {
    const end = recordEnd(text, start);
    const line = text.slice(start, end);
    if (line.trim() !== '') lines.push(line);
    start = end + 1;
  }
  return sniffDelimiter(lines, 0)?.char ?? ',';
}

function recordEnd(text: string, from: number): number {
  let quoted = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) quoted = !quoted;
    else if (c === 0x0a && !quoted) return i;
  }
  return text.length;
}

export interface DelimitedRows {
  rows: string[][];
  unterminatedQuote: boolean;
}

/** Reads all records; cells trimmed, blank records dropped. Newlines are LF (or CR, tolerated). */
export function readDelimited(text: string, delimiter: string): DelimitedRows {
  const d = delimiter.charCodeAt(0);
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  const n = text.length;
  let unterminatedQuote = false;
  const endRecord = (): void => {
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  while (i <= n) {
    // Start of a field.
    let c = i < n ? text.charCodeAt(i) : -1;
    while (c === 0x20 && i < n) c = text.charCodeAt(++i); // spaces before an opening quote
    let value: string;
    if (c === 0x22) {
      let parts = '';
      let from = ++i;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) {
          parts += text.slice(from);
          i = n;
          unterminatedQuote = true;
          break;
        }
        parts += text.slice(from, q);
        if (text.charCodeAt(q + 1) === 0x22) {
          parts += '"';
          from = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      // Lenient: anything between the closing quote and the delimiter is kept.
      const tailEnd = fieldEnd(text, i, d);
      value = parts + text.slice(i, tailEnd);
      i = tailEnd;
    } else {
      const end = fieldEnd(text, i, d);
      value = text.slice(i, end);
      i = end;
    }
    row.push(value.trim());
    const next = i < n ? text.charCodeAt(i) : -1;
    if (next === d) {
      i++;
      continue;
    }
    endRecord();
    if (next === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
    i++;
    if (i > n || (i === n && next === -1)) break;
  }
  return { rows, unterminatedQuote };
}

/** Index of the next delimiter, LF or CR at or after `from` (or the end). */
function fieldEnd(text: string, from: number, d: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === d || c === 0x0a || c === 0x0d) return i;
  }
  return text.length;
}

const NUMBER = /^[-+(]?[$€£¥]?\d[\d,.\s]*%?\)?$/;

export function hasHeaderRow(rows: readonly string[][]): boolean {
  if (rows.length < 2) return false;
  const first = rows[0]!;
  const filled = first.filter((t) => t !== '');
  if (filled.length === 0 || (first.length - filled.length) * 2 >= first.length) return false;
  if (new Set(filled).size !== filled.length) return false;
  return !filled.some((t) => NUMBER.test(t));
}

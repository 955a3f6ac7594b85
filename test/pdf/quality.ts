import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { buildDocument, contentHash } from '../../src/document/build.js';
import type { Document, TableCell } from '../../src/document/types.js';
import { pdfParser } from '../../src/parsers/pdf.js';
import { corpus } from '../helpers.js';
import { cellAgreement, markdownHeadings, markdownTables, orderF1, sequenceF1, tokenF1 } from '../parsers/similarity.js';

/** Corpus PDFs with docling Markdown ground truth (text layer), a tabula CSV or unstructured's elements. */
export const QUALITY_FILES = [
  'pdf/2305.03393v1-pg9.pdf',
  'pdf/code_and_formula.pdf',
  'pdf/multi-column-2p.pdf',
  'pdf/normal_4pages.pdf',
  'pdf/redp5110_sampled.pdf',
  'pdf/right_to_left_01.pdf',
  'pdf/spanning_cells.pdf',
  'pdf-scanned/ocr_test.pdf',
  'pdf-scanned/ocr_test_rotated_90.pdf',
  'zh-generated/warehouse-manual-zh.pdf',
];

export interface QualityRow {
  file: string;
  pages: number;
  textF1: number;
  /** Token F1 counting only tokens in the expected order (longest common subsequence). */
  orderF1?: number;
  headingF1?: number;
  headingsOurs: number;
  headingsExpected?: number;
  tableCells?: number;
  tablesOurs: number;
  tablesExpected?: number;
  ms: number;
}

export async function parseCorpusPdf(path: string, password?: string): Promise<Document> {
  const bytes = readFileSync(path);
  const draft = await pdfParser.parse({ bytes, name: basename(path) }, password ? { password } : {});
  return buildDocument(draft, { id: contentHash(bytes), name: basename(path), bytes: bytes.length });
}

export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line) continue;
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (quoted) {
        if (ch === '"' && line[i + 1] === '"') ((cell += '"'), i++);
        else if (ch === '"') quoted = false;
        else cell += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') ((cells.push(cell), (cell = '')));
      else cell += ch;
    }
    cells.push(cell);
    rows.push(cells);
  }
  return rows;
}

/** Rows of cell texts with a spanning cell's text repeated in the slots it covers. */
export function expandSpans(rows: readonly (readonly TableCell[])[]): string[][] {
  const out = rows.map((row) => row.map((cell) => cell.text));
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      for (let dr = 0; dr < (cell.rowSpan ?? 1); dr++) {
        for (let dc = 0; dc < (cell.colSpan ?? 1); dc++) {
          if ((dr > 0 || dc > 0) && out[r + dr] && out[r + dr]![c + dc] === '') out[r + dr]![c + dc] = cell.text;
        }
      }
    });
  });
  return out;
}

/** Mean over expected tables of the best cell agreement with any of our tables. */
export function tableScore(ours: string[][][], expected: string[][][]): number {
  if (expected.length === 0) return 1;
  let sum = 0;
  for (const table of expected) sum += Math.max(0, ...ours.map((t) => cellAgreement(t, table)));
  return sum / expected.length;
}

export async function measureFile(rel: string): Promise<QualityRow> {
  const path = corpus(rel);
  const t0 = performance.now();
  const doc = await parseCorpusPdf(path);
  const ms = performance.now() - t0;
  const tableElements = doc.elements.filter((e) => e.kind === 'table' && e.table).map((e) => e.table!.rows);
  const oursTables = tableElements.map((rows) => rows.map((r) => r.map((c) => c.text)));
  const ourHeadings = doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text);
  const row: QualityRow = { file: rel, pages: doc.pageCount ?? 0, textF1: 0, headingsOurs: ourHeadings.length, tablesOurs: oursTables.length, ms };
  const mdPath = `${path}.expected.md`;
  const csvPath = `${path}.expected.csv`;
  const elements = unstructuredElements(`${path}.expected.json`);
  if (existsSync(mdPath)) {
    const expected = readFileSync(mdPath, 'utf8');
    row.textF1 = tokenF1(doc.canonical, expected).f1;
    row.orderF1 = orderF1(doc.canonical, expected).f1;
    const headings = markdownHeadings(expected);
    row.headingsExpected = headings.length;
    row.headingF1 = sequenceF1(ourHeadings, headings).f1;
    const tables = markdownTables(expected);
    row.tablesExpected = tables.length;
    // docling repeats a spanning cell's text in every slot it covers: compare the same way.
    if (tables.length > 0) row.tableCells = tableScore(tableElements.map(expandSpans), tables);
  } else if (existsSync(csvPath)) {
    const expected = csvRows(readFileSync(csvPath, 'utf8'));
    row.textF1 = tokenF1(doc.canonical, expected.map((r) => r.join(' ')).join('\n')).f1;
    row.tablesExpected = 1;
    // The CSV holds the tables of the page stacked; compare with ours stacked the same way.
    row.tableCells = cellAgreement(oursTables.flat(), expected);
  } else if (elements) {
    // unstructured's element texts (chunks for multi-column-2p.pdf), in its reading order; no heading or table marks.
    const expected = elements.join('\n\n');
    row.textF1 = tokenF1(doc.canonical, expected).f1;
    row.orderF1 = orderF1(doc.canonical, expected).f1;
  }
  return row;
}

/** The texts of an unstructured `.expected.json` (an array of elements), or undefined when there is none. */
function unstructuredElements(path: string): string[] | undefined {
  if (!existsSync(path)) return undefined;
  const json = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (!Array.isArray(json) || !json.every((e) => typeof (e as { text?: unknown }).text === 'string')) return undefined;
  return json.map((e) => (e as { text: string }).text);
}

export async function measurePdfQuality(): Promise<QualityRow[]> {
  const rows: QualityRow[] = [];
  for (const file of QUALITY_FILES) rows.push(await measureFile(file));
  return rows;
}

import type { Element, TableCell, TableData } from '../document/types.js';

/**
 * Where a table's rows sit in the base text, so the `structure` chunker can split a table between
 * rows and repeat its header. `rowSpans[i]` is the line of row i (header rows first); `headerEnd`
 * is the end of the header block (the last header row, or the `| --- |` line under it).
 */
export interface TableLayout {
  id: number;
  rowSpans: { start: number; end: number }[];
  headerRows: number;
  /** Offset where the header block ends (equal to the table start when there is no header). */
  headerEnd: number;
  /** The table's cells when known: header rows first, one entry per `rowSpans` entry. */
  data?: TableData;
}

/** Line spans of base[start, end), without their line breaks. */
function lineSpans(base: string, start: number, end: number): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let pos = start;
  while (pos <= end) {
    let nl = base.indexOf('\n', pos);
    if (nl < 0 || nl > end) nl = end;
    const lineEnd = nl > pos && base.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    spans.push({ start: pos, end: lineEnd });
    pos = nl + 1;
  }
  return spans;
}

/**
 * Layout of a table element in the canonical text. The canonical rendering has one line per row and
 * a delimiter line after the header rows; when the rendering does not have that shape (a table
 * element that carries only text) every line is a row and there is no header.
 */
export function tableLayoutFromElement(canonical: string, el: Element, id: number): TableLayout {
  const lines = lineSpans(canonical, el.start, el.end);
  const data = el.table;
  const headerRows = data ? Math.min(data.headerRows, data.rows.length) : 0;
  const delimiter = headerRows > 0 ? 1 : 0;
  if (data && data.rows.length > 0 && lines.length === data.rows.length + delimiter) {
    const rowSpans = lines.filter((_, i) => delimiter === 0 || i !== headerRows);
    const headerEnd = headerRows > 0 ? lines[headerRows]!.end : el.start;
    return { id, rowSpans, headerRows, headerEnd, data: { ...data, headerRows } };
  }
  return { id, rowSpans: lines, headerRows: 0, headerEnd: el.start };
}

/** Layout of a GFM pipe table in raw text: header line, delimiter line, body lines. */
export function tableLayoutFromLines(text: string, lines: readonly { start: number; end: number }[], id: number): TableLayout {
  const rowLines = lines.filter((_, i) => i !== 1);
  const rows: TableCell[][] = rowLines.map((line) => pipeCells(text.slice(line.start, line.end)).map((cell) => ({ text: cell })));
  return {
    id,
    rowSpans: rowLines.map((l) => ({ start: l.start, end: l.end })),
    headerRows: 1,
    headerEnd: lines[1]!.end,
    data: { rows, headerRows: 1 },
  };
}

/** Cells of one pipe-table line: split on unescaped `|`, outer pipes dropped, cells trimmed. */
export function pipeCells(line: string): string[] {
  const cells: string[] = [];
  let cellStart = 0;
  let escaped = false;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code === 92 && line.charCodeAt(i + 1) === 124) {
      escaped = true;
      i++;
    } else if (code === 124) {
      cells.push(line.slice(cellStart, i));
      cellStart = i + 1;
    }
  }
  cells.push(line.slice(cellStart));
  const trimmed = cells.map((c) => (escaped ? c.replace(/\\\|/g, '|') : c).trim());
  if (trimmed.length > 1 && trimmed[0] === '' && line.trimStart().startsWith('|')) trimmed.shift();
  if (trimmed.length > 1 && trimmed[trimmed.length - 1] === '' && line.trimEnd().endsWith('|') && !line.trimEnd().endsWith('\\|')) trimmed.pop();
  return trimmed;
}

/** The header block's text (what continuation chunks repeat), or '' when the table has no header. */
export function headerText(base: string, layout: TableLayout): string {
  return layout.headerRows > 0 ? base.slice(layout.rowSpans[0]!.start, layout.headerEnd) : '';
}

/** The rows a chunk covers as TableData: the header rows, then the covered body rows in order. */
export function tableDataFor(layout: TableLayout, covered: readonly { from: number; to: number }[]): TableData | undefined {
  if (!layout.data) return undefined;
  const { rows, headerRows, caption } = layout.data;
  const body = new Set<number>();
  for (const { from, to } of covered) for (let r = Math.max(from, headerRows); r < to; r++) body.add(r);
  const picked = rows.slice(0, headerRows);
  for (const r of [...body].sort((a, b) => a - b)) picked.push(rows[r]!);
  return caption !== undefined ? { rows: picked, headerRows, caption } : { rows: picked, headerRows };
}

import type { Element, TableCell, TableData } from '../document/types.js';
import type { Tokenizer } from '../tokens/types.js';

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

/**
 * Where one cell of a pipe-table line sits: its trimmed content `[start, end)`, and `close`, the end
 * of the cell's stretch of the line (just after the `|` that closes it, or the content end when no
 * pipe follows). Consecutive cells' stretches tile the line, so a run of cells is one span of it.
 */
export interface CellSpan {
  start: number;
  end: number;
  close: number;
}

/**
 * Cells of the pipe-table line `base[start, end)`: split on unescaped `|`, outer pipes dropped
 * (the rules of `pipeCells`, which reads its cells from these spans).
 */
export function pipeCellSpans(base: string, start: number, end: number): CellSpan[] {
  const raw: { s: number; e: number; piped: boolean }[] = [];
  let s = start;
  for (let i = start; i < end; i++) {
    const code = base.charCodeAt(i);
    if (code === 92 && base.charCodeAt(i + 1) === 124) i++;
    else if (code === 124) {
      raw.push({ s, e: i, piped: true });
      s = i + 1;
    }
  }
  raw.push({ s, e: end, piped: false });
  // A blank stretch before the first pipe or after the last one is the outer pipe, not a cell.
  let first = 0;
  let last = raw.length - 1;
  if (last > first && isBlank(base, raw[first]!.s, raw[first]!.e)) first++;
  if (last > first && isBlank(base, raw[last]!.s, raw[last]!.e) && raw[last - 1]!.piped) last--;
  const cells: CellSpan[] = [];
  for (let k = first; k <= last; k++) {
    const { s: a, e: b, piped } = raw[k]!;
    let cs = a;
    let ce = b;
    while (cs < ce && isJsSpace(base.charCodeAt(cs))) cs++;
    while (ce > cs && isJsSpace(base.charCodeAt(ce - 1))) ce--;
    cells.push({ start: cs, end: ce, close: piped ? b + 1 : ce });
  }
  return cells;
}

/** Cells of one pipe-table line: split on unescaped `|`, outer pipes dropped, cells trimmed. */
export function pipeCells(line: string): string[] {
  return pipeCellSpans(line, 0, line.length).map((c) => unescapeCell(line.slice(c.start, c.end)));
}

/** A cell's text as the table data holds it: `\|` in the rendering is a literal pipe. */
export function unescapeCell(text: string): string {
  return text.includes('\\|') ? text.replace(/\\\|/g, '|') : text;
}

function isBlank(base: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isJsSpace(base.charCodeAt(i))) return false;
  return true;
}

/** `String.prototype.trim`'s whitespace. */
function isJsSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** The header block's text (what continuation chunks repeat), or '' when the table has no header. */
export function headerText(base: string, layout: TableLayout): string {
  return layout.headerRows > 0 ? base.slice(layout.rowSpans[0]!.start, layout.headerEnd) : '';
}

/** Cells of row `r` of a layout, found in its line. */
export function rowCells(base: string, layout: TableLayout, r: number): CellSpan[] {
  const line = layout.rowSpans[r]!;
  return pipeCellSpans(base, line.start, line.end);
}

/**
 * Estimated tokens of each cell's stretch of a line, as prefix sums: `sums[i]` tokens lie before
 * cell i's stretch, `sums[cells.length]` is the line's total. One encoding of the line; a token is
 * charged to the cell whose stretch it ends in. Only an estimate (BPE is not additive across the
 * cut): pieces are always counted exactly before they are used.
 */
export function cellTokenSums(base: string, lineStart: number, cells: readonly CellSpan[], tokenizer: Tokenizer): Float64Array {
  const sums = new Float64Array(cells.length + 1);
  if (cells.length === 0) return sums;
  const lineEnd = cells[cells.length - 1]!.close;
  const { ends } = tokenizer.encodeWithOffsets(base.slice(lineStart, lineEnd));
  let t = 0;
  for (let i = 0; i < cells.length; i++) {
    const close = cells[i]!.close - lineStart;
    while (t < ends.length && ends[t]! <= close) t++;
    sums[i + 1] = t;
  }
  sums[cells.length] = ends.length;
  return sums;
}

/**
 * A table's header rows cut to some columns, for the prefix of a piece of a row split by columns:
 * the key (first) column plus the piece's columns, each header row on its line, then a `-` line.
 */
export class TableHeader {
  /** Cells of each header row. */
  private readonly cells: CellSpan[][];
  /** Estimated tokens before column i of the header block (all header rows and the `---` line). */
  private sums: Float64Array | undefined;

  constructor(
    private readonly base: string,
    readonly layout: TableLayout,
  ) {
    this.cells = [];
    for (let r = 0; r < layout.headerRows; r++) this.cells.push(rowCells(base, layout, r));
  }

  get rows(): number {
    return this.cells.length;
  }

  /** The header block for the key column and columns [from, to) (from 0: columns [0, to)). */
  cut(from: number, to: number): string {
    if (this.cells.length === 0) return '';
    // Compact (`|a|b|` over `|-|-|`): it is repeated before every piece of every split row.
    const columns = from === 0 ? to : to - from + 1;
    const lines: string[] = [];
    for (const cells of this.cells) {
      const texts: string[] = [];
      const cell = (i: number): string => (i < cells.length ? this.base.slice(cells[i]!.start, cells[i]!.end) : '');
      if (from > 0) texts.push(cell(0));
      for (let i = from; i < to; i++) texts.push(cell(i));
      lines.push(`|${texts.join('|')}|`);
    }
    lines.push(`|${'-|'.repeat(columns)}`);
    return `${lines.join('\n')}\n`;
  }

  /** Estimated tokens of `cut(from, to)`. */
  estimate(from: number, to: number, tokenizer: Tokenizer): number {
    if (this.cells.length === 0) return 0;
    const sums = (this.sums ??= this.columnSums(tokenizer));
    const width = sums.length - 1;
    const upper = sums[to < width ? to : width]!;
    const lower = sums[from < width ? from : width]!;
    return upper - lower + (from > 0 ? sums[width > 0 ? 1 : 0]! : 0) + this.cells.length;
  }

  private columnSums(tokenizer: Tokenizer): Float64Array {
    const width = Math.max(...this.cells.map((c) => c.length));
    const total = new Float64Array(width + 1);
    for (let r = 0; r < this.cells.length; r++) {
      const cells = this.cells[r]!;
      const row = cellTokenSums(this.base, this.layout.rowSpans[r]!.start, cells, tokenizer);
      for (let i = 0; i < width; i++) total[i + 1] = total[i + 1]! + row[Math.min(i + 1, cells.length)]! - row[Math.min(i, cells.length)]!;
    }
    const delimiter = tokenizer.count(`|${'-|'.repeat(16)}`) / 16;
    for (let i = 0; i < width; i++) total[i + 1] = total[i]! + total[i + 1]! + delimiter;
    return total;
  }
}

/**
 * What a table chunk's prefix shows besides its body: the header rows (all columns, or the key
 * column plus columns [from, to) of a row split by columns), and whether it repeats the row's key cell.
 */
export interface TableView {
  header?: 'all' | { from: number; to: number };
  key?: boolean;
}

/**
 * The body columns `[from, to)` of a piece of one row split by columns. `cells` (where the row's
 * cells are) is kept only for the pieces of a cell cut by sentences, whose first and last cells
 * may be partly in a chunk; a piece of whole cells needs none.
 */
export interface ColumnRange {
  from: number;
  to: number;
  cells?: readonly CellSpan[];
}

/**
 * The rows a chunk shows, as TableData consistent with its text: the header rows when the body or
 * the prefix holds them (cut to the same columns as the body), then the body rows it covers. A
 * piece of a row split by columns holds that row's cells in its columns, a cell cut across chunks
 * only the part in this chunk's span, after the key cell when the prefix repeats it.
 */
export function tableDataFor(
  base: string,
  layout: TableLayout,
  covered: readonly { from: number; to: number; columns?: ColumnRange }[],
  view: TableView | undefined,
  span: { start: number; end: number },
): TableData | undefined {
  if (!layout.data || covered.length === 0) return undefined;
  const { rows, caption } = layout.data;
  const h = layout.headerRows;
  const columns = covered[0]!.columns;
  const picked: TableCell[][] = [];
  let headerRows = 0;
  if (columns) {
    const r = covered[0]!.from;
    const cut = (row: readonly TableCell[], from: number, to: number): TableCell[] => {
      const out: TableCell[] = from > 0 ? [row[0] ?? { text: '' }] : [];
      for (let i = from; i < to; i++) out.push(row[i] ?? { text: '' });
      return out;
    };
    if (view?.header) {
      const shown = view.header;
      for (let k = 0; k < h; k++) picked.push(shown === 'all' ? rows[k]! : cut(rows[k]!, shown.from, shown.to));
      headerRows = h;
    }
    const row = rows[r] ?? [];
    const { cells } = columns;
    const shown: TableCell[] = view?.key ? [row[0] ?? { text: '' }] : [];
    for (let i = columns.from; i < columns.to; i++) {
      if (i === 0 && view?.key) continue;
      const cell = row[i] ?? { text: '' };
      const at = cells?.[i];
      if (!at || (span.start <= at.start && at.end <= span.end)) shown.push(cell);
      else if (at.start < span.end && at.end > span.start) shown.push({ text: unescapeCell(base.slice(Math.max(at.start, span.start), Math.min(at.end, span.end))).trim() });
    }
    if (r < h) headerRows = Math.max(headerRows, picked.length + 1);
    picked.push(shown);
  } else {
    const inBody = new Set<number>();
    for (const { from, to } of covered) for (let r = from; r < to; r++) inBody.add(r);
    const sorted = [...inBody].sort((a, b) => a - b);
    const bodyHeader = sorted.filter((r) => r < h);
    if (view?.header === 'all' && bodyHeader.length === 0) {
      for (let k = 0; k < h; k++) picked.push(rows[k]!);
      headerRows = h;
    }
    for (const r of sorted) if (rows[r]) picked.push(rows[r]!);
    headerRows += bodyHeader.length;
  }
  if (picked.length === 0) return undefined;
  return caption !== undefined ? { rows: picked, headerRows, caption } : { rows: picked, headerRows };
}

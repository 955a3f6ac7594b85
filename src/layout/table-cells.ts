import type { TableCell } from '../document/types.js';
import { NEWLINE_BEFORE, ROTATED, SPACE_BEFORE, type PageChars } from './chars.js';
import { buildLines } from './lines.js';
import { buildRuns, isBold, type Run } from './runs.js';
import { linesText } from './text.js';
import type { RuledTable } from './tables-ruled.js';

/** A table found on a page: its box and its rows of cells (spanned slots are empty cells). */
export interface PageTable {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  rows: TableCell[][];
  headerRows: number;
  /** The first row is bold (a strong header hint when joining continued tables). */
  boldHeader: boolean;
}

/** Text of a cell from its runs: lines top to bottom, joined as a paragraph's lines are (see `linesText`). */
export function cellText(runs: readonly Run[]): string {
  return linesText(buildLines(runs, runs.map((_, i) => i), 0));
}

/** Text of characters in content order with the file's own spaces: for rotated (vertical) cell labels. */
function streamText(chars: PageChars, ids: readonly number[]): string {
  let text = '';
  for (const i of ids) {
    if (text && chars.flags[i]! & (SPACE_BEFORE | NEWLINE_BEFORE)) text += ' ';
    text += String.fromCodePoint(chars.code[i]!);
  }
  return text;
}

export function ruledToTable(ruled: RuledTable, chars: PageChars): PageTable | undefined {
  const rowCount = ruled.ys.length - 1;
  const colCount = ruled.xs.length - 1;
  const grid: (TableCell | undefined)[][] = Array.from({ length: rowCount }, () => new Array<TableCell | undefined>(colCount));
  const bold: boolean[] = new Array<boolean>(rowCount).fill(false);
  for (const cell of ruled.cells) {
    const runs = buildRuns(chars, undefined, cell.chars);
    const rotated = cell.chars.filter((i) => chars.flags[i]! & ROTATED).length;
    const out: TableCell = { text: rotated * 2 > cell.chars.length ? streamText(chars, cell.chars) : cellText(runs) };
    if (cell.rowSpan > 1) out.rowSpan = cell.rowSpan;
    if (cell.colSpan > 1) out.colSpan = cell.colSpan;
    grid[cell.row]![cell.col] = out;
    if (runs.length > 0 && runs.every(isBold)) bold[cell.row] = true;
    for (let r = cell.row; r < cell.row + cell.rowSpan; r++) {
      for (let c = cell.col; c < cell.col + cell.colSpan; c++) if (r !== cell.row || c !== cell.col) grid[r]![c] = { text: '' };
    }
  }
  return tidyTable(grid.map((row) => row.map((cell) => cell ?? { text: '' })), bold, ruled, ruled.headerRows);
}

/**
 * Drops rows and columns with no text (double rules, decorative frames); undefined when fewer than
 * 2 rows or 2 columns of text remain (a framed paragraph, a box around a figure).
 */
export function tidyTable(rows: TableCell[][], boldRows: boolean[], box: { x0: number; y0: number; x1: number; y1: number }, headerRows = 1): PageTable | undefined {
  const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
  const keepCol: boolean[] = [];
  for (let c = 0; c < width; c++) keepCol.push(rows.some((r) => (r[c]?.text ?? '') !== ''));
  const kept: TableCell[][] = [];
  const keptBold: boolean[] = [];
  rows.forEach((row, r) => {
    if (!row.some((cell) => cell.text !== '')) return;
    kept.push(row.filter((_, c) => keepCol[c]));
    keptBold.push(boldRows[r] ?? false);
  });
  const cols = keepCol.filter(Boolean).length;
  if (kept.length < 2 || cols < 2) return undefined;
  // A small frame with mostly empty slots is a layout box (a masthead), not a table.
  const filled = kept.reduce((n, row) => n + row.filter((cell) => cell.text !== '').length, 0);
  if (kept.length <= 3 && filled * 2 < kept.length * cols) return undefined;
  return { x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1, rows: kept, headerRows: Math.min(headerRows, kept.length - 1), boldHeader: keptBold[0] ?? false };
}

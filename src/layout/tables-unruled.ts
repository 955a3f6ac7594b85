import type { TableCell } from '../document/types.js';
import { isBold, type Run } from './runs.js';
import { cellText, tidyTable, type PageTable } from './table-cells.js';

/**
 * Unruled tables from column alignment, conservatively: at least 3 consecutive rows, each with
 * runs in at least 2 columns, where whitespace gutters run through all rows and cells are short
 * (body text in two page columns has long runs filling each column, so it never qualifies).
 */

const MIN_ROWS = 3;
/** A run longer than this many characters is prose, not a cell. */
const MAX_CELL_CHARS = 48;

/** Runs on one text line: their indices, left to right, and the line's vertical extent. */
export interface Row {
  ids: number[];
  y0: number;
  y1: number;
}

export interface UnruledOptions {
  /** Widest vertical gap between two rows of one table, in body sizes. Default 2.5; OCR of padded table rows needs more. */
  maxRowGap?: number;
}

export function findUnruledTables(runs: readonly Run[], bodySize: number, options: UnruledOptions = {}): { tables: PageTable[]; used: Uint8Array } {
  const maxRowGap = (options.maxRowGap ?? 2.5) * bodySize;
  const used = new Uint8Array(runs.length);
  const tables: PageTable[] = [];
  const rows = groupRows(runs);
  let start = 0;
  while (start < rows.length) {
    if (!isCandidateRow(runs, rows[start]!)) {
      start++;
      continue;
    }
    let end = start + 1;
    while (end < rows.length && isCandidateRow(runs, rows[end]!) && rows[end]!.y0 - rows[end - 1]!.y1 < maxRowGap) end++;
    if (end - start >= MIN_ROWS) {
      const table = alignedTable(runs, rows.slice(start, end), bodySize);
      if (table) {
        for (const row of rows.slice(start, end)) for (const id of row.ids) used[id] = 1;
        tables.push(table);
      }
    }
    start = end;
  }
  return { tables, used };
}

/** Runs grouped into lines by vertical overlap (half the smaller height), top to bottom. */
export function groupRows(runs: readonly Run[]): Row[] {
  const ids = runs.map((_, i) => i).sort((a, b) => runs[a]!.y0 + runs[a]!.y1 - runs[b]!.y0 - runs[b]!.y1);
  const rows: Row[] = [];
  for (const id of ids) {
    const run = runs[id]!;
    const last = rows[rows.length - 1];
    const overlap = last ? Math.min(last.y1, run.y1) - Math.max(last.y0, run.y0) : -1;
    if (last && overlap >= 0.5 * Math.min(last.y1 - last.y0, run.y1 - run.y0)) {
      last.ids.push(id);
      last.y0 = Math.min(last.y0, run.y0);
      last.y1 = Math.max(last.y1, run.y1);
    } else rows.push({ ids: [id], y0: run.y0, y1: run.y1 });
  }
  for (const row of rows) row.ids.sort((a, b) => runs[a]!.x0 - runs[b]!.x0);
  return rows;
}

function isCandidateRow(runs: readonly Run[], row: Row): boolean {
  return row.ids.length >= 2 && row.ids.every((id) => runs[id]!.text.length <= MAX_CELL_CHARS);
}

function alignedTable(runs: readonly Run[], rows: Row[], bodySize: number): PageTable | undefined {
  // Gutters: x-intervals no run of any row covers.
  const all = rows.flatMap((r) => r.ids).sort((a, b) => runs[a]!.x0 - runs[b]!.x0);
  const bounds: number[] = [];
  let reach = -Infinity;
  for (const id of all) {
    const run = runs[id]!;
    if (reach > -Infinity && run.x0 - reach >= 0.9 * bodySize) bounds.push((reach + run.x0) / 2);
    reach = Math.max(reach, run.x1);
  }
  if (bounds.length === 0) return undefined;
  const cols = bounds.length + 1;
  const x0 = runs[all[0]!]!.x0;
  const x1 = reach;
  // Every row must fill at least 2 columns, and most cells must be short relative to the table.
  // Page columns of prose: runs fill their column. Table cells mostly do not.
  const columnWidth = (x1 - x0) / cols;
  let full = 0;
  for (const id of all) if (runs[id]!.x1 - runs[id]!.x0 > 0.75 * columnWidth) full++;
  if (full * 3 > all.length) return undefined;
  const grid: Run[][][] = rows.map(() => Array.from({ length: cols }, () => [] as Run[]));
  const bold: boolean[] = [];
  rows.forEach((row, r) => {
    for (const id of row.ids) {
      const run = runs[id]!;
      let c = 0;
      while (c < bounds.length && (run.x0 + run.x1) / 2 > bounds[c]!) c++;
      grid[r]![c]!.push(run);
    }
    bold.push(row.ids.every((id) => isBold(runs[id]!)));
  });
  if (grid.some((row) => row.filter((cell) => cell.length > 0).length < 2)) return undefined;
  const cells: TableCell[][] = grid.map((row) => row.map((cell) => ({ text: cellText(cell) })));
  const y0 = rows[0]!.y0;
  const y1 = rows[rows.length - 1]!.y1;
  return tidyTable(cells, bold, { x0, y0, x1, y1 });
}

import type { ElementDraft, TableCell, TableData } from '../document/types.js';

/**
 * A sheet's used cells into tables (shared by XLSX and ODS). Rules, documented in
 * docs/formats/slides-sheets.md:
 * - the cells are grouped into blocks of adjacent cells (a merged range fills its rectangle);
 *   blocks whose boxes overlap are joined, and so are two blocks a single blank row or column
 *   apart that share at least half the columns or rows of the smaller one (a spacer line inside a
 *   formatted table); two blank lines, or touching only at a corner, keep tables apart; blocks
 *   read by top row, then left column;
 * - a block of one cell (merged or not) is a paragraph; other blocks are tables;
 * - rows and columns empty throughout a block (spacers) are dropped;
 * - up to three leading rows holding a single text cell in a wider block are the table's title
 *   (a `caption` element before it);
 * - the first remaining row is a header when all its cells are text, it fills at least half the
 *   columns, and rows follow; a second row is a header too when the first has a horizontal merge
 *   and the second is all text as well (two-level headers);
 * - merged cells: the top-left slot carries rowSpan/colSpan, slots below repeat its text, slots
 *   to its right stay empty (the model the HTML parser uses);
 * - anchored content (charts, cell comments) takes its place in the same top-row-then-left-column
 *   order; content attached to a cell (a comment) follows the block holding that cell.
 */

export type CellKind = 'text' | 'number' | 'date' | 'bool' | 'error';

export interface SheetCell {
  /** 1-based column. */
  col: number;
  text: string;
  kind: CellKind;
}

export interface MergedRange {
  row: number;
  col: number;
  lastRow: number;
  lastCol: number;
}

export interface SheetGrid {
  /** Non-empty cells of each non-empty row, in column order. */
  rows: SheetCell[][];
  /** 1-based row number of each entry of `rows`. */
  rowNumbers: number[];
  merges: MergedRange[];
}

/** A cell or a merged range as a rectangle. */
interface Item {
  row: number;
  col: number;
  lastRow: number;
  lastCol: number;
  cell: SheetCell;
}

const MAX_TITLE_ROWS = 3;
/** A block this much larger than its cells is too sparse for a grid (it is emitted row by row). */
const SPARSE_FACTOR = 20;
const SPARSE_SLACK = 10_000;

export interface SheetTablesResult {
  elements: ElementDraft[];
  /** Blocks too sparse to lay out as a grid. */
  sparseBlocks: number;
}

/** Elements placed on a sheet at a cell (1-based): a chart's top-left corner, a comment's cell. */
export interface AnchoredElements {
  row: number;
  col: number;
  elements: ElementDraft[];
  /** 'cell': follows the block that holds the cell (a comment after its table); 'float': placed by position. */
  attach: 'cell' | 'float';
}

export function sheetElements(grid: SheetGrid, anchored: readonly AnchoredElements[] = []): SheetTablesResult {
  const items = toItems(grid);
  const placed: { row: number; col: number; elements: ElementDraft[] }[] = [];
  let sparseBlocks = 0;
  const found = blocks(items);
  for (const { items: block, box } of found) {
    let out = blockElements(block);
    if (out === undefined) {
      sparseBlocks++;
      out = sparseRows(block);
    }
    placed.push({ row: box.row, col: box.col, elements: out });
  }
  const loose: typeof placed = [];
  for (const a of anchored) {
    const holder = a.attach === 'cell' ? found.findIndex(({ box }) => a.row >= box.row && a.row <= box.lastRow && a.col >= box.col && a.col <= box.lastCol) : -1;
    if (holder >= 0) placed[holder]!.elements.push(...a.elements);
    else loose.push(a);
  }
  // Stable: blocks keep their order, anchored content comes after a block starting at the same cell.
  const ordered = [...placed, ...loose].sort((a, b) => a.row - b.row || a.col - b.col);
  return { elements: ordered.flatMap((p) => p.elements), sparseBlocks };
}

/** Columns stop at 16,384 (XFD); ODS allows 1,024. */
const KEY_ROW = 20_000;

function key(row: number, col: number): number {
  return row * KEY_ROW + col;
}

function toItems(grid: SheetGrid): Item[] {
  const items: Item[] = [];
  const byKey = new Map<number, Item>();
  let maxRow = 0;
  let maxCol = 0;
  grid.rows.forEach((cells, i) => {
    const row = grid.rowNumbers[i]!;
    for (const cell of cells) {
      const item: Item = { row, col: cell.col, lastRow: row, lastCol: cell.col, cell };
      items.push(item);
      byKey.set(key(row, cell.col), item);
      maxRow = Math.max(maxRow, row);
      maxCol = Math.max(maxCol, cell.col);
    }
  });
  for (const merge of grid.merges) {
    const item = byKey.get(key(merge.row, merge.col));
    // A merge without text is formatting only; one reaching past the data is cut at its edge.
    if (!item) continue;
    item.lastRow = Math.max(item.row, Math.min(merge.lastRow, maxRow));
    item.lastCol = Math.max(item.col, Math.min(merge.lastCol, maxCol));
  }
  if (grid.merges.length === 0) return items;
  // Cells hidden under a merge are not shown by the application; merges are indexed by row.
  const mergesByRow = new Map<number, MergedRange[]>();
  for (const m of grid.merges) {
    for (let r = m.row; r <= Math.min(m.lastRow, maxRow); r++) {
      const list = mergesByRow.get(r);
      if (list) list.push(m);
      else mergesByRow.set(r, [m]);
    }
  }
  const covered = (it: Item): boolean =>
    mergesByRow.get(it.row)?.some((m) => it.col >= m.col && it.col <= m.lastCol && !(it.row === m.row && it.col === m.col)) ?? false;
  return items.filter((it) => !covered(it));
}

/**
 * Blocks of cells: groups of side-by-side or stacked cells (a merged range fills its rectangle),
 * then joined where their boxes overlap or a single spacer line separates two blocks that share
 * most of their rows or columns (see `shouldJoin`); touching only at a corner keeps blocks apart.
 * Blocks are ordered by their top row, then their left column.
 */
function blocks(items: Item[]): { items: Item[]; box: Box }[] {
  const parent = items.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const slotOwner = new Map<number, number>();
  items.forEach((it, i) => {
    for (let r = it.row; r <= it.lastRow; r++) for (let c = it.col; c <= it.lastCol; c++) slotOwner.set(key(r, c), i);
  });
  for (const [slot, i] of slotOwner) {
    const row = Math.floor(slot / KEY_ROW);
    const col = slot % KEY_ROW;
    const right = slotOwner.get(key(row, col + 1));
    if (right !== undefined) union(i, right);
    const below = slotOwner.get(key(row + 1, col));
    if (below !== undefined) union(i, below);
  }
  const groups = new Map<number, Item[]>();
  items.forEach((it, i) => {
    const root = find(i);
    const list = groups.get(root);
    if (list) list.push(it);
    else groups.set(root, [it]);
  });
  let found = [...groups.values()].map((list) => ({ items: list, box: boundingBox(list) }));
  if (found.length <= MAX_BLOCKS_TO_JOIN) found = joinBlocks(found);
  return found.sort((a, b) => a.box.row - b.box.row || a.box.col - b.box.col);
}

const MAX_BLOCKS_TO_JOIN = 2000;

interface Box {
  row: number;
  col: number;
  lastRow: number;
  lastCol: number;
}

function boundingBox(items: readonly Item[]): Box {
  const box = { row: Infinity, col: Infinity, lastRow: -Infinity, lastCol: -Infinity };
  for (const it of items) {
    box.row = Math.min(box.row, it.row);
    box.col = Math.min(box.col, it.col);
    box.lastRow = Math.max(box.lastRow, it.lastRow);
    box.lastCol = Math.max(box.lastCol, it.lastCol);
  }
  return box;
}

/**
 * Two blocks are one table when their boxes overlap, or when a single blank column (row) separates
 * them and they share at least half the rows (columns) of the smaller one: a spacer line.
 */
function shouldJoin(a: Box, b: Box): boolean {
  const rowOverlap = Math.min(a.lastRow, b.lastRow) - Math.max(a.row, b.row) + 1;
  const colOverlap = Math.min(a.lastCol, b.lastCol) - Math.max(a.col, b.col) + 1;
  if (rowOverlap > 0 && colOverlap > 0) return true;
  const colGap = -colOverlap;
  const rowGap = -rowOverlap;
  if (colGap >= 0 && colGap <= 1 && rowOverlap * 2 >= Math.min(a.lastRow - a.row, b.lastRow - b.row) + 1) return true;
  return rowGap >= 0 && rowGap <= 1 && colOverlap * 2 >= Math.min(a.lastCol - a.col, b.lastCol - b.col) + 1;
}

function joinBlocks(found: { items: Item[]; box: Box }[]): { items: Item[]; box: Box }[] {
  let joined = true;
  while (joined) {
    joined = false;
    for (let i = 0; i < found.length && !joined; i++) {
      for (let j = i + 1; j < found.length && !joined; j++) {
        if (shouldJoin(found[i]!.box, found[j]!.box)) {
          const items = [...found[i]!.items, ...found[j]!.items];
          found.splice(j, 1);
          found[i] = { items, box: boundingBox(items) };
          joined = true;
        }
      }
    }
  }
  return found;
}

interface Slot {
  item: Item;
  /** True on the merge's top-left slot. */
  origin: boolean;
}

/** A block's elements, or undefined when it is too sparse to lay out as a grid. */
function blockElements(block: Item[]): ElementDraft[] | undefined {
  // One cell (merged or not) is a line of text, not a table.
  if (block.length === 1) return [{ kind: 'paragraph', text: block[0]!.cell.text }];
  let top = Infinity;
  let left = Infinity;
  let bottom = -Infinity;
  let right = -Infinity;
  for (const it of block) {
    top = Math.min(top, it.row);
    left = Math.min(left, it.col);
    bottom = Math.max(bottom, it.lastRow);
    right = Math.max(right, it.lastCol);
  }
  const height = bottom - top + 1;
  const width = right - left + 1;
  if (height * width > SPARSE_FACTOR * block.length + SPARSE_SLACK) return undefined;
  const slots: (Slot | undefined)[][] = Array.from({ length: height }, () => new Array<Slot | undefined>(width));
  for (const it of block) {
    for (let r = it.row; r <= it.lastRow; r++) {
      for (let c = it.col; c <= it.lastCol; c++) slots[r - top]![c - left] = { item: it, origin: r === it.row && c === it.col };
    }
  }
  // Spacer rows and columns (empty throughout the block) are layout, not data.
  const keptRows = slots.filter((row) => row.some(Boolean));
  const keptCols: number[] = [];
  for (let c = 0; c < width; c++) if (keptRows.some((row) => row[c] !== undefined)) keptCols.push(c);
  const grid = keptRows.map((row) => keptCols.map((c) => row[c]));

  const out: ElementDraft[] = [];
  let first = 0;
  while (first < MAX_TITLE_ROWS && grid.length - first > 1 && keptCols.length > 1) {
    const filled = distinctItems(grid[first]!);
    if (filled.length !== 1 || filled[0]!.cell.kind !== 'text' || filled[0]!.lastRow > filled[0]!.row) break;
    out.push({ kind: 'caption', text: filled[0]!.cell.text });
    first++;
  }
  const body = grid.slice(first);
  const rows: TableCell[][] = body.map((slots, r) =>
    slots.map((slot, c): TableCell => {
      if (!slot) return { text: '' };
      const it = slot.item;
      if (slot.origin) {
        let rowSpan = 1;
        while (body[r + rowSpan]?.[c]?.item === it) rowSpan++;
        let colSpan = 1;
        while (slots[c + colSpan]?.item === it) colSpan++;
        return { text: it.cell.text, ...(rowSpan > 1 && { rowSpan }), ...(colSpan > 1 && { colSpan }) };
      }
      // Row-spanned text repeats below so each row reads on its own; column-spanned slots stay empty.
      return { text: c === 0 || slots[c - 1]?.item !== it ? it.cell.text : '' };
    }),
  );
  const table: TableData = { rows, headerRows: headerRows(body, keptCols.length) };
  out.push({ kind: 'table', text: tableText(rows), table });
  return out;
}

function distinctItems(slots: readonly (Slot | undefined)[]): Item[] {
  const out: Item[] = [];
  for (const slot of slots) if (slot && !out.includes(slot.item)) out.push(slot.item);
  return out;
}

function headerRows(rows: (Slot | undefined)[][], width: number): number {
  if (rows.length < 2) return 0;
  const isTextRow = (slots: readonly (Slot | undefined)[]): boolean => {
    let filled = 0;
    for (let c = 0; c < width; c++) {
      const slot = slots[c];
      if (!slot) continue;
      if (slot.item.cell.kind !== 'text') return false;
      filled++;
    }
    return filled * 2 >= width;
  };
  if (!isTextRow(rows[0]!)) return 0;
  const merged = rows[0]!.some((slot) => slot?.origin && slot.item.lastCol > slot.item.col);
  return merged && rows.length > 2 && isTextRow(rows[1]!) ? 2 : 1;
}

/** A block too sparse for a grid: each row's cells joined by tabs, as paragraphs. */
function sparseRows(block: Item[]): ElementDraft[] {
  const byRow = new Map<number, Item[]>();
  for (const it of block) {
    const list = byRow.get(it.row);
    if (list) list.push(it);
    else byRow.set(it.row, [it]);
  }
  return [...byRow.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, items]) => ({ kind: 'paragraph' as const, text: items.sort((a, b) => a.col - b.col).map((it) => it.cell.text).join('\t') }));
}

/** A table's plain text: cells joined by tabs, rows by newlines. */
export function tableText(rows: readonly (readonly { text: string }[])[]): string {
  return rows.map((row) => row.map((cell) => cell.text.replace(/\s+/g, ' ')).join('\t')).join('\n');
}

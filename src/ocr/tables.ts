import type { TableCell } from '../document/types.js';
import type { PageChars } from '../pdf/chars.js';
import type { PageRules, Rule } from '../pdf/rulings.js';
import type { Run } from '../pdf/runs.js';
import { findRuledTables, type RuledTable } from '../pdf/tables-ruled.js';
import { findUnruledTables } from '../pdf/tables-unruled.js';
import { joinLines, joinWords } from './tsv.js';
import type { OcrBlock, OcrBox, OcrLine, OcrWord } from './types.js';

/**
 * Tables in OCR output, with the text-layer table finders: words are scaled into a frame where the
 * body text is NORMAL_SIZE units tall (about points), so the PDF finders' tolerances (rule
 * alignment, gutters of 0.9 em) mean the same on a 150 dpi photo and a 600 dpi scan. Ruled tables
 * come from the lines found in the raster (`findRasterRules`), each word going to the cell holding
 * its centre; unruled ones from words lining up in columns over several rows.
 */

export interface OcrTable {
  /** Pixels of the upright OCR frame. */
  bbox: OcrBox;
  rows: TableCell[][];
  headerRows: number;
}

/** A page's paragraphs with the table words taken out, and the tables placed among them. */
export type OcrItem = { type: 'block'; block: OcrBlock } | { type: 'table'; table: OcrTable };

const NORMAL_SIZE = 10;
/** Rows and columns thinner than this (normal-size units) are the gap of a double rule. */
const SLIVER = 8;
/** Word gaps wider than this many line heights split a line into cells (the PDF runs' 1 em). */
const CELL_GAP = 1.0;
/** Rows of a scanned table are often padded for rules the scan lost: allow wider gaps than in a text layer. */
const MAX_ROW_GAP = 3.5;
/** How far (line heights) a raster rule may stop short of the rule it meets. */
const RULE_SLACK = 0.3;
/** A vertical rule this many line heights long is no letter stroke. */
const LONG_VERTICAL = 2.5;
/** Words within this share of a line's height above or below it still sit on that line. */
const LINE_SLACK = 0.25;
/** Tesseract reads a vertical rule crossing a line as a bar, or glues it to a word. */
const RULE_GLYPHS = /^[|¦]+|[|¦]+$/g;

export function findOcrTables(blocks: readonly OcrBlock[], bodySize: number, rules?: PageRules): { tables: OcrTable[]; used: Set<OcrWord> } {
  const words: OcrWord[] = [];
  const sizes: number[] = [];
  for (const block of blocks) for (const line of block.lines) for (const word of line.words) {
    words.push(word);
    sizes.push(line.size);
  }
  const used = new Set<OcrWord>();
  const tables: OcrTable[] = [];
  if (words.length === 0 || bodySize <= 0) return { tables, used };
  const unit = NORMAL_SIZE / bodySize;
  if (rules) for (const table of ruledTables(words, sizes, unit, textSizedRules(rules, bodySize), used)) tables.push(table);
  for (const table of unruledTables(blocks, unit, used)) tables.push(table);
  tables.sort((a, b) => a.bbox.y0 - b.bbox.y0);
  return { tables, used };
}

/**
 * Rules shorter than a couple of letters are letter strokes, not lines. Vertical rules too long to
 * be any letter are lengthened by RULE_SLACK line heights at both ends: on a raster they often stop
 * a pixel or three short of the horizontal rule they meet (anti-aliasing, a thin scan), and the
 * grid would fall apart there.
 */
function textSizedRules(rules: PageRules, bodySize: number): PageRules {
  const slack = RULE_SLACK * bodySize;
  return {
    horizontal: rules.horizontal.filter((r) => r.x1 - r.x0 >= 2 * bodySize),
    vertical: rules.vertical
      .filter((r) => r.y1 - r.y0 >= 1.2 * bodySize)
      .map((r) => (r.y1 - r.y0 >= LONG_VERTICAL * bodySize ? { ...r, y0: r.y0 - slack, y1: r.y1 + slack } : r)),
  };
}

function scaleRule(r: Rule, unit: number): Rule {
  return { x0: r.x0 * unit, y0: r.y0 * unit, x1: r.x1 * unit, y1: r.y1 * unit };
}

function ruledTables(words: readonly OcrWord[], sizes: readonly number[], unit: number, rules: PageRules, used: Set<OcrWord>): OcrTable[] {
  if (rules.horizontal.length < 2 || rules.vertical.length < 2) return [];
  const n = words.length;
  // Each word is one "character" to the grid builder: it reads only boxes and sizes.
  const chars: PageChars = {
    count: n,
    code: new Uint32Array(n),
    x0: Float32Array.from(words, (w) => w.bbox.x0 * unit),
    y0: Float32Array.from(words, (w) => w.bbox.y0 * unit),
    x1: Float32Array.from(words, (w) => w.bbox.x1 * unit),
    y1: Float32Array.from(words, (w) => w.bbox.y1 * unit),
    size: Float32Array.from(sizes, (s) => s * unit),
    font: new Int32Array(n),
    flags: new Uint8Array(n),
    dir: new Uint8Array(n),
  };
  const scaled = { horizontal: rules.horizontal.map((r) => scaleRule(r, unit)), vertical: rules.vertical.map((r) => scaleRule(r, unit)) };
  let found = findRuledTables(scaled, chars);
  const breaks = found.flatMap((ruled) => rowBreaks(ruled, words, unit));
  if (breaks.length > 0) found = findRuledTables({ horizontal: [...scaled.horizontal, ...breaks], vertical: scaled.vertical }, chars);
  const out: OcrTable[] = [];
  for (const ruled of found) {
    const grid: TableCell[][] = Array.from({ length: ruled.ys.length - 1 }, () => Array.from({ length: ruled.xs.length - 1 }, () => ({ text: '' })));
    for (const cell of ruled.cells) {
      const text = cellText(cell.chars.map((i) => words[i]!));
      const out: TableCell = { text };
      if (cell.rowSpan > 1) out.rowSpan = cell.rowSpan;
      if (cell.colSpan > 1) out.colSpan = cell.colSpan;
      grid[cell.row]![cell.col] = out;
    }
    const table = ruledGrid(grid, ruled);
    if (!table) continue;
    for (const cell of ruled.cells) for (const i of cell.chars) used.add(words[i]!);
    out.push({ bbox: unscale(ruled, unit), rows: table, headerRows: headerRowCount(table) });
  }
  return out;
}

/**
 * Row boundaries that are not drawn, as rules across the table (grid units): a table ruled only
 * above and below its body (booktabs) has all its body rows in one ruled row. Such a row is split
 * between its text lines when the first column holds text on two or more lines and every word of
 * the row sits on one of those lines, in at least two columns each. A cell that wraps onto a line
 * of its own (a second line under a number, a centred label beside a two-line one) leaves the
 * row whole.
 */
function rowBreaks(ruled: RuledTable, words: readonly OcrWord[], unit: number): Rule[] {
  const breaks: Rule[] = [];
  for (let r = 0; r + 1 < ruled.ys.length; r++) {
    const cells = ruled.cells.filter((c) => c.row === r);
    if (cells.some((c) => c.rowSpan > 1) || ruled.cells.some((c) => c.row < r && c.row + c.rowSpan > r)) continue;
    const first = cells.find((c) => c.col === 0);
    if (!first || first.chars.length < 2) continue;
    const bands = lineBands(first.chars.map((i) => words[i]!));
    if (bands.length < 2) continue;
    const bandOf = (word: OcrWord): number => {
      const cy = (word.bbox.y0 + word.bbox.y1) / 2;
      return bands.findIndex((b) => cy >= b.y0 - LINE_SLACK * (b.y1 - b.y0) && cy <= b.y1 + LINE_SLACK * (b.y1 - b.y0));
    };
    const columns = bands.map(() => new Set<number>());
    let aligned = true;
    for (const cell of cells) {
      for (const i of cell.chars) {
        const band = bandOf(words[i]!);
        if (band < 0) aligned = false;
        else columns[band]!.add(cell.col);
      }
    }
    if (!aligned || columns.some((cols) => cols.size < 2)) continue;
    for (let k = 1; k < bands.length; k++) {
      const y = ((bands[k - 1]!.y1 + bands[k]!.y0) / 2) * unit;
      breaks.push({ x0: ruled.x0, x1: ruled.x1, y0: y, y1: y });
    }
  }
  return breaks;
}

/** The vertical extents of the text lines the words make, top to bottom. */
function lineBands(words: readonly OcrWord[]): { y0: number; y1: number }[] {
  const bands: { y0: number; y1: number }[] = [];
  const sorted = [...words].sort((a, b) => a.bbox.y0 + a.bbox.y1 - b.bbox.y0 - b.bbox.y1);
  for (const word of sorted) {
    const band = bands[bands.length - 1];
    const overlap = band ? Math.min(band.y1, word.bbox.y1) - Math.max(band.y0, word.bbox.y0) : -1;
    if (band && overlap >= 0.4 * Math.min(band.y1 - band.y0, word.bbox.y1 - word.bbox.y0)) {
      band.y0 = Math.min(band.y0, word.bbox.y0);
      band.y1 = Math.max(band.y1, word.bbox.y1);
    } else bands.push({ y0: word.bbox.y0, y1: word.bbox.y1 });
  }
  return bands;
}

/**
 * The grid's rows and columns, less the slivers between double rules. Unlike a text layer, OCR can
 * miss a whole row (a tinted header): a ruled row of normal height stays, empty, so the rows below
 * keep their place. Undefined for fewer than 2 rows or columns, or a frame around a paragraph.
 */
function ruledGrid(grid: TableCell[][], ruled: { xs: number[]; ys: number[] }): TableCell[][] | undefined {
  const keepRow = grid.map((row, r) => ruled.ys[r + 1]! - ruled.ys[r]! >= SLIVER || row.some((c) => c.text !== ''));
  const keepCol = grid[0]!.map((_, c) => ruled.xs[c + 1]! - ruled.xs[c]! >= SLIVER || grid.some((row) => row[c]!.text !== ''));
  const rows = grid.filter((_, r) => keepRow[r]).map((row) => row.filter((_, c) => keepCol[c]));
  const filled = rows.reduce((n, row) => n + row.filter((c) => c.text !== '').length, 0);
  if (rows.length < 2 || rows[0]!.length < 2 || filled < 2) return undefined;
  return rows;
}

/** A first row whose cells reach down (a two-level header: "Results" over "Accuracy | Time") heads as many rows. */
function headerRowCount(rows: readonly TableCell[][]): number {
  let header = 1;
  for (const cell of rows[0] ?? []) header = Math.max(header, cell.rowSpan ?? 1);
  return Math.min(header, rows.length - 1);
}

/** Words of a cell in reading order: lines top to bottom, bars that are the rules themselves dropped. */
function cellText(words: readonly OcrWord[]): string {
  const lines: OcrWord[][] = [];
  const sorted = [...words].sort((a, b) => a.bbox.y0 + a.bbox.y1 - b.bbox.y0 - b.bbox.y1);
  for (const word of sorted) {
    const line = lines[lines.length - 1];
    const last = line?.[line.length - 1];
    const overlap = last ? Math.min(last.bbox.y1, word.bbox.y1) - Math.max(last.bbox.y0, word.bbox.y0) : -1;
    if (line && last && overlap >= 0.4 * Math.min(last.bbox.y1 - last.bbox.y0, word.bbox.y1 - word.bbox.y0)) line.push(word);
    else lines.push([word]);
  }
  const texts: string[] = [];
  for (const line of lines) {
    line.sort((a, b) => a.bbox.x0 - b.bbox.x0);
    const tokens = line.map((w) => w.text.replace(RULE_GLYPHS, '')).filter((t) => t !== '');
    if (tokens.length > 0) texts.push(joinWords(tokens));
  }
  return joinLines(texts);
}

function unscale(box: { x0: number; y0: number; x1: number; y1: number }, unit: number): OcrBox {
  return { x0: box.x0 / unit, y0: box.y0 / unit, x1: box.x1 / unit, y1: box.y1 / unit };
}

/** Cells of one line: words split where the gap is wider than CELL_GAP line heights. */
interface Segment {
  words: OcrWord[];
  line: OcrLine;
}

function unruledTables(blocks: readonly OcrBlock[], unit: number, used: Set<OcrWord>): OcrTable[] {
  const segments: Segment[] = [];
  for (const block of blocks) for (const line of block.lines) {
    let current: Segment | undefined;
    let reach = -Infinity;
    const gap = line.size * CELL_GAP;
    for (const word of line.words) {
      if (used.has(word) || word.text.replace(RULE_GLYPHS, '') === '') continue;
      if (!current || word.bbox.x0 - reach > gap) segments.push((current = { words: [], line }));
      current.words.push(word);
      reach = word.bbox.x1;
    }
  }
  if (segments.length < 6) return [];
  const runs: Run[] = segments.map((segment, order) => {
    const text = joinWords(segment.words.map((w) => w.text.replace(RULE_GLYPHS, '')));
    const box = boundsOf(segment.words.map((w) => w.bbox));
    return {
      text,
      x0: box.x0 * unit,
      y0: box.y0 * unit,
      x1: box.x1 * unit,
      y1: box.y1 * unit,
      size: segment.line.size * unit,
      chars: text.length,
      styled: text.length,
      bold: 0,
      italic: 0,
      mono: 0,
      font: -1,
      rtl: false,
      order,
    };
  });
  const found = findUnruledTables(runs, NORMAL_SIZE, { maxRowGap: MAX_ROW_GAP });
  runs.forEach((_, i) => {
    if (found.used[i]) for (const word of segments[i]!.words) used.add(word);
  });
  const tables = found.tables.map((table) => ({ bbox: unscale(table, unit), rows: table.rows, headerRows: table.headerRows }));
  // Bars between the columns belong to the table too, not to the text around it.
  for (const block of blocks) for (const line of block.lines) for (const word of line.words) {
    if (!used.has(word) && word.text.replace(RULE_GLYPHS, '') === '' && tables.some((t) => inside(word.bbox, t.bbox))) used.add(word);
  }
  return tables;
}

export function boundsOf(boxes: readonly OcrBox[]): OcrBox {
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const b of boxes) {
    box.x0 = Math.min(box.x0, b.x0);
    box.y0 = Math.min(box.y0, b.y0);
    box.x1 = Math.max(box.x1, b.x1);
    box.y1 = Math.max(box.y1, b.y1);
  }
  return box;
}

/**
 * The page in reading order with tables in place: each paragraph loses the words a table took (its
 * lines rebuilt from the rest), and a table comes where the first paragraph it took words from
 * stood, after that paragraph's lines above the table.
 */
export function placeTables(blocks: readonly OcrBlock[], tables: readonly OcrTable[], used: ReadonlySet<OcrWord>): OcrItem[] {
  if (tables.length === 0) return blocks.map((block) => ({ type: 'block', block }));
  const items: OcrItem[] = [];
  const placed = new Set<OcrTable>();
  for (const block of blocks) {
    const taken = block.lines.flatMap((line) => line.words.filter((w) => used.has(w)));
    const lines = taken.length === 0 ? block.lines : block.lines.map((line) => remainingLine(line, used)).filter((l): l is OcrLine => l !== undefined);
    const table = taken.length === 0 ? undefined : tables.find((t) => !placed.has(t) && taken.some((w) => inside(w.bbox, t.bbox)));
    if (!table) {
      if (lines.length > 0) items.push({ type: 'block', block: lines === block.lines ? block : withLines(block, lines) });
      continue;
    }
    const above = lines.filter((l) => (l.bbox.y0 + l.bbox.y1) / 2 < table.bbox.y0);
    const below = lines.filter((l) => (l.bbox.y0 + l.bbox.y1) / 2 >= table.bbox.y0);
    if (above.length > 0) items.push({ type: 'block', block: withLines(block, above) });
    items.push({ type: 'table', table });
    placed.add(table);
    if (below.length > 0) items.push({ type: 'block', block: withLines(block, below) });
  }
  return items;
}

function inside(box: OcrBox, outer: OcrBox): boolean {
  const cx = (box.x0 + box.x1) / 2;
  const cy = (box.y0 + box.y1) / 2;
  return cx >= outer.x0 - 1 && cx <= outer.x1 + 1 && cy >= outer.y0 - 1 && cy <= outer.y1 + 1;
}

function remainingLine(line: OcrLine, used: ReadonlySet<OcrWord>): OcrLine | undefined {
  const words = line.words.filter((w) => !used.has(w));
  if (words.length === line.words.length) return line;
  if (words.length === 0) return undefined;
  return { text: joinWords(words.map((w) => w.text)), bbox: boundsOf(words.map((w) => w.bbox)), words, size: line.size };
}

function withLines(block: OcrBlock, lines: OcrLine[]): OcrBlock {
  return { text: joinLines(lines.map((l) => l.text)), bbox: boundsOf(lines.map((l) => l.bbox)), lines, block: block.block };
}

import type { TableCell } from '../document/types.js';
import type { PageChars } from '../layout/chars.js';
import type { PageRules, Rule } from '../layout/rules.js';
import type { Run } from '../layout/runs.js';
import { findRuledTables, type RuledTable } from '../layout/tables-ruled.js';
import { findUnruledTables } from '../layout/tables-unruled.js';
import { joinLines, joinWords, median } from './tsv.js';
import type { Raster } from './raster.js';
import { cropCell, stackCrops, type Crop } from './rulings.js';
import type { TsvPage } from './tsv.js';
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
  const { words, sizes } = pageWords(blocks);
  const used = new Set<OcrWord>();
  const tables: OcrTable[] = [];
  if (words.length === 0 || bodySize <= 0) return { tables, used };
  const unit = NORMAL_SIZE / bodySize;
  if (rules) for (const table of ruledTables(words, sizes, unit, textSizedRules(rules, bodySize), used)) tables.push(table);
  for (const table of unruledTables(blocks, unit, used)) tables.push(table);
  tables.sort((a, b) => a.bbox.y0 - b.bbox.y0);
  return { tables, used };
}

/** Every word of the page, with the size of the line it is on. */
function pageWords(blocks: readonly OcrBlock[]): { words: OcrWord[]; sizes: number[] } {
  const words: OcrWord[] = [];
  const sizes: number[] = [];
  for (const block of blocks) for (const line of block.lines) for (const word of line.words) {
    words.push(word);
    sizes.push(line.size);
  }
  return { words, sizes };
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

/** The words as "characters" for the text layer's grid builder (it reads only boxes and sizes), in grid units. */
function wordChars(words: readonly OcrWord[], sizes: readonly number[], unit: number): PageChars {
  const n = words.length;
  return {
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
}

/** The ruled grids the words and rules make (grid units), with the row breaks a booktabs table does not draw. */
function ruledGrids(words: readonly OcrWord[], sizes: readonly number[], unit: number, rules: PageRules): RuledTable[] {
  if (rules.horizontal.length < 2 || rules.vertical.length < 2) return [];
  const chars = wordChars(words, sizes, unit);
  const scaled = { horizontal: rules.horizontal.map((r) => scaleRule(r, unit)), vertical: rules.vertical.map((r) => scaleRule(r, unit)) };
  const found = findRuledTables(scaled, chars);
  const breaks = found.flatMap((ruled) => rowBreaks(ruled, words, unit));
  return breaks.length === 0 ? found : findRuledTables({ horizontal: [...scaled.horizontal, ...breaks], vertical: scaled.vertical }, chars);
}

function ruledTables(words: readonly OcrWord[], sizes: readonly number[], unit: number, rules: PageRules, used: Set<OcrWord>): OcrTable[] {
  const out: OcrTable[] = [];
  for (const ruled of ruledGrids(words, sizes, unit, rules)) {
    const table = tableRows(ruled, words);
    if (!table) continue;
    for (const cell of ruled.cells) for (const i of cell.chars) used.add(words[i]!);
    out.push({ bbox: unscale(ruled, unit), rows: table, headerRows: headerRowCount(table) });
  }
  return out;
}

/** The grid's cells as table rows, or undefined when it is no table (see ruledGrid). */
function tableRows(ruled: RuledTable, words: readonly OcrWord[]): TableCell[][] | undefined {
  const grid: TableCell[][] = Array.from({ length: ruled.ys.length - 1 }, () => Array.from({ length: ruled.xs.length - 1 }, () => ({ text: '' })));
  for (const cell of ruled.cells) {
    const text = cellText(cell.chars.map((i) => words[i]!));
    const out: TableCell = { text };
    if (cell.rowSpan > 1) out.rowSpan = cell.rowSpan;
    if (cell.colSpan > 1) out.colSpan = cell.colSpan;
    grid[cell.row]![cell.col] = out;
  }
  return ruledGrid(grid, ruled);
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
    // The nearest line whose (slackened) extent holds the word's centre: tall boxes of small print overlap the next line.
    const bandOf = (word: OcrWord): number => {
      const cy = (word.bbox.y0 + word.bbox.y1) / 2;
      let best = -1;
      let bestDistance = Infinity;
      bands.forEach((b, i) => {
        const slack = LINE_SLACK * (b.y1 - b.y0);
        const distance = Math.abs(cy - (b.y0 + b.y1) / 2);
        if (cy >= b.y0 - slack && cy <= b.y1 + slack && distance < bestDistance) {
          best = i;
          bestDistance = distance;
        }
      });
      return best;
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

/** A cell with a word Tesseract believes less than this is read again on its own. */
const CELL_CONFIDENCE = 80;
/**
 * Two words of a cell whose heights overlap by more than the first and less than the second share
 * are neither on one line nor on two: Tesseract read the cell's lines across the neighbouring cells
 * (a multi-line cell beside a one-line one) and stretched a word over two of them.
 */
const STRADDLE = [0.2, 0.6] as const;
/** Two word boxes overlapping this much (both ways) are one piece of ink read twice. */
const DUPLICATE = 0.3;
/** A word reaching this share of its size past the cell's rules was read across them. */
const OVERHANG = 0.25;
/** A broken cell's new reading is taken when its words average at least this confidence. */
const REREAD_CONFIDENCE = 60;
/** Another cell's new reading must score this much better (a point or two is noise: "[18]" -> "[18"). */
const REREAD_GAIN = 5;

/** A ruled-table cell whose words read poorly, to be read again cut out on its own. */
export interface SuspectCell {
  /** The cell between its rules, in the words' pixels. */
  box: OcrBox;
  words: OcrWord[];
  /** The words are misplaced (lines read across, a word read twice or over a rule, a glyph of the wrong script): any clean reading is better. */
  broken: boolean;
}

/**
 * The cells of the page's ruled tables that read poorly: a word below CELL_CONFIDENCE, or broken
 * (see SuspectCell), or no word at all (a tint or a rule that hid the text). `foreign` says that a
 * word is in a script the page is not written in (a Chinese glyph in an English table).
 */
export function suspectCells(blocks: readonly OcrBlock[], bodySize: number, rules: PageRules, foreign?: (word: OcrWord) => boolean): SuspectCell[] {
  const { words, sizes } = pageWords(blocks);
  if (words.length === 0 || bodySize <= 0) return [];
  const unit = NORMAL_SIZE / bodySize;
  const out: SuspectCell[] = [];
  for (const ruled of ruledGrids(words, sizes, unit, textSizedRules(rules, bodySize))) {
    // Only tables: a frame around a page of columns read as one block would lose the columns.
    if (!tableRows(ruled, words)) continue;
    for (const cell of ruled.cells) {
      const box = unscale({ x0: ruled.xs[cell.col]!, x1: ruled.xs[cell.col + cell.colSpan]!, y0: ruled.ys[cell.row]!, y1: ruled.ys[cell.row + cell.rowSpan]! }, unit);
      // Slivers between double rules hold nothing to read.
      if (box.x1 - box.x0 < SLIVER / unit || box.y1 - box.y0 < SLIVER / unit) continue;
      const cellWords = cell.chars.map((i) => words[i]!);
      const broken = cellWords.some((w) => foreign?.(w) || overhangs(w.bbox, box)) || misplaced(cellWords);
      if (broken || cellWords.length === 0 || cellWords.some((w) => w.conf < CELL_CONFIDENCE)) out.push({ box, words: cellWords, broken });
    }
  }
  return out;
}

function overhangs(word: OcrBox, cell: OcrBox): boolean {
  const h = OVERHANG * (word.y1 - word.y0);
  const w = OVERHANG * (word.x1 - word.x0);
  return word.y0 < cell.y0 - h || word.y1 > cell.y1 + h || word.x0 < cell.x0 - w || word.x1 > cell.x1 + w;
}

/** Two words of the cell half on one line, or one read twice. */
function misplaced(words: readonly OcrWord[]): boolean {
  for (let i = 0; i < words.length; i++) {
    const a = words[i]!.bbox;
    for (let j = i + 1; j < words.length; j++) {
      const b = words[j]!.bbox;
      const height = Math.min(a.y1 - a.y0, b.y1 - b.y0);
      const yOverlap = (Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0)) / height;
      if (yOverlap > STRADDLE[0] && yOverlap < STRADDLE[1]) return true;
      const xOverlap = (Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) / Math.min(a.x1 - a.x0, b.x1 - b.x0);
      if (xOverlap > DUPLICATE && yOverlap > DUPLICATE) return true;
    }
  }
  return false;
}

/**
 * Reads the suspect cells again, each cut out between its rules with the rules whitened, all
 * stacked into one image for ONE more OCR run (`read`, a mode for a block of text; its words come
 * back in the stack's pixels): a cell on its own has no neighbours to read its lines across. The
 * stack holds at most the image's own area. `image` is what the words were read from, `scale`
 * the words' pixels per image pixel. A cell's new words replace the old ones when the old were
 * broken (and the new read at REREAD_CONFIDENCE or better) or the new read REREAD_GAIN better; they become a
 * paragraph of their own after the one that held the cell's first word. Returns the page's paragraphs, and
 * how many cells changed.
 */
export async function rereadCells(
  blocks: readonly OcrBlock[],
  cells: readonly SuspectCell[],
  image: Raster,
  scale: number,
  bodySize: number,
  read: (stack: Raster) => Promise<TsvPage>,
): Promise<{ blocks: OcrBlock[]; changed: number }> {
  const crops: { cell: SuspectCell; crop: Crop }[] = [];
  let area = 0;
  for (const cell of cells) {
    const crop = cropCell(image, { x0: cell.box.x0 / scale, y0: cell.box.y0 / scale, x1: cell.box.x1 / scale, y1: cell.box.y1 / scale });
    if (!crop) continue;
    area += crop.raster.width * crop.raster.height;
    if (area > image.width * image.height) break;
    crops.push({ cell, crop });
  }
  if (crops.length === 0) return { blocks: [...blocks], changed: 0 };
  // A line's height of white between cells keeps their lines apart.
  const gap = Math.max(16, Math.round(bodySize / scale));
  const stack = stackCrops(crops.map((c) => c.crop.raster), gap);
  const page = await read(stack.raster);
  const lines: OcrLine[][] = crops.map(() => []);
  for (const block of page.blocks) {
    for (const line of block.lines) {
      const bySlot = new Map<number, OcrWord[]>();
      for (const word of line.words) {
        const cy = (word.bbox.y0 + word.bbox.y1) / 2;
        const slot = stack.at.findIndex((at, i) => cy >= at.y - gap / 2 && cy < at.y + crops[i]!.crop.raster.height + gap / 2);
        if (slot < 0) continue;
        const { crop } = crops[slot]!;
        const at = stack.at[slot]!;
        const bbox = {
          x0: (word.bbox.x0 - at.x + crop.x) * scale,
          y0: (word.bbox.y0 - at.y + crop.y) * scale,
          x1: (word.bbox.x1 - at.x + crop.x) * scale,
          y1: (word.bbox.y1 - at.y + crop.y) * scale,
        };
        let list = bySlot.get(slot);
        if (!list) bySlot.set(slot, (list = []));
        list.push({ text: word.text, bbox, conf: word.conf });
      }
      for (const [slot, words] of bySlot) lines[slot]!.push(lineOf(words));
    }
  }
  const replaced = new Set<OcrWord>();
  const added = new Map<OcrWord | undefined, OcrLine[]>();
  let changed = 0;
  crops.forEach(({ cell }, i) => {
    const newWords = lines[i]!.flatMap((l) => l.words);
    if (newWords.length === 0) return;
    const accept = cell.broken
      ? meanConfidence(newWords) >= REREAD_CONFIDENCE
      : readingScore(newWords) >= (cell.words.length === 0 ? CELL_CONFIDENCE : readingScore(cell.words) + REREAD_GAIN);
    if (!accept) return;
    changed++;
    for (const word of cell.words) replaced.add(word);
    const first = cell.words[0];
    added.set(first, [...(added.get(first) ?? []), ...lines[i]!]);
  });
  if (changed === 0) return { blocks: [...blocks], changed };
  const out: OcrBlock[] = [];
  let lastBlock = 0;
  for (const block of blocks) {
    lastBlock = Math.max(lastBlock, block.block);
    const kept = withoutWords(block, replaced);
    if (kept) out.push(kept);
    for (const line of block.lines) {
      for (const word of line.words) {
        const cellLines = added.get(word);
        if (cellLines) out.push(blockOf(cellLines, block.block));
      }
    }
  }
  // Cells that held no word go last: the table is placed by the cells that did.
  const empty = added.get(undefined);
  if (empty) out.push(blockOf(empty, lastBlock + 1));
  return { blocks: out, changed };
}

function lineOf(words: OcrWord[]): OcrLine {
  return { text: joinWords(words.map((w) => w.text)), bbox: boundsOf(words.map((w) => w.bbox)), words, size: median(words.map((w) => w.bbox.y1 - w.bbox.y0)) };
}

function blockOf(lines: OcrLine[], block: number): OcrBlock {
  return { text: joinLines(lines.map((l) => l.text)), bbox: boundsOf(lines.map((l) => l.bbox)), lines, block };
}

function meanConfidence(words: readonly OcrWord[]): number {
  return words.reduce((sum, w) => sum + w.conf, 0) / words.length;
}

/** Confidence weighted by word length, so one confident speck does not outweigh a misread word. */
function readingScore(words: readonly OcrWord[]): number {
  let weighted = 0;
  let chars = 0;
  for (const word of words) {
    const n = Math.min(word.text.length, 12);
    weighted += word.conf * n;
    chars += n;
  }
  return chars === 0 ? 0 : weighted / chars;
}

/** The paragraph without the given words (its lines rebuilt), or undefined when none is left. */
export function withoutWords(block: OcrBlock, drop: ReadonlySet<OcrWord>): OcrBlock | undefined {
  if (!block.lines.some((line) => line.words.some((w) => drop.has(w)))) return block;
  const lines = block.lines.map((line) => remainingLine(line, drop)).filter((l): l is OcrLine => l !== undefined);
  return lines.length === 0 ? undefined : withLines(block, lines);
}

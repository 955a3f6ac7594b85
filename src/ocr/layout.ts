import type { BBox, ElementDraft, TableCell } from '../document/types.js';
import { joinWords, median } from './tsv.js';
import type { OcrBlock, OcrBox, OcrLine, OcrPage, OcrWord } from './types.js';

/** A paragraph whose lines are this much taller than the page's body text is a heading. */
const HEADING_RATIO = 1.25;
const HEADING_MAX_CHARS = 150;
/** A gap between two words wider than this many line heights separates table cells. */
const CELL_GAP = 1.6;
const MIN_TABLE_ROWS = 3;
const MIN_TABLE_COLUMNS = 3;
/** Cells of a real table are short; long runs of words side by side are text columns. */
const MAX_CELL_WORDS = 6;
const BULLET = /^([•●▪◦·‣∙*\-–—])\s+/u;
const NUMBERED = /^(\d{1,3})[.)]\s+(?=\S)/;
const HAS_TEXT = /[\p{L}\p{N}]/u;
const MIN_BLOCK_CONF = 25;

/**
 * Maps a box of the upright OCR frame back into the image as it was given (undoing the quarter
 * turns and the deskew in `page.angle`): the axis-aligned bounds of the box's four corners.
 */
export function ocrBoxToSource(box: OcrBox, page: OcrPage): OcrBox {
  const turns = (((Math.round(page.angle / 90) % 4) + 4) % 4);
  const deskew = page.angle - Math.round(page.angle / 90) * 90;
  const sw = page.sourceWidth;
  const sh = page.sourceHeight;
  const tw = turns % 2 ? sh : sw;
  const th = turns % 2 ? sw : sh;
  const rad = (deskew * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [px, py] of [[box.x0, box.y0], [box.x1, box.y0], [box.x0, box.y1], [box.x1, box.y1]] as const) {
    // Undo the deskew: rotate back about the canvas center into the turned image.
    const dx = px - page.width / 2;
    const dy = py - page.height / 2;
    const tx = deskew ? dx * cos + dy * sin + tw / 2 : px;
    const ty = deskew ? -dx * sin + dy * cos + th / 2 : py;
    // Undo the quarter turns (clockwise): see rotateQuarter.
    const [sx, sy] = turns === 1 ? [ty, sh - tx] : turns === 2 ? [sw - tx, sh - ty] : turns === 3 ? [sw - ty, tx] : [tx, ty];
    x0 = Math.min(x0, sx);
    y0 = Math.min(y0, sy);
    x1 = Math.max(x1, sx);
    y1 = Math.max(y1, sy);
  }
  return { x0: Math.max(0, x0), y0: Math.max(0, y0), x1: Math.min(sw, x1), y1: Math.min(sh, y1) };
}

/**
 * Turns an OCR page into document elements in reading order: paragraphs (Tesseract's), headings
 * where a short paragraph's type is clearly larger than the page's body text (levels by size rank),
 * list items from bullets and numbers, and tables where at least three consecutive lines split into
 * cells that line up in at least three columns. Boxes are mapped back into the source image and
 * multiplied by `scale` (image pixels -> page units, e.g. 72/dpi for a rendered PDF page).
 */
export function ocrPageToElements(page: OcrPage, pageNumber: number, scale: number): ElementDraft[] {
  const blocks = page.blocks.filter(isReadable);
  const bodySize = bodyLineSize(blocks);
  const headingLevels = headingLevelBySize(blocks, bodySize);
  const toBox = (box: OcrBox): BBox => {
    const src = ocrBoxToSource(box, page);
    return { x0: round2(src.x0 * scale), y0: round2(src.y0 * scale), x1: round2(src.x1 * scale), y1: round2(src.y1 * scale) };
  };
  const elements: ElementDraft[] = [];
  const lines = blocks.flatMap((block) => block.lines.map((line) => ({ line, block })));
  const tables = findTables(lines.map((l) => l.line));
  let lineIndex = 0;
  for (const block of blocks) {
    const start = lineIndex;
    lineIndex += block.lines.length;
    const table = tables.find((t) => t.first >= start && t.first < lineIndex);
    if (table) {
      // Lines of this paragraph before the table stay text; the table takes its rows (possibly spanning paragraphs).
      if (table.first > start) pushText(elements, linesBlock(block, 0, table.first - start), pageNumber, toBox, bodySize, headingLevels);
      if (!elements.some((e) => e.table === table.data)) {
        elements.push({ kind: 'table', text: tableText(table.data.rows), table: table.data, page: pageNumber, bbox: toBox(table.bbox) });
      }
      const afterTable = table.last + 1 - start;
      if (afterTable < block.lines.length) pushText(elements, linesBlock(block, afterTable, block.lines.length), pageNumber, toBox, bodySize, headingLevels);
      continue;
    }
    if (tables.some((t) => start > t.first && start <= t.last)) {
      const inside = tables.find((t) => start > t.first && start <= t.last)!;
      const afterTable = inside.last + 1 - start;
      if (afterTable < block.lines.length) pushText(elements, linesBlock(block, afterTable, block.lines.length), pageNumber, toBox, bodySize, headingLevels);
      continue;
    }
    pushText(elements, block, pageNumber, toBox, bodySize, headingLevels);
  }
  return elements;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Specks and rules: paragraphs with no letter or digit, or that Tesseract itself barely believes. */
function isReadable(block: OcrBlock): boolean {
  if (!HAS_TEXT.test(block.text)) return false;
  let conf = 0;
  let n = 0;
  for (const line of block.lines) for (const word of line.words) {
    conf += word.conf;
    n++;
  }
  return n > 0 && conf / n >= MIN_BLOCK_CONF;
}

/** The body text size: the line size that carries the most characters. */
function bodyLineSize(blocks: readonly OcrBlock[]): number {
  const weighted = new Map<number, number>();
  for (const block of blocks) for (const line of block.lines) {
    const size = Math.round(line.size);
    weighted.set(size, (weighted.get(size) ?? 0) + line.text.length);
  }
  let best = 0;
  let bestChars = -1;
  for (const [size, chars] of weighted) {
    // Sizes within a pixel or two are the same type: add the neighbours in.
    const total = chars + (weighted.get(size - 1) ?? 0) + (weighted.get(size + 1) ?? 0);
    if (total > bestChars) {
      bestChars = total;
      best = size;
    }
  }
  return best;
}

function blockSize(block: OcrBlock): number {
  return median(block.lines.map((l) => l.size));
}

function isHeadingCandidate(block: OcrBlock, bodySize: number): boolean {
  return bodySize > 0 && block.lines.length <= 3 && block.text.length <= HEADING_MAX_CHARS && blockSize(block) >= bodySize * HEADING_RATIO;
}

/** Heading sizes on the page ranked largest first; sizes within 12% of each other share a level. */
function headingLevelBySize(blocks: readonly OcrBlock[], bodySize: number): (size: number) => number {
  const sizes = blocks.filter((b) => isHeadingCandidate(b, bodySize)).map(blockSize).sort((a, b) => b - a);
  const levels: number[] = [];
  for (const size of sizes) if (levels.length === 0 || size < levels[levels.length - 1]! * 0.88) levels.push(size);
  return (size) => {
    let level = levels.length;
    for (let i = 0; i < levels.length; i++) if (size >= levels[i]! * 0.88) {
      level = i + 1;
      break;
    }
    return Math.min(6, Math.max(1, level));
  };
}

function pushText(out: ElementDraft[], block: OcrBlock, pageNumber: number, toBox: (b: OcrBox) => BBox, bodySize: number, level: (size: number) => number): void {
  if (block.lines.length === 0 || !HAS_TEXT.test(block.text)) return;
  const bbox = toBox(block.bbox);
  if (isHeadingCandidate(block, bodySize)) {
    out.push({ kind: 'heading', level: level(blockSize(block)), text: block.text, page: pageNumber, bbox });
    return;
  }
  const bullet = BULLET.exec(block.text);
  if (bullet) {
    out.push({ kind: 'list-item', depth: 0, ordered: false, text: block.text.slice(bullet[0].length), page: pageNumber, bbox });
    return;
  }
  const numbered = NUMBERED.exec(block.text);
  if (numbered && block.text.length > numbered[0].length) {
    out.push({ kind: 'list-item', depth: 0, ordered: true, number: Number(numbered[1]), text: block.text.slice(numbered[0].length), page: pageNumber, bbox });
    return;
  }
  out.push({ kind: 'paragraph', text: block.text, page: pageNumber, bbox });
}

/** A paragraph made of some of another's lines. */
function linesBlock(block: OcrBlock, from: number, to: number): OcrBlock {
  const lines = block.lines.slice(from, to);
  const bbox = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const line of lines) {
    bbox.x0 = Math.min(bbox.x0, line.bbox.x0);
    bbox.y0 = Math.min(bbox.y0, line.bbox.y0);
    bbox.x1 = Math.max(bbox.x1, line.bbox.x1);
    bbox.y1 = Math.max(bbox.y1, line.bbox.y1);
  }
  const texts = lines.map((l) => l.text);
  return { text: texts.join(' '), bbox, lines, block: block.block };
}

interface Segment {
  x0: number;
  x1: number;
  words: OcrWord[];
}

interface FoundTable {
  first: number;
  last: number;
  bbox: OcrBox;
  data: { rows: TableCell[][]; headerRows: number };
}

/** Splits a line into cells at gaps wider than CELL_GAP line heights. */
function segments(line: OcrLine): Segment[] {
  const out: Segment[] = [];
  const gap = Math.max(8, line.size * CELL_GAP);
  for (const word of line.words) {
    const last = out[out.length - 1];
    if (last && word.bbox.x0 - last.x1 <= gap) {
      last.words.push(word);
      last.x1 = Math.max(last.x1, word.bbox.x1);
    } else {
      out.push({ x0: word.bbox.x0, x1: word.bbox.x1, words: [word] });
    }
  }
  return out;
}

/**
 * Conservative table finding over the page's lines in reading order: a run of at least three
 * vertically stacked lines that each split into two or more short cells, whose cells fall into at
 * least three distinct columns, with no line putting two cells into one column.
 */
function findTables(lines: readonly OcrLine[]): FoundTable[] {
  const tables: FoundTable[] = [];
  const segs = lines.map(segments);
  let i = 0;
  while (i < lines.length) {
    if (!isRowLike(segs[i]!)) {
      i++;
      continue;
    }
    let j = i;
    for (;;) {
      const stacked = (k: number): boolean => k < lines.length && lines[k]!.bbox.y0 >= lines[k - 1]!.bbox.y0;
      if (stacked(j + 1) && isRowLike(segs[j + 1]!)) j++;
      // One line that does not split (a cell's second line, e.g. "(97.7%, n=3)") may sit between rows.
      else if (stacked(j + 1) && stacked(j + 2) && isRowLike(segs[j + 2]!)) j += 2;
      else break;
    }
    const table = j - i + 1 >= MIN_TABLE_ROWS ? buildTable(lines, segs, i, j) : undefined;
    if (table) tables.push(table);
    i = j + 1;
  }
  return tables;
}

function isRowLike(cells: readonly Segment[]): boolean {
  return cells.length >= 2 && cells.every((c) => c.words.length <= MAX_CELL_WORDS);
}

function buildTable(lines: readonly OcrLine[], segs: readonly Segment[][], first: number, last: number): FoundTable | undefined {
  // Columns: the union of overlapping cell spans across all rows.
  const spans = segs.slice(first, last + 1).filter(isRowLike).flat().map((s) => [s.x0, s.x1] as [number, number]).sort((a, b) => a[0] - b[0]);
  const columns: [number, number][] = [];
  for (const span of spans) {
    const col = columns[columns.length - 1];
    if (col && span[0] <= col[1]) col[1] = Math.max(col[1], span[1]);
    else columns.push([span[0], span[1]]);
  }
  if (columns.length < MIN_TABLE_COLUMNS) return undefined;
  const rows: TableCell[][] = [];
  const bbox = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  let collisions = 0;
  for (let r = first; r <= last; r++) {
    const row: TableCell[] = columns.map(() => ({ text: '' }));
    let collided = false;
    // A line that did not split (a cell's continuation) is placed word by word.
    const pieces = isRowLike(segs[r]!) ? segs[r]! : lines[r]!.words.map((w) => ({ x0: w.bbox.x0, x1: w.bbox.x1, words: [w] }));
    const placed = new Set<number>();
    for (const seg of pieces) {
      const c = nearestColumn(columns, seg.x0, seg.x1);
      const text = joinWords(seg.words.map((w) => w.text));
      // Two cells of one line in one column: OCR split a cell at a wide gap; keep both, and count it.
      if (row[c]!.text !== '' && !placed.has(c)) collided = true;
      if (pieces !== segs[r]) placed.add(c);
      row[c] = { text: row[c]!.text ? `${row[c]!.text} ${text}` : text };
    }
    if (collided) collisions++;
    rows.push(row);
    const box = lines[r]!.bbox;
    bbox.x0 = Math.min(bbox.x0, box.x0);
    bbox.y0 = Math.min(bbox.y0, box.y0);
    bbox.x1 = Math.max(bbox.x1, box.x1);
    bbox.y1 = Math.max(bbox.y1, box.y1);
  }
  // Text columns and ragged prose collide often; a table's rows rarely do.
  if (collisions * 3 > rows.length) return undefined;
  return { first, last, bbox, data: { rows, headerRows: 0 } };
}

/** The column overlapping the span most, else the closest one. */
function nearestColumn(columns: readonly [number, number][], x0: number, x1: number): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c < columns.length; c++) {
    const [c0, c1] = columns[c]!;
    const score = Math.min(x1, c1) - Math.max(x0, c0);
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

function tableText(rows: readonly TableCell[][]): string {
  return rows.map((row) => row.map((c) => c.text).join('\t')).join('\n');
}

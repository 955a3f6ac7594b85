import type { BBox, ElementDraft, TableCell } from '../document/types.js';
import type { PageRules } from '../layout/rules.js';
import { findOcrTables, placeTables } from './tables.js';
import { median } from './tsv.js';
import type { OcrBlock, OcrBox, OcrPage } from './types.js';

/** A paragraph whose lines are this much taller than the page's body text is a heading. */
const HEADING_RATIO = 1.25;
const HEADING_MAX_CHARS = 150;
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
 * list items from bullets and numbers, and tables (ocr/tables.ts): ruled ones from `rules`, the
 * lines found in the raster in the same upright frame as the words (`findRasterRules`), and
 * unruled ones from words lining up in columns. Table words are not repeated in the paragraphs.
 * Boxes are mapped back into the source image and multiplied by `scale` (image pixels -> page
 * units, e.g. 72/dpi for a rendered PDF page).
 */
export function ocrPageToElements(page: OcrPage, pageNumber: number, scale: number, rules?: PageRules): ElementDraft[] {
  const blocks = page.blocks.filter(isReadable);
  const bodySize = bodyLineSize(blocks);
  const toBox = (box: OcrBox): BBox => {
    const src = ocrBoxToSource(box, page);
    return { x0: round2(src.x0 * scale), y0: round2(src.y0 * scale), x1: round2(src.x1 * scale), y1: round2(src.y1 * scale) };
  };
  const elements: ElementDraft[] = [];
  const { tables, used } = findOcrTables(blocks, bodySize, rules);
  const items = placeTables(blocks, tables, used);
  // Heading levels rank the text's sizes: a table's cells are no headings and must not shift them.
  const headingLevels = headingLevelBySize(items.flatMap((item) => (item.type === 'block' ? [item.block] : [])), bodySize);
  for (const item of items) {
    if (item.type === 'block') pushText(elements, item.block, pageNumber, toBox, bodySize, headingLevels);
    else {
      const table = { rows: item.table.rows, headerRows: item.table.headerRows };
      elements.push({ kind: 'table', text: tableText(table.rows), table, page: pageNumber, bbox: toBox(item.table.bbox) });
    }
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

function tableText(rows: readonly TableCell[][]): string {
  return rows.map((row) => row.map((c) => c.text).join('\t')).join('\n');
}

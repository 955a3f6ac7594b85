import { otsuThreshold } from './orientation.js';
import { downscale, toGray, upscale, type Raster } from './raster.js';
import { CJK_ALL, CJK_TEXT } from './languages.js';
import { withoutWords } from './tables.js';
import { joinWords, type TsvPage } from './tsv.js';
import type { OcrBlock, OcrBox, OcrLine, OcrWord } from './types.js';

/**
 * Vertical CJK text (characters stacked top to bottom) inside a horizontally written page: a
 * picture's vertical text box, a sign, a margin note. Tesseract's automatic layout reads such a
 * column as one line per glyph row, in the horizontal model, and returns Latin junk
 * (`ocr_test_zh.pdf`: 竖向文本框 -> `TAP Ot ot Ki`). Columns are found in the ink, read again on
 * their own, and take the place of the junk only when they read clearly better.
 */

/** Detection runs on a copy whose longer side is at most this many pixels. */
const DETECT_SIDE = 1200;
/** A component covering more than this share of the page is a frame or a photo, not a glyph. */
const MAX_COMPONENT_SHARE = 0.25;
/** Two components link vertically when they overlap horizontally by this share of the narrower... */
const LINK_OVERLAP = 0.5;
/** ...and the gap between them is at most this share of the larger one's longer side. */
const LINK_GAP = 0.6;
/** Two level components link side by side across a gap of at most this share of the smaller one's longer side. */
const SIDE_GAP = 0.35;
/** A column is at least this many times taller than wide (three square glyphs with gaps: ~3.3). */
const MIN_ASPECT = 2.5;
/** Glyphs narrower than this (detection pixels) are too small to tell anything. */
const MIN_EM = 10;
/** No ink outside the column within this many column widths beside it: else it is part of a wider text. */
const CLEARANCE = 0.6;
/** Ink rows of a glyph with gaps inside (竖, 二) merge while the glyph stays within this many ems tall. */
const MERGE_HEIGHT = 1.15;
/** A glyph of a CJK column is about square: this tall, in ems... */
const GLYPH_MIN = 0.5;
const GLYPH_MAX = 1.3;
/** ...for at least this share of the column's glyphs (sideways Latin words are long runs instead). */
const SQUARE_SHARE = 0.6;
const MIN_GLYPHS = 3;
/** Touching glyphs are cut only at a row with at most this many ink pixels per em of width. */
const TOUCH_INK = 0.25;

/** A column whose words read at least this well horizontally is left alone (the page-level threshold). */
const WELL_READ = 75;
/** The re-read must reach this length-weighted confidence... */
const MIN_VERTICAL_SCORE = 60;
/** ...and beat the horizontal read of the same ink by this much. */
const MARGIN = 15;
/** White border around a column crop, in ems (with 0.5 the PDF's 框 read as 杠 both ways: Tesseract is sensitive to it). */
const CROP_PAD = 0.3;
/** Columns narrower than this (pixels) are read enlarged by a whole factor to reach it. */
const READ_EM = 40;
/** Gap between glyphs laid out side by side, in ems. */
const ROW_GAP = 0.15;

const HAS_VERTICAL_MODEL = /^(chi_sim|chi_tra|jpn|kor)$/;

interface Component {
  x0: number;
  y0: number;
  /** Exclusive. */
  x1: number;
  y1: number;
}

/** A binary ink mask: 1 where a pixel is darker than the image's Otsu threshold. */
interface InkMask {
  width: number;
  height: number;
  ink: Uint8Array;
}

/** A vertical column found in the image, with the vertical extent of each of its glyphs (image pixels). */
export interface VerticalColumn {
  box: OcrBox;
  glyphs: { y0: number; y1: number }[];
  /** Width of the column's ink: the type size, as a horizontal line's word height is. */
  em: number;
}

/**
 * Columns of vertically stacked CJK glyphs: chains of ink components linked top to bottom into a
 * group at least MIN_ASPECT times taller than wide, with no other ink close beside it, whose ink
 * rows cut into mostly square glyphs. Boxes are in the image's pixels.
 */
export function findVerticalColumns(image: Raster): VerticalColumn[] {
  const factor = Math.max(1, Math.ceil(Math.max(image.width, image.height) / DETECT_SIDE));
  // Gray first: reducing one channel costs a third of reducing three.
  const mask = inkMask(downscale(toGray(image), factor));
  if (!mask) return [];
  const components = findComponents(mask).filter((c) => (c.x1 - c.x0) * (c.y1 - c.y0) <= MAX_COMPONENT_SHARE * mask.width * mask.height);
  const columns: VerticalColumn[] = [];
  for (const group of verticalGroups(components)) {
    const box = groupBox(components, group);
    const em = box.x1 - box.x0;
    if (group.length < MIN_GLYPHS || em < MIN_EM || box.y1 - box.y0 < MIN_ASPECT * em) continue;
    if (!isClear(components, group, box, em)) continue;
    const glyphs = glyphRows(mask, box, em);
    if (!looksLikeGlyphs(glyphs, em)) continue;
    columns.push(toImagePixels(box, glyphs, factor, image));
  }
  return columns;
}

/**
 * Column and glyph bounds scaled up from the reduced copy, widened by one reduced pixel on each side
 * (a stroke averaged away in the copy must not be clipped off: 框 clipped read as 杠), glyphs no
 * further than halfway to their neighbours.
 */
function toImagePixels(box: Component, glyphs: readonly { y0: number; y1: number }[], factor: number, image: Raster): VerticalColumn {
  const grow = factor;
  const scaledGlyphs = glyphs.map((g, i) => {
    const above = glyphs[i - 1];
    const below = glyphs[i + 1];
    const top = above ? Math.max(g.y0 * factor - grow, ((above.y1 + g.y0) * factor) >> 1) : g.y0 * factor - grow;
    const bottom = below ? Math.min(g.y1 * factor + grow, ((g.y1 + below.y0) * factor) >> 1) : g.y1 * factor + grow;
    return { y0: Math.max(0, top), y1: Math.min(image.height, bottom) };
  });
  return {
    box: { x0: Math.max(0, box.x0 * factor - grow), y0: scaledGlyphs[0]!.y0, x1: Math.min(image.width, box.x1 * factor + grow), y1: scaledGlyphs[scaledGlyphs.length - 1]!.y1 },
    glyphs: scaledGlyphs,
    em: (box.x1 - box.x0) * factor,
  };
}

function inkMask(image: Raster): InkMask | undefined {
  const gray = toGray(image);
  const threshold = otsuThreshold(gray.data);
  if (threshold <= 0) return undefined;
  const ink = new Uint8Array(gray.data.length);
  let count = 0;
  for (let i = 0; i < ink.length; i++) {
    if (gray.data[i]! < threshold) {
      ink[i] = 1;
      count++;
    }
  }
  return count === 0 ? undefined : { width: gray.width, height: gray.height, ink };
}

/** 8-connected components of the ink (two passes with union-find), as bounding boxes; single-pixel specks dropped. */
function findComponents(mask: InkMask): Component[] {
  const { width, height, ink } = mask;
  const labels = new Int32Array(width * height);
  const parent: number[] = [0];
  const find = (label: number): number => {
    let root = label;
    while (parent[root] !== root) root = parent[root]!;
    while (parent[label] !== root) {
      const next = parent[label]!;
      parent[label] = root;
      label = next;
    }
    return root;
  };
  const union = (a: number, b: number): number => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return ra;
    const low = Math.min(ra, rb);
    parent[Math.max(ra, rb)] = low;
    return low;
  };
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (!ink[row + x]) continue;
      // Neighbours already labelled: west, and the three above.
      let label = x > 0 ? labels[row + x - 1]! : 0;
      if (y > 0) {
        const above = row - width + x;
        for (let dx = x > 0 ? -1 : 0; dx <= (x + 1 < width ? 1 : 0); dx++) {
          const neighbour = labels[above + dx]!;
          if (neighbour) label = label ? union(label, neighbour) : neighbour;
        }
      }
      if (!label) {
        label = parent.length;
        parent.push(label);
      }
      labels[row + x] = label;
    }
  }
  const byRoot = new Map<number, Component>();
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const label = labels[row + x]!;
      if (!label) continue;
      const root = find(label);
      const c = byRoot.get(root);
      if (!c) byRoot.set(root, { x0: x, y0: y, x1: x + 1, y1: y + 1 });
      else {
        if (x < c.x0) c.x0 = x;
        if (x + 1 > c.x1) c.x1 = x + 1;
        c.y1 = y + 1;
      }
    }
  }
  return [...byRoot.values()].filter((c) => c.x1 - c.x0 > 1 || c.y1 - c.y0 > 1);
}

/**
 * Groups of components chained together: top to bottom (overlapping horizontally, close above or
 * below) and side by side (level, a small gap apart: a radical and the rest of its glyph, 木 + 匡).
 * A column of glyphs makes one tall narrow group; horizontal lines join into wide ones. Pairs are
 * found by a sweep over the components sorted by left edge.
 */
function verticalGroups(components: readonly Component[]): number[][] {
  const order = components.map((_, i) => i).sort((a, b) => components[a]!.x0 - components[b]!.x0);
  const parent = order.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  for (let oi = 0; oi < order.length; oi++) {
    const a = components[order[oi]!]!;
    const reach = a.x1 + SIDE_GAP * Math.max(a.x1 - a.x0, a.y1 - a.y0);
    for (let oj = oi + 1; oj < order.length; oj++) {
      const b = components[order[oj]!]!;
      if (b.x0 > reach) break;
      if (!linksVertically(a, b) && !linksSideways(a, b)) continue;
      const ra = find(order[oi]!);
      const rb = find(order[oj]!);
      if (ra !== rb) parent[ra] = rb;
    }
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < components.length; i++) {
    const root = find(i);
    const group = groups.get(root);
    if (group) group.push(i);
    else groups.set(root, [i]);
  }
  return [...groups.values()];
}

function linksVertically(a: Component, b: Component): boolean {
  const overlap = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  if (overlap < LINK_OVERLAP * Math.min(a.x1 - a.x0, b.x1 - b.x0)) return false;
  const gap = Math.max(b.y0 - a.y1, a.y0 - b.y1);
  const side = Math.max(a.x1 - a.x0, a.y1 - a.y0, b.x1 - b.x0, b.y1 - b.y0);
  return gap <= LINK_GAP * side;
}

/** Level with each other (overlapping by half the shorter one's height) and at most SIDE_GAP of the smaller one's size apart. */
function linksSideways(a: Component, b: Component): boolean {
  const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (overlap < LINK_OVERLAP * Math.min(a.y1 - a.y0, b.y1 - b.y0)) return false;
  const gap = Math.max(b.x0 - a.x1, a.x0 - b.x1);
  const side = Math.min(Math.max(a.x1 - a.x0, a.y1 - a.y0), Math.max(b.x1 - b.x0, b.y1 - b.y0));
  return gap <= SIDE_GAP * side;
}

function groupBox(components: readonly Component[], group: readonly number[]): Component {
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const i of group) {
    const c = components[i]!;
    box.x0 = Math.min(box.x0, c.x0);
    box.y0 = Math.min(box.y0, c.y0);
    box.x1 = Math.max(box.x1, c.x1);
    box.y1 = Math.max(box.y1, c.y1);
  }
  return box;
}

/** No ink of another group beside the column (within CLEARANCE ems), except specks wholly inside it. */
function isClear(components: readonly Component[], group: readonly number[], box: Component, em: number): boolean {
  const members = new Set(group);
  const reach = CLEARANCE * em;
  for (let i = 0; i < components.length; i++) {
    if (members.has(i)) continue;
    const c = components[i]!;
    if (c.y1 <= box.y0 || c.y0 >= box.y1) continue;
    if (c.x0 >= box.x0 && c.x1 <= box.x1 && c.y0 >= box.y0 && c.y1 <= box.y1) continue;
    if (c.x0 < box.x1 + reach && c.x1 > box.x0 - reach) return false;
  }
  return true;
}

/** The column's glyphs: runs of ink rows, neighbouring runs merged while the glyph stays within MERGE_HEIGHT ems. */
function glyphRows(mask: InkMask, box: Component, em: number): { y0: number; y1: number }[] {
  const runs: { y0: number; y1: number }[] = [];
  let start = -1;
  for (let y = box.y0; y <= box.y1; y++) {
    let inked = false;
    if (y < box.y1) {
      const row = y * mask.width;
      for (let x = box.x0; x < box.x1 && !inked; x++) inked = mask.ink[row + x] === 1;
    }
    if (inked && start < 0) start = y;
    else if (!inked && start >= 0) {
      runs.push({ y0: start, y1: y });
      start = -1;
    }
  }
  const merged: { y0: number; y1: number }[] = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last && run.y1 - last.y0 <= MERGE_HEIGHT * em) last.y1 = run.y1;
    else merged.push({ ...run });
  }
  return merged.flatMap((run) => (run.y1 - run.y0 > GLYPH_MAX * em ? splitRun(mask, box, run, em) : [run]));
}

/**
 * Glyphs that touch (blurred or tightly set) make one run of ink rows several ems tall: it is cut
 * into as many glyphs as ems fit, each cut at the row with the least ink within a quarter em of
 * where an even cut would fall.
 */
function splitRun(mask: InkMask, box: Component, run: { y0: number; y1: number }, em: number): { y0: number; y1: number }[] {
  const parts = Math.max(1, Math.round((run.y1 - run.y0) / em));
  const slack = Math.max(1, Math.round(em / 4));
  const glyphs: { y0: number; y1: number }[] = [];
  let start = run.y0;
  for (let i = 1; i < parts; i++) {
    const ideal = run.y0 + Math.round(((run.y1 - run.y0) * i) / parts);
    let cut = ideal;
    let least = Infinity;
    for (let y = Math.max(start + 1, ideal - slack); y <= Math.min(run.y1 - 1, ideal + slack); y++) {
      let ink = 0;
      const row = y * mask.width;
      for (let x = box.x0; x < box.x1; x++) ink += mask.ink[row + x]!;
      if (ink < least) {
        least = ink;
        cut = y;
      }
    }
    // Only a thin link is a place where two glyphs touch: a stroke running on (a letter l) is no cut.
    if (least > TOUCH_INK * em) return [run];
    glyphs.push({ y0: start, y1: cut });
    start = cut;
  }
  glyphs.push({ y0: start, y1: run.y1 });
  return glyphs;
}

function looksLikeGlyphs(glyphs: readonly { y0: number; y1: number }[], em: number): boolean {
  if (glyphs.length < MIN_GLYPHS) return false;
  let square = 0;
  for (const g of glyphs) {
    const h = g.y1 - g.y0;
    if (h >= GLYPH_MIN * em && h <= GLYPH_MAX * em) square++;
  }
  return square >= MIN_GLYPHS && square >= SQUARE_SHARE * glyphs.length;
}

/** How the column crops are read: with a vertical model when one is installed, and laid out as one horizontal line. */
export interface VerticalReaders {
  /** Reads a crop holding one column with a vertical model (Tesseract's `chi_sim_vert`, mode 5); absent without the data. */
  vertical?: (crop: Raster) => Promise<TsvPage>;
  /** Reads the column's glyphs laid out side by side as one line, with the horizontal CJK model (mode 7). */
  line: (row: Raster) => Promise<TsvPage>;
}

/** What a column re-read changed, for the caller's diagnostics. */
export interface VerticalResult {
  blocks: OcrBlock[];
  /** Columns whose words were replaced, with the reading that won. */
  replaced: { box: OcrBox; text: string; source: 'vertical' | 'line'; score: number; before: number }[];
}

/**
 * Reads each vertical column of `image` again (both ways when a vertical model is installed, as one
 * line otherwise) and replaces the words that the page's reading put in it when the best re-read is
 * CJK, scores MIN_VERTICAL_SCORE or more and beats the old words by MARGIN. `scale`: words' pixels
 * per image pixel (the page was read enlarged). The new words form one paragraph where the first
 * replaced word's paragraph was (or, when the column held no words, before the first paragraph below its top).
 */
export async function rereadVerticalColumns(blocks: readonly OcrBlock[], image: Raster, scale: number, readers: VerticalReaders, columns = findVerticalColumns(image)): Promise<VerticalResult> {
  let current = [...blocks];
  const replaced: VerticalResult['replaced'] = [];
  for (const column of columns) {
    const region = scaled(column.box, scale);
    const old = wordsInside(current, region);
    const before = score(old);
    if (old.length > 0 && before >= WELL_READ) continue;
    const best = await bestReading(image, column, readers);
    if (!best || best.score < MIN_VERTICAL_SCORE || best.score < before + MARGIN) continue;
    const words = best.words.map((w) => ({ ...w, bbox: scaled(w.bbox, scale) }));
    current = placeColumn(current, new Set(old), columnBlock(words, region, column.em * scale, nextBlockNumber(current)));
    replaced.push({ box: region, text: joinWords(words.map((w) => w.text)), source: best.source, score: Math.round(best.score * 10) / 10, before: Math.round(before * 10) / 10 });
  }
  return { blocks: current, replaced };
}

interface ColumnReading {
  words: OcrWord[];
  score: number;
  source: 'vertical' | 'line';
}

async function bestReading(image: Raster, column: VerticalColumn, readers: VerticalReaders): Promise<ColumnReading | undefined> {
  const candidates: ColumnReading[] = [];
  // Small glyphs are enlarged to about READ_EM: Tesseract's CJK models misread them far more often.
  const enlarge = Math.max(1, Math.ceil(READ_EM / column.em));
  if (readers.vertical) {
    const { crop, x0, y0 } = cropColumn(image, column.box);
    const words = pageWords(await readers.vertical(upscale(crop, enlarge))).map((w) => ({
      ...w,
      bbox: { x0: w.bbox.x0 / enlarge + x0, y0: w.bbox.y0 / enlarge + y0, x1: w.bbox.x1 / enlarge + x0, y1: w.bbox.y1 / enlarge + y0 },
    }));
    candidates.push({ words: onGlyphs(words, column), score: score(words), source: 'vertical' });
  }
  const { row, spans } = layGlyphsInRow(image, column);
  const lineWords = pageWords(await readers.line(upscale(row, enlarge))).map((w) => ({ ...w, bbox: glyphSpanBox(scaled(w.bbox, 1 / enlarge), spans, column) }));
  candidates.push({ words: lineWords, score: score(lineWords), source: 'line' });
  let best: ColumnReading | undefined;
  for (const candidate of candidates) {
    if (!candidate.words.some((w) => CJK_TEXT.test(w.text))) continue;
    if (!best || candidate.score > best.score) best = candidate;
  }
  return best;
}

/** The column with a white border of CROP_PAD ems, and where its top-left corner lies in the image. */
function cropColumn(image: Raster, box: OcrBox): { crop: Raster; x0: number; y0: number } {
  const pad = Math.round(CROP_PAD * (box.x1 - box.x0));
  const x0 = Math.round(box.x0) - pad;
  const y0 = Math.round(box.y0) - pad;
  const width = Math.round(box.x1) + pad - x0;
  const height = Math.round(box.y1) + pad - y0;
  const n = image.channels;
  const data = new Uint8Array(width * height * n).fill(255);
  const fromX = Math.max(0, x0);
  const toX = Math.min(image.width, x0 + width);
  for (let y = Math.max(0, y0); y < Math.min(image.height, y0 + height); y++) {
    const src = (y * image.width + fromX) * n;
    data.set(image.data.subarray(src, src + (toX - fromX) * n), ((y - y0) * width + fromX - x0) * n);
  }
  return { crop: { width, height, channels: n, data }, x0, y0 };
}

/** The glyphs copied side by side onto one white line, and the x span each occupies in it. */
function layGlyphsInRow(image: Raster, column: VerticalColumn): { row: Raster; spans: { x0: number; x1: number }[] } {
  const em = Math.round(column.box.x1 - column.box.x0);
  const pad = Math.round(CROP_PAD * em);
  const gap = Math.max(1, Math.round(ROW_GAP * em));
  const tallest = Math.max(...column.glyphs.map((g) => g.y1 - g.y0));
  const height = tallest + 2 * pad;
  const width = column.glyphs.length * em + (column.glyphs.length - 1) * gap + 2 * pad;
  const n = image.channels;
  const data = new Uint8Array(width * height * n).fill(255);
  const spans: { x0: number; x1: number }[] = [];
  const sx = Math.round(column.box.x0);
  const copy = Math.min(em, image.width - sx);
  let x = pad;
  for (const glyph of column.glyphs) {
    // Glyphs centred on the line, as they sat centred in their column.
    const top = pad + ((tallest - (glyph.y1 - glyph.y0)) >> 1);
    for (let y = glyph.y0; y < glyph.y1; y++) {
      const src = (y * image.width + sx) * n;
      data.set(image.data.subarray(src, src + copy * n), ((top + y - glyph.y0) * width + x) * n);
    }
    spans.push({ x0: x, x1: x + em });
    x += em + gap;
  }
  return { row: { width, height, channels: n, data }, spans };
}

/** The column box over the glyphs whose centres a word of the laid-out line covers (the nearest glyph when none). */
function glyphSpanBox(box: OcrBox, spans: readonly { x0: number; x1: number }[], column: VerticalColumn): OcrBox {
  let first = -1;
  let last = -1;
  let nearest = 0;
  let nearestDistance = Infinity;
  spans.forEach((span, i) => {
    const centre = (span.x0 + span.x1) / 2;
    if (centre >= box.x0 && centre <= box.x1) {
      if (first < 0) first = i;
      last = i;
    }
    const distance = Math.abs(centre - (box.x0 + box.x1) / 2);
    if (distance < nearestDistance) {
      nearestDistance = distance;
      nearest = i;
    }
  });
  if (first < 0) first = last = nearest;
  return { x0: column.box.x0, y0: column.glyphs[first]!.y0, x1: column.box.x1, y1: column.glyphs[last]!.y1 };
}

/**
 * A vertical model's word boxes are loose (the first word's box often spans the whole column): when
 * the read has one character per glyph, each word gets the boxes of its glyphs, in order.
 */
function onGlyphs(words: readonly OcrWord[], column: VerticalColumn): OcrWord[] {
  const lengths = words.map((w) => [...w.text].length);
  if (lengths.reduce((a, b) => a + b, 0) !== column.glyphs.length) return [...words];
  let at = 0;
  return words.map((w, i) => {
    const first = column.glyphs[at]!;
    at += lengths[i]!;
    const last = column.glyphs[at - 1]!;
    return { ...w, bbox: { x0: column.box.x0, y0: first.y0, x1: column.box.x1, y1: last.y1 } };
  });
}

function pageWords(page: TsvPage): OcrWord[] {
  return page.blocks.flatMap((b) => b.lines.flatMap((l) => l.words));
}

/** Words whose centres lie in the box. */
function wordsInside(blocks: readonly OcrBlock[], box: OcrBox): OcrWord[] {
  const inside: OcrWord[] = [];
  for (const block of blocks) for (const line of block.lines) for (const word of line.words) {
    const cx = (word.bbox.x0 + word.bbox.x1) / 2;
    const cy = (word.bbox.y0 + word.bbox.y1) / 2;
    if (cx >= box.x0 && cx <= box.x1 && cy >= box.y0 && cy <= box.y1) inside.push(word);
  }
  return inside;
}

/** Mean confidence weighted by characters (CJK glyphs and Latin letters alike), 0 without words. */
function score(words: readonly OcrWord[]): number {
  let weighted = 0;
  let chars = 0;
  for (const word of words) {
    const n = Math.max(1, word.text.match(CJK_ALL)?.length ?? word.text.length);
    weighted += word.conf * n;
    chars += n;
  }
  return chars ? weighted / chars : 0;
}

/** One paragraph of one line: the column's words top to bottom; its type size is the column's ink width. */
function columnBlock(words: OcrWord[], region: OcrBox, size: number, number: number): OcrBlock {
  const text = joinWords(words.map((w) => w.text));
  const line: OcrLine = { text, bbox: { ...region }, words, size };
  return { text, bbox: { ...region }, lines: [line], block: number };
}

function nextBlockNumber(blocks: readonly OcrBlock[]): number {
  let max = 0;
  for (const b of blocks) max = Math.max(max, b.block);
  return max + 1;
}

/** The page without the replaced words and with the column's paragraph in their first paragraph's place. */
function placeColumn(blocks: readonly OcrBlock[], replaced: ReadonlySet<OcrWord>, column: OcrBlock): OcrBlock[] {
  const out: OcrBlock[] = [];
  let placed = false;
  for (const block of blocks) {
    const holds = replaced.size > 0 && block.lines.some((l) => l.words.some((w) => replaced.has(w)));
    if (!placed && (holds || (replaced.size === 0 && block.bbox.y0 > column.bbox.y0))) {
      out.push(column);
      placed = true;
    }
    const kept = withoutWords(block, replaced);
    if (kept) out.push(kept);
  }
  if (!placed) out.push(column);
  return out;
}

function scaled(box: OcrBox, factor: number): OcrBox {
  return factor === 1 ? { ...box } : { x0: box.x0 * factor, y0: box.y0 * factor, x1: box.x1 * factor, y1: box.y1 * factor };
}

/** The vertical-text model for a horizontal CJK language (Tesseract ships chi_sim_vert, chi_tra_vert, jpn_vert, kor_vert). */
export function verticalLanguage(code: string): string | undefined {
  return HAS_VERTICAL_MODEL.test(code) ? `${code}_vert` : undefined;
}


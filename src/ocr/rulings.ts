import type { PageRules, Rule } from '../layout/rules.js';
import type { Raster } from './raster.js';

/**
 * Horizontal and vertical lines drawn on a raster (table rules on a scan or an image), found by
 * run-length: a pixel is ink below INK_LUMA; a row (column) of ink at least `minLength` long, with
 * gaps of at most MAX_GAP pixels (broken scan lines), is a run; runs in neighbouring rows that touch
 * are one rule, kept while its mean thickness stays under `maxThickness` (a filled box or a photo is
 * not a rule). Coordinates are pixels; a horizontal rule has y0 === y1 (its ink-weighted centre).
 */

/** Light tints (a blue table header is ~175) stay background; anti-aliased 1-pixel rules (~130) are ink. */
const INK_LUMA = 160;
const MAX_GAP = 2;
const MIN_FILL = 0.9;

export interface RasterRuleOptions {
  /** Shortest horizontal run, pixels. Default: 2% of the width, at least 12. */
  minHorizontal?: number;
  /** Shortest vertical run, pixels. Default: 0.8% of the height, at least 8 (header cells of small print are short). */
  minVertical?: number;
  /** Thickest rule, pixels. Default: 0.2% of the longer side, at least 4. */
  maxThickness?: number;
}

interface OpenRule {
  lo: number;
  hi: number;
  /** First and last row (column) it was seen in. */
  first: number;
  last: number;
  ink: number;
  weighted: number;
}

export function findRasterRules(image: Raster, options: RasterRuleOptions = {}): PageRules {
  const { width, height } = image;
  const ink = inkMask(image);
  const minH = options.minHorizontal ?? Math.max(12, Math.round(width * 0.02));
  const minV = options.minVertical ?? Math.max(8, Math.round(height * 0.008));
  const maxThick = options.maxThickness ?? defaultThickness(width, height);
  const horizontal = collect(ink, width, height, minH, maxThick);
  const vertical = collect(transpose(ink, width, height), height, width, minV, maxThick);
  return {
    horizontal: horizontal.map((r) => ({ x0: r.lo, x1: r.hi, y0: r.at, y1: r.at })),
    vertical: vertical.map((r) => ({ x0: r.at, x1: r.at, y0: r.lo, y1: r.hi })),
  };
}

function defaultThickness(width: number, height: number): number {
  return Math.max(4, Math.round(Math.max(width, height) * 0.002));
}

function inkMask(image: Raster): Uint8Array {
  const n = image.width * image.height;
  const mask = new Uint8Array(n);
  const d = image.data;
  if (image.channels === 1) {
    for (let i = 0; i < n; i++) mask[i] = d[i]! < INK_LUMA ? 1 : 0;
  } else {
    const limit = INK_LUMA << 8;
    for (let i = 0, p = 0; i < n; i++, p += 3) mask[i] = d[p]! * 77 + d[p + 1]! * 150 + d[p + 2]! * 29 < limit ? 1 : 0;
  }
  return mask;
}

/** Columns become rows, so vertical rules are found by the same row scan. */
function transpose(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) out[x * height + y] = mask[row + x]!;
  }
  return out;
}

/** Rules along the rows of a `length`-wide, `lines`-high mask. */
function collect(mask: Uint8Array, length: number, lines: number, minLength: number, maxThick: number): { lo: number; hi: number; at: number }[] {
  const done: { lo: number; hi: number; at: number }[] = [];
  let open: OpenRule[] = [];
  const close = (rule: OpenRule): void => {
    const span = rule.hi - rule.lo + 1;
    if (rule.ink / span <= maxThick) done.push({ lo: rule.lo, hi: rule.hi + 1, at: rule.weighted / rule.ink + 0.5 });
  };
  for (let across = 0; across < lines; across++) {
    const next: OpenRule[] = [];
    const row = across * length;
    let along = 0;
    while (along < length) {
      if (!mask[row + along]) {
        along++;
        continue;
      }
      const start = along;
      let end = along;
      let gap = 0;
      let count = 0;
      for (; along < length; along++) {
        if (mask[row + along]) {
          end = along;
          gap = 0;
          count++;
        } else if (++gap > MAX_GAP) break;
      }
      const runLength = end - start + 1;
      // Letters of small print touch within MAX_GAP; a drawn rule is solid.
      if (runLength < minLength || count < MIN_FILL * runLength) continue;
      // Continue a rule of the previous line that this run touches (a thick or slightly tilted rule).
      let joined: OpenRule | undefined;
      for (const rule of open) {
        if (rule.last === across - 1 && start <= rule.hi + MAX_GAP && end >= rule.lo - MAX_GAP) {
          joined = rule;
          break;
        }
      }
      if (joined) {
        joined.lo = Math.min(joined.lo, start);
        joined.hi = Math.max(joined.hi, end);
        joined.last = across;
        joined.ink += count;
        joined.weighted += count * across;
        if (!next.includes(joined)) next.push(joined);
      } else next.push({ lo: start, hi: end, first: across, last: across, ink: count, weighted: count * across });
    }
    for (const rule of open) if (rule.last !== across) close(rule);
    open = next;
  }
  for (const rule of open) close(rule);
  return done;
}

/** Rules scaled into another frame (pixels -> the units of the words they are matched with). */
export function scaleRules(rules: PageRules, factor: number): PageRules {
  const scale = (r: Rule): Rule => ({ x0: r.x0 * factor, y0: r.y0 * factor, x1: r.x1 * factor, y1: r.y1 * factor });
  return { horizontal: rules.horizontal.map(scale), vertical: rules.vertical.map(scale) };
}

/** A horizontal rule this share of the image wide is no letter stroke (a dash or a bar of large type is shorter). */
const LONG_RULE = 0.05;
/**
 * Rules this many times the typical letter stroke are no part of a letter. The typical stroke is
 * the median vertical run found: on a page of text most are letter stems, whatever the type size
 * or resolution (the strokes of CJK characters cross each other, so crossing alone says nothing).
 */
const STROKES = 3;

/**
 * A copy of the image with the vertical table rules painted over: Tesseract glues a rule to the
 * digit beside it or takes the pair for a picture, and whole columns of short cells go unread (the
 * scanned table: 0.47 -> 0.81 of cells matching). Only rules that cannot be letters go: vertical rules
 * STROKES letter strokes long that cross a horizontal rule as long and LONG_RULE of the width.
 * Horizontal rules stay: painting them out lost the single-digit cells of the table image. Each
 * rule's own ink is painted, row by row, with the lighter of the pixels just beside it, so a
 * tinted cell keeps its tint. The image itself is returned when there is nothing to erase.
 */
export function eraseRules(image: Raster, rules: PageRules): Raster {
  const { width, height } = image;
  const reach = defaultThickness(width, height);
  const minLength = STROKES * medianLength(rules.vertical);
  const long = rules.horizontal.filter((r) => r.x1 - r.x0 >= Math.max(minLength, width * LONG_RULE));
  const crossesLong = (v: Rule): boolean =>
    v.y1 - v.y0 >= minLength && long.some((h) => h.y0 > v.y0 + reach && h.y0 < v.y1 - reach && v.x0 >= h.x0 - reach && v.x0 <= h.x1 + reach);
  const vertical = rules.vertical.filter(crossesLong);
  if (vertical.length === 0) return image;
  const out: Raster = { width, height, channels: image.channels, data: image.data.slice() };
  for (const rule of vertical) {
    for (let y = Math.max(0, Math.floor(rule.y0)); y < Math.min(height, Math.ceil(rule.y1)); y++) eraseAcross(out, y, Math.floor(rule.x0), reach);
  }
  return out;
}

function medianLength(rules: readonly Rule[]): number {
  if (rules.length === 0) return Infinity;
  const lengths = Float64Array.from(rules, (r) => r.y1 - r.y0).sort();
  return lengths[lengths.length >> 1]!;
}

/**
 * Paints over the ink run through x = `centre` (up to `reach` pixels either side, plus one pixel
 * of anti-aliasing) on row `y`, with the lighter of the two pixels just beyond it.
 */
function eraseAcross(image: Raster, y: number, centre: number, reach: number): void {
  const n = image.channels;
  const d = image.data;
  const w = image.width;
  const row = y * w * n;
  const dark = (x: number): boolean => x >= 0 && x < w && luma(d, row + x * n, n) < INK_LUMA;
  let lo = centre;
  if (!dark(lo)) {
    if (dark(centre - 1)) lo = centre - 1;
    else if (dark(centre + 1)) lo = centre + 1;
    else return;
  }
  let hi = lo;
  while (lo > centre - reach && dark(lo - 1)) lo--;
  while (hi < centre + reach && dark(hi + 1)) hi++;
  lo = Math.max(0, lo - 1);
  hi = Math.min(w - 1, hi + 1);
  const before = row + Math.max(0, lo - 1) * n;
  const after = row + Math.min(w - 1, hi + 1) * n;
  const fill = luma(d, before, n) >= luma(d, after, n) ? before : after;
  for (let target = row + lo * n; target <= row + hi * n; target += n) {
    for (let c = 0; c < n; c++) d[target + c] = d[fill + c]!;
  }
}

function luma(d: Uint8Array, at: number, channels: number): number {
  return channels === 1 ? d[at]! : (d[at]! * 77 + d[at + 1]! * 150 + d[at + 2]! * 29) >> 8;
}

/** A gray piece of an image and where its top-left pixel sits in the image. */
export interface Crop {
  raster: Raster;
  x: number;
  y: number;
}

/** A pixel row or column of a cell this full of ink is a rule (or what is left of an erased one), not text. */
const RULE_FILL = 0.9;
/** A line with less ink than this share is blank (specks of a scan). */
const SPECKS = 0.02;

/**
 * The ink of one table cell, gray, cut out of `image` (pixel box, e.g. between the cell's rules):
 * rows and columns that are mostly ink (the rules themselves) are whitened and the rest trimmed to
 * the ink. Undefined when the cell holds no ink.
 */
export function cropCell(image: Raster, box: { x0: number; y0: number; x1: number; y1: number }): Crop | undefined {
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const w = Math.min(image.width, Math.ceil(box.x1)) - x0;
  const h = Math.min(image.height, Math.ceil(box.y1)) - y0;
  if (w < 2 || h < 2) return undefined;
  const n = image.channels;
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const src = ((y0 + y) * image.width + x0) * n;
    for (let x = 0; x < w; x++) data[y * w + x] = luma(image.data, src + x * n, n);
  }
  const rowInk = new Uint32Array(h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (data[y * w + x]! < INK_LUMA) rowInk[y]!++;
  const fullRow = Uint8Array.from(rowInk, (ink) => (ink >= RULE_FILL * w ? 1 : 0));
  // Columns are measured between the horizontal rules, which would otherwise fill every column a little.
  const colInk = new Uint32Array(w);
  let openRows = 0;
  for (let y = 0; y < h; y++) {
    if (fullRow[y]) continue;
    openRows++;
    for (let x = 0; x < w; x++) if (data[y * w + x]! < INK_LUMA) colInk[x]!++;
  }
  const fullCol = Uint8Array.from(colInk, (ink) => (openRows > 0 && ink >= RULE_FILL * openRows ? 1 : 0));
  // Ink off the rules: the stub of a vertical rule poking past a horizontal one is no text.
  const rowText = new Uint32Array(h);
  const colText = new Uint32Array(w);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (data[y * w + x]! >= INK_LUMA) continue;
      if (!fullCol[x]) rowText[y]!++;
      if (!fullRow[y]) colText[x]!++;
    }
  }
  const rows = [...edgeRules(fullRow, rowText, w, 1), ...edgeRules(fullRow, rowText, w, -1)];
  const cols = [...edgeRules(fullCol, colText, h, 1), ...edgeRules(fullCol, colText, h, -1)];
  for (const y of rows) data.fill(255, y * w, (y + 1) * w);
  for (const x of cols) for (let y = 0; y < h; y++) data[y * w + x] = 255;
  let top = h;
  let bottom = -1;
  let left = w;
  let right = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (data[y * w + x]! >= INK_LUMA) continue;
      if (y < top) top = y;
      bottom = y;
      if (x < left) left = x;
      if (x > right) right = x;
    }
  }
  if (bottom < 0) return undefined;
  const cw = right - left + 1;
  const ch = bottom - top + 1;
  const trimmed = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) trimmed.set(data.subarray((top + y) * w + left, (top + y) * w + left + cw), y * cw);
  return { raster: { width: cw, height: ch, channels: 1, data: trimmed }, x: x0 + left, y: y0 + top };
}

/**
 * The rows (columns) of rules met walking in from one edge of a cell (`step` 1 from the start, -1
 * from the end), up to the first line with text on it: lines nearly all ink (`full`), and the
 * anti-aliased fringe next to them. Only rules at the edge go, so a letter stem as tall as a
 * tight cell is kept. `text`: each line's ink off the rules across it.
 */
function edgeRules(full: Uint8Array, text: Uint32Array, across: number, step: 1 | -1): number[] {
  const out: number[] = [];
  const isFull = (i: number): boolean => i >= 0 && i < full.length && full[i] === 1;
  for (let i = step === 1 ? 0 : full.length - 1; i >= 0 && i < full.length; i += step) {
    if (isFull(i) || isFull(i + step)) out.push(i);
    else if (text[i]! > SPECKS * across) break;
  }
  return out;
}

/**
 * Crops stacked top to bottom on white, `gap` pixels apart and from the edges, so one OCR run
 * reads them all; `at[i]` is the top-left of crop i in the stack.
 */
export function stackCrops(crops: readonly Raster[], gap: number): { raster: Raster; at: { x: number; y: number }[] } {
  const width = Math.max(...crops.map((c) => c.width)) + 2 * gap;
  const height = crops.reduce((sum, c) => sum + c.height + gap, gap);
  const data = new Uint8Array(width * height).fill(255);
  const at: { x: number; y: number }[] = [];
  let top = gap;
  for (const crop of crops) {
    for (let y = 0; y < crop.height; y++) data.set(crop.data.subarray(y * crop.width, (y + 1) * crop.width), (top + y) * width + gap);
    at.push({ x: gap, y: top });
    top += crop.height + gap;
  }
  return { raster: { width, height, channels: 1, data }, at };
}

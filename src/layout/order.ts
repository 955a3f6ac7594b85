/**
 * Reading order by recursive cuts on whitespace (XY-cut), made column-aware: a region is cut
 * vertically where a gutter runs through all of it (columns, read left to right); otherwise it is
 * cut horizontally at empty bands, and consecutive bands that share a gutter are merged again so
 * two columns whose lines happen to leave a common gap are not read band by band. Full-width
 * elements (titles, figures and captions across columns) fall between bands and keep their place.
 */

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface OrderOptions {
  /** Narrowest whitespace (points) that separates columns. */
  minGutter: number;
  /** Thinnest empty band (points) that separates regions vertically. */
  minBand: number;
}

type Interval = [number, number];

/** Groups of item indices in reading order; each group is one region (a column piece). */
export function readingOrder(items: readonly Box[], options: OrderOptions): number[][] {
  const out: number[][] = [];
  const all = items.map((_, i) => i);
  cut(items, all, options, out, 0);
  return out;
}

function cut(items: readonly Box[], ids: number[], options: OrderOptions, out: number[][], depth: number): void {
  if (ids.length <= 1 || depth > 40) {
    if (ids.length > 0) out.push(sortTopDown(items, ids));
    return;
  }
  // One line is never split into columns: a wide gap inside it ("5.1   Results") is a tab.
  const columns = singleRow(items, ids) ? [ids] : splitColumns(items, ids, options.minGutter);
  if (columns.length > 1 && !tabbedFirstRow(items, columns)) {
    for (const column of columns) cut(items, column, options, out, depth + 1);
    return;
  }
  const bands = splitBands(items, ids, options.minBand);
  if (bands.length <= 1) {
    out.push(sortTopDown(items, ids));
    return;
  }
  const groups = mergeBands(items, bands, options.minGutter);
  if (groups.length === 1) {
    // The bands all share a gutter, yet no gutter runs through the whole: keep them apart.
    for (const band of bands) cut(items, band, options, out, depth + 1);
    return;
  }
  for (const group of groups) cut(items, group, options, out, depth + 1);
}

function singleRow(items: readonly Box[], ids: number[]): boolean {
  let top = Infinity;
  let bottom = -Infinity;
  let tallest = 0;
  for (const id of ids) {
    const box = items[id]!;
    top = Math.min(top, box.y0);
    bottom = Math.max(bottom, box.y1);
    tallest = Math.max(tallest, box.y1 - box.y0);
  }
  return bottom - top < 1.5 * tallest;
}

/** Rows a block may have for its gaps on the first row to be read as tabs rather than gutters. */
const TABBED_MAX_ROWS = 3;

/**
 * Columns that are tab stops on a block's first row, not a page's columns: all but one hold a
 * single row, level with the top row of the one that goes on for at most a couple more rows
 * (`No.: WMS-07    Version: 2.3    Scope: warehouse services,` wrapping to a second line).
 * Read row by row, such a block keeps its wrapped line after the whole first row.
 */
function tabbedFirstRow(items: readonly Box[], columns: number[][]): boolean {
  const tall = columns.filter((column) => !singleRow(items, column));
  if (tall.length !== 1) return false;
  const multi = tall[0]!;
  let top = items[multi[0]!]!;
  let bottom = -Infinity;
  let tallest = 0;
  for (const id of multi) {
    const box = items[id]!;
    if (box.y0 < top.y0) top = box;
    bottom = Math.max(bottom, box.y1);
    tallest = Math.max(tallest, box.y1 - box.y0);
  }
  if (bottom - top.y0 > (TABBED_MAX_ROWS + 0.5) * tallest) return false;
  return columns.every((column) => column === multi || column.every((id) => {
    const middle = (items[id]!.y0 + items[id]!.y1) / 2;
    return middle > top.y0 && middle < top.y1;
  }));
}

function sortTopDown(items: readonly Box[], ids: number[]): number[] {
  return ids.sort((a, b) => items[a]!.y0 - items[b]!.y0 || items[a]!.x0 - items[b]!.x0);
}

/** Splits at every vertical gutter that no item crosses; left to right. */
function splitColumns(items: readonly Box[], ids: number[], minGutter: number): number[][] {
  const sorted = [...ids].sort((a, b) => items[a]!.x0 - items[b]!.x0);
  const groups: number[][] = [];
  let current: number[] = [];
  let reach = -Infinity;
  for (const id of sorted) {
    const box = items[id]!;
    if (current.length > 0 && box.x0 - reach >= minGutter) {
      groups.push(current);
      current = [];
    }
    current.push(id);
    reach = Math.max(reach, box.x1);
  }
  groups.push(current);
  return groups;
}

/** Splits at every horizontal band no item crosses; top to bottom. */
function splitBands(items: readonly Box[], ids: number[], minBand: number): number[][] {
  const sorted = [...ids].sort((a, b) => items[a]!.y0 - items[b]!.y0);
  const groups: number[][] = [];
  let current: number[] = [];
  let reach = -Infinity;
  for (const id of sorted) {
    const box = items[id]!;
    if (current.length > 0 && box.y0 - reach >= minBand) {
      groups.push(current);
      current = [];
    }
    current.push(id);
    reach = Math.max(reach, box.y1);
  }
  groups.push(current);
  return groups;
}

/** Inner gutters of a set: empty x-intervals between its items, at least minGutter wide. */
function gutters(items: readonly Box[], ids: number[], minGutter: number): Interval[] {
  const sorted = [...ids].sort((a, b) => items[a]!.x0 - items[b]!.x0);
  const out: Interval[] = [];
  let reach = -Infinity;
  for (const id of sorted) {
    const box = items[id]!;
    if (reach > -Infinity && box.x0 - reach >= minGutter) out.push([reach, box.x0]);
    reach = Math.max(reach, box.x1);
  }
  return out;
}

function intersect(a: Interval[], b: Interval[], minGutter: number): Interval[] {
  const out: Interval[] = [];
  for (const [a0, a1] of a) {
    for (const [b0, b1] of b) {
      const lo = Math.max(a0, b0);
      const hi = Math.min(a1, b1);
      if (hi - lo >= minGutter) out.push([lo, hi]);
    }
  }
  return out;
}

/**
 * Merges consecutive bands that share at least one gutter (the same columns continue), and a band
 * set in one of those columns only (a line of one column, level with a gap in the other: no gutter
 * of its own, each item inside one column and filling at least half of it) at most its own height
 * below the band before; after such a band the columns go on only as close below it. A band that
 * crosses the gutters (a full-width title, a single-column paragraph) stands alone, and so does a
 * narrow item between them (a table's header cell, a label).
 */
function mergeBands(items: readonly Box[], bands: number[][], minGutter: number): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  let shared: Interval[] = [];
  // Left and right edges of the current group.
  let left = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  // Height of the band before when it was set in one column only.
  let oneSided: number | undefined;
  for (const band of bands) {
    const own = gutters(items, band, minGutter);
    const extent = extentOf(items, band);
    const gap = extent.top - bottom;
    bottom = extent.bottom;
    if (current.length > 0 && shared.length > 0) {
      let common: Interval[];
      if (own.length > 0) common = oneSided !== undefined && gap > oneSided ? [] : intersect(shared, own, minGutter);
      else common = gap <= extent.tallest && inColumns(items, band, shared, left, right) ? shared : [];
      if (common.length > 0) {
        current.push(...band);
        shared = common;
        oneSided = own.length > 0 ? undefined : extent.tallest;
        left = Math.min(left, extent.left);
        right = Math.max(right, extent.right);
        continue;
      }
    }
    if (current.length > 0) groups.push(current);
    current = [...band];
    shared = own;
    oneSided = undefined;
    left = extent.left;
    right = extent.right;
  }
  groups.push(current);
  return groups;
}

function extentOf(items: readonly Box[], ids: readonly number[]): { top: number; bottom: number; tallest: number; left: number; right: number } {
  let top = Infinity;
  let bottom = -Infinity;
  let left = Infinity;
  let right = -Infinity;
  let tallest = 0;
  for (const id of ids) {
    const box = items[id]!;
    top = Math.min(top, box.y0);
    bottom = Math.max(bottom, box.y1);
    left = Math.min(left, box.x0);
    right = Math.max(right, box.x1);
    tallest = Math.max(tallest, box.y1 - box.y0);
  }
  return { top, bottom, tallest, left, right };
}

/** Every item of the band lies inside one of the columns the gutters make between `left` and `right`, over half its width. */
function inColumns(items: readonly Box[], band: readonly number[], gutters: readonly Interval[], left: number, right: number): boolean {
  const edges = [left, ...[...gutters].sort((a, b) => a[0] - b[0]).flat(), right];
  return band.every((id) => {
    const box = items[id]!;
    for (let c = 0; c + 1 < edges.length; c += 2) {
      const lo = edges[c]!;
      const hi = edges[c + 1]!;
      if (box.x0 >= lo - 1 && box.x1 <= hi + 1) return box.x1 - box.x0 >= 0.5 * (hi - lo);
    }
    return false;
  });
}


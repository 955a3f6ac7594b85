import type { PageChars } from './chars.js';
import type { Rule, PageRules } from './rules.js';
import { findHRuledTables } from './tables-hruled.js';

/**
 * Ruled tables: drawn horizontal and vertical rules are merged, grouped into connected grids, and
 * each grid's distinct rule positions give rows and columns; a cell spans to the right (down) while
 * no rule separates it from its neighbour. Characters are assigned to cells by their centres.
 */

export interface GridCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  /** Character indices inside the cell, ascending (content order). */
  chars: number[];
}

export interface RuledTable {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Row and column boundaries (points), ascending. */
  ys: number[];
  xs: number[];
  cells: GridCell[];
  /** Rows above the header rule of a horizontally ruled table; 1 when not given. */
  headerRows?: number;
}

const TOL = 2;

/** Merges rules on the same line (within TOL) whose spans touch or overlap. */
function mergeRules(rules: Rule[], horizontal: boolean): Rule[] {
  const pos = (r: Rule): number => (horizontal ? r.y0 : r.x0);
  const lo = (r: Rule): number => (horizontal ? r.x0 : r.y0);
  const hi = (r: Rule): number => (horizontal ? r.x1 : r.y1);
  const sorted = [...rules].sort((a, b) => pos(a) - pos(b) || lo(a) - lo(b));
  const out: Rule[] = [];
  // Group by position, then merge spans within each group.
  let i = 0;
  while (i < sorted.length) {
    let j = i + 1;
    while (j < sorted.length && pos(sorted[j]!) - pos(sorted[j - 1]!) <= TOL) j++;
    const group = sorted.slice(i, j).sort((a, b) => lo(a) - lo(b));
    const p = group.reduce((s, r) => s + pos(r), 0) / group.length;
    let start = lo(group[0]!);
    let end = hi(group[0]!);
    const push = (): void => {
      out.push(horizontal ? { x0: start, x1: end, y0: p, y1: p } : { x0: p, x1: p, y0: start, y1: end });
    };
    for (let k = 1; k < group.length; k++) {
      const r = group[k]!;
      if (lo(r) <= end + TOL) end = Math.max(end, hi(r));
      else {
        push();
        start = lo(r);
        end = hi(r);
      }
    }
    push();
    i = j;
  }
  return out;
}

function crosses(h: Rule, v: Rule): boolean {
  return v.x0 >= h.x0 - TOL && v.x0 <= h.x1 + TOL && h.y0 >= v.y0 - TOL && h.y0 <= v.y1 + TOL;
}

function cluster(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of sorted) if (out.length === 0 || v - out[out.length - 1]! > TOL) out.push(v);
  return out;
}

function covered(rules: Rule[], horizontal: boolean, at: number, from: number, to: number): boolean {
  // Is the span from..to at position `at` drawn (at least 60% covered by rules)?
  let len = 0;
  for (const r of rules) {
    const p = horizontal ? r.y0 : r.x0;
    if (Math.abs(p - at) > TOL) continue;
    const lo = Math.max(from, horizontal ? r.x0 : r.y0);
    const hi = Math.min(to, horizontal ? r.x1 : r.y1);
    if (hi > lo) len += hi - lo;
  }
  return len >= 0.6 * (to - from);
}

export function findRuledTables(rules: PageRules, chars: PageChars): RuledTable[] {
  const hs = mergeRules(rules.horizontal, true);
  const vs = mergeRules(rules.vertical, false);
  const tables = vs.length >= 2 && hs.length >= 2 ? gridTables(hs, vs, chars) : [];
  // Horizontal rules crossing no vertical one: booktabs-style tables ruled across only.
  const standalone = hs.filter((h) => !vs.some((v) => crosses(h, v)));
  if (standalone.length > 0) {
    const consumed = new Uint8Array(chars.count);
    for (const table of tables) for (const cell of table.cells) for (const i of cell.chars) consumed[i] = 1;
    tables.push(...findHRuledTables(standalone, chars, consumed));
  }
  return tables.sort((a, b) => a.y0 - b.y0);
}

function gridTables(hs: Rule[], vs: Rule[], chars: PageChars): RuledTable[] {
  // Connected components over the crossing graph (union-find; h indices, then v indices).
  const parent = new Int32Array(hs.length + vs.length).map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  for (let h = 0; h < hs.length; h++) {
    for (let v = 0; v < vs.length; v++) {
      if (crosses(hs[h]!, vs[v]!)) parent[find(h)] = find(hs.length + v);
    }
  }
  const components = new Map<number, { h: Rule[]; v: Rule[] }>();
  for (let i = 0; i < parent.length; i++) {
    const root = find(i);
    let comp = components.get(root);
    if (!comp) components.set(root, (comp = { h: [], v: [] }));
    if (i < hs.length) comp.h.push(hs[i]!);
    else comp.v.push(vs[i - hs.length]!);
  }
  const tables: RuledTable[] = [];
  let index: CentreIndex | undefined;
  for (const { h, v } of components.values()) {
    if (h.length < 2 || v.length < 2) continue;
    index ??= centreIndex(chars);
    const table = gridTable(h, v, chars, index);
    if (table) tables.push(table);
  }
  return tables;
}

function gridTable(h: Rule[], ruledV: Rule[], chars: PageChars, index: CentreIndex): RuledTable | undefined {
  const ys = cluster(h.map((r) => r.y0));
  if (ys.length < 2) return undefined;
  const top = ys[0]!;
  const bottom = ys[ys.length - 1]!;
  if (bottom - top < 8) return undefined;
  // Characters whose centre lies inside the rules' extent: the only ones this grid can hold.
  let left = Infinity;
  let right = -Infinity;
  for (const r of h) ((left = Math.min(left, r.x0)), (right = Math.max(right, r.x1)));
  for (const r of ruledV) ((left = Math.min(left, r.x0)), (right = Math.max(right, r.x0)));
  if (right - left < 20) return undefined;
  const inside: number[] = [];
  for (let k = lowerBound(index.cy, top); k < index.order.length && index.cy[k]! <= bottom; k++) {
    const i = index.order[k]!;
    const cx = (chars.x0[i]! + chars.x1[i]!) / 2;
    if (cx >= left && cx <= right) inside.push(i);
  }
  inside.sort((a, b) => a - b);
  if (inside.length === 0) return undefined;
  const v = [...ruledV, ...virtualColumns(h, ruledV, chars, inside, ys[0]!, ys[ys.length - 1]!)];
  const xs = cluster(v.map((r) => r.x0));
  if (ys.length < 2 || xs.length < 2) return undefined;
  const x0 = xs[0]!;
  const x1 = xs[xs.length - 1]!;
  const y0 = ys[0]!;
  const y1 = ys[ys.length - 1]!;
  if (x1 - x0 < 20 || y1 - y0 < 8) return undefined;
  const rows = ys.length - 1;
  const cols = xs.length - 1;
  // Far more slots than characters: a drawing (diagram, chart grid), not a table.
  if (rows * cols > 4 * inside.length + 64) return undefined;
  // Rules by boundary, so a span check looks only at the rules on that line.
  const hAt = ys.map((y) => h.filter((r) => Math.abs(r.y0 - y) <= TOL));
  const vAt = xs.map((x) => v.filter((r) => Math.abs(r.x0 - x) <= TOL));
  // owner[r*cols+c] = index of the cell covering that grid slot.
  const owner = new Int32Array(rows * cols).fill(-1);
  const cells: GridCell[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (owner[r * cols + c] !== -1) continue;
      let colSpan = 1;
      while (c + colSpan < cols && !covered(vAt[c + colSpan]!, false, xs[c + colSpan]!, ys[r]!, ys[r + 1]!)) colSpan++;
      let rowSpan = 1;
      while (r + rowSpan < rows && !covered(hAt[r + rowSpan]!, true, ys[r + rowSpan]!, xs[c]!, xs[c + colSpan]!)) rowSpan++;
      const id = cells.length;
      cells.push({ row: r, col: c, rowSpan, colSpan, chars: [] });
      for (let rr = r; rr < r + rowSpan; rr++) for (let cc = c; cc < c + colSpan; cc++) if (owner[rr * cols + cc] === -1) owner[rr * cols + cc] = id;
    }
  }
  let any = false;
  for (const i of inside) {
    const cx = (chars.x0[i]! + chars.x1[i]!) / 2;
    const cy = (chars.y0[i]! + chars.y1[i]!) / 2;
    if (cx < x0 || cx > x1 || cy < y0 || cy > y1) continue;
    const c = upperIndex(xs, cx);
    const r = upperIndex(ys, cy);
    const id = owner[r * cols + c]!;
    if (id >= 0) {
      cells[id]!.chars.push(i);
      any = true;
    }
  }
  // A single box with text is a framed paragraph, not a table.
  if (!any || (rows === 1 && cols === 1)) return undefined;
  return { x0, y0, x1, y1, ys, xs, cells };
}

/** Character indices sorted by the y of their centres, for range queries. */
interface CentreIndex {
  order: Int32Array;
  cy: Float32Array;
}

function centreIndex(chars: PageChars): CentreIndex {
  // Sort packed keys (centre y in 1/8 pt, then index) numerically: no comparator calls.
  const keys = new Float64Array(chars.count);
  for (let i = 0; i < chars.count; i++) keys[i] = Math.round(((chars.y0[i]! + chars.y1[i]!) / 2 + 1e4) * 8) * INDEX_SPAN + i;
  keys.sort();
  const order = new Int32Array(chars.count);
  const cy = new Float32Array(chars.count);
  for (let k = 0; k < keys.length; k++) {
    const i = keys[k]! % INDEX_SPAN;
    order[k] = i;
    cy[k] = (chars.y0[i]! + chars.y1[i]!) / 2;
  }
  return { order, cy };
}

/** Characters per page are fewer than this (packing key of `centreIndex`). */
const INDEX_SPAN = 1 << 22;

function lowerBound(sorted: Float32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Column boundaries that are not drawn: the ends of horizontal rules reaching past the outermost
 * vertical rule (booktabs-style tables ruled only inside), and whitespace gaps that run through
 * the whole height of a column of the grid (two text columns between the same two rules).
 */
function virtualColumns(h: Rule[], v: Rule[], chars: PageChars, inside: readonly number[], top: number, bottom: number): Rule[] {
  const out: Rule[] = [];
  const edges = cluster(v.map((r) => r.x0));
  const left = Math.min(...h.map((r) => r.x0));
  const right = Math.max(...h.map((r) => r.x1));
  const bounds = [...edges];
  if (left < bounds[0]! - 5) {
    bounds.unshift(left);
    out.push({ x0: left, x1: left, y0: top, y1: bottom });
  }
  if (right > bounds[bounds.length - 1]! + 5) {
    bounds.push(right);
    out.push({ x0: right, x1: right, y0: top, y1: bottom });
  }
  for (let c = 0; c + 1 < bounds.length; c++) {
    const lo = bounds[c]!;
    const hi = bounds[c + 1]!;
    const spans: [number, number][] = [];
    let sizeSum = 0;
    for (const i of inside) {
      const cx = (chars.x0[i]! + chars.x1[i]!) / 2;
      if (cx <= lo || cx >= hi) continue;
      spans.push([chars.x0[i]!, chars.x1[i]!]);
      sizeSum += chars.size[i]!;
    }
    if (spans.length < 4) continue;
    const minGap = Math.max(4, (sizeSum / spans.length) * 0.9);
    spans.sort((a, b) => a[0] - b[0]);
    let reach = spans[0]![1];
    for (const [x0, x1] of spans) {
      if (x0 - reach >= minGap) {
        const x = (reach + x0) / 2;
        out.push({ x0: x, x1: x, y0: top, y1: bottom });
      }
      reach = Math.max(reach, x1);
    }
  }
  return out;
}

/** Index of the interval of `bounds` containing v (clamped). */
function upperIndex(bounds: number[], v: number): number {
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bounds[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

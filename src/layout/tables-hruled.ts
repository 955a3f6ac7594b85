import { ROTATED, type PageChars } from './chars.js';
import type { Rule } from './rules.js';
import { buildRuns, type Run } from './runs.js';
import type { GridCell, RuledTable } from './tables-ruled.js';
import { groupRows } from './tables-unruled.js';

/**
 * Tables ruled with horizontal lines only (booktabs style, word-processor tables whose only border
 * is the one under the header): a top rule, a header rule and a bottom rule, or just some of them.
 * Rules give the table's width and where header and body start; columns come from whitespace
 * gutters the body lines leave open; rows from text lines, a cell's wrapped lines joined.
 *
 * A rule anchors a table in one of two ways:
 * - as a top rule with 1-3 header lines under it and a header rule of the same width below them;
 * - as a header rule with header lines (2+ cells) right above it, or as a top rule whose body ends at
 *   a bottom rule of the same width.
 * A lone rule with prose around it (a heading underline, a footnote rule, a running header's rule)
 * never qualifies: the lines under it must form at least 2 rows of at least 2 aligned cells.
 */

/** Rules shorter than this (points) do not anchor a table. */
const MIN_RULE = 72;
/** More standalone rules than this on a page: a chart or drawing, not tables. */
const MAX_ANCHORS = 100;
/** Header lines above a header rule, or between a top and a header rule. */
const MAX_HEADER_LINES = 3;
/** A column whose lines are typically at least this many ems wide holds prose. */
const PROSE_EMS = 12;

interface Line {
  /** Position in the page's lines (a view restricted to a table's extent keeps it). */
  index: number;
  runs: Run[];
  y0: number;
  y1: number;
  size: number;
}

/** A line as seen from one table extent: its runs overlapping the extent, or `cross` when one reaches well past it. */
type View = Run[] | 'cross' | undefined;

interface Gutter {
  lo: number;
  hi: number;
}

interface Body {
  lines: Line[];
  gutters: Gutter[];
  /** A rule of the table's width closes the body (a bottom rule). */
  closed: boolean;
}

/**
 * Finds horizontally ruled tables among `rules` (merged horizontal rules crossing no vertical rule),
 * over the characters not `consumed` by grid tables.
 */
export function findHRuledTables(rules: readonly Rule[], chars: PageChars, consumed: Uint8Array): RuledTable[] {
  const anchors = rules.filter((r) => r.x1 - r.x0 >= MIN_RULE).sort((a, b) => a.y0 - b.y0);
  if (anchors.length === 0 || anchors.length > MAX_ANCHORS) return [];
  // Runs cost a pass over the page: only when some rule has a line of 2+ cells under it.
  if (!anchors.some((anchor) => cellsBelow(anchor, chars, consumed))) return [];
  const lines = groupLines(buildRuns(chars, consumed));
  if (lines.length < 3) return [];
  const taken = new Uint8Array(lines.length);
  const tables: RuledTable[] = [];
  let after = -Infinity;
  for (const anchor of anchors) {
    if (anchor.y0 <= after) continue;
    const found = tableAt(anchor, anchors, lines, taken);
    if (!found) continue;
    const table = buildTable(found, chars, consumed);
    if (!table) continue;
    for (const line of [...found.header, ...found.body.lines]) taken[line.index] = 1;
    after = table.y1;
    tables.push(table);
  }
  return tables;
}

/**
 * Whether the first text line under a rule, within its width, has a gap of 0.9 em or more (what
 * any table anchored there needs: a header or body line of 2+ cells) and a piece short enough for a cell.
 */
function cellsBelow(anchor: Rule, chars: PageChars, consumed: Uint8Array): boolean {
  // Two linear passes (no sort of the page's characters): the first line's centre, then its characters.
  const usable = (i: number): boolean => {
    if (consumed[i] || chars.flags[i]! & ROTATED || chars.code[i] === 32) return false;
    const cx = (chars.x0[i]! + chars.x1[i]!) / 2;
    return cx >= anchor.x0 && cx <= anchor.x1;
  };
  let first = -1;
  let firstY = Infinity;
  for (let i = 0; i < chars.count; i++) {
    const cy = (chars.y0[i]! + chars.y1[i]!) / 2;
    if (cy > anchor.y0 && cy < firstY && usable(i)) ((first = i), (firstY = cy));
  }
  if (first < 0) return false;
  // The line: centres down to half a size below the first character's.
  const last = firstY + 0.5 * chars.size[first]!;
  const spans: number[] = [];
  for (let i = 0; i < chars.count; i++) {
    const cy = (chars.y0[i]! + chars.y1[i]!) / 2;
    if (cy >= firstY && cy <= last && usable(i)) spans.push(i);
  }
  spans.sort((a, b) => chars.x0[a]! - chars.x0[b]!);
  // Pieces of the line between gaps: 2+ of them, one short (page columns of prose are all wide).
  let pieces = 1;
  let start = chars.x0[spans[0]!]!;
  let reach = chars.x1[spans[0]!]!;
  let size = chars.size[spans[0]!]!;
  let short = false;
  for (const i of spans) {
    if (chars.x0[i]! - reach >= 0.9 * chars.size[i]!) {
      short ||= reach - start < PROSE_EMS * size;
      pieces++;
      start = chars.x0[i]!;
      size = chars.size[i]!;
    }
    reach = Math.max(reach, chars.x1[i]!);
  }
  short ||= reach - start < PROSE_EMS * size;
  return pieces >= 2 && short;
}

interface Found {
  x0: number;
  x1: number;
  header: Line[];
  body: Body;
}

function tableAt(anchor: Rule, anchors: readonly Rule[], lines: readonly Line[], taken: Uint8Array): Found | undefined {
  // Views are computed as growth reaches the lines: most anchors stop within a few lines.
  const seen = new Uint8Array(lines.length);
  const cache: View[] = new Array<View>(lines.length);
  const view = (i: number): View => {
    if (!seen[i]) ((seen[i] = 1), (cache[i] = taken[i] ? 'cross' : viewOf(lines[i]!, anchor.x0, anchor.x1)));
    return cache[i];
  };
  const ruleBetween = (top: number, bottom: number): Rule | undefined =>
    anchors.find((r) => r.y0 > top && r.y0 < bottom && sameWidth(r, anchor, 0.5));
  const below = (y: number): number => {
    let i = 0;
    while (i < lines.length && (lines[i]!.y0 + lines[i]!.y1) / 2 < y) i++;
    return i;
  };
  // Top rule, header lines, header rule of the same width.
  const headerRule = anchors.find((r) => r.y0 > anchor.y0 && sameWidth(r, anchor, 0.9));
  if (headerRule) {
    const header: Line[] = [];
    let fits = true;
    for (let i = below(anchor.y0); i < lines.length && lines[i]!.y1 < headerRule.y0 + 2; i++) {
      const current = view(i);
      if (current === 'cross') fits = false;
      else if (current) header.push(withRuns(lines[i]!, current));
    }
    if (fits && header.length > 0 && header.length <= MAX_HEADER_LINES && header[0]!.runs.length >= 2) {
      const body = growBody(lines, view, below(headerRule.y0), headerRule.y0, ruleBetween);
      if (body && validBody(body)) return { x0: anchor.x0, x1: anchor.x1, header, body };
    }
  }
  // Header rule with header lines above it, or a top rule with a bottom rule closing the body.
  const body = growBody(lines, view, below(anchor.y0), anchor.y0, ruleBetween);
  if (!body || !validBody(body)) return undefined;
  const header = headerAbove(lines, view, below(anchor.y0) - 1, anchor.y0, body.gutters);
  if (header.length === 0 && !body.closed) return undefined;
  return { x0: anchor.x0, x1: anchor.x1, header, body };
}

/** The runs of a line overlapping x0..x1; `cross` when one of them reaches past the extent (prose wider than the table). */
function viewOf(line: Line, x0: number, x1: number): View {
  let runs: Run[] | undefined;
  for (const run of line.runs) {
    if (run.x1 <= x0 || run.x0 >= x1) continue;
    if (run.x0 < x0 - run.size || run.x1 > x1 + run.size) return 'cross';
    (runs ??= []).push(run);
  }
  return runs;
}

function withRuns(line: Line, runs: Run[]): Line {
  return runs.length === line.runs.length ? line : { ...line, runs };
}

function sameWidth(a: Rule, b: Rule, share: number): boolean {
  const overlap = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  return overlap >= share * Math.max(a.x1 - a.x0, b.x1 - b.x0);
}

/**
 * Body lines from `start` (the first line below the rule at `ruleY`) while they keep the columns:
 * each line is close to the one before, stays inside the extent and closes no gutter that two
 * lines already confirm. A line right after a rule must have 2+ cells (a note under a bottom rule
 * does not continue the table).
 */
function growBody(lines: readonly Line[], viewAt: (i: number) => View, start: number, ruleY: number, ruleBetween: (top: number, bottom: number) => Rule | undefined): Body | undefined {
  const body: Line[] = [];
  let gutters: Gutter[] = [];
  let bottom = ruleY;
  let closed = false;
  for (let i = start; i < lines.length; i++) {
    const view = viewAt(i);
    if (view === undefined) continue;
    const line = lines[i]!;
    const rule = body.length > 0 ? ruleBetween(bottom - 2, (line.y0 + line.y1) / 2) : undefined;
    const afterRule = body.length === 0 || rule !== undefined;
    if (line.y0 - bottom > (afterRule ? 2 : 1.5) * (line.y1 - line.y0)) {
      closed ||= rule !== undefined || ruleBetween(bottom - 2, bottom + 2 * line.size) !== undefined;
      break;
    }
    if (view === 'cross' || (afterRule && view.length < 2)) {
      closed ||= rule !== undefined;
      break;
    }
    const current = withRuns(line, view);
    if (body.length === 0) gutters = lineGaps(current);
    else {
      const next = narrowGutters(gutters, current);
      if (next.killed.some((g) => support(g, gutters, body) >= 2)) {
        closed ||= rule !== undefined;
        break;
      }
      gutters = next.kept;
    }
    if (gutters.length === 0) return undefined;
    body.push(current);
    bottom = line.y1;
  }
  if (body.length === 0) return undefined;
  if (!closed) closed = ruleBetween(bottom - 2, bottom + 2 * body[body.length - 1]!.size) !== undefined;
  return { lines: body, gutters: gutters.filter((g) => support(g, gutters, body) >= 2), closed };
}

/**
 * At least 2 columns and 2 rows of at least 2 cells; not a code listing (mostly monospace) and not
 * page columns of prose (every column's lines as wide as a text column).
 */
function validBody(body: Body): boolean {
  if (body.gutters.length === 0) return false;
  const bounds = body.gutters.map((g) => (g.lo + g.hi) / 2);
  const rows = logicalRows(body.lines, bounds);
  let full = 0;
  for (const row of rows) if (row.columns.size >= 2) full++;
  if (full < 2) return false;
  let chars = 0;
  let mono = 0;
  const widths: number[][] = bounds.map(() => []);
  widths.push([]);
  for (const line of body.lines) {
    for (const run of line.runs) {
      chars += run.chars;
      mono += run.mono;
      widths[columnOf(bounds, (run.x0 + run.x1) / 2)]!.push((run.x1 - run.x0) / run.size);
    }
  }
  if (mono * 2 > chars || evenlySpaced(body.lines)) return false;
  return widths.some((w) => w.length > 0 && median(w) < PROSE_EMS);
}

/**
 * Code in a fixed-pitch font the file does not declare monospace: every run with letters advances
 * the same width per character. Proportional text varies; CJK and mostly-digit runs are left out
 * (both are evenly spaced in any font).
 */
function evenlySpaced(lines: readonly Line[]): boolean {
  const pitches: number[] = [];
  for (const line of lines) {
    for (const run of line.runs) {
      if (run.text.length < 4 || !LATIN_WORD.test(run.text) || CJK_TEXT.test(run.text)) continue;
      pitches.push((run.x1 - run.x0) / run.text.length / run.size);
    }
  }
  if (pitches.length < 4) return false;
  const mid = median(pitches);
  return pitches.every((p) => Math.abs(p - mid) <= 0.04 * mid);
}

/** Three letters in a row: codes such as `E1001` are mostly (tabular) digits. */
const LATIN_WORD = /[A-Za-z]{3}/;
const CJK_TEXT = /[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/;

function median(values: number[]): number {
  values.sort((a, b) => a - b);
  return values[values.length >> 1]!;
}

/** Header lines right above a header rule: tight, 2+ cells, closing no body gutter. */
function headerAbove(lines: readonly Line[], viewAt: (i: number) => View, from: number, ruleY: number, gutters: readonly Gutter[]): Line[] {
  const header: Line[] = [];
  let top = ruleY;
  for (let i = from; i >= 0 && header.length < MAX_HEADER_LINES; i--) {
    const view = viewAt(i);
    if (view === undefined) continue;
    const line = lines[i]!;
    const limit = header.length === 0 ? 1 : 0.5;
    if (view === 'cross' || view.length < 2 || top - line.y1 > limit * (line.y1 - line.y0)) break;
    const current = withRuns(line, view);
    if (narrowGutters(gutters, current).killed.length > 0) break;
    header.unshift(current);
    top = line.y0;
  }
  return header;
}

/** Gaps between a line's runs at least 0.9 em wide. */
function lineGaps(line: Line): Gutter[] {
  const runs = [...line.runs].sort((a, b) => a.x0 - b.x0);
  const out: Gutter[] = [];
  let reach = runs[0]!.x1;
  for (let k = 1; k < runs.length; k++) {
    const run = runs[k]!;
    if (run.x0 - reach >= 0.9 * run.size) out.push({ lo: reach, hi: run.x0 });
    reach = Math.max(reach, run.x1);
  }
  return out;
}

/** Gutters left after a line's runs cover parts of them; `killed` ones are narrower than 0.9 em after. */
function narrowGutters(gutters: readonly Gutter[], line: Line): { kept: Gutter[]; killed: Gutter[] } {
  const kept: Gutter[] = [];
  const killed: Gutter[] = [];
  const minGap = 0.9 * line.size;
  for (const g of gutters) {
    let lo = g.lo;
    let hi = g.hi;
    for (const run of line.runs) {
      if (run.x1 <= lo || run.x0 >= hi) continue;
      // Keep the wider side of the run.
      if (run.x0 - lo >= hi - run.x1) hi = run.x0;
      else lo = run.x1;
    }
    if (hi - lo >= minGap) kept.push({ lo, hi });
    else killed.push(g);
  }
  return { kept, killed };
}

/** Lines with text in the column right of a gutter: two confirm it as a column boundary. */
function support(g: Gutter, gutters: readonly Gutter[], lines: readonly Line[]): number {
  let end = Infinity;
  for (const other of gutters) if (other.lo >= g.hi && other.lo < end) end = other.lo;
  let n = 0;
  for (const line of lines) if (line.runs.some((r) => r.x0 >= g.hi - 1 && r.x0 < end)) n++;
  return n;
}

interface LogicalRow {
  lines: Line[];
  columns: Set<number>;
}

function columnOf(bounds: readonly number[], x: number): number {
  let c = 0;
  while (c < bounds.length && x > bounds[c]!) c++;
  return c;
}

/**
 * Lines grouped into rows: a line continues the row above (a wrapped cell) when its first column is
 * empty, all its cells are in columns the row already has text in, and it sits closer to the line
 * above than rows starting in the first column sit to theirs; otherwise it starts a row.
 */
function logicalRows(lines: readonly Line[], bounds: readonly number[]): LogicalRow[] {
  const columns = lines.map((line) => new Set(line.runs.map((r) => columnOf(bounds, (r.x0 + r.x1) / 2))));
  const centre = (line: Line): number => (line.y0 + line.y1) / 2;
  let rowPitch = Infinity;
  for (let i = 1; i < lines.length; i++) if (columns[i]!.has(0)) rowPitch = Math.min(rowPitch, centre(lines[i]!) - centre(lines[i - 1]!));
  const rows: LogicalRow[] = [];
  lines.forEach((line, i) => {
    const cols = columns[i]!;
    const row = rows[rows.length - 1];
    const pitch = i > 0 ? centre(line) - centre(lines[i - 1]!) : Infinity;
    const continues = row !== undefined && !cols.has(0) && [...cols].every((c) => row.columns.has(c)) && pitch < 0.9 * rowPitch;
    if (continues) row.lines.push(line);
    else rows.push({ lines: [line], columns: new Set(cols) });
  });
  return rows;
}

function buildTable(found: Found, chars: PageChars, consumed: Uint8Array): RuledTable | undefined {
  const { header, body } = found;
  const all = [...header, ...body.lines];
  let x0 = found.x0;
  let x1 = found.x1;
  for (const line of all) for (const run of line.runs) ((x0 = Math.min(x0, run.x0)), (x1 = Math.max(x1, run.x1)));
  // Header words reach into the gutter above right-aligned (numeric) columns: bounds fall in what they leave open.
  let gutters = body.gutters;
  for (const line of header) {
    const narrowed = narrowGutters(gutters, line);
    if (narrowed.killed.length === 0) gutters = narrowed.kept;
  }
  const bounds = gutters.map((g) => (g.lo + g.hi) / 2);
  const headerRows = header.length > 0 ? logicalRows(header, bounds) : [];
  const rows = [...headerRows, ...logicalRows(body.lines, bounds)];
  const ys: number[] = [rows[0]!.lines[0]!.y0 - 1];
  for (let r = 1; r < rows.length; r++) {
    const above = rows[r - 1]!.lines;
    ys.push((above[above.length - 1]!.y1 + rows[r]!.lines[0]!.y0) / 2);
  }
  const last = rows[rows.length - 1]!.lines;
  ys.push(last[last.length - 1]!.y1 + 1);
  const xs = [x0, ...bounds, x1];
  const cols = xs.length - 1;
  const cells: GridCell[] = [];
  for (let r = 0; r < rows.length; r++) for (let c = 0; c < cols; c++) cells.push({ row: r, col: c, rowSpan: 1, colSpan: 1, chars: [] });
  const top = ys[0]!;
  const bottom = ys[ys.length - 1]!;
  for (let i = 0; i < chars.count; i++) {
    if (consumed[i] || chars.flags[i]! & ROTATED) continue;
    const cy = (chars.y0[i]! + chars.y1[i]!) / 2;
    if (cy < top || cy > bottom) continue;
    const cx = (chars.x0[i]! + chars.x1[i]!) / 2;
    if (cx < x0 || cx > x1) continue;
    cells[slotIndex(ys, cy) * cols + columnOf(bounds, cx)]!.chars.push(i);
  }
  return { x0, y0: top, x1, y1: bottom, ys, xs, cells, headerRows: Math.max(1, headerRows.length) };
}

function slotIndex(bounds: readonly number[], v: number): number {
  let r = 0;
  while (r + 2 < bounds.length && v > bounds[r + 1]!) r++;
  return r;
}

/** The page's text lines (see `groupRows`), each with its runs left to right and its largest size. */
function groupLines(runs: readonly Run[]): Line[] {
  return groupRows(runs).map((row, index) => {
    const lineRuns = row.ids.map((id) => runs[id]!);
    return { index, runs: lineRuns, y0: row.y0, y1: row.y1, size: Math.max(...lineRuns.map((r) => r.size)) };
  });
}

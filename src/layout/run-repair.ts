import { ROTATED, type PageChars } from './chars.js';
import { sameLine } from './lines.js';
import { buildRuns, type Run } from './runs.js';

/**
 * Repairs of runs built in content order, before reading order sees them: characters a producer
 * drew out of order (quote marks in another font after the line's text) and list markers set apart
 * from their item by a tab stop.
 */

/** Share of a character's width it may overlap a character of the other run and still fit its gap. */
const FIT_OVERLAP = 0.3;

/**
 * Runs on one line whose characters sit in the gaps between another run's characters are one piece
 * of text drawn in two passes (LibreOffice draws a line's quote marks after the text around them):
 * they are rebuilt as one run from their characters in left-to-right order. Text drawn twice (faux
 * bold by overprinting) overlaps character by character and is left alone.
 */
export function mergeInterleavedRuns(runs: Run[], chars: PageChars, consumed: Uint8Array): Run[] {
  if (runs.length < 2) return runs;
  const byTop = runs.map((_, i) => i).sort((a, b) => runs[a]!.y0 - runs[b]!.y0);
  const replaced = new Set<number>();
  const added: Run[] = [];
  for (let p = 0; p < byTop.length; p++) {
    const a = byTop[p]!;
    if (replaced.has(a)) continue;
    let members: number[] | undefined;
    for (let q = p + 1; q < byTop.length; q++) {
      const b = byTop[q]!;
      const ra = runs[a]!;
      const rb = runs[b]!;
      if (rb.y0 >= ra.y1) break;
      if (replaced.has(b) || !sameLine(ra, rb) || !overlapsAcross(ra, rb)) continue;
      const idsA = members ?? runChars(ra, chars, consumed);
      const idsB = runChars(rb, chars, consumed);
      if (!fitsBetween(idsA, idsB, chars)) continue;
      members = [...idsA, ...idsB];
      replaced.add(b);
    }
    if (!members) continue;
    replaced.add(a);
    members.sort((i, j) => chars.x0[i]! - chars.x0[j]! || i - j);
    added.push(...buildRuns(chars, consumed, members));
  }
  if (replaced.size === 0) return runs;
  return [...runs.filter((_, i) => !replaced.has(i)), ...added].sort((x, y) => x.order - y.order);
}

/** The runs' horizontal extents overlap by more than a sliver. */
function overlapsAcross(a: Run, b: Run): boolean {
  return Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0.2 * Math.min(a.size, b.size);
}

/** Character indices of a run built over the whole page: its content-order span less the characters skipped there. */
function runChars(run: Run, chars: PageChars, consumed: Uint8Array): number[] {
  const out: number[] = [];
  const end = run.end ?? run.order;
  for (let i = run.order; i <= end; i++) if (!consumed[i] && !(chars.flags[i]! & ROTATED)) out.push(i);
  return out;
}

/**
 * Every character of `small` (the run with fewer) fits a gap between the other's characters. The
 * other run's characters, sorted by left edge, do not overlap one another: a character of `small`
 * can only collide with the ones next to where its left edge falls (binary search, not all pairs).
 */
function fitsBetween(a: number[], b: number[], chars: PageChars): boolean {
  const [small, large] = a.length <= b.length ? [a, b] : [b, a];
  const { x0, x1 } = chars;
  const sorted = large.slice().sort((i, j) => x0[i]! - x0[j]!);
  for (const i of small) {
    const width = Math.max(0.1, x1[i]! - x0[i]!);
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (x0[sorted[mid]!]! < x0[i]!) lo = mid + 1;
      else hi = mid;
    }
    for (let k = Math.max(0, lo - 2); k < Math.min(sorted.length, lo + 2); k++) {
      const j = sorted[k]!;
      const overlap = Math.min(x1[i]!, x1[j]!) - Math.max(x0[i]!, x0[j]!);
      if (overlap > FIT_OVERLAP * Math.min(width, Math.max(0.1, x1[j]! - x0[j]!))) return false;
    }
  }
  return true;
}

/** A bullet, dash or number that opens a list item, alone in its run. */
const MARKER_ONLY = /^(?:[•◦▪▫●○■□‣⁃∙·\-–—*➢►▶✓✔]|\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,6})[.)）]|（\d{1,3}）|[一二三四五六七八九十]{1,3}、)$/;
/** Widest gap (ems) between a marker and its item's text. */
const MARKER_GAP_EMS = 5;

/**
 * A list marker set apart from its item by a tab (word processors put bullets and numbers at one
 * indent and the text at the next) joins the run to its right on the same line, so the marker
 * column is not read as a column of its own. Only a marker that opens its line: a dash inside a
 * table row is a cell ("-" for none).
 */
export function attachListMarkers(runs: Run[]): Run[] {
  const markers: number[] = [];
  runs.forEach((run, i) => {
    if (run.chars <= 4 && MARKER_ONLY.test(run.text)) markers.push(i);
  });
  if (markers.length === 0) return runs;
  const gone = new Set<number>();
  const out = runs.slice();
  for (const m of markers) {
    const marker = runs[m]!;
    if (runs.some((run, i) => i !== m && run.x1 <= marker.x0 && sameLine(marker, run))) continue;
    let best = -1;
    for (let i = 0; i < runs.length; i++) {
      if (i === m || gone.has(i)) continue;
      const run = out[i]!;
      if (run.x0 < marker.x1 || run.x0 - marker.x1 > MARKER_GAP_EMS * Math.max(marker.size, run.size) || !sameLine(marker, run)) continue;
      if (best < 0 || run.x0 < out[best]!.x0) best = i;
    }
    if (best < 0 || MARKER_ONLY.test(out[best]!.text)) continue;
    out[best] = joinMarker(marker, out[best]!);
    gone.add(m);
  }
  return out.filter((_, i) => !gone.has(i));
}

function joinMarker(marker: Run, item: Run): Run {
  const joined: Run = {
    ...item,
    text: `${marker.text} ${item.text}`,
    x0: Math.min(marker.x0, item.x0),
    y0: Math.min(marker.y0, item.y0),
    y1: Math.max(marker.y1, item.y1),
    chars: marker.chars + item.chars,
    styled: marker.styled + item.styled,
    bold: marker.bold + item.bold,
    italic: marker.italic + item.italic,
    mono: marker.mono + item.mono,
    order: Math.min(marker.order, item.order),
  };
  return joined;
}

import type { Run } from './runs.js';
import { firstCode, lastCode, needsSpace } from './script.js';

/** A line of text inside one reading-order region: runs on the same baseline, in visual order. */
export interface Line {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  size: number;
  bold: boolean;
  italic: boolean;
  mono: boolean;
  rtl: boolean;
  font: number;
  /**
   * Colour (0xRRGGBB) of all its letters and digits; absent when they differ (a link inside the
   * line) or the source has no colour (OCR).
   */
  color?: number;
  chars: number;
  /** Index of the reading-order region the line came from. */
  region: number;
  /** Adjacent CJK pairs and the set-apart ones among them (see `Run`); absent for OCR text. */
  cjkPairs?: number;
  cjkLoose?: number;
}

/** Groups a region's runs (already in top-down order) into lines. */
export function buildLines(runs: readonly Run[], ids: readonly number[], region: number): Line[] {
  const sorted = [...ids].sort((a, b) => centerY(runs[a]!) - centerY(runs[b]!));
  const groups: Run[][] = [];
  for (const id of sorted) {
    const run = runs[id]!;
    const last = groups[groups.length - 1];
    if (last && sameLine(last[0]!, run)) last.push(run);
    else groups.push([run]);
  }
  return groups.map((group) => toLine(group, region));
}

function centerY(run: Run): number {
  return (run.y0 + run.y1) / 2;
}

/** Two runs on one line: they overlap by 60% of the lower one's height. */
export function sameLine(a: Run, b: Run): boolean {
  const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return overlap >= 0.6 * Math.min(a.y1 - a.y0, b.y1 - b.y0);
}

function toLine(group: Run[], region: number): Line {
  const rtl = group.reduce((n, r) => n + (r.rtl ? r.chars : 0), 0) * 2 > group.reduce((n, r) => n + r.chars, 0);
  group.sort((a, b) => (rtl ? b.x1 - a.x1 : a.x0 - b.x0));
  let text = '';
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  let size = 0;
  let chars = 0;
  let bold = 0;
  let italic = 0;
  let mono = 0;
  let styled = 0;
  let font = group[0]!.font;
  let fontChars = 0;
  let color: number | undefined;
  let oneColor = true;
  let cjkPairs = 0;
  let cjkLoose = 0;
  let cjk = 0;
  for (const run of group) {
    cjk += run.cjk ?? 0;
    cjkPairs += run.cjkPairs ?? 0;
    cjkLoose += run.cjkLoose ?? 0;
    if (text && needsSpace(lastCode(text), firstCode(run.text))) text += ' ';
    text += run.text;
    x0 = Math.min(x0, run.x0);
    y0 = Math.min(y0, run.y0);
    x1 = Math.max(x1, run.x1);
    y1 = Math.max(y1, run.y1);
    size = Math.max(size, run.size);
    chars += run.chars;
    styled += run.styled;
    bold += run.bold;
    italic += run.italic;
    mono += run.mono;
    if (run.chars > fontChars) ((fontChars = run.chars), (font = run.font));
    // Runs of punctuation alone (a bullet, a dash) do not decide the colour.
    if (run.styled === 0) continue;
    if (run.color === undefined || (color !== undefined && run.color !== color)) oneColor = false;
    else color = run.color;
  }
  const line: Line = { text, x0, y0, x1, y1, size, bold: styled > 0 && bold >= 0.97 * styled, italic: italic * 2 > styled, mono: styled > 0 && (mono >= 0.9 * styled || monoWithCjk(group[0]!, text, mono, styled - cjk)), rtl, font, chars, region };
  if (oneColor && color !== undefined) line.color = color;
  if (cjkPairs > 0) ((line.cjkPairs = cjkPairs), (line.cjkLoose = cjkLoose));
  return line;
}

/** Text up to the first CJK character holds a comment mark or an opening quote. */
const CODE_BEFORE_CJK = /^[^\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]*(?:#|\/\/|--|;|\/\*|<!--|["'`“‘「])/;

/**
 * A line of code with a comment or string in Chinese (set in a CJK font, not the code's monospace
 * one): it opens with monospace text, all its non-CJK letters and digits are monospace, and its
 * CJK text follows a comment mark or a quote. A line of prose opening with an identifier does not.
 */
function monoWithCjk(first: Run, text: string, mono: number, latin: number): boolean {
  return latin >= 3 && mono >= 0.9 * latin && first.monoStart === true && CODE_BEFORE_CJK.test(text);
}

/** Channel difference above which two text colours are told apart (near-blacks and near-greys are one). */
const COLOR_STEP = 48;

/** Whether two text colours are clearly different; false when either is unknown. */
export function colorsDiffer(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return Math.abs((a >> 16) - (b >> 16)) > COLOR_STEP || Math.abs(((a >> 8) & 0xff) - ((b >> 8) & 0xff)) > COLOR_STEP || Math.abs((a & 0xff) - (b & 0xff)) > COLOR_STEP;
}

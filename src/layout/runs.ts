import { BOLD, FILE_SPACE, ITALIC, MONO, NEWLINE_BEFORE, ROTATED, SPACE_BEFORE, type PageChars } from './chars.js';
import { isCjk, isCurlyQuote, isHangul, isRtl, isWidePunctuation } from './script.js';

/**
 * A run: characters on one baseline with no wide gap, in content order — a line of a column, a
 * table cell's line, a heading. Runs are the units of reading order and tables; lines are built
 * from runs later. Text already has word spaces (from the file's spaces or from gaps).
 */
export interface Run {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Largest font size in the run (superscripts are smaller, so they do not pull it down). */
  size: number;
  /** Characters (without spaces); letters and digits among them; how many of those are bold / italic / monospace. */
  chars: number;
  styled: number;
  bold: number;
  italic: number;
  mono: number;
  /** Colour (0xRRGGBB) of all its letters and digits; absent when they differ or the source has no colour (OCR). */
  color?: number;
  /** Font (interned id) of the first letter or digit (of the first character when it has none). */
  font: number;
  /** True when most characters are right-to-left script. */
  rtl: boolean;
  /** Content-stream position of the first character (a stable tiebreak). */
  order: number;
  /** Content-stream position of the last character (the run's characters lie in order..end). */
  end?: number;
  /**
   * Adjacent CJK character pairs, and how many of them are set apart (more than a hair between
   * them): a line of CJK text set at its natural advance was broken by characters, not at a space.
   */
  cjkPairs?: number;
  cjkLoose?: number;
  /** CJK characters among `styled` (a code comment in Chinese is set in a CJK font, not the code's monospace one). */
  cjk?: number;
  /** The first character is set in a monospace font. */
  monoStart?: boolean;
}

/** A gap wider than this many ems ends a run (column gutters, table cells). */
const RUN_BREAK_EMS = 1.0;
/** A gap wider than this many ems is a word space even when the file has no space character. */
const SPACE_EMS = 0.22;
/** Gap between two CJK characters (ems) above which they are set apart (justified, letter-spaced). */
const CJK_LOOSE_EMS = 0.08;
/**
 * Gap between two CJK characters (ems) that is a word space (`第一章 概述`) when the run's other CJK
 * pairs touch: at least this many of them (letter-spaced `目  录` and justified lines have none).
 */
const CJK_SPACE_EMS = 0.2;
const MIN_TIGHT_PAIRS = 2;
/** A glyph box taller than this many ems is the font's, not the glyph's (text boxes are about 1.2 em). */
const TALL_GLYPH_EMS = 1.6;
/** Widest run of spaces (ems) that aligns code in a monospace line rather than separating columns. */
const MONO_GAP_MAX_EMS = 40;

/**
 * Builds runs from the characters not marked in `consumed` (characters already claimed by a
 * table), in one pass in content order; `subset` limits it to those character indices (ascending).
 */
export function buildRuns(chars: PageChars, consumed?: Uint8Array, subset?: ArrayLike<number>): Run[] {
  const runs: Run[] = [];
  const { code, x0, y0, x1, y1, size, flags, font, color } = chars;
  let run: Run | undefined;
  // Code points of the current run (spaces included), reused: no string per character.
  const codes: number[] = [];
  let lastX0 = 0;
  let lastX1 = 0;
  let lastCode = 0;
  let lastFlags = 0;
  // Content index of the run's last character so far (its `end`, set when it is finished).
  let lastIndex = 0;
  let rtlCount = 0;
  // The run holds a combining mark (U+0300-U+036F).
  let marks = false;
  // Colour of the run's letters and digits so far (-1: none yet) and whether they differ.
  let runColor = -1;
  let mixedColors = false;
  // Positions in `codes` of wide gaps between CJK characters: word spaces if the run is tight elsewhere.
  const cjkGaps: number[] = [];
  const finish = (): void => {
    if (!run) return;
    if (cjkGaps.length > 0 && run.cjkPairs! - run.cjkLoose! >= MIN_TIGHT_PAIRS) {
      for (let g = cjkGaps.length - 1; g >= 0; g--) codes.splice(cjkGaps[g]!, 0, 0x20);
    }
    // Combining marks the file sets after their letter (`e` + U+0301) compose with it.
    run.text = marks ? fromCodes(codes).normalize('NFC') : fromCodes(codes);
    run.rtl = rtlCount * 2 > run.chars;
    run.end = lastIndex;
    if (runColor >= 0 && !mixedColors) run.color = runColor;
    runs.push(run);
    run = undefined;
  };
  const total = subset ? subset.length : chars.count;
  for (let k = 0; k < total; k++) {
    const i = subset ? subset[k]! : k;
    if (consumed && consumed[i]) continue;
    if (flags[i]! & ROTATED) continue;
    const c = code[i]!;
    const cx0 = x0[i]!;
    const cx1 = x1[i]!;
    const cy0 = y0[i]!;
    const cy1 = y1[i]!;
    const em = Math.max(size[i]!, 1);
    const f = flags[i]!;
    if (run) {
      const runEm = Math.max(run.size, em);
      const overlap = Math.min(run.y1, cy1) - Math.max(run.y0, cy0);
      const sameLine = overlap >= 0.5 * Math.min(run.y1 - run.y0, cy1 - cy0);
      const rtl = isRtl(c) || rtlCount * 2 > run.chars;
      // Gap in the writing direction; right-to-left text advances leftwards.
      const forward = cx0 - lastX1;
      const backward = lastX0 - cx1;
      const gap = rtl ? Math.min(Math.abs(forward), Math.abs(backward)) : forward;
      // Spaces typed between monospace text align code and its comment (`port: 5432   # comment`): one line, not columns.
      // Typewritten forms space their columns the same way, so only a comment after the spaces counts.
      const monoSpaces = f & lastFlags & MONO && f & FILE_SPACE && (c === 0x23 || c === 0x2f) && !rtl && gap > 0 && gap <= MONO_GAP_MAX_EMS * runEm;
      const continues = sameLine && (gap <= RUN_BREAK_EMS * runEm || monoSpaces) && (rtl || forward >= -0.6 * runEm);
      if (sameLine && Math.abs(cx0 - lastX0) < 0.01 && Math.abs(cx1 - lastX1) < 0.01 && codes.length > 0) {
        // Characters of one ligature glyph share its box (ﬃ -> f, f, i); right-to-left ones
        // (lam-alef) come out reversed.
        if (rtl) codes.splice(codes.length - 1, 0, c);
        else codes.push(c);
        if (c >= 0x300 && c <= 0x36f) marks = true;
        run.chars++;
        lastCode = c;
        lastIndex = i;
        continue;
      }
      if (!continues) finish();
      else if (monoSpaces && gap > RUN_BREAK_EMS * runEm) {
        // As many spaces as fit the gap (the advance of a Latin character of the font).
        const advance = !isCjk(lastCode) && lastX1 > lastX0 ? lastX1 - lastX0 : 0.5 * runEm;
        for (let s = Math.max(1, Math.round(gap / advance)); s > 0; s--) codes.push(0x20);
      } else if ((isCjk(lastCode) || isCjk(c)) && !isHangul(lastCode) && !isHangul(c)) {
        // Next to CJK text PDFium infers spaces where a new text object starts (a quote mark in
        // another font): only the file's own spaces and real gaps count; between CJK characters
        // only in a run set tight elsewhere (decided when it ends).
        if (isCjk(lastCode) && isCjk(c)) {
          run.cjkPairs!++;
          if (gap > CJK_LOOSE_EMS * runEm) run.cjkLoose!++;
          if (gap > CJK_SPACE_EMS * runEm && !isWidePunctuation(lastCode) && !isWidePunctuation(c)) cjkGaps.push(codes.length);
        } else if (!isCurlyQuote(lastCode) && !isCurlyQuote(c) && ((f & FILE_SPACE) !== 0 || gap > SPACE_EMS * runEm)) codes.push(0x20);
      } else {
        const space = (f & SPACE_BEFORE) !== 0 || (f & NEWLINE_BEFORE) !== 0 || gap > SPACE_EMS * runEm;
        if (space) codes.push(0x20);
      }
    }
    if (!run) {
      run = { text: '', x0: cx0, y0: cy0, x1: cx1, y1: cy1, size: em, chars: 0, styled: 0, bold: 0, italic: 0, mono: 0, font: font[i]!, rtl: false, order: i, end: i, cjkPairs: 0, cjkLoose: 0, cjk: 0, monoStart: (f & MONO) !== 0 };
      codes.length = 0;
      cjkGaps.length = 0;
      marks = false;
      rtlCount = 0;
      runColor = -1;
      mixedColors = false;
    }
    codes.push(c);
    if (c >= 0x300 && c <= 0x36f) marks = true;
    run.chars++;
    // Style counts ignore punctuation and symbols (a regular-weight ∗ or † after a bold name).
    if (!isSymbol(c)) {
      if (run.styled === 0) run.font = font[i]!;
      if (f & BOLD) run.bold++;
      if (f & ITALIC) run.italic++;
      if (f & MONO) run.mono++;
      if (isCjk(c)) run.cjk!++;
      if (color) {
        if (runColor < 0) runColor = color[i]!;
        else if (color[i] !== runColor) mixedColors = true;
      }
      run.styled++;
    }
    if (isRtl(c)) rtlCount++;
    if (cx0 < run.x0) run.x0 = cx0;
    if (cx1 > run.x1) run.x1 = cx1;
    // Superscripts and subscripts (smaller) do not widen the run's line box, nor does a glyph whose
    // box is far taller than its size (a math symbol font's descent: CMSY's `·` reaches a line down).
    if (em >= 0.8 * run.size) {
      if (cy1 - cy0 <= TALL_GLYPH_EMS * em) {
        if (em > run.size * 1.2 && run.chars > 1) {
          run.y0 = Math.min(run.y0, cy0);
          run.y1 = Math.max(run.y1, cy1);
        } else {
          if (cy0 < run.y0 && em >= run.size) run.y0 = cy0;
          if (cy1 > run.y1 && em >= run.size) run.y1 = cy1;
        }
      }
      if (em > run.size) run.size = em;
    }
    lastX0 = cx0;
    lastX1 = cx1;
    lastCode = c;
    lastFlags = f;
    lastIndex = i;
  }
  finish();
  return runs;
}

/** A string from code points, in chunks (spread arguments have a limit). */
function fromCodes(codes: number[]): string {
  if (codes.length <= 4096) return String.fromCodePoint(...codes);
  let out = '';
  for (let i = 0; i < codes.length; i += 4096) out += String.fromCodePoint(...codes.slice(i, i + 4096));
  return out;
}

export function isBold(run: Run): boolean {
  return run.bold * 2 > run.styled;
}

export function isItalic(run: Run): boolean {
  return run.italic * 2 > run.styled;
}

export function isMono(run: Run): boolean {
  return run.mono * 2 > run.styled;
}

/** ASCII punctuation and the general-punctuation / symbol blocks. */
function isSymbol(code: number): boolean {
  return code < 0x30 || (code >= 0x3a && code <= 0x40) || (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0xbf) || (code >= 0x2000 && code <= 0x2bff);
}

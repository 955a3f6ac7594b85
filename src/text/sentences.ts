/**
 * Sentence segmentation for English, Chinese, Japanese and mixed text.
 *
 * `Intl.Segmenter` (UAX #29 sentence rules) does the bulk of the work, fed one run at a time
 * (a paragraph or a line, never more than MAX_SEGMENTER_INPUT code units: it is superlinear on long
 * strings). Its boundaries are then corrected:
 * - removed after English abbreviations (Mr., e.g., U.S., a.m., No. 5, initials), after a
 *   numbered-list marker at a line start ("1. "), and inside URLs/identifiers ("www.Example.com");
 * - added after Chinese/Japanese ；and … (UAX #29 does not treat them as terminators), with the
 *   closing quotes/brackets that follow kept in the sentence;
 * - moved back before an opening quote/bracket UAX #29 glued to the previous sentence (“ in
 *   "。”“我…").
 * Blank lines and line breaks end sentences, except a line break that is clearly a soft wrap
 * (the line goes on in lower case, or a Chinese line ends with ，/、 and goes on). A sentence never
 * ends inside an equation (`$...$`, `$$...$$`: src/text/math.ts) or inside a grapheme cluster (a
 * sentence start that falls after whitespace carrying combining marks moves back to that whitespace).
 */

import { graphemeFloor } from './graphemes.js';
import { MathIndex } from './math.js';

export interface Span {
  start: number;
  end: number;
}

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Longest string handed to the segmenter at once (its cost grows faster than linearly). */
const MAX_SEGMENTER_INPUT = 2000;
/** How far back from the window limit to look for whitespace to cut at. */
const WINDOW_CUT_LOOKBACK = 200;

/** Abbreviations after which a '.' never ends a sentence (compared lower-cased, dot included). */
const ABBREVIATIONS = new Set([
  'mr.', 'mrs.', 'ms.', 'dr.', 'prof.', 'st.', 'mt.', 'jr.', 'sr.', 'rev.', 'hon.', 'gen.', 'col.',
  'capt.', 'lt.', 'sgt.', 'gov.', 'sen.', 'rep.', 'vs.', 'etc.', 'e.g.', 'i.e.', 'cf.', 'viz.',
  'al.', 'approx.', 'ca.', 'u.s.', 'u.k.', 'u.s.a.', 'a.m.', 'p.m.', 'fig.', 'figs.', 'eq.',
  'eqs.', 'dept.', 'univ.', 'ave.', 'blvd.',
]);
/** Abbreviations that do not end a sentence when a number follows ("No. 5", "p. 12"). */
const ABBREVIATIONS_BEFORE_NUMBER = new Set([
  'no.', 'nos.', 'vol.', 'vols.', 'p.', 'pp.', 'art.', 'sec.', 'ch.', 'para.', 'ref.', 'op.',
]);
/** A numbered-list marker ("1.", "2.3.", "a.", "iv.") standing alone at a line start. */
const LIST_MARKER = /^(?:\d{1,3}(?:\.\d{1,3})*|[A-Za-z]|[ivxlcIVXLC]{1,6})\.$/;
const LINE_BREAKS = /[\r\n]/g;
/**
 * UAX #29 breaks sentences only after a terminator (STerm, ATerm) or a paragraph separator: a
 * window without any has no boundary, and the segmenter (and ICU's copy of the window) is skipped.
 */
const MAY_END_SENTENCE = /[\p{Sentence_Terminal}\u002E\u2024\uFE52\uFF0E\r\n\u0085\u2028\u2029]/u;

/**
 * Sentence spans of `text[from, to)`, in order, covering the range exactly: each sentence keeps
 * the whitespace after it, whitespace before the first sentence belongs to it, so the spans
 * concatenate back to the range. Offsets are absolute in `text`. An empty range gives [].
 */
export function splitSentences(text: string, from = 0, to = text.length): Span[] {
  from = Math.max(0, from);
  to = Math.min(text.length, to);
  if (from >= to) return [];
  const starts = sentenceStarts(text, from, to);
  const spans: Span[] = [];
  let start = from;
  // starts[0] opens the first run: whitespace before it belongs to the first sentence. A start
  // inside a grapheme cluster (marks carried by the whitespace before it) moves back to its start.
  for (let k = 1; k < starts.length; k++) {
    const s = graphemeFloor(text, starts[k]!);
    if (s <= start || s >= to) continue;
    spans.push({ start, end: s });
    start = s;
  }
  spans.push({ start, end: to });
  return spans.length > 1 && text.indexOf('$', from) >= 0 && text.indexOf('$', from) < to ? keepMathWhole(text, spans, from, to) : spans;
}

/** Merges sentences whose boundary falls inside an equation. */
function keepMathWhole(text: string, spans: Span[], from: number, to: number): Span[] {
  const math = new MathIndex(text, from, to);
  if (math.spans.length === 0) return spans;
  const out: Span[] = [];
  for (const span of spans) {
    const last = out[out.length - 1];
    if (last && math.containing(last.end)) last.end = span.end;
    else out.push({ ...span });
  }
  return out;
}

/** Scan state carried across runs so each lookup for ；/… scans the text once, forwards. */
interface Scan {
  text: string;
  to: number;
  nextSemicolon: number;
  nextEllipsis: number;
  nextMidlineEllipsis: number;
}

/** Positions where sentences start (first non-whitespace of each sentence), ascending. */
function sentenceStarts(text: string, from: number, to: number): number[] {
  const starts: number[] = [];
  const scan: Scan = { text, to, nextSemicolon: from - 1, nextEllipsis: from - 1, nextMidlineEllipsis: from - 1 };
  let runStart = -1;
  let runEnd = -1;
  let runSoft = false;
  let lineStart = from;
  while (lineStart < to) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0 || lineEnd > to) lineEnd = to;
    const contentStart = skipSpace(text, lineStart, lineEnd);
    if (contentStart < lineEnd) {
      const contentEnd = trimEnd(text, contentStart, lineEnd);
      if (runStart >= 0 && isSoftWrap(text, runEnd, lineStart, contentStart)) {
        runSoft = true;
      } else {
        if (runStart >= 0) segmentRun(scan, runStart, runEnd, runSoft, starts);
        runStart = contentStart;
        runSoft = false;
      }
      runEnd = contentEnd;
    } else if (runStart >= 0) {
      segmentRun(scan, runStart, runEnd, runSoft, starts);
      runStart = -1;
    }
    lineStart = lineEnd + 1;
  }
  if (runStart >= 0) segmentRun(scan, runStart, runEnd, runSoft, starts);
  return starts;
}

/**
 * Sentence starts inside one run [start, end) (non-whitespace at both ends): the run start itself,
 * then the segmenter's boundaries (corrected) merged with the CJK additions.
 */
function segmentRun(scan: Scan, start: number, end: number, soft: boolean, out: number[]): void {
  const text = scan.text;
  out.push(start);
  const first = out.length;
  let prev = start;
  let a = start;
  while (a < end) {
    const b = end - a > MAX_SEGMENTER_INPUT ? windowEnd(text, a, a + MAX_SEGMENTER_INPUT) : end;
    let input = text.slice(a, b);
    // Soft-wrapped lines are joined for the segmenter (same length, so offsets hold).
    if (soft) input = input.replace(LINE_BREAKS, ' ');
    let last = a;
    const segments: Iterable<Intl.SegmentData> = MAY_END_SENTENCE.test(input) ? sentenceSegmenter.segment(input) : [];
    for (const seg of segments) {
      if (seg.index === 0) continue;
      const p = a + seg.index;
      // In a truncated window the last segment may be cut short; its start is still reliable.
      last = p;
      if (p >= end || keepsSentenceGoing(text, prev, p)) continue;
      const moved = afterCitation(text, beforeOpeners(text, prev, p), end);
      if (moved > prev) {
        out.push(moved);
        prev = moved;
      }
    }
    a = b < end && last > a ? last : b;
  }
  addCjkBoundaries(scan, start, end, out);
  if (out.length - first > 1) sortUniqueTail(out, first);
}

/** Should the segmenter's boundary at p (sentence begun at prev) be dropped? */
function keepsSentenceGoing(text: string, prev: number, p: number): boolean {
  const q = trimEnd(text, prev, p);
  if (q <= prev) return true;
  const last = text.charCodeAt(q - 1);
  const next = text.charCodeAt(p);
  // "www.Example.com", "page?Id=3": a terminator glued to the next word is not an end.
  if (q === p && (last === 0x2e || last === 0x21 || last === 0x3f) && isAsciiAlnum(next)) return true;
  if (last !== 0x2e) return false;
  let w = q - 1;
  while (w > prev && !isSpace(text.charCodeAt(w - 1)) && !isOpener(text.charCodeAt(w - 1))) w--;
  if (q - w > 8) return false;
  const word = text.slice(w, q);
  const lower = word.toLowerCase();
  if (ABBREVIATIONS.has(lower)) return true;
  if (ABBREVIATIONS_BEFORE_NUMBER.has(lower) && isDigit(next)) return true;
  // An initial: "John F. Kennedy".
  if (word.length === 2 && isUpper(word.charCodeAt(0)) && isUpper(next) && w > 0 && isSpace(text.charCodeAt(w - 1))) {
    return true;
  }
  // A list marker alone at a line start: "1. First item".
  return w === prev && atLineStart(text, prev) && LIST_MARKER.test(word);
}

/** Moves a boundary back over opening quotes/brackets that belong to the next sentence. */
function beforeOpeners(text: string, prev: number, p: number): number {
  while (p > prev + 1 && isOpener(text.charCodeAt(p - 1))) p--;
  return p;
}

/**
 * A footnote reference glued to a sentence end ("worldwide.[11] The") stays with that sentence:
 * moves a boundary at "[digits]" (up to four) past it and the spaces after it (-1: no boundary).
 */
function afterCitation(text: string, p: number, end: number): number {
  if (text.charCodeAt(p) !== 0x5b || isSpace(text.charCodeAt(p - 1))) return p;
  let j = p + 1;
  while (j < end && j - p <= 4 && isDigit(text.charCodeAt(j))) j++;
  if (j === p + 1 || j >= end || text.charCodeAt(j) !== 0x5d) return p;
  j++;
  while (j < end && isSpace(text.charCodeAt(j))) j++;
  // At the end of the run the reference just closes its sentence: no boundary at all.
  return j < end ? j : -1;
}

/**
 * Adds boundaries after ；(full-width semicolon) and after a Chinese/Japanese ellipsis (… or ⋯
 * following CJK text), past any closing quotes/brackets and spaces, unless more punctuation follows.
 */
function addCjkBoundaries(scan: Scan, start: number, end: number, out: number[]): void {
  const text = scan.text;
  if (scan.nextSemicolon < start) scan.nextSemicolon = indexOrEnd(text, '；', start, scan.to);
  while (scan.nextSemicolon < end) {
    pushAfterTerminator(text, scan.nextSemicolon + 1, end, out);
    scan.nextSemicolon = indexOrEnd(text, '；', scan.nextSemicolon + 1, scan.to);
  }
  if (scan.nextEllipsis < start) scan.nextEllipsis = indexOrEnd(text, '…', start, scan.to);
  while (scan.nextEllipsis < end) {
    scan.nextEllipsis = pushAfterEllipsis(text, scan.nextEllipsis, start, end, out);
    scan.nextEllipsis = indexOrEnd(text, '…', scan.nextEllipsis, scan.to);
  }
  if (scan.nextMidlineEllipsis < start) scan.nextMidlineEllipsis = indexOrEnd(text, '⋯', start, scan.to);
  while (scan.nextMidlineEllipsis < end) {
    scan.nextMidlineEllipsis = pushAfterEllipsis(text, scan.nextMidlineEllipsis, start, end, out);
    scan.nextMidlineEllipsis = indexOrEnd(text, '⋯', scan.nextMidlineEllipsis, scan.to);
  }
}

/** Handles the ellipsis run starting at i; returns the position after it. */
function pushAfterEllipsis(text: string, i: number, start: number, end: number, out: number[]): number {
  let j = i;
  while (j < end && isEllipsis(text.charCodeAt(j))) j++;
  if (i > start && isCjk(text.charCodeAt(i - 1))) pushAfterTerminator(text, j, end, out);
  return j;
}

function pushAfterTerminator(text: string, j: number, end: number, out: number[]): void {
  while (j < end && isCloser(text.charCodeAt(j))) j++;
  while (j < end && isSpace(text.charCodeAt(j))) j++;
  if (j >= end || isContinuingPunctuation(text.charCodeAt(j))) return;
  out.push(j);
}

/** Sorts out[first..] in place and removes duplicates (the run's boundaries, usually few). */
function sortUniqueTail(out: number[], first: number): void {
  const tail = out.splice(first).sort((x, y) => x - y);
  let last = out[out.length - 1] ?? -1;
  for (const p of tail) {
    if (p !== last) out.push(p);
    last = p;
  }
}

/**
 * Is the line break between a run ending at `prevEnd` and the line at `lineStart` (first
 * non-whitespace at `nextStart`) a soft wrap inside a sentence? English: the previous line ends in
 * a letter, digit, comma, hyphen or semicolon and the next goes on in lower case. Chinese and
 * Japanese hard-wrapped text: the previous line ends in a CJK character or comma (not a terminator
 * or closing bracket) and the next goes on, unindented, with a CJK character.
 */
function isSoftWrap(text: string, prevEnd: number, lineStart: number, nextStart: number): boolean {
  const last = text.charCodeAt(prevEnd - 1);
  const next = text.charCodeAt(nextStart);
  if (next >= 0x61 && next <= 0x7a) return isAsciiAlnum(last) || last === 0x2c || last === 0x2d || last === 0x3b;
  if (nextStart !== lineStart || !isCjkLetter(next)) return false;
  return isCjkLetter(last) || last === 0xff0c || last === 0x3001;
}

/** Kana and CJK ideographs (not punctuation). */
function isCjkLetter(c: number): boolean {
  return (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff);
}

/** End of the last window before `limit`, preferably just after whitespace, never inside a surrogate pair. */
function windowEnd(text: string, a: number, limit: number): number {
  for (let p = limit; p > limit - WINDOW_CUT_LOOKBACK && p > a; p--) {
    if (isSpace(text.charCodeAt(p - 1))) return p;
  }
  const c = text.charCodeAt(limit);
  return c >= 0xdc00 && c <= 0xdfff ? limit - 1 : limit;
}

function indexOrEnd(text: string, needle: string, from: number, to: number): number {
  const i = text.indexOf(needle, from);
  return i < 0 || i >= to ? to : i;
}

function atLineStart(text: string, p: number): boolean {
  while (p > 0) {
    const c = text.charCodeAt(p - 1);
    if (c === 0x0a || c === 0x0d) return true;
    if (c !== 0x20 && c !== 0x09) return false;
    p--;
  }
  return true;
}

function skipSpace(text: string, i: number, end: number): number {
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function trimEnd(text: string, start: number, end: number): number {
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return end;
}

/** Whitespace code units (Unicode White_Space, plus the BOM), for trimming without allocating. */
export function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x3000 || c === 0x2028 || c === 0x2029 || c === 0x85 || c === 0xfeff || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x1680;
}

function isAsciiAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isUpper(c: number): boolean {
  return c >= 0x41 && c <= 0x5a;
}

function isEllipsis(c: number): boolean {
  return c === 0x2026 || c === 0x22ef;
}

/** Chinese/Japanese text and its punctuation (CJK symbols, kana, ideographs, full-width forms). */
function isCjk(c: number): boolean {
  return (c >= 0x3000 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef);
}

/** Closing quotes and brackets that stay with the sentence they close. */
function isCloser(c: number): boolean {
  switch (c) {
    case 0x22: case 0x27: case 0x29: case 0x5d: case 0x7d: // " ' ) ] }
    case 0x2019: case 0x201d: case 0x00bb: case 0x203a: // ’ ” » ›
    case 0x3009: case 0x300b: case 0x300d: case 0x300f: case 0x3011: case 0x3015: case 0x3017: // 〉》」』】〕〗
    case 0xff09: case 0xff3d: case 0xff5d: case 0xff63: // ）］｝｣
      return true;
    default:
      return false;
  }
}

/** Opening quotes and brackets (not the ambiguous ASCII quotes), which start the next sentence. */
function isOpener(c: number): boolean {
  switch (c) {
    case 0x28: case 0x5b: case 0x7b: // ( [ {
    case 0x2018: case 0x201c: case 0x00ab: case 0x2039: // ‘ “ « ‹
    case 0x3008: case 0x300a: case 0x300c: case 0x300e: case 0x3010: case 0x3014: case 0x3016: // 〈《「『【〔〖
    case 0xff08: case 0xff3b: case 0xff5b: case 0xff62: // （［｛｢
      return true;
    default:
      return false;
  }
}

/** Punctuation after ；/… that shows the sentence goes on (or ends at a later terminator). */
function isContinuingPunctuation(c: number): boolean {
  switch (c) {
    case 0x3002: case 0xff01: case 0xff1f: case 0xff1b: case 0xff0c: case 0x3001: case 0xff1a: // 。！？；，、：
    case 0x2e: case 0x21: case 0x3f: case 0x2c: case 0x3b: case 0x3a: // . ! ? , ; :
    case 0x2014: case 0xff5e: case 0xff0e: case 0xff61: // — ～ ． ｡
      return true;
    default:
      return false;
  }
}

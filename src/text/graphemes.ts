/**
 * Safe cut points: a chunk boundary must never split a surrogate pair or an extended grapheme
 * cluster (UAX #29). Most cut points sit between two "simple" code units (ASCII, Latin-1, common
 * punctuation, CJK, kana, Hangul syllables) where UAX #29 always breaks, so they are decided
 * without allocating; anything else asks `Intl.Segmenter` about a short window around the cut.
 */

const graphemeSegmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Code points a little window must reach back past to give the segmenter its left context. */
const CONTEXT = 64;

/**
 * True for code units whose Grapheme_Cluster_Break is Other or Control, so a boundary between two
 * of them is always a break (except CR LF). Ranges checked exhaustively in the tests.
 */
export function isSimpleCodeUnit(c: number): boolean {
  if (c < 0x0300) return true;
  if (c < 0x2010) return false;
  if (c <= 0x2027) return true; // dashes, quotes, bullets, ellipsis
  if (c < 0x2030) return false;
  if (c <= 0x205f) return true;
  if (c < 0x3000) return false;
  if (c <= 0x3029) return true; // CJK symbols and punctuation (0x302A-0x302F are combining tone marks)
  if (c < 0x3030) return false;
  if (c <= 0x3098) return true; // hiragana (0x3099/0x309A are combining sound marks)
  if (c < 0x309b) return false;
  if (c <= 0x30ff) return true; // katakana
  if (c < 0x3400) return false;
  if (c <= 0x4dbf) return true; // CJK extension A
  if (c < 0x4e00) return false;
  if (c <= 0x9fff) return true; // CJK unified ideographs
  if (c < 0xac00) return false;
  if (c <= 0xd7a3) return true; // precomposed Hangul syllables
  if (c < 0xff01) return false;
  return c <= 0xff9d; // full-width forms, half-width katakana (0xFF9E/0xFF9F are combining)
}

/** Is `i` a grapheme cluster boundary of `text`? 0 and text.length always are. */
export function isGraphemeBoundary(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return true;
  const prev = text.charCodeAt(i - 1);
  const next = text.charCodeAt(i);
  if (isSimpleCodeUnit(prev) && isSimpleCodeUnit(next)) return !(prev === 0x0d && next === 0x0a);
  return clusterAround(text, i).start === i;
}

/** The greatest grapheme boundary <= i. */
export function graphemeFloor(text: string, i: number): number {
  if (isGraphemeBoundary(text, i)) return Math.max(0, Math.min(i, text.length));
  return clusterAround(text, i).start;
}

/** The least grapheme boundary >= i. */
export function graphemeCeil(text: string, i: number): number {
  if (isGraphemeBoundary(text, i)) return Math.max(0, Math.min(i, text.length));
  return clusterAround(text, i).end;
}

/** The grapheme cluster that contains position i (0 < i < text.length), found in a small window. */
function clusterAround(text: string, i: number): { start: number; end: number } {
  const from = windowStart(text, i);
  let to = Math.min(text.length, i + CONTEXT);
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to++;
  const seg = graphemeSegmenter.segment(text.slice(from, to)).containing(i - from);
  if (!seg) return { start: i, end: i };
  return { start: from + seg.index, end: from + seg.index + seg.segment.length };
}

/**
 * A position at or before i that is certainly a boundary (between two simple code units), so the
 * segmenter sees full left context (regional-indicator parity, emoji ZWJ chains); at worst CONTEXT
 * code units back, off a surrogate pair.
 */
function windowStart(text: string, i: number): number {
  const limit = Math.max(0, i - CONTEXT);
  for (let p = i - 1; p > limit; p--) {
    const a = text.charCodeAt(p - 1);
    const b = text.charCodeAt(p);
    if (isSimpleCodeUnit(a) && isSimpleCodeUnit(b) && !(a === 0x0d && b === 0x0a)) return p;
  }
  let start = limit > 0 && isLowSurrogate(text.charCodeAt(limit)) ? limit - 1 : limit;
  // Flags pair regional indicators from the start of their run: start the window at the run start
  // (runs longer than MAX_FLAG_RUN code units are not looked through).
  const runLimit = Math.max(0, start - MAX_FLAG_RUN);
  while (start >= 2 && start > runLimit && isRegionalIndicator(text, start - 2)) start -= 2;
  return start;
}

const MAX_FLAG_RUN = 4096;

/** Is there a regional indicator (U+1F1E6..U+1F1FF, a surrogate pair) at i? */
function isRegionalIndicator(text: string, i: number): boolean {
  const low = text.charCodeAt(i + 1);
  return text.charCodeAt(i) === 0xd83c && low >= 0xdde6 && low <= 0xddff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * Safe cut points: a chunk boundary must never split a surrogate pair or an extended grapheme
 * cluster (UAX #29), whatever the cluster's length. The answers are exactly Intl.Segmenter's on the
 * whole text, found without segmenting the whole text:
 *
 * - Most positions sit between two "simple" code units (ASCII, Latin-1, Greek, Cyrillic, Armenian,
 *   Hebrew and Arabic letters, common punctuation, CJK, kana, Hangul syllables), or before a simple code unit after a character no rule joins to what
 *   follows it (a "sure" boundary, `isSureBoundary`): decided from two code units, no allocation.
 * - Anything else asks Intl.Segmenter about a window that starts at a sure or already known
 *   boundary (the segmenter restarts its rules at every boundary it reports, so what it reports
 *   from a true boundary on is exact) and grows to the right until the cluster's end is inside it.
 * - Where no sure boundary is near (a cluster of thousands of combining marks, a run of regional
 *   indicators, an emoji ZWJ chain, a script without spaces), `Graphemes` keeps one known boundary
 *   per block of BLOCK code units, filled left to right once, and remembers every long cluster it
 *   met, so each code unit is segmented O(1) times however many cuts a chunker asks about.
 *
 * Chunkers that ask about many positions of one text hold a `Graphemes` for it; the free functions
 * reuse one for the last text they were given.
 */

const graphemeSegmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Code units before the position asked about where a sure or known boundary is looked for. */
const WINDOW = 64;
/** Code units a first window reaches past the position asked about (it doubles while the cluster goes on). */
const LOOKAHEAD = 16;
/** Block size of the checkpoint array (one known boundary at or before every multiple of it). */
const BLOCK = 64;

/**
 * True for code units whose Grapheme_Cluster_Break is Other or Control, so a boundary between two
 * of them is always a break (except CR LF). Ranges checked exhaustively in the tests.
 */
export function isSimpleCodeUnit(c: number): boolean {
  if (c < 0x0300) return true;
  if (c < 0x0370) return false; // combining diacritical marks
  if (c < 0x0700) return isSimpleAlphabetic(c);
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

/**
 * Letters of Greek, Cyrillic, Armenian, Hebrew and Arabic (0x0370-0x06FF) that are neither marks
 * nor Prepend, so text in those scripts is mostly decided without the segmenter. (Not the Indic
 * scripts: their consonants join a virama before them, GB9c.)
 */
function isSimpleAlphabetic(c: number): boolean {
  if (c <= 0x0482) return true; // Greek and Coptic, Cyrillic letters
  if (c < 0x048a) return false; // Cyrillic combining marks
  if (c <= 0x058f) return true; // Cyrillic, Cyrillic supplement, Armenian
  if (c < 0x05d0) return false; // Hebrew points and accents (and a few punctuation marks)
  if (c <= 0x05ff) return true; // Hebrew letters and punctuation
  if (c < 0x0620) return false; // Arabic Prepend signs, marks
  if (c <= 0x064a) return true;
  if (c < 0x0660) return false; // Arabic harakat
  if (c <= 0x066f) return true;
  if (c === 0x0670) return false;
  return c <= 0x06d5;
}

/**
 * Code points that may join the simple code unit after them (UAX #29): Prepend (GB9b), Hangul
 * leading jamo before a syllable (GB6), ZWJ before an Extended_Pictographic symbol such as U+00A9
 * (GB11); lone surrogates too, to be safe. A superset (whole blocks where Prepend characters live),
 * so a new Unicode version adding Prepend characters there changes nothing; the tests check every
 * code point against Intl.Segmenter.
 */
function mayJoinNext(cp: number): boolean {
  if (cp < 0x0600) return false;
  if (cp < 0x0900) return cp <= 0x0605 || cp === 0x06dd || cp === 0x070f || (cp >= 0x0890 && cp <= 0x0891) || cp === 0x08e2;
  if (cp < 0x1100) return cp >= 0x0d00 && cp <= 0x0d7f; // Malayalam (U+0D4E)
  if (cp < 0x1200) return true; // Hangul jamo
  if (cp === 0x200d) return true;
  if (cp >= 0xa960 && cp <= 0xa97f) return true; // Hangul jamo extended-A
  if (cp >= 0xd800 && cp <= 0xdfff) return true;
  return cp >= 0x11000 && cp <= 0x11fff; // Brahmi to Tamil supplement (Kaithi, Sharada, Dives Akuru, ...)
}

/**
 * True when `i` is a boundary that two code points decide: a simple code unit follows a character
 * that joins nothing to it (not CR before LF). 0 < i < text.length. Never true where it is not a
 * boundary; false tells nothing.
 */
export function isSureBoundary(text: string, i: number): boolean {
  const b = text.charCodeAt(i);
  if (!isSimpleCodeUnit(b)) return false;
  const a = text.charCodeAt(i - 1);
  if (isSimpleCodeUnit(a)) return !(a === 0x0d && b === 0x0a);
  if (a >= 0xdc00 && a <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return !mayJoinNext(((high - 0xd800) << 10) + (a - 0xdc00) + 0x10000);
  }
  return !mayJoinNext(a);
}

/**
 * Exact grapheme cluster boundaries of one text, for a caller asking about many positions (in any
 * order). Linear overall: a window is segmented only from a boundary already known, long clusters
 * and one boundary per block are remembered, and no work is done per character beyond reading it.
 */
export class Graphemes {
  /** checkpoint[k]: the greatest boundary <= k * BLOCK, or -1 while unknown (allocated on first need). */
  private checkpoint: Int32Array | undefined;
  /** Clusters longer than WINDOW met so far: start -> end. */
  private readonly long = new Map<number, number>();
  /** The last cluster found: [lastStart, lastEnd). */
  private lastStart = 0;
  private lastEnd = 0;

  constructor(readonly text: string) {}

  /** Is `i` a grapheme cluster boundary? 0 and text.length always are. */
  isBoundary(i: number): boolean {
    const text = this.text;
    if (i <= 0 || i >= text.length) return true;
    if (isSureBoundary(text, i)) return true;
    return this.clusterStart(i) === i;
  }

  /** The greatest boundary <= i. */
  floor(i: number): number {
    const text = this.text;
    if (i <= 0) return 0;
    if (i >= text.length) return text.length;
    if (isSureBoundary(text, i)) return i;
    return this.clusterStart(i);
  }

  /** The least boundary >= i. */
  ceil(i: number): number {
    const text = this.text;
    if (i <= 0) return 0;
    if (i >= text.length) return text.length;
    if (isSureBoundary(text, i)) return i;
    const start = this.clusterStart(i);
    return start === i ? i : this.lastEnd;
  }

  /** The end of the cluster that starts at boundary `i` (< text.length): the least boundary > i. */
  next(i: number): number {
    if (i >= this.text.length) return this.text.length;
    this.clusterStart(i);
    return this.lastEnd;
  }

  /** Start of the cluster holding the code unit at i (0 < i < length); sets lastStart/lastEnd to it. */
  private clusterStart(i: number): number {
    if (i >= this.lastStart && i < this.lastEnd) return this.lastStart;
    const text = this.text;
    // A boundary at or before i: a sure one close by, or the end of the last cluster found (callers
    // mostly move forward), else the block checkpoint.
    const limit = Math.max(0, i - WINDOW);
    const known = this.lastEnd <= i ? this.lastEnd : this.lastStart <= i ? this.lastStart : -1;
    const floor = Math.max(limit, known);
    let anchor = -1;
    for (let p = i; p > floor; p--) {
      if (isSureBoundary(text, p)) {
        anchor = p;
        break;
      }
    }
    if (anchor < 0) anchor = known > limit || limit === 0 ? Math.max(known, 0) : this.checkpointAt(Math.floor(i / BLOCK));
    return this.clusterFrom(anchor, i);
  }

  /** The cluster holding i, segmenting from `anchor`, a boundary <= i. */
  private clusterFrom(anchor: number, i: number): number {
    const text = this.text;
    const n = text.length;
    const known = this.long.get(anchor);
    if (known !== undefined) {
      if (i < known) return this.remember(anchor, known);
      anchor = known;
    }
    let to = Math.min(n, i + LOOKAHEAD);
    for (;;) {
      // The code point after a reported boundary decides it: never end a window inside a surrogate pair.
      if (to < n && isLow(text.charCodeAt(to)) && isHigh(text.charCodeAt(to - 1))) to++;
      const seg = graphemeSegmenter.segment(text.slice(anchor, to)).containing(i - anchor);
      if (!seg) return this.remember(i, i + 1);
      const start = anchor + seg.index;
      const end = start + seg.segment.length;
      // A boundary the segmenter reports before the window's end is exact; the window's end is not.
      if (end < to || to >= n) {
        if (end - start > WINDOW) this.long.set(start, end);
        return this.remember(start, end);
      }
      to = Math.min(n, anchor + 2 * (to - anchor));
    }
  }

  private remember(start: number, end: number): number {
    this.lastStart = start;
    this.lastEnd = end;
    return start;
  }

  /** The greatest boundary <= k * BLOCK, computing the missing checkpoints before it left to right. */
  private checkpointAt(k: number): number {
    const n = this.text.length;
    const cp = (this.checkpoint ??= new Int32Array(Math.floor(n / BLOCK) + 1).fill(-1));
    cp[0] = 0;
    if (cp[k]! >= 0) return cp[k]!;
    // Back to a block whose checkpoint is known or has a sure boundary in it...
    let j = k;
    let base = -1;
    while (j > 0) {
      if (cp[j]! >= 0) {
        base = cp[j]!;
        break;
      }
      const top = j * BLOCK;
      for (let p = Math.min(top, n - 1); p > top - BLOCK; p--) {
        if (isSureBoundary(this.text, p)) {
          base = p;
          break;
        }
      }
      if (base >= 0) break;
      j--;
    }
    if (base < 0) base = 0;
    // ...then forward: each checkpoint is the start of the cluster holding its block's first unit.
    // (Callers ask for k with k * BLOCK < length, so every block start here is inside the text.)
    for (let m = j; m <= k; m++) {
      if (cp[m]! < 0) cp[m] = this.clusterFrom(base, m * BLOCK);
      base = cp[m]!;
    }
    return cp[k]!;
  }
}

let shared: Graphemes | undefined;

/** A Graphemes for `text`, reused while the same text is asked about. */
export function graphemesOf(text: string): Graphemes {
  if (shared === undefined || shared.text !== text) shared = new Graphemes(text);
  return shared;
}

/** Is `i` a grapheme cluster boundary of `text`? 0 and text.length always are. */
export function isGraphemeBoundary(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length || isSureBoundary(text, i)) return true;
  return graphemesOf(text).isBoundary(i);
}

/** The greatest grapheme boundary <= i. */
export function graphemeFloor(text: string, i: number): number {
  if (i <= 0) return 0;
  if (i >= text.length) return text.length;
  if (isSureBoundary(text, i)) return i;
  return graphemesOf(text).floor(i);
}

/** The least grapheme boundary >= i. */
export function graphemeCeil(text: string, i: number): number {
  if (i <= 0) return 0;
  if (i >= text.length) return text.length;
  if (isSureBoundary(text, i)) return i;
  return graphemesOf(text).ceil(i);
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

import { headingPaths } from '../document/build.js';
import type { Document, Element } from '../document/types.js';
import { invalidOption } from '../errors.js';
import { Graphemes, graphemesOf } from '../text/graphemes.js';
import { MathIndex } from '../text/math.js';
import { isSpace } from '../text/sentences.js';
import type { Tokenizer } from '../tokens/types.js';
import type { Chunk, ChunkKind, ChunkerDefinition } from './types.js';

/**
 * `token`: fixed windows of `chunkSize` tokens, consecutive windows sharing `chunkOverlap` tokens.
 * The text is tokenized once (with offsets); windows are cut at token ends mapped back to the
 * string, moved back to a grapheme boundary, and each window's text is counted exactly. Where the
 * re-tokenized slice has more tokens than the window (BPE merges differently at the cut edges),
 * the window shrinks until it fits; where no token end fits (a token straddles two grapheme clusters,
 * as BPE's byte tokens do in Hebrew or across a surrogate pair), the window is cut at the last
 * grapheme boundary that fits instead. Linear in the input: the text is tokenized once, and each
 * window's count re-tokenizes only its edges (countBySyncPoints). A window does not end (or, after
 * an overlap, begin) inside an equation (`$...$`, `$$...$$`) unless the equation alone is longer
 * than a window. Docs: docs/chunkers/sentence-token.md.
 */

export interface TokenChunkOptions {
  /** Token limit of every chunk (exact, with the tokenizer in use). */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. */
  chunkOverlap: number;
}

const TOKEN_OPTIONS = ['chunkSize', 'chunkOverlap', 'lengthUnit'];

export const tokenChunker: ChunkerDefinition<TokenChunkOptions> = {
  name: 'token',
  description: 'fixed windows of chunkSize tokens with chunkOverlap tokens of overlap, cut at grapheme-safe token boundaries, counted exactly',
  resolveOptions(input) {
    rejectUnknownOptions('token', input, TOKEN_OPTIONS);
    const unit = input.lengthUnit;
    if (unit !== undefined && unit !== 'tokens') {
      invalidOption(`token: the token strategy measures in tokens; option 'lengthUnit' must be 'tokens', got ${JSON.stringify(unit)}`);
    }
    return resolveSizes('token', input);
  },
  chunkText(text, options, tokenizer) {
    return tokenWindows(text, 0, text.length, options.chunkSize, options.chunkOverlap, tokenizer).map((w, index) =>
      textChunk(text, w, index, 'token'),
    );
  },
  chunkDocument(doc, options, tokenizer) {
    const windows = tokenWindows(doc.canonical, 0, doc.canonical.length, options.chunkSize, options.chunkOverlap, tokenizer);
    return describeChunks(doc, windows, 'token');
  },
};

/** A chunk body: `source.slice(start, end)` with its exact token count. */
export interface Window {
  start: number;
  end: number;
  tokens: number;
}

/**
 * Token windows over `text[from, to)`: each at most `size` tokens when its slice is counted on its
 * own, consecutive windows overlapping by about `overlap` tokens, together covering the range from
 * its first non-whitespace character to its last. Cuts never split a grapheme cluster, however long
 * (`graphemes` answers for `text`); the one case a window can exceed `size` is a single grapheme
 * cluster longer than `size` tokens, which is then a window of its own.
 */
export function tokenWindows(text: string, from: number, to: number, size: number, overlap: number, tokenizer: Tokenizer, graphemes: Graphemes = graphemesOf(text)): Window[] {
  while (from < to && isSpace(text.charCodeAt(from))) from++;
  while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
  if (from >= to) return [];
  // A combining mark after whitespace belongs to the whitespace's cluster: keep the cluster whole.
  from = graphemes.floor(from);
  to = graphemes.ceil(to);
  const slice = from === 0 && to === text.length ? text : text.slice(from, to);
  const ends = tokenEndsOf(tokenizer, slice);
  const n = ends.length;
  // Offset where token i starts (= where token i-1 ends), as an absolute, grapheme-safe cut.
  const cutBefore = (i: number): number => (i <= 0 ? from : i >= n ? to : graphemes.floor(from + ends[i - 1]!));
  const count = sliceCounter(text, tokenizer, from, ends);
  const math = new MathIndex(text, from, to);
  const windows: Window[] = [];
  let s = 0;
  let start = from;
  // End of the previous window (token index and offset): each window must reach past it.
  let prevE = 0;
  let prevEnd = from;
  while (start < to) {
    let e = Math.min(n, s + size);
    let end = cutBefore(e);
    // A grapheme cluster wider than the window: take it whole (the only way to make progress).
    while (end <= prevEnd || end <= start) end = cutBefore(++e);
    const split = math.containing(end);
    if (split) {
      // End before the equation instead of inside it; where that leaves nothing new, drop the overlap
      // so the equation opens the window (it is cut only when it alone is longer than a window).
      const before = tokensEndingBy(ends, split.start - from);
      const cut = cutBefore(before);
      if (cut > prevEnd && cut > start) {
        e = before;
        end = cut;
      } else if (start < prevEnd) {
        s = prevE;
        start = prevEnd;
        continue;
      }
    }
    let tokens = count(start, end);
    while (tokens > size) {
      // Shrink by the excess at once (counts differ from the window only at its edges), but not
      // so far that a grapheme floor leaves nothing new.
      let shrunk = e - Math.max(1, tokens - size);
      while (shrunk < e && cutBefore(shrunk) <= Math.max(start, prevEnd)) shrunk++;
      if (shrunk >= e) break;
      e = shrunk;
      end = cutBefore(e);
      tokens = count(start, end);
    }
    if (tokens > size) {
      // No token end fits: a token straddles a grapheme boundary (BPE works on bytes: half a
      // surrogate pair, a letter and the first byte of the next), so cut between clusters instead.
      const fit = fitByGraphemes(graphemes, count, start, Math.max(start, prevEnd), end, size, math);
      if (fit) {
        end = fit.end;
        tokens = fit.tokens;
        e = tokensEndingBy(ends, end - from);
      }
    }
    if (tokens > size && start < prevEnd) {
      // The overlap leaves no room for the next (wide) cluster: this window goes without overlap.
      s = prevE;
      start = prevEnd;
      continue;
    }
    windows.push({ start, end, tokens });
    if (end >= to) break;
    prevE = e;
    prevEnd = end;
    // The next window starts `overlap` tokens before this one's end, always after this one's start.
    // The shared text, counted on its own, must also fit `overlap` (BPE may merge differently at
    // its new left edge), so the duplicated text never exceeds what was declared.
    let next = Math.max(s + 1, e - overlap);
    while (next < e && (cutBefore(next) <= start || count(cutBefore(next), end) > overlap || math.containing(cutBefore(next)))) next++;
    // No overlap (or none that fits): the next window starts where this one ends (which is not a
    // token end when the window was cut between clusters).
    start = next < e ? cutBefore(next) : end;
    // Count the window from the first token inside it (a grapheme floor may have moved the cut back).
    s = tokensEndingBy(ends, start - from);
  }
  return windows;
}

/**
 * The longest window [start, b) with b a grapheme boundary after `lower` and at most `size` tokens
 * counted on its own, below `end` (which does not fit); when not even the first cluster after
 * `lower` fits, that cluster alone if the window has no overlap (start = lower), else undefined. A binary search over boundaries (counts are not monotonic in b by a token at
 * the edges, so each answer is the measured one); an equation the cut would split moves to the next
 * window when what is left before it still fits.
 */
function fitByGraphemes(graphemes: Graphemes, count: (a: number, b: number) => number, start: number, lower: number, end: number, size: number, math: MathIndex): { end: number; tokens: number } | undefined {
  let lo = graphemes.next(lower);
  if (lo >= end) return undefined;
  let loTokens = count(start, lo);
  // Not even one cluster fits: after an overlap, try again without it; else the cluster, alone
  // over the limit, is the window.
  if (loTokens > size) return start < lower ? undefined : { end: lo, tokens: loTokens };
  let hi = end;
  while (hi - lo > 1) {
    const mid = lo + ((hi - lo) >>> 1);
    let b = graphemes.floor(mid);
    if (b <= lo) b = graphemes.ceil(mid);
    if (b >= hi) break;
    const tokens = count(start, b);
    if (tokens <= size) {
      lo = b;
      loTokens = tokens;
    } else {
      hi = b;
    }
  }
  const split = math.containing(lo);
  if (split && split.start > lower) {
    const before = graphemes.floor(split.start);
    if (before > lower) {
      const tokens = count(start, before);
      if (tokens <= size) return { end: before, tokens };
    }
  }
  return { end: lo, tokens: loTokens };
}

/**
 * Vocabularies whose encoder splits text with a pre-tokenizer regex and runs BPE on each piece
 * separately (tiktoken style). A "sync point" is a position no piece can straddle in any string
 * holding the two characters around it, so it is a piece boundary of the whole text and of every
 * slice containing both: between two sync points a slice has exactly the whole text's tokens.
 * In all three regexes no piece holds a non-whitespace character followed by a space or tab. In
 * cl100k_base and o200k_base no piece holds a letter or digit followed by punctuation other than an
 * apostrophe (o200k's contractions); qwen is left out of that rule because its special tokens
 * (`<|im_start|>`), matched before the regex, contain letter-punctuation pairs.
 * (The tests check counts by sync points against plain counts for the three vocabularies.)
 */
const SPACE_SYNC = new Set(['cl100k_base', 'o200k_base', 'qwen']);
const PUNCTUATION_SYNC = new Set(['cl100k_base', 'o200k_base']);

/**
 * A function giving the exact token count of any `text.slice(a, b)` inside [from, ...), where
 * `ends` are the token ends (relative to `from`) of the encoding of the text from `from`: for a
 * pre-tokenized vocabulary it re-counts only the edges of each slice (countBySyncPoints).
 */
/** Where each token of `text` ends, 4 bytes a token (the tokenizer's `tokenEnds`, else a copy of its offsets). */
export function tokenEndsOf(tokenizer: Tokenizer, text: string): ArrayLike<number> {
  return tokenizer.tokenEnds ? tokenizer.tokenEnds(text) : tokenizer.encodeWithOffsets(text).ends;
}

export function sliceCounter(text: string, tokenizer: Tokenizer, from: number, ends: ArrayLike<number>): (a: number, b: number) => number {
  if (!SPACE_SYNC.has(tokenizer.name)) return (a, b) => tokenizer.count(text.slice(a, b));
  const punctuation = PUNCTUATION_SYNC.has(tokenizer.name);
  return (a, b) => countBySyncPoints(text, a, b, from, ends, tokenizer, punctuation);
}

/**
 * Exact token count of `text[a, b)` for a pre-tokenized vocabulary: only the edges (up to the first
 * sync point after `a`, from the last one before `b`) are counted again; the tokens in between are
 * read off the whole-text encoding. Falls back to counting the slice when it has no two sync points.
 */
function countBySyncPoints(text: string, a: number, b: number, from: number, ends: ArrayLike<number>, tokenizer: Tokenizer, punctuation: boolean): number {
  let r = a + 1;
  while (r < b && !isSyncPoint(text, r, punctuation)) r++;
  let l = b - 1;
  while (l > r && !isSyncPoint(text, l, punctuation)) l--;
  if (l <= r) return tokenizer.count(text.slice(a, b));
  const middle = tokensEndingBy(ends, l - from) - tokensEndingBy(ends, r - from);
  return tokenizer.count(text.slice(a, r)) + middle + tokenizer.count(text.slice(l, b));
}

function isSyncPoint(text: string, i: number, punctuation: boolean): boolean {
  const c = text.charCodeAt(i);
  const prev = text.charCodeAt(i - 1);
  if (c === 0x20 || c === 0x09) return !isSpace(prev);
  return punctuation && isPunctuation(c) && isLetterOrDigit(prev);
}

/** Letters and digits the sync rule is sure of: ASCII, CJK ideographs, kana. */
function isLetterOrDigit(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x3041 && c <= 0x3096) || (c >= 0x30a1 && c <= 0x30fa);
}

/** Punctuation (Unicode P or S, never a letter, digit, mark or space), apostrophe excluded. */
function isPunctuation(c: number): boolean {
  if (c < 0x80) return (c >= 0x21 && c <= 0x2f && c !== 0x27) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
  return (c >= 0x3001 && c <= 0x3003) || (c >= 0x3008 && c <= 0x3011) || (c >= 0xff01 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff1f) || c === 0x2014 || c === 0x2026 || (c >= 0x2018 && c <= 0x201d);
}

/** How many tokens end at or before offset `x` (ends is non-decreasing): a binary search. */
function tokensEndingBy(ends: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ends[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Validates `chunkSize`/`chunkOverlap` (positive integer, non-negative integer below it). */
export function resolveSizes(strategy: string, input: Record<string, unknown>): { chunkSize: number; chunkOverlap: number } {
  const chunkSize = integerOption(strategy, input, 'chunkSize', 512, 1);
  const chunkOverlap = integerOption(strategy, input, 'chunkOverlap', 0, 0);
  if (chunkOverlap >= chunkSize) {
    invalidOption(`${strategy}: option 'chunkOverlap' (${chunkOverlap}) must be smaller than 'chunkSize' (${chunkSize})`);
  }
  return { chunkSize, chunkOverlap };
}

export function rejectUnknownOptions(strategy: string, input: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(input)) {
    if (input[key] !== undefined && !known.includes(key)) {
      invalidOption(`${strategy}: unknown option '${key}'; known options: ${known.join(', ')}`);
    }
  }
}

function integerOption(strategy: string, input: Record<string, unknown>, name: string, fallback: number, min: number): number {
  const value = input[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    invalidOption(`${strategy}: option '${name}' must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A chunk of a plain string (no document: no heading path, no pages). */
export function textChunk(text: string, w: Window, index: number, strategy: string): Chunk {
  const body = text.slice(w.start, w.end);
  return { index, text: body, start: w.start, end: w.end, chars: body.length, tokens: w.tokens, headingPath: [], kind: 'text', strategy };
}

/**
 * Chunks of a Document's canonical text with their provenance: the heading path of the first
 * element a chunk overlaps, the page span of all it overlaps, and kind 'table'/'code' when the
 * chunk lies wholly inside one such element ('text' otherwise). Windows must be in order of start.
 */
export function describeChunks(doc: Document, windows: readonly Window[], strategy: string): Chunk[] {
  const paths = headingPaths(doc.elements);
  const rendered = doc.elements.filter((el) => el.kind !== 'page-furniture' && el.end > el.start);
  const chunks: Chunk[] = [];
  let first = 0;
  for (const w of windows) {
    while (first < rendered.length && rendered[first]!.end <= w.start) first++;
    const chunk = textChunk(doc.canonical, w, chunks.length, strategy);
    let pageStart: number | undefined;
    let pageEnd: number | undefined;
    let last = first;
    for (let k = first; k < rendered.length && rendered[k]!.start < w.end; k++) {
      last = k;
      const el = rendered[k]!;
      if (el.page !== undefined) {
        pageStart = pageStart === undefined ? el.page : Math.min(pageStart, el.page);
        const elEnd = el.pageEnd ?? el.page;
        pageEnd = pageEnd === undefined ? elEnd : Math.max(pageEnd, elEnd);
      }
    }
    const firstEl: Element | undefined = rendered[first];
    if (firstEl && firstEl.start < w.end) {
      chunk.headingPath = paths[firstEl.index] ?? [];
      if (last === first && firstEl.start <= w.start && w.end <= firstEl.end) chunk.kind = kindOf(firstEl);
    } else if (first > 0) {
      chunk.headingPath = paths[rendered[first - 1]!.index] ?? [];
    }
    if (pageStart !== undefined) {
      chunk.pageStart = pageStart;
      chunk.pageEnd = pageEnd;
    }
    chunks.push(chunk);
  }
  return chunks;
}

function kindOf(el: Element): ChunkKind {
  return el.kind === 'table' || el.kind === 'code' ? el.kind : 'text';
}

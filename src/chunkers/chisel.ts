import { headingPaths } from '../document/build.js';
import type { Document, Element } from '../document/types.js';
import { invalidOption } from '../errors.js';
import type { Tokenizer } from '../tokens/types.js';
import type { Chunk, ChunkKind, ChunkerDefinition } from './types.js';

export interface ChiselOptions {
  /** llmware `max_char_size`: the window, in Unicode code points. */
  maxCharSize: number;
  /** llmware `look_back_char_range`: how far back from the window end a stop is searched; pieces shorter than this merge into the previous chunk. */
  lookBackCharRange: number;
}

const SPACE = 32;
const LF = 10;
const CR = 13;
const PERIOD = 46;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const UPPER_M = 77;
const UPPER_D = 68;
const LOWER_R = 114;

/**
 * The text as Python sees it: a sequence of code points. When the string has no surrogates the
 * UTF-16 units are the code points and nothing is copied; otherwise one Uint32Array of code points
 * and one offset table are built (positions in llmware are code points, offsets in our chunks are
 * UTF-16 units).
 */
interface CodePointText {
  readonly length: number;
  at(i: number): number;
  /** UTF-16 offset of code point `i` (`i` may equal `length`). */
  offset(i: number): number;
}

const SURROGATE = /[\uD800-\uDFFF]/;

function codePointText(text: string): CodePointText {
  if (!SURROGATE.test(text)) {
    return { length: text.length, at: (i) => text.charCodeAt(i), offset: (i) => i };
  }
  const points = new Uint32Array(text.length);
  const offsets = new Int32Array(text.length + 1);
  let n = 0;
  for (let u = 0; u < text.length; n++) {
    const cp = text.codePointAt(u)!;
    points[n] = cp;
    offsets[n] = u;
    u += cp > 0xffff ? 2 : 1;
  }
  offsets[n] = text.length;
  return { length: n, at: (i) => points[i]!, offset: (i) => offsets[i]! };
}

function isChiselSpace(cp: number): boolean {
  return cp === SPACE || cp === LF || cp === CR;
}

function isLineBreak(cp: number): boolean {
  return cp === LF || cp === CR;
}

/**
 * llmware's period test for a '.' at `x` that is followed by whitespace or the window end. The
 * look-behind window is T[x-5 .. x-2] (it skips the character right before the period); when
 * x <= 5 Python uses the whole text instead, which contains this very period, so the test fails.
 */
function acceptsPeriod(t: CodePointText, x: number): boolean {
  if (x <= 5) return false;
  const w0 = t.at(x - 5);
  const w1 = t.at(x - 4);
  const w2 = t.at(x - 3);
  const w3 = t.at(x - 2);
  // (A) another period close before it ("e.g.", "U.S.").
  if (w0 === PERIOD || w1 === PERIOD || w2 === PERIOD || w3 === PERIOD) return false;
  // (B) a digit at x-2 ("in 2023.").
  if (w3 >= DIGIT_0 && w3 <= DIGIT_9) return false;
  // (C) "Mr"/"Mrs"/"Dr" at the start of the window; "Mrs" is subsumed by "Mr".
  return !(w1 === LOWER_R && (w0 === UPPER_M || w0 === UPPER_D));
}

/** llmware `smooth_edge`: where the piece that starts at `start` and may run to `stop` is cut. */
function smoothEdge(t: CodePointText, start: number, stop: number, lookBack: number): number {
  const low = stop - lookBack > start ? stop - lookBack : start;
  // Pass 1: a sentence period or a double line break, right to left; `low` itself is never examined.
  for (let x = stop - 1; x > low; x--) {
    const cp = t.at(x);
    if (cp === PERIOD) {
      if ((x + 1 === stop || isChiselSpace(t.at(x + 1))) && acceptsPeriod(t, x)) return x + 1;
    } else if (isLineBreak(cp) && (x + 1 === stop || isLineBreak(t.at(x + 1)))) {
      return x + 1;
    }
  }
  // Pass 2: the last whitespace, which goes to the next piece.
  for (let y = stop - 1; y > low; y--) {
    if (isChiselSpace(t.at(y))) return y;
  }
  return stop;
}

/** A chunk of llmware's output as a code-point span of the input. */
export interface ChiselSpan {
  /** Code point positions. */
  start: number;
  end: number;
}

/**
 * llmware `TextChunker.convert_text_to_chunks`, step for step: windows of `maxCharSize` code points,
 * cut at the best stop found looking back; pieces shorter than `lookBackCharRange` are appended to
 * the previous chunk. The chunks are contiguous and cover the text exactly (nothing trimmed).
 */
export function chiselSpans(t: CodePointText, options: ChiselOptions): ChiselSpan[] {
  const { maxCharSize, lookBackCharRange } = options;
  const n = t.length;
  const spans: ChiselSpan[] = [];
  let start = 0;
  while (start < n) {
    const stop = start + maxCharSize < n ? start + maxCharSize : n;
    const cut = smoothEdge(t, start, stop, lookBackCharRange);
    const last = spans[spans.length - 1];
    if (cut - start < lookBackCharRange && last) last.end = cut;
    else spans.push({ start, end: cut });
    start = cut;
  }
  return spans;
}

/** llmware's chunk strings for `text` (the JavaScript twin of `TextChunker(text).convert_text_to_chunks()`). */
export function chiselStrings(text: string, options: ChiselOptions): string[] {
  const t = codePointText(text);
  return chiselSpans(t, options).map((s) => text.slice(t.offset(s.start), t.offset(s.end)));
}

function resolveChiselOptions(input: Record<string, unknown>): ChiselOptions {
  const { maxCharSize = 600, lookBackCharRange = 300, ...rest } = input;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) invalidOption(`chisel: unknown option(s) ${unknown.join(', ')}; known: maxCharSize, lookBackCharRange`);
  // A window of 0 would never advance (llmware loops forever); reject it instead.
  if (!Number.isSafeInteger(maxCharSize) || (maxCharSize as number) < 1) {
    invalidOption(`chisel: maxCharSize must be an integer >= 1 (got ${String(maxCharSize)})`);
  }
  if (!Number.isSafeInteger(lookBackCharRange) || (lookBackCharRange as number) < 0) {
    invalidOption(`chisel: lookBackCharRange must be an integer >= 0 (got ${String(lookBackCharRange)})`);
  }
  return { maxCharSize: maxCharSize as number, lookBackCharRange: lookBackCharRange as number };
}

interface ChunkContext {
  headingPath: string[];
  pageStart?: number;
  pageEnd?: number;
  kind: ChunkKind;
}

function toChunks(
  text: string,
  options: ChiselOptions,
  tokenizer: Tokenizer,
  context: (start: number, end: number) => ChunkContext,
): Chunk[] {
  // Empty text gives no chunks, whitespace-only text one chunk of it, as in llmware (the library drops blank blocks).
  const t = codePointText(text);
  return chiselSpans(t, options).map((span, index) => {
    const start = t.offset(span.start);
    const end = t.offset(span.end);
    const body = text.slice(start, end);
    const ctx = context(start, end);
    return {
      index,
      text: body,
      start,
      end,
      chars: body.length,
      tokens: tokenizer.count(body),
      headingPath: ctx.headingPath,
      ...(ctx.pageStart !== undefined && { pageStart: ctx.pageStart, pageEnd: ctx.pageEnd ?? ctx.pageStart }),
      kind: ctx.kind,
      strategy: 'chisel',
    };
  });
}

/** Elements that reach chunks (page furniture has an empty span and is not rendered). */
function renderedElements(doc: Document): Element[] {
  return doc.elements.filter((el) => el.kind !== 'page-furniture' && el.end > el.start);
}

/**
 * Context of a canonical span from the elements it overlaps: heading path of the first one, page
 * range over all of them, kind 'table' only when every overlapped element is a table. Elements are
 * sorted by start, so the first overlapped one is found by binary search.
 */
function documentContext(doc: Document): (start: number, end: number) => ChunkContext {
  const elements = renderedElements(doc);
  const paths = headingPaths(doc.elements);
  return (start, end) => {
    let lo = 0;
    let hi = elements.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (elements[mid]!.end <= start) lo = mid + 1;
      else hi = mid;
    }
    let headingPath: string[] | undefined;
    let pageStart: number | undefined;
    let pageEnd: number | undefined;
    let allTables = true;
    let any = false;
    for (let i = lo; i < elements.length && elements[i]!.start < end; i++) {
      const el = elements[i]!;
      any = true;
      headingPath ??= paths[el.index];
      if (el.kind !== 'table') allTables = false;
      if (el.page !== undefined) {
        const last = el.pageEnd ?? el.page;
        pageStart = pageStart === undefined ? el.page : Math.min(pageStart, el.page);
        pageEnd = pageEnd === undefined ? last : Math.max(pageEnd, last);
      }
    }
    return {
      headingPath: headingPath ?? [],
      ...(pageStart !== undefined && { pageStart, pageEnd }),
      kind: any && allTables ? 'table' : 'text',
    };
  };
}

/**
 * `chisel`: llmware's TextChunker, output identical (specs/llmware.md, section a). A Document is
 * chunked as llmware chunks a text file: its canonical text as one string.
 */
export const chiselChunker: ChunkerDefinition<ChiselOptions> = {
  name: 'chisel',
  description:
    "llmware's TextChunker: windows of maxCharSize code points cut at a period, a double line break or a space found looking back lookBackCharRange; short tails merged. Output identical to llmware.",
  resolveOptions: resolveChiselOptions,
  chunkDocument(doc, options, tokenizer) {
    return toChunks(doc.canonical, options, tokenizer, documentContext(doc));
  },
  chunkText(text, options, tokenizer) {
    return toChunks(text, options, tokenizer, () => ({ headingPath: [], kind: 'text' }));
  },
};

export { codePointText };
export type { CodePointText };

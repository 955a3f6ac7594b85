/**
 * The invariants every chunking strategy keeps, as plain functions that list what is violated (no
 * test framework inside), so the fast-check properties (properties.test.ts) and the fuzzer
 * (test/fuzz/) check exactly the same rules: exact token counts, offsets that round-trip, chunks in
 * order, nothing lost (every visible character lies in some chunk), nothing duplicated beyond the
 * declared overlap, size limits (a single grapheme larger than the limit is the documented
 * exception: it becomes a chunk by itself), no cut inside a surrogate pair or a grapheme, and blank
 * input handled as each strategy's original does.
 */
import type { ChunkOptions } from '../../src/chunk.js';
import type { Chunk } from '../../src/chunkers/types.js';
import type { Document } from '../../src/document/types.js';
import { getTokenizer } from '../../src/tokens/index.js';
import type { Tokenizer } from '../../src/tokens/types.js';

export interface StrategySpec {
  options: ChunkOptions;
  /** body = input.slice(start, end); text = prefix + body (true) or text is the body itself (false) */
  prefixed: boolean;
  maxSize?: number;
  /** Max overlap between consecutive spans, in the size unit; 0 = spans never overlap. */
  overlap: number;
  unit: 'tokens' | 'chars';
  graphemeSafe: boolean;
  surrogateSafe: boolean;
  /** What blank (whitespace-only) input gives: nothing, or (chisel, as llmware) one chunk of all of it. */
  blank: 'none' | 'whole';
}

export const STRATEGIES: Record<string, StrategySpec> = {
  structure: { options: { strategy: 'structure', chunkSize: 48 }, prefixed: true, maxSize: 48, overlap: 0, unit: 'tokens', graphemeSafe: true, surrogateSafe: true, blank: 'none' },
  'recursive chars': { options: { strategy: 'recursive', chunkSize: 60, chunkOverlap: 12 }, prefixed: false, maxSize: 60, overlap: 12, unit: 'chars', graphemeSafe: false, surrogateSafe: false, blank: 'none' },
  // LangChain measures each split on its own and sums (a surrogate half alone counts as a whole
  // token), so in token mode a merged chunk may count above chunkSize; parity keeps that.
  'recursive tokens': { options: { strategy: 'recursive', chunkSize: 24, chunkOverlap: 6, lengthUnit: 'tokens' }, prefixed: false, overlap: 24, unit: 'tokens', graphemeSafe: false, surrogateSafe: false, blank: 'none' },
  chisel: { options: { strategy: 'chisel', maxCharSize: 60, lookBackCharRange: 20 }, prefixed: false, overlap: 0, unit: 'chars', graphemeSafe: false, surrogateSafe: true, blank: 'whole' },
  sentence: { options: { strategy: 'sentence', chunkSize: 40, chunkOverlap: 10 }, prefixed: true, maxSize: 40, overlap: 10, unit: 'tokens', graphemeSafe: true, surrogateSafe: true, blank: 'none' },
  token: { options: { strategy: 'token', chunkSize: 32, chunkOverlap: 8 }, prefixed: true, maxSize: 32, overlap: 8, unit: 'tokens', graphemeSafe: true, surrogateSafe: true, blank: 'none' },
};

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Segment windows this long: V8's segmenter costs O(length) per step, so a whole long text would be quadratic. */
const WINDOW = 512;

/**
 * Every grapheme boundary of `text`, from Intl.Segmenter run over windows: each window starts at a
 * boundary, and the boundaries it yields before its own end are exact (UAX #29 decides a boundary
 * from the text before it and the one code point after it), so the next window starts at the last
 * of them. A window holding no boundary (one enormous cluster) is doubled. Linear but for that case.
 */
export function graphemeBoundaries(text: string): Set<number> {
  const set = new Set<number>([0, text.length]);
  let from = 0;
  let size = WINDOW;
  while (from < text.length) {
    let to = Math.min(text.length, from + size);
    // The character after a boundary is a code point: never end a window inside a surrogate pair.
    if (to < text.length && isHigh(text.charCodeAt(to - 1)) && isLow(text.charCodeAt(to))) to++;
    let last = from;
    for (const g of graphemes.segment(text.slice(from, to))) {
      if (g.index === 0) continue;
      set.add(from + g.index);
      last = from + g.index;
    }
    if (to === text.length) break;
    if (last === from) {
      size *= 2;
      continue;
    }
    from = last;
    size = WINDOW;
  }
  return set;
}

function isSingleGrapheme(text: string): boolean {
  const it = graphemes.segment(text)[Symbol.iterator]();
  const first = it.next();
  return !first.done && first.value.segment.length === text.length;
}

/**
 * A gap no chunk covers may hold only characters nobody sees: whitespace (String.prototype.trim's
 * set) plus U+0085 NEXT LINE (Unicode White_Space, which the sentence splitter trims:
 * src/text/sentences.ts isSpace) and U+200B ZERO WIDTH SPACE (a space to the structure chunker and
 * the text parser: src/chunkers/structure-units.ts), neither of which trim() removes.
 */
export const isBlank = (s: string): boolean => s.replace(/[\u0085\u200b]/g, '').trim() === '';

const show = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}...` : s);

/**
 * What `chunks` (of `input`, by the strategy `spec` describes) violate; [] when nothing. Stops
 * after `max` violations: one broken rule tends to break it for every later chunk.
 */
export function chunkViolations(input: string, chunks: readonly Chunk[], spec: StrategySpec, tokenizer: Tokenizer = getTokenizer('cl100k_base'), max = 5): string[] {
  const out: string[] = [];
  const fail = (message: string) => {
    if (out.length < max) out.push(message);
  };
  const size = (text: string) => (spec.unit === 'tokens' ? tokenizer.count(text) : text.length);
  if (input.trim() === '' && spec.blank === 'none') {
    if (chunks.length) fail(`blank input gave ${chunks.length} chunk(s)`);
    return out;
  }
  const bounds = spec.graphemeSafe ? graphemeBoundaries(input) : undefined;
  let covered = 0; // every visible char before this offset is known to be covered
  chunks.forEach((c, i) => {
    if (out.length >= max) return;
    const at = `chunk ${i} [${c.start}, ${c.end})`;
    if (c.index !== i) fail(`${at}: index ${c.index}`);
    if (!(c.start >= 0 && c.start <= c.end && c.end <= input.length)) {
      fail(`${at}: span outside the input (length ${input.length})`);
      return;
    }
    if (c.chars !== c.text.length) fail(`${at}: chars ${c.chars}, text length ${c.text.length}`);
    const counted = tokenizer.count(c.text);
    if (c.tokens !== counted) fail(`${at}: tokens ${c.tokens}, counted ${counted}`);
    const body = input.slice(c.start, c.end);
    if (spec.prefixed ? c.text !== (c.prefix ?? '') + body : c.text !== body) fail(`${at}: text ${show(c.text)} is not ${spec.prefixed ? 'prefix + ' : ''}the span ${show(body)}`);
    if (spec.maxSize !== undefined) {
      const n = size(c.text);
      if (n > spec.maxSize && !(c.text.trim() === body.trim() && isSingleGrapheme(body.trim()))) fail(`${at}: size ${n} ${spec.unit} > ${spec.maxSize}`);
    }
    if (spec.surrogateSafe) {
      if (isLow(input.charCodeAt(c.start)) && isHigh(input.charCodeAt(c.start - 1))) fail(`${at}: starts inside a surrogate pair`);
      if (isLow(input.charCodeAt(c.end)) && isHigh(input.charCodeAt(c.end - 1))) fail(`${at}: ends inside a surrogate pair`);
    }
    if (bounds) {
      if (!bounds.has(c.start)) fail(`${at}: starts inside a grapheme`);
      if (!bounds.has(c.end)) fail(`${at}: ends inside a grapheme`);
    }
    if (i > 0) {
      const prev = chunks[i - 1]!;
      if (c.start < prev.start || c.end < prev.end) fail(`${at}: out of order after [${prev.start}, ${prev.end})`);
      const shared = prev.end > c.start ? input.slice(c.start, prev.end) : '';
      if (spec.overlap === 0 ? shared !== '' : size(shared) > spec.overlap) fail(`${at}: shares ${show(shared)} with the previous chunk (overlap ${spec.overlap})`);
    }
    // Nothing lost: the gap before this chunk holds only whitespace.
    if (c.start > covered && !isBlank(input.slice(covered, c.start))) fail(`${at}: text before it is in no chunk: ${show(input.slice(covered, c.start).trim())}`);
    covered = Math.max(covered, c.end);
  });
  if (covered < input.length && !isBlank(input.slice(covered))) fail(`text after the last chunk is in no chunk: ${show(input.slice(covered).trim())}`);
  return out;
}

/**
 * The rules a chunking of a Document keeps whatever its strategy: spans inside the canonical text
 * and in order, exact counts; for structure, sentence and token also text = prefix + span and
 * nothing lost; for recursive and chisel, text = span. (Sizes depend on per-kind limits: not here.)
 */
export function documentChunkViolations(doc: Document, chunks: readonly Chunk[], strategy: string, tokenizer: Tokenizer, max = 5): string[] {
  const input = doc.canonical;
  const prefixed = strategy === 'structure' || strategy === 'sentence' || strategy === 'token';
  const verbatim = strategy === 'recursive' || strategy === 'chisel';
  const out: string[] = [];
  const fail = (message: string) => {
    if (out.length < max) out.push(message);
  };
  let covered = 0;
  chunks.forEach((c, i) => {
    const at = `chunk ${i} [${c.start}, ${c.end})`;
    if (c.index !== i) fail(`${at}: index ${c.index}`);
    if (!(c.start >= 0 && c.start <= c.end && c.end <= input.length)) return fail(`${at}: span outside the canonical text (length ${input.length})`);
    if (c.chars !== c.text.length) fail(`${at}: chars ${c.chars}, text length ${c.text.length}`);
    const counted = tokenizer.count(c.text);
    if (c.tokens !== counted) fail(`${at}: tokens ${c.tokens}, counted ${counted}`);
    const body = input.slice(c.start, c.end);
    if (prefixed && c.text !== (c.prefix ?? '') + body) fail(`${at}: text ${show(c.text)} is not prefix + the span ${show(body)}`);
    if (verbatim && c.text !== body) fail(`${at}: text ${show(c.text)} is not the span ${show(body)}`);
    if (i > 0 && c.start < chunks[i - 1]!.start) fail(`${at}: starts before the previous chunk`);
    if (prefixed) {
      if (c.start > covered && !isBlank(input.slice(covered, c.start))) fail(`${at}: text before it is in no chunk: ${show(input.slice(covered, c.start).trim())}`);
      covered = Math.max(covered, c.end);
    }
  });
  if (prefixed && !isBlank(input.slice(covered))) fail(`text after the last chunk is in no chunk: ${show(input.slice(covered).trim())}`);
  return out;
}

/** What a parsed Document violates: element spans inside the canonical text, in order, non-overlapping. */
export function documentViolations(doc: Document, max = 5): string[] {
  const out: string[] = [];
  const fail = (message: string) => {
    if (out.length < max) out.push(message);
  };
  if (typeof doc.canonical !== 'string') return [`canonical is ${typeof doc.canonical}`];
  let last = 0;
  doc.elements.forEach((el, i) => {
    if (el.kind === 'page-furniture') return;
    const at = `element ${i} (${el.kind}) [${el.start}, ${el.end})`;
    if (el.index !== i) fail(`${at}: index ${el.index}`);
    if (!(Number.isInteger(el.start) && Number.isInteger(el.end) && el.start >= 0 && el.start <= el.end && el.end <= doc.canonical.length)) return fail(`${at}: span outside the canonical text (length ${doc.canonical.length})`);
    if (el.start < last) fail(`${at}: overlaps the previous element (ends ${last})`);
    last = el.end;
  });
  return out;
}

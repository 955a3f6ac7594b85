import { invalidOption } from '../errors.js';
import { Graphemes } from '../text/graphemes.js';
import { MathIndex } from '../text/math.js';
import { isSpace, splitSentences } from '../text/sentences.js';
import type { Tokenizer } from '../tokens/types.js';
import { describeChunks, rejectUnknownOptions, resolveSizes, sliceCounter, textChunk, tokenEndsOf, tokenWindows, type Window } from './token.js';
import type { ChunkerDefinition } from './types.js';

/**
 * `sentence`: packs whole sentences (src/text/sentences.ts) into chunks of at most `chunkSize`
 * tokens or characters, each chunk after the first opening with the whole trailing sentences of the
 * previous chunk that fit in `chunkOverlap`. A sentence longer than `chunkSize` is cut into token
 * windows (or grapheme-safe character windows) that are packed like sentences. Chunks begin and end
 * at a sentence's first/last non-whitespace character, so only whitespace falls between chunks.
 * Sentences never end inside an equation, and windows cut one only when it alone exceeds the size.
 * Docs: docs/chunkers/sentence-token.md.
 */

export type LengthUnit = 'tokens' | 'chars';

export interface SentenceChunkOptions {
  /** Limit of every chunk, in `lengthUnit` (exact). */
  chunkSize: number;
  /** Budget, in `lengthUnit`, for whole sentences of the previous chunk repeated at the start of the next. */
  chunkOverlap: number;
  lengthUnit: LengthUnit;
}

const SENTENCE_OPTIONS = ['chunkSize', 'chunkOverlap', 'lengthUnit'];
const NON_SPACE = /\S/;

export const sentenceChunker: ChunkerDefinition<SentenceChunkOptions> = {
  name: 'sentence',
  description: 'packs whole sentences up to chunkSize tokens (or chars) with an overlap of whole trailing sentences',
  resolveOptions(input) {
    rejectUnknownOptions('sentence', input, SENTENCE_OPTIONS);
    const lengthUnit = input.lengthUnit ?? 'tokens';
    if (lengthUnit !== 'tokens' && lengthUnit !== 'chars') {
      invalidOption(`sentence: option 'lengthUnit' must be 'tokens' or 'chars', got ${JSON.stringify(lengthUnit)}`);
    }
    return { ...resolveSizes('sentence', input), lengthUnit };
  },
  chunkText(text, options, tokenizer) {
    return sentenceWindows(text, options, tokenizer).map((w, index) => textChunk(text, w, index, 'sentence'));
  },
  chunkDocument(doc, options, tokenizer) {
    return describeChunks(doc, sentenceWindows(doc.canonical, options, tokenizer), 'sentence');
  },
};

/** A packable unit: a sentence without its surrounding whitespace, or a window of an oversize one. */
interface Unit {
  start: number;
  end: number;
  /** Size in the length unit, measured on `text.slice(start, end)` alone. */
  size: number;
}

/** The chunk bodies of `text` with their exact token counts. */
export function sentenceWindows(text: string, options: SentenceChunkOptions, tokenizer: Tokenizer): Window[] {
  if (!NON_SPACE.test(text)) return [];
  // One encoding of the whole text; every sentence and chunk count re-tokenizes only its edges.
  const countTokens = sliceCounter(text, tokenizer, 0, tokenEndsOf(tokenizer, text));
  const measure = options.lengthUnit === 'tokens' ? countTokens : (a: number, b: number) => b - a;
  const units = sentenceUnits(text, options, tokenizer, measure, new MathIndex(text), new Graphemes(text));
  const windows = packUnits(units, options, measure);
  if (options.lengthUnit === 'tokens') return windows;
  for (const w of windows) w.tokens = countTokens(w.start, w.end);
  return windows;
}

function sentenceUnits(text: string, options: SentenceChunkOptions, tokenizer: Tokenizer, measure: (a: number, b: number) => number, math: MathIndex, graphemes: Graphemes): Unit[] {
  const units: Unit[] = [];
  for (const span of splitSentences(text)) {
    let start = span.start;
    let end = span.end;
    while (start < end && isSpace(text.charCodeAt(start))) start++;
    while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
    if (start === end) continue;
    start = graphemes.floor(start);
    end = graphemes.ceil(end);
    const size = measure(start, end);
    if (size <= options.chunkSize) units.push({ start, end, size });
    else if (options.lengthUnit === 'tokens') {
      for (const w of tokenWindows(text, start, end, options.chunkSize, 0, tokenizer, graphemes)) units.push({ start: w.start, end: w.end, size: w.tokens });
    } else {
      pushCharWindows(graphemes, start, end, options.chunkSize, units, math);
    }
  }
  return units;
}

/**
 * Cuts [start, end) into pieces of at most `size` UTF-16 code units: after the last whitespace that
 * fits (the whitespace itself falls between pieces), else at the last grapheme boundary that fits.
 */
function pushCharWindows(graphemes: Graphemes, start: number, end: number, size: number, units: Unit[], math: MathIndex): void {
  const text = graphemes.text;
  let a = start;
  while (a < end) {
    if (end - a <= size) {
      units.push({ start: a, end, size: end - a });
      return;
    }
    let b = graphemes.floor(a + size);
    let next = b;
    let w = b;
    while (w > a && !isSpace(text.charCodeAt(w - 1))) w--;
    if (w > a && graphemes.isBoundary(w)) {
      next = w;
      b = trimBack(graphemes, a, w);
    }
    // A grapheme cluster wider than `size`: take it whole.
    if (b <= a) b = next = graphemes.next(a);
    // An equation that would be cut goes whole to the next piece (unless it alone is over the size).
    const split = math.containing(b);
    if (split && split.start > a) {
      const c = trimBack(graphemes, a, split.start);
      if (c > a) {
        b = c;
        next = split.start;
      }
    }
    units.push({ start: a, end: b, size: b - a });
    a = next;
    while (a < end && isSpace(text.charCodeAt(a))) a++;
    // Whitespace that carries combining marks starts the next piece with them.
    if (a < end) a = Math.max(next, graphemes.floor(a));
  }
}

/** `to` moved back over whitespace (not before `from`), then forward to a grapheme boundary (not past `to`). */
function trimBack(graphemes: Graphemes, from: number, to: number): number {
  let b = to;
  while (b > from && isSpace(graphemes.text.charCodeAt(b - 1))) b--;
  return b < to && b > from ? Math.min(to, graphemes.ceil(b)) : b;
}

/**
 * Greedy packing: each chunk takes the previous chunk's trailing units that fit in the overlap
 * budget, then new units while the sum of their sizes fits; the exact size of the chunk's text is
 * then measured and units are given back until it fits (sizes of joined sentences can differ from
 * the sum by a token or so where BPE merges across the join).
 */
function packUnits(units: readonly Unit[], options: SentenceChunkOptions, measure: (a: number, b: number) => number): Window[] {
  const { chunkSize, chunkOverlap } = options;
  const windows: Window[] = [];
  let prevFirst = 0;
  let next = 0;
  while (next < units.length) {
    let first = next;
    if (chunkOverlap > 0 && windows.length > 0) first = overlapStart(units, prevFirst, next, chunkOverlap, measure);
    let sum = 0;
    for (let k = first; k < next; k++) sum += units[k]!.size;
    // Make room for at least one new unit by giving back overlap from the front.
    while (first < next && sum + units[next]!.size > chunkSize) sum -= units[first++]!.size;
    let last = next;
    sum += units[last]!.size;
    while (last + 1 < units.length && sum + units[last + 1]!.size <= chunkSize) sum += units[++last]!.size;
    let size = measure(units[first]!.start, units[last]!.end);
    while (size > chunkSize && (last > next || first < next)) {
      if (last > next) last--;
      else first++;
      size = measure(units[first]!.start, units[last]!.end);
    }
    windows.push({ start: units[first]!.start, end: units[last]!.end, tokens: size });
    prevFirst = first;
    next = last + 1;
  }
  return windows;
}

/** First unit of the longest run of whole trailing units of the previous chunk that fits in `budget`. */
function overlapStart(units: readonly Unit[], prevFirst: number, next: number, budget: number, measure: (a: number, b: number) => number): number {
  let first = next;
  let sum = 0;
  // Never the whole previous chunk: the overlap is its tail.
  while (first - 1 > prevFirst && sum + units[first - 1]!.size <= budget) sum += units[--first]!.size;
  while (first < next && measure(units[first]!.start, units[next - 1]!.end) > budget) first++;
  return first;
}

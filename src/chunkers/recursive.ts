import { headingPaths } from '../document/build.js';
import type { Document, Element } from '../document/types.js';
import { GroundworkError, invalidOption } from '../errors.js';
import type { Tokenizer } from '../tokens/types.js';
import { withLazyTokens } from './lazy-tokens.js';
import {
  DEFAULT_SEPARATORS,
  RECURSIVE_LANGUAGES,
  isRecursiveLanguage,
  separatorsForLanguage,
  type RecursiveLanguage,
} from './recursive-languages.js';
import type { Chunk, ChunkerDefinition } from './types.js';

/**
 * The `recursive` strategy: the output of LangChain.js `RecursiveCharacterTextSplitter`
 * (`@langchain/textsplitters` 1.0.2), string for string, quirks included
 * (../shared/specs/langchain-recursive.md). The algorithm is LangChain's; the implementation is
 * ours: it works on offsets into the source, is synchronous, and in `chars` mode never builds a
 * string before a chunk is emitted, so every chunk also gets its exact span in the source.
 */

export type LengthUnit = 'chars' | 'tokens';

export interface RecursiveOptions {
  /** Largest chunk, in `lengthUnit`s. Default 1000. */
  chunkSize: number;
  /** Overlap budget between neighbouring chunks, in `lengthUnit`s. Default 200. */
  chunkOverlap: number;
  /** Literal separators, tried in order. Default `["\n\n", "\n", " ", ""]`, or the `language` preset. */
  separators: readonly string[];
  /** Keep each separator at the start of the piece that follows it. Default true. */
  keepSeparator: boolean;
  /** `chars` = UTF-16 code units (LangChain's default `text.length`); `tokens` = exact token counts. */
  lengthUnit: LengthUnit;
  /** A `fromLanguage` preset; it supplies `separators`. */
  language?: RecursiveLanguage;
}

/** One chunk as LangChain returns it, with its span in the source. */
export interface RecursiveSpan {
  text: string;
  start: number;
  end: number;
}

const OPTION_NAMES = ['chunkSize', 'chunkOverlap', 'separators', 'keepSeparator', 'lengthUnit', 'language'];

export function resolveRecursiveOptions(input: Record<string, unknown>): RecursiveOptions {
  for (const key of Object.keys(input)) {
    if (!OPTION_NAMES.includes(key) && input[key] !== undefined) {
      invalidOption(`recursive: unknown option '${key}'; known options: ${OPTION_NAMES.join(', ')}`);
    }
  }
  const chunkSize = numberOption(input.chunkSize, 'chunkSize', 1000);
  const chunkOverlap = numberOption(input.chunkOverlap, 'chunkOverlap', 200);
  // LangChain's only check; equality throws too.
  if (chunkOverlap >= chunkSize) {
    const defaulted = input.chunkOverlap == null ? ' (the default chunkOverlap is 200, as in LangChain: pass a smaller one)' : '';
    invalidOption(`recursive: chunkOverlap (${chunkOverlap}) must be smaller than chunkSize (${chunkSize})${defaulted}`);
  }
  const language = input.language ?? undefined;
  if (language !== undefined && !isRecursiveLanguage(language)) {
    invalidOption(`recursive: unknown language '${String(language)}'; supported: ${RECURSIVE_LANGUAGES.join(', ')}`);
  }
  if (language !== undefined && input.separators != null) {
    // LangChain's fromLanguage would silently drop the caller's separators.
    invalidOption('recursive: give either language (a preset separator list) or separators, not both');
  }
  const separators = language !== undefined ? separatorsForLanguage(language) : separatorsOption(input.separators);
  const keepSeparator = keepSeparatorOption(input.keepSeparator);
  const lengthUnit = input.lengthUnit ?? 'chars';
  if (lengthUnit !== 'chars' && lengthUnit !== 'tokens') {
    invalidOption(`recursive: lengthUnit must be 'chars' or 'tokens', got ${JSON.stringify(lengthUnit)}`);
  }
  return { chunkSize, chunkOverlap, separators, keepSeparator, lengthUnit, ...(language !== undefined && { language }) };
}

function numberOption(value: unknown, name: string, fallback: number): number {
  if (value == null) return fallback;
  if (typeof value !== 'number') invalidOption(`recursive: ${name} must be a number, got ${JSON.stringify(value)}`);
  return value;
}

function separatorsOption(value: unknown): readonly string[] {
  // Only a missing list is replaced by the default; an empty array is kept, as in LangChain.js.
  if (value == null) return DEFAULT_SEPARATORS;
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) {
    invalidOption(`recursive: separators must be an array of strings, got ${JSON.stringify(value)}`);
  }
  return Object.freeze([...(value as string[])]);
}

/** LangChain.js treats any truthy value as "keep at the start"; 'start' and 'end' are the names Python users pass. */
function keepSeparatorOption(value: unknown): boolean {
  if (value == null) return true;
  if (typeof value === 'boolean') return value;
  if (value === 'start' || value === 'end') return true;
  return invalidOption(`recursive: keepSeparator must be true or false ('start'/'end' act as true), got ${JSON.stringify(value)}`);
}

/** The splitter's chunks with their spans: what `chunkText` returns before token counts and metadata. */
export function recursiveSplit(text: string, options: RecursiveOptions, tokenizer?: Tokenizer): RecursiveSpan[] {
  if (options.lengthUnit === 'tokens' && !tokenizer) invalidOption("recursive: lengthUnit 'tokens' needs a tokenizer");
  const splitter = new Splitter(text, options, options.lengthUnit === 'tokens' ? tokenizer! : null);
  return splitter.run();
}

/**
 * JavaScript's `String.prototype.trim` set: WhiteSpace and LineTerminator code points
 * (Unicode Zs plus TAB, VT, FF, NBSP, ZWNBSP/BOM, LF, CR, LS, PS).
 */
export function isJsWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function negativeOverlapError(overlap: number): GroundworkError {
  return new GroundworkError(
    'INVALID_OPTIONS',
    `recursive: chunkOverlap (${overlap}) must not be negative once a text needs more than one chunk ` +
      '(LangChain 1.0.2 crashes with a TypeError here)',
  );
}

function missingJoinerError(start: number, end: number): GroundworkError {
  return new GroundworkError(
    'INVALID_OPTIONS',
    `recursive: the text at ${start}-${end} is still at least chunkSize long after the last separator, and with ` +
      'keepSeparator false it cannot be split further (LangChain 1.0.2 crashes with a TypeError here): ' +
      'end separators with "" or use keepSeparator true',
  );
}

/**
 * One run of the splitter over one source string. Pieces are [start, end) offsets into the source
 * and are handled as they are found: a "good" piece (shorter than chunkSize) goes straight into the
 * merge window, an oversize one closes the window and is split further. LangChain flushes its
 * buffered pieces before it recurses, so only one window is ever open and one queue serves every
 * level. The recursion visits pieces left to right, as LangChain does, so chunks come out in its order.
 */
class Splitter {
  private readonly out: RecursiveSpan[] = [];
  private readonly separators: readonly string[];
  private readonly keep: boolean;
  private readonly size: number;
  private readonly overlap: number;
  /** Per separator index: where the last search started and what it found (-1: nothing after it). */
  private readonly probeFrom: number[];
  private readonly probeAt: number[];
  private readonly unitTokens = new Map<number, number>();

  /** The merge window: pieces [head, tail) of these queues, their length sum and the joiner of the run. */
  private readonly windowStart: number[] = [];
  private readonly windowEnd: number[] = [];
  private readonly windowLength: number[] = [];
  private head = 0;
  private tail = 0;
  private total = 0;
  private joiner = '';

  constructor(
    private readonly source: string,
    options: RecursiveOptions,
    private readonly tokenizer: Tokenizer | null,
  ) {
    this.separators = options.separators;
    this.keep = options.keepSeparator;
    this.size = options.chunkSize;
    this.overlap = options.chunkOverlap;
    this.probeFrom = options.separators.map(() => Infinity);
    this.probeAt = options.separators.map(() => -1);
  }

  run(): RecursiveSpan[] {
    if (this.source.length > 0) this.splitRange(0, this.source.length, 0);
    return this.out;
  }

  /** LangChain's length function on a piece: code units, or the exact token count. */
  private measure(start: number, end: number): number {
    if (this.tokenizer === null) return end - start;
    if (end - start === 1) return this.measureUnit(this.source.charCodeAt(start));
    return this.tokenizer.count(this.source.slice(start, end));
  }

  private measureUnit(code: number): number {
    let count = this.unitTokens.get(code);
    if (count === undefined) {
      count = this.tokenizer!.count(String.fromCharCode(code));
      this.unitTokens.set(code, count);
    }
    return count;
  }

  /**
   * First occurrence of separator `index` at or after `pos`. Searches move left to right through the
   * source, so the last answer usually still holds and each separator costs one pass in total.
   */
  private firstOccurrence(index: number, pos: number): number {
    const at = this.probeAt[index]!;
    if (this.probeFrom[index]! <= pos && (at >= pos || at === -1)) return at;
    const found = this.source.indexOf(this.separators[index]!, pos);
    this.probeFrom[index] = pos;
    this.probeAt[index] = found;
    return found;
  }

  private occursWithin(index: number, start: number, end: number): boolean {
    const at = this.firstOccurrence(index, start);
    return at !== -1 && at + this.separators[index]!.length <= end;
  }

  /** LangChain's `_splitText` on source[start, end) with the separator list `separators[from..]`. */
  private splitRange(start: number, end: number, from: number): void {
    const separators = this.separators;
    let chosen = -1;
    for (let i = from; i < separators.length; i++) {
      if (separators[i] === '') break;
      if (this.occursWithin(i, start, end)) {
        chosen = i;
        break;
      }
    }
    if (chosen >= 0) {
      this.splitOnSeparator(start, end, chosen);
      return;
    }
    const hasEmpty = separators.indexOf('', from) !== -1;
    if (!hasEmpty && from < separators.length) {
      // No entry occurs: LangChain splits on the last one, which leaves the range whole, with no further list.
      this.piece(start, end, this.keep ? '' : separators[separators.length - 1]!, -1);
      this.closeWindow();
      return;
    }
    // "" chosen, or an empty list (LangChain then splits on `undefined`: code units, undefined joiner).
    const joiner = this.keep || hasEmpty ? '' : null;
    if (this.tokenizer === null) {
      this.splitUnitsByChars(start, end, joiner);
      return;
    }
    for (let at = start; at < end; at++) this.piece(at, at + 1, joiner, -1);
    this.closeWindow();
  }

  private splitOnSeparator(start: number, end: number, index: number): void {
    const separator = this.separators[index]!;
    const width = separator.length;
    const further = index + 1;
    if (this.keep) {
      // Cut before every position > start where the separator begins, overlapping ones included
      // (LangChain splits on a look-ahead), so every piece after the first starts with the separator.
      let pieceStart = start;
      let at = this.firstOccurrence(index, start + 1);
      while (at !== -1 && at + width <= end) {
        this.piece(pieceStart, at, '', further);
        pieceStart = at;
        at = this.firstOccurrence(index, at + 1);
      }
      this.piece(pieceStart, end, '', further);
    } else {
      // String.prototype.split: non-overlapping occurrences, empty pieces dropped.
      let pieceStart = start;
      let at = this.firstOccurrence(index, start);
      while (at !== -1 && at + width <= end) {
        if (at > pieceStart) this.piece(pieceStart, at, separator, further);
        pieceStart = at + width;
        at = this.firstOccurrence(index, pieceStart);
      }
      if (end > pieceStart) this.piece(pieceStart, end, separator, further);
    }
    this.closeWindow();
  }

  /**
   * One piece of a level. Shorter than chunkSize: into the merge window. Otherwise the window is
   * closed and the piece is split with the further list (`further` >= 0) or emitted as it is.
   * `joiner` null stands for LangChain's undefined joiner (separators exhausted, keepSeparator false).
   */
  private piece(start: number, end: number, joiner: string | null, further: number): void {
    const length = this.measure(start, end);
    if (length < this.size) {
      if (joiner === null) throw missingJoinerError(start, end);
      this.addToWindow(start, end, length, joiner);
      return;
    }
    this.closeWindow();
    if (further >= 0) this.splitRange(start, end, further);
    else this.emitRaw(start, end);
  }

  /**
   * One step of LangChain's `mergeSplits`: the window grows while the joined length fits; when the
   * next piece does not fit the window is emitted, then pieces leave its front while their length
   * sum exceeds the overlap or the next piece still does not fit.
   */
  private addToWindow(start: number, end: number, length: number, joiner: string): void {
    if (this.head === this.tail) {
      this.head = this.tail = 0;
      this.joiner = joiner;
    }
    // The joiner counts in code units even in tokens mode: LangChain uses `separator.length` here.
    const joinerLength = joiner.length;
    const size = this.size;
    if (this.tail > this.head && this.total + length + (this.tail - this.head) * joinerLength > size) {
      this.emitWindow();
      const overlap = this.overlap;
      while (this.total > overlap || (this.total + length + (this.tail - this.head) * joinerLength > size && this.total > 0)) {
        if (this.head === this.tail) throw negativeOverlapError(overlap);
        this.total -= this.windowLength[this.head]!;
        this.head++;
      }
      if (this.head === this.tail) this.head = this.tail = 0;
      else if (this.head >= 1024) this.compactWindow();
    }
    const tail = this.tail++;
    this.windowStart[tail] = start;
    this.windowEnd[tail] = end;
    this.windowLength[tail] = length;
    this.total += length;
  }

  /** Moves the window to the front of the queues, so a long run does not grow them without bound. */
  private compactWindow(): void {
    const { head, tail } = this;
    this.windowStart.copyWithin(0, head, tail);
    this.windowEnd.copyWithin(0, head, tail);
    this.windowLength.copyWithin(0, head, tail);
    this.tail = tail - head;
    this.head = 0;
  }

  /** End of a run of good pieces: emit what the window holds and empty it. */
  private closeWindow(): void {
    if (this.head === this.tail) return;
    this.emitWindow();
    this.head = this.tail = 0;
    this.total = 0;
  }

  /** The "" level in chars mode: every piece is one code unit, so the window is a plain range. */
  private splitUnitsByChars(start: number, end: number, joiner: string | null): void {
    if (!(1 < this.size)) {
      // No code unit is "good": each is emitted as it is, spaces included.
      for (let at = start; at < end; at++) this.emitRaw(at, at + 1);
      return;
    }
    if (joiner === null) throw missingJoinerError(start, end);
    const size = this.size;
    const overlap = this.overlap;
    let first = start;
    for (let next = start; next < end; next++) {
      // The window [first, next) holds next - first code units, each of length 1.
      let total = next - first;
      if (total + 1 > size && total > 0) {
        this.emitTrimmed(first, next);
        while (total > overlap || (total + 1 > size && total > 0)) {
          if (total === 0) throw negativeOverlapError(overlap);
          total--;
          first++;
        }
      }
    }
    this.emitTrimmed(first, end);
  }

  private emitWindow(): void {
    const { head, tail, windowStart: starts, windowEnd: ends } = this;
    const width = this.joiner.length;
    if (width > 0) {
      // keepSeparator false: the joined window is a slice of the source unless empty pieces were
      // dropped inside it (runs of the separator), where LangChain's text has fewer separators.
      for (let k = head + 1; k < tail; k++) {
        if (starts[k] !== ends[k - 1]! + width) {
          this.emitJoined();
          return;
        }
      }
    }
    this.emitTrimmed(starts[head]!, ends[tail - 1]!);
  }

  /** `join().trim()` of a window that is the slice source[start, end): trimmed by offsets, sliced once. */
  private emitTrimmed(start: number, end: number): void {
    const source = this.source;
    while (start < end && isJsWhitespace(source.charCodeAt(start))) start++;
    while (end > start && isJsWhitespace(source.charCodeAt(end - 1))) end--;
    if (start < end) this.out.push({ text: source.slice(start, end), start, end });
  }

  /** A window whose joined text is not a slice: built as LangChain builds it; its span covers the source it came from. */
  private emitJoined(): void {
    const parts: string[] = [];
    for (let k = this.head; k < this.tail; k++) parts.push(this.source.slice(this.windowStart[k]!, this.windowEnd[k]!));
    const joined = parts.join(this.joiner);
    let first = 0;
    let last = joined.length;
    while (first < last && isJsWhitespace(joined.charCodeAt(first))) first++;
    while (last > first && isJsWhitespace(joined.charCodeAt(last - 1))) last--;
    if (first === last) return;
    const start = this.joinedToSource(first);
    const end = this.joinedToSource(last - 1) + 1;
    this.out.push({ text: joined.slice(first, last), start, end });
  }

  /** Source offset of position `pos` of the joined window; a joiner maps to the separator right after its piece. */
  private joinedToSource(pos: number): number {
    const width = this.joiner.length;
    for (let k = this.head; k < this.tail; k++) {
      const length = this.windowEnd[k]! - this.windowStart[k]!;
      if (pos < length) return this.windowStart[k]! + pos;
      pos -= length;
      if (pos < width) return this.windowEnd[k]! + pos;
      pos -= width;
    }
    return this.windowEnd[this.tail - 1]!;
  }

  private emitRaw(start: number, end: number): void {
    this.out.push({ text: this.source.slice(start, end), start, end });
  }
}

function toChunk(span: RecursiveSpan, index: number, tokenizer: Tokenizer): Chunk {
  // Counted when first read: LangChain-compatible callers that only want texts pay nothing for it.
  return withLazyTokens(
    { index, text: span.text, start: span.start, end: span.end, chars: span.text.length, headingPath: [], kind: 'text', strategy: 'recursive' },
    tokenizer,
  );
}

function chunkRecursiveText(text: string, options: RecursiveOptions, tokenizer: Tokenizer): Chunk[] {
  return recursiveSplit(text, options, tokenizer).map((span, index) => toChunk(span, index, tokenizer));
}

/** Chunks of the canonical text, with the heading path of the first element each overlaps and the pages of all of them. */
function chunkRecursiveDocument(doc: Document, options: RecursiveOptions, tokenizer: Tokenizer): Chunk[] {
  const chunks = chunkRecursiveText(doc.canonical, options, tokenizer);
  const paths = headingPaths(doc.elements);
  // Page furniture is not rendered (empty span): it never belongs to a chunk.
  const elements = doc.elements.filter((el) => el.kind !== 'page-furniture' && el.end > el.start);
  for (const chunk of chunks) {
    let pageStart: number | undefined;
    let pageEnd: number | undefined;
    let path: string[] | undefined;
    for (let i = firstEndingAfter(elements, chunk.start); i < elements.length; i++) {
      const el = elements[i]!;
      if (el.start >= chunk.end) break;
      path ??= paths[el.index];
      if (el.page !== undefined) {
        const last = el.pageEnd ?? el.page;
        pageStart = pageStart === undefined ? el.page : Math.min(pageStart, el.page);
        pageEnd = pageEnd === undefined ? last : Math.max(pageEnd, last);
      }
    }
    if (path) chunk.headingPath = [...path];
    if (pageStart !== undefined) chunk.pageStart = pageStart;
    if (pageEnd !== undefined) chunk.pageEnd = pageEnd;
  }
  return chunks;
}

/** Index of the first element (sorted by start, non-overlapping) whose span ends after `offset`. */
function firstEndingAfter(elements: readonly Element[], offset: number): number {
  let lo = 0;
  let hi = elements.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (elements[mid]!.end > offset) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export const recursiveChunker: ChunkerDefinition<RecursiveOptions> = {
  name: 'recursive',
  description:
    "LangChain.js RecursiveCharacterTextSplitter 1.0.2, output-identical: separator hierarchy, overlap, keepSeparator, language presets; sizes in chars (UTF-16 code units) or tokens",
  resolveOptions: resolveRecursiveOptions,
  chunkDocument: chunkRecursiveDocument,
  chunkText: chunkRecursiveText,
};

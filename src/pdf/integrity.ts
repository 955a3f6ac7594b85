import { inflateSync } from 'node:zlib';

/**
 * Byte-level checks of a PDF's structure, because PDFium repairs damaged files silently (it rebuilds
 * a broken cross-reference table by scanning the file and decodes what it can of a corrupt stream)
 * and never says so. `inspectPdf` reads the header, the tail and the cross-reference sections it
 * points at (a few KB however large the file); `checkContentStreams` inflates page content streams
 * within a byte budget, finding them through the cross-reference data or, when that is damaged, by
 * scanning the file for object headers as PDFium's repair does. Both are pure functions over the
 * file's bytes.
 */

/** What the structure check found; `damage` is empty for a sound file. */
export interface PdfStructure {
  size: number;
  /** Where `%PDF-` starts (producers may put junk before it), or -1. */
  headerOffset: number;
  /** The file carries an /Encrypt dictionary in its trailer (or xref stream dictionary). */
  encrypted: boolean;
  /** The file ends without `%%EOF` near its end: it was cut short. */
  truncated: boolean;
  damage: StructureDamage[];
  /** Object lookup through the cross-reference sections; undefined when they are unusable. */
  xref: XrefIndex | undefined;
  /** The newest trailer (or xref stream dictionary). */
  trailer: PdfDict | undefined;
}

export type StructureDamage =
  | { kind: 'no-startxref' }
  | { kind: 'startxref-off-target'; offset: number }
  | { kind: 'xref-table-malformed'; offset: number }
  | { kind: 'xref-entry-off-target'; object: number; offset: number }
  | { kind: 'xref-stream-unreadable'; offset: number }
  | { kind: 'no-trailer'; offset: number }
  | { kind: 'trailer-incomplete'; missing: string }
  | { kind: 'prev-off-target'; offset: number };

export interface StreamDamage {
  /** 0-based page index. */
  page: number;
  object: number;
  reason: 'checksum' | 'cut-short' | 'corrupt';
  detail: string;
}

/** How far from the end `startxref` and `%%EOF` are looked for (PDFium and Acrobat use 1-4 KB). */
const TAIL_BYTES = 4096;
const EOF_TAIL_BYTES = 1024;
/** Trailing white space or NULs skipped before looking for `%%EOF`. */
const MAX_PADDING = 65536;
/** Cross-reference entries whose offsets are verified (spread over the table). */
const SAMPLED_ENTRIES = 8;
/** Sections followed through /Prev before giving up (incremental updates). */
const MAX_SECTIONS = 64;
/** An xref or object stream larger than this is not inflated (a lookup table, not content). */
const MAX_INDEX_STREAM = 4 << 20;
/** Each inflate call costs about as much as inflating this many more encoded bytes (zlib set-up). */
const STREAM_OVERHEAD = 2048;
/** Inflated size beyond which a stream is not decoded further (a deflate bomb is not damage). */
const MAX_INFLATED = 64 << 20;

// ---------------------------------------------------------------------------------------------
// Lexing

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIM[c.charCodeAt(0)] = 1;

const CH_0 = 48;
const CH_9 = 57;
const CH_PERCENT = 37;
const CH_LT = 60;
const CH_GT = 62;
const CH_LBRACKET = 91;
const CH_RBRACKET = 93;
const CH_LPAREN = 40;
const CH_RPAREN = 41;
const CH_SLASH = 47;
const CH_BACKSLASH = 92;
const CH_CR = 13;
const CH_LF = 10;

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= CH_0 && b <= CH_9;
}

/** Skips white space and comments. */
function skipSpace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (WHITE[b]) i++;
    else if (b === CH_PERCENT) while (i < bytes.length && bytes[i] !== CH_LF && bytes[i] !== CH_CR) i++;
    else break;
  }
  return i;
}

function startsWith(bytes: Uint8Array, i: number, word: string): boolean {
  if (i + word.length > bytes.length) return false;
  for (let k = 0; k < word.length; k++) if (bytes[i + k] !== word.charCodeAt(k)) return false;
  return true;
}

/** An unsigned integer at `i` (no sign, no fraction), or -1; its end goes to `cursor.end`. */
function readUint(bytes: Uint8Array, i: number, cursor: { end: number }): number {
  let value = 0;
  let k = i;
  while (k < bytes.length && isDigit(bytes[k])) value = value * 10 + bytes[k++]! - CH_0;
  cursor.end = k;
  return k === i ? -1 : value;
}

export interface PdfRef {
  num: number;
  gen: number;
}
export type PdfDict = Map<string, PdfValue>;
/** Names keep their slash (`/Page`); strings and keywords other than refs are not needed here: null. */
export type PdfValue = number | string | PdfRef | PdfValue[] | PdfDict | null;

function isRef(v: PdfValue | undefined): v is PdfRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);
}

const MAX_DEPTH = 32;

/** A recursive-descent reader of PDF objects over a byte range; `pos` advances past what it read. */
class ObjectReader {
  pos: number;
  private readonly cursor = { end: 0 };

  constructor(
    private readonly bytes: Uint8Array,
    pos: number,
  ) {
    this.pos = pos;
  }

  value(depth = 0): PdfValue {
    const bytes = this.bytes;
    let i = skipSpace(bytes, this.pos);
    const b = bytes[i];
    if (b === undefined || depth > MAX_DEPTH) {
      this.pos = i;
      return null;
    }
    if (b === CH_LT && bytes[i + 1] === CH_LT) {
      const dict: PdfDict = new Map();
      i += 2;
      for (;;) {
        i = skipSpace(bytes, i);
        if (i >= bytes.length) break;
        if (bytes[i] === CH_GT && bytes[i + 1] === CH_GT) {
          i += 2;
          break;
        }
        if (bytes[i] !== CH_SLASH) {
          // Malformed: skip one token so the loop always advances.
          this.pos = i;
          this.value(depth + 1);
          i = Math.max(this.pos, i + 1);
          continue;
        }
        const key = this.name(i);
        this.pos = this.cursor.end;
        dict.set(key.slice(1), this.value(depth + 1));
        i = this.pos;
      }
      this.pos = i;
      return dict;
    }
    if (b === CH_LBRACKET) {
      const array: PdfValue[] = [];
      this.pos = i + 1;
      for (;;) {
        const j = skipSpace(bytes, this.pos);
        if (j >= bytes.length) break;
        if (bytes[j] === CH_RBRACKET) {
          this.pos = j + 1;
          break;
        }
        this.pos = j;
        array.push(this.value(depth + 1));
        if (this.pos === j) this.pos = j + 1;
      }
      return array;
    }
    if (b === CH_SLASH) {
      const name = this.name(i);
      this.pos = this.cursor.end;
      return name;
    }
    if (b === CH_LPAREN) {
      this.pos = skipLiteralString(bytes, i);
      return null;
    }
    if (b === CH_LT) {
      const close = bytes.indexOf(CH_GT, i);
      this.pos = close < 0 ? bytes.length : close + 1;
      return null;
    }
    if (isDigit(b) || b === 45 || b === 43 || b === 46) return this.numberOrRef(i);
    // A keyword (true, false, null, R out of place, obj, stream...): skip it.
    let k = i;
    while (k < bytes.length && !WHITE[bytes[k]!] && !DELIM[bytes[k]!]) k++;
    this.pos = k === i ? i + 1 : k;
    return null;
  }

  private name(i: number): string {
    let k = i + 1;
    while (k < this.bytes.length && !WHITE[this.bytes[k]!] && !DELIM[this.bytes[k]!]) k++;
    this.cursor.end = k;
    return String.fromCharCode(...this.bytes.subarray(i, Math.min(k, i + 128)));
  }

  private numberOrRef(i: number): PdfValue {
    const bytes = this.bytes;
    // Integers (nearly every number in a dictionary) without building a string.
    let value = readUint(bytes, i, this.cursor);
    let k = this.cursor.end;
    if (value < 0 || bytes[k] === 46 || bytes[k] === 45 || bytes[k] === 43) {
      k = i;
      while (k < bytes.length && (isDigit(bytes[k]) || bytes[k] === 45 || bytes[k] === 43 || bytes[k] === 46)) k++;
      value = Number(String.fromCharCode(...bytes.subarray(i, Math.min(k, i + 32))));
    }
    this.pos = k;
    // `num gen R`
    const g = skipSpace(bytes, k);
    const gen = readUint(bytes, g, this.cursor);
    if (gen >= 0 && Number.isInteger(value) && value >= 0) {
      const r = skipSpace(bytes, this.cursor.end);
      if (bytes[r] === 82 && (r + 1 >= bytes.length || WHITE[bytes[r + 1]!] || DELIM[bytes[r + 1]!])) {
        this.pos = r + 1;
        return { num: value, gen };
      }
    }
    return Number.isFinite(value) ? value : null;
  }
}

function skipLiteralString(bytes: Uint8Array, i: number): number {
  let depth = 0;
  for (let k = i; k < bytes.length; k++) {
    const b = bytes[k];
    if (b === CH_BACKSLASH) k++;
    else if (b === CH_LPAREN) depth++;
    else if (b === CH_RPAREN && --depth === 0) return k + 1;
  }
  return bytes.length;
}

/** `num gen obj` at `i` (after white space): the object number and where its value starts, or undefined. */
function objectHeader(bytes: Uint8Array, i: number): { num: number; body: number } | undefined {
  const cursor = { end: 0 };
  const start = skipSpace(bytes, i);
  const num = readUint(bytes, start, cursor);
  if (num < 0 || !WHITE[bytes[cursor.end] ?? 0]) return undefined;
  const gen = readUint(bytes, skipSpace(bytes, cursor.end), cursor);
  if (gen < 0) return undefined;
  const obj = skipSpace(bytes, cursor.end);
  if (!startsWith(bytes, obj, 'obj')) return undefined;
  return { num, body: obj + 3 };
}

// ---------------------------------------------------------------------------------------------
// Cross-reference sections

type Location = { offset: number } | { stream: number; index: number };

/** One cross-reference section: a classic table (entries read on demand) or a decoded xref stream. */
interface XrefSection {
  lookup(num: number): Location | 'free' | undefined;
}

class TableSection implements XrefSection {
  constructor(
    private readonly bytes: Uint8Array,
    /** [first object, count, byte offset of the first entry, entry stride] per subsection. */
    readonly subsections: [number, number, number, number][],
  ) {}

  lookup(num: number): Location | 'free' | undefined {
    for (const [first, count, start, stride] of this.subsections) {
      if (num < first || num >= first + count) continue;
      const at = start + (num - first) * stride;
      // Fixed layout `nnnnnnnnnn ggggg n`: the type letter is the 18th byte.
      if (this.bytes[at + 17] === 102) return 'free';
      const offset = readUint(this.bytes, at, { end: 0 });
      return offset >= 0 ? { offset } : undefined;
    }
    return undefined;
  }
}

/**
 * An xref stream, inflated on the first lookup (the structure check only needs its dictionary) and
 * read entry by entry, so a 100,000-object file costs no allocation per object.
 */
class StreamSection implements XrefSection {
  private decoded: Uint8Array | null | undefined;

  constructor(
    private readonly dict: PdfDict,
    private readonly encoded: Uint8Array,
    private readonly widths: readonly [number, number, number],
    /** [first object, count] pairs of /Index. */
    private readonly ranges: readonly number[],
  ) {}

  lookup(num: number): Location | 'free' | undefined {
    this.decoded ??= this.decode() ?? null;
    const data = this.decoded;
    if (!data) return undefined;
    const [w0, w1, w2] = this.widths;
    const entryLength = w0 + w1 + w2;
    let row = 0;
    for (let r = 0; r + 1 < this.ranges.length; r += 2) {
      const first = this.ranges[r]!;
      const count = this.ranges[r + 1]!;
      if (num >= first && num < first + count) {
        const at = (row + num - first) * entryLength;
        if (at + entryLength > data.length) return undefined;
        const type = w0 === 0 ? 1 : bigEndian(data, at, w0);
        if (type === 0) return 'free';
        if (type === 1) return { offset: bigEndian(data, at + w0, w1) };
        if (type === 2) return { stream: bigEndian(data, at + w0, w1), index: bigEndian(data, at + w0 + w1, w2) };
        return undefined;
      }
      row += count;
    }
    return undefined;
  }

  private decode(): Uint8Array | undefined {
    const inflated = inflateOrUndefined(this.encoded);
    if (!inflated) return undefined;
    const parms = this.dict.get('DecodeParms');
    const predictor = parms instanceof Map ? parms.get('Predictor') : undefined;
    const columns = parms instanceof Map ? parms.get('Columns') : undefined;
    if (typeof predictor !== 'number' || predictor < 10) return inflated;
    const [w0, w1, w2] = this.widths;
    return unpredict(inflated, typeof columns === 'number' && columns > 0 ? columns : w0 + w1 + w2);
  }
}

function bigEndian(data: Uint8Array, at: number, width: number): number {
  let v = 0;
  for (let k = 0; k < width; k++) v = v * 256 + data[at + k]!;
  return v;
}

/**
 * Object lookup by number, through the cross-reference sections or through a scan of the file,
 * with object streams decoded on demand (each once) and the encoded bytes inflated for them counted.
 */
export abstract class ObjectLookup {
  private readonly objectStreams = new Map<number, ObjectStream | null>();
  /** Encoded bytes of object streams inflated so far: lookups cost this much zlib work. */
  inflatedBytes = 0;

  constructor(protected readonly bytes: Uint8Array) {}

  /** Where object `num` starts in the file (its `num gen obj`), or undefined when it is compressed, free or unknown. */
  abstract offsetOf(num: number): number | undefined;

  /** The value of object `num` (a dictionary for a stream object), or undefined. */
  abstract object(num: number): PdfValue | undefined;

  resolve(value: PdfValue | undefined): PdfValue | undefined {
    return isRef(value) ? this.object(value.num) : value;
  }

  /** The value of the object whose header starts at `at`. */
  protected objectAt(at: number): PdfValue | undefined {
    const header = objectHeader(this.bytes, at);
    return header ? new ObjectReader(this.bytes, header.body).value() : undefined;
  }

  /** The object stream whose header starts at `at`, decoded (cached), or null when it is not a readable one. */
  protected objectStreamAt(at: number): ObjectStream | null {
    let cached = this.objectStreams.get(at);
    if (cached !== undefined) return cached;
    cached = null;
    const stream = readStream(this.bytes, at, this);
    const first = stream ? stream.dict.get('First') : undefined;
    const count = stream ? stream.dict.get('N') : undefined;
    if (stream && typeof first === 'number' && typeof count === 'number' && stream.data.length <= MAX_INDEX_STREAM && isFlateOnly(stream.dict)) {
      this.inflatedBytes += stream.data.length;
      const data = inflateOrUndefined(stream.data);
      if (data) cached = { data, first, header: objectStreamHeader(data, count) };
    }
    this.objectStreams.set(at, cached);
    return cached;
  }
}

/** Object lookup across the sections, newest first. */
export class XrefIndex extends ObjectLookup {
  constructor(
    bytes: Uint8Array,
    private readonly sections: XrefSection[],
    /** Added to offsets when the file has junk before `%PDF-` and its offsets count from the header. */
    private readonly shift: number,
  ) {
    super(bytes);
  }

  offsetOf(num: number): number | undefined {
    const loc = this.locate(num);
    if (!loc || 'stream' in loc) return undefined;
    if (objectHeader(this.bytes, loc.offset)?.num === num) return loc.offset;
    const shifted = loc.offset + this.shift;
    return objectHeader(this.bytes, shifted)?.num === num ? shifted : undefined;
  }

  private locate(num: number): Location | undefined {
    for (const section of this.sections) {
      const loc = section.lookup(num);
      if (loc === 'free') return undefined;
      if (loc) return loc;
    }
    return undefined;
  }

  object(num: number): PdfValue | undefined {
    const loc = this.locate(num);
    if (!loc) return undefined;
    if ('offset' in loc) {
      const at = this.offsetOf(num);
      return at === undefined ? undefined : this.objectAt(at);
    }
    const streamAt = this.offsetOf(loc.stream);
    const stream = streamAt === undefined ? null : this.objectStreamAt(streamAt);
    const start = stream ? objectStart(stream, num, loc.index) : -1;
    return stream && start >= 0 ? new ObjectReader(stream.data, start).value() : undefined;
  }
}

/** A decoded object stream: its data, where the objects start and the `num offset` pairs in front. */
interface ObjectStream {
  data: Uint8Array;
  first: number;
  header: Uint32Array;
}

function objectStreamHeader(data: Uint8Array, count: number): Uint32Array {
  const header = new Uint32Array(2 * Math.max(0, Math.min(count, data.length >> 2)));
  const cursor = { end: 0 };
  let i = 0;
  for (let k = 0; k < header.length; k++) {
    const value = readUint(data, skipSpace(data, i), cursor);
    if (value < 0) return header.subarray(0, k & ~1);
    header[k] = value;
    i = cursor.end;
  }
  return header;
}

/** Where object `num` starts in its object stream: at the index the xref gives, else wherever listed; -1 when absent. */
function objectStart(stream: ObjectStream, num: number, index: number): number {
  const { header, first } = stream;
  if (2 * index + 1 < header.length && header[2 * index] === num) return first + header[2 * index + 1]!;
  for (let k = 0; k + 1 < header.length; k += 2) if (header[k] === num) return first + header[k + 1]!;
  return -1;
}

function inflateOrUndefined(data: Uint8Array): Uint8Array | undefined {
  try {
    return inflateSync(data, { maxOutputLength: MAX_INFLATED });
  } catch {
    return undefined;
  }
}

function isFlateOnly(dict: PdfDict): boolean {
  const filter = dict.get('Filter');
  const only = Array.isArray(filter) && filter.length === 1 ? filter[0] : filter;
  return only === '/FlateDecode' || only === '/Fl';
}

/** A stream object's dictionary and raw (still encoded) bytes; the data runs to the file's end when cut. */
function readStream(bytes: Uint8Array, at: number, index: ObjectLookup | undefined): { dict: PdfDict; data: Uint8Array } | undefined {
  const header = objectHeader(bytes, at);
  if (!header) return undefined;
  const reader = new ObjectReader(bytes, header.body);
  const dict = reader.value();
  if (!(dict instanceof Map)) return undefined;
  const keyword = skipSpace(bytes, reader.pos);
  if (!startsWith(bytes, keyword, 'stream')) return undefined;
  let start = keyword + 6;
  if (bytes[start] === CH_CR) start++;
  if (bytes[start] === CH_LF) start++;
  const declared = index ? index.resolve(dict.get('Length')) : dict.get('Length');
  if (typeof declared === 'number' && declared >= 0 && start + declared <= bytes.length) {
    const end = skipSpace(bytes, start + declared);
    if (startsWith(bytes, end, 'endstream')) return { dict, data: bytes.subarray(start, start + declared) };
  }
  // A wrong /Length: the data runs to `endstream` (less the end-of-line before it), as PDFium reads it.
  let end = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf('endstream', start, 'latin1');
  if (end < 0) end = bytes.length;
  else {
    if (bytes[end - 1] === CH_LF) end--;
    if (bytes[end - 1] === CH_CR) end--;
  }
  return { dict, data: bytes.subarray(start, Math.max(start, end)) };
}

/** Undoes PNG row predictors (/Predictor >= 10) on a decoded xref stream. */
function unpredict(data: Uint8Array, columns: number): Uint8Array {
  const rowLength = columns + 1;
  const rows = Math.floor(data.length / rowLength);
  const out = new Uint8Array(rows * columns);
  for (let r = 0; r < rows; r++) {
    const filter = data[r * rowLength]!;
    const src = r * rowLength + 1;
    const dst = r * columns;
    const above = dst - columns;
    if (filter === 2) {
      // Up: what xref streams nearly always use.
      if (r === 0) out.set(data.subarray(src, src + columns), dst);
      else for (let c = 0; c < columns; c++) out[dst + c] = (data[src + c]! + out[above + c]!) & 0xff;
      continue;
    }
    for (let c = 0; c < columns; c++) {
      const left = c > 0 ? out[dst + c - 1]! : 0;
      const up = r > 0 ? out[above + c]! : 0;
      const upLeft = r > 0 && c > 0 ? out[above + c - 1]! : 0;
      out[dst + c] = (data[src + c]! + predict(filter, left, up, upLeft)) & 0xff;
    }
  }
  return out;
}

function predict(filter: number, left: number, up: number, upLeft: number): number {
  if (filter === 1) return left;
  if (filter === 2) return up;
  if (filter === 3) return (left + up) >> 1;
  if (filter !== 4) return 0;
  const p = left + up - upLeft;
  const pa = Math.abs(p - left);
  const pb = Math.abs(p - up);
  const pc = Math.abs(p - upLeft);
  return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
}

/** An xref stream section from its dictionary and encoded bytes, or undefined when they cannot be one. */
function xrefStreamSection(dict: PdfDict, data: Uint8Array): StreamSection | undefined {
  const widths = dict.get('W');
  const size = dict.get('Size');
  if (!Array.isArray(widths) || widths.length < 3) return undefined;
  const [w0, w1, w2] = widths;
  if (!isWidth(w0) || !isWidth(w1) || !isWidth(w2)) return undefined;
  if (data.length > MAX_INDEX_STREAM || !isFlateOnly(dict) || !isZlibHeader(data)) return undefined;
  const index = dict.get('Index');
  const ranges = Array.isArray(index) ? index.filter((v): v is number => typeof v === 'number') : [0, typeof size === 'number' ? size : 0];
  return new StreamSection(dict, data, [w0, w1, w2], ranges);
}

/** The two-byte zlib header: deflate method and a valid check value. */
function isZlibHeader(data: Uint8Array): boolean {
  return data.length >= 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;
}

function isWidth(w: PdfValue | undefined): w is number {
  return typeof w === 'number' && Number.isInteger(w) && w >= 0 && w <= 8;
}

/** Reads a classic table at `at` (pointing at `xref`): its subsections and where its trailer starts. */
function readTable(bytes: Uint8Array, at: number): { section: TableSection; trailerAt: number } | undefined {
  const cursor = { end: 0 };
  const subsections: [number, number, number, number][] = [];
  let i = skipSpace(bytes, at + 4);
  while (isDigit(bytes[i])) {
    const first = readUint(bytes, i, cursor);
    const count = readUint(bytes, skipSpace(bytes, cursor.end), cursor);
    if (count < 0) return undefined;
    const start = skipSpace(bytes, cursor.end);
    // Entries are 20 bytes by the spec; some writers use 19 (one-byte end of line).
    let stride = 20;
    if (count > 0) {
      let eol = start + 18;
      while (eol < bytes.length && eol < start + 20 && !(bytes[eol] === CH_LF || bytes[eol] === CH_CR)) eol++;
      if (bytes[eol] === CH_CR && bytes[eol + 1] === CH_LF) eol++;
      stride = eol + 1 - start;
      if (!isEntry(bytes, start) || !isEntry(bytes, start + (count - 1) * stride)) return undefined;
    }
    subsections.push([first, count, start, stride]);
    i = skipSpace(bytes, start + count * stride);
  }
  if (subsections.length === 0) return undefined;
  return { section: new TableSection(bytes, subsections), trailerAt: i };
}

/** `nnnnnnnnnn ggggg n` at `i`. */
function isEntry(bytes: Uint8Array, i: number): boolean {
  for (let k = 0; k < 10; k++) if (!isDigit(bytes[i + k])) return false;
  for (let k = 11; k < 16; k++) if (!isDigit(bytes[i + k])) return false;
  const type = bytes[i + 17];
  return bytes[i + 10] === 32 && bytes[i + 16] === 32 && (type === 110 || type === 102);
}

// ---------------------------------------------------------------------------------------------
// Objects found by scanning

/**
 * Object lookup for a file whose cross-reference data is unusable, built the way PDFium rebuilds
 * it: every `num gen obj` header in the file, stream data skipped, the last definition of a number
 * winning (unless an earlier one has a higher generation), and objects in object streams (located
 * through the cross-reference streams still in the file, else by reading the object streams)
 * winning over generation-0 definitions before their stream.
 */
class ScanIndex extends ObjectLookup {
  /** Object streams indexed so far, from the last one back. */
  private indexedStreams = 0;
  /** Object number -> ordinal of the newest indexed object stream holding it * 2^32 + where it starts in that stream's data. */
  private readonly compressed = new Map<number, number>();
  /** Cross-reference streams found in the file, newest first: undefined until first needed. */
  private xrefStreams: XrefSection[] | undefined;

  constructor(
    bytes: Uint8Array,
    private readonly found: ScannedObjects,
    /** Encoded bytes of object streams this index may inflate. */
    private readonly budget: number,
  ) {
    super(bytes);
  }

  offsetOf(num: number): number | undefined {
    return this.found.offsets.get(num);
  }

  object(num: number): PdfValue | undefined {
    const at = this.found.offsets.get(num) ?? -1;
    if (!this.found.generations.has(num) && this.found.objectStreams.length > 0) {
      // A cross-reference stream found in the file (PDFium reads those too when it rebuilds) says
      // where the object is; for objects none lists, the object streams themselves are read.
      const listed = this.listing(num);
      const value = listed === undefined ? this.foundInObjectStream(num, at) : listed !== 'free' && 'stream' in listed ? this.listedInObjectStream(num, listed, at) : undefined;
      if (value !== undefined) return value;
    }
    return at >= 0 ? this.objectAt(at) : undefined;
  }

  /** Where the newest cross-reference stream in the file that lists object `num` puts it. */
  private listing(num: number): Location | 'free' | undefined {
    this.xrefStreams ??= this.readXrefStreams();
    for (const section of this.xrefStreams) {
      const loc = section.lookup(num);
      if (loc !== undefined) return loc;
    }
    return undefined;
  }

  /** Object `num` from the object stream a cross-reference stream lists it in, if that stream comes after byte `after`. */
  private listedInObjectStream(num: number, loc: { stream: number; index: number }, after: number): PdfValue | undefined {
    const streamAt = this.found.offsets.get(loc.stream);
    const stream = streamAt === undefined || streamAt < after ? null : this.objectStreamAt(streamAt);
    const start = stream ? objectStart(stream, num, loc.index) : -1;
    return stream && start >= 0 ? new ObjectReader(stream.data, start).value() : undefined;
  }

  private readXrefStreams(): XrefSection[] {
    const sections: XrefSection[] = [];
    for (let k = this.found.xrefStreams.length - 1; k >= 0 && sections.length < MAX_SECTIONS; k--) {
      const stream = readStream(this.bytes, this.found.xrefStreams[k]!, undefined);
      if (!stream || stream.dict.get('Type') !== '/XRef' || this.inflatedBytes + stream.data.length > this.budget) continue;
      const section = xrefStreamSection(stream.dict, stream.data);
      if (!section) continue;
      this.inflatedBytes += stream.data.length;
      sections.push(section);
    }
    return sections;
  }

  /**
   * Object `num` from the newest object stream after byte `after` that holds it, for files whose
   * cross-reference streams do not say: streams are decoded newest first, as far as needed and the
   * budget allows.
   */
  private foundInObjectStream(num: number, after: number): PdfValue | undefined {
    const streams = this.found.objectStreams;
    let packed = this.compressed.get(num);
    while (packed === undefined && this.indexedStreams < streams.length && this.inflatedBytes <= this.budget) {
      const ordinal = streams.length - 1 - this.indexedStreams;
      if (streams[ordinal]! < after) break;
      this.indexedStreams++;
      const stream = this.objectStreamAt(streams[ordinal]!);
      if (!stream) continue;
      const { header, first } = stream;
      for (let k = 0; k + 1 < header.length; k += 2) {
        if (!this.compressed.has(header[k]!)) this.compressed.set(header[k]!, ordinal * 2 ** 32 + first + header[k + 1]!);
      }
      packed = this.compressed.get(num);
    }
    if (packed === undefined) return undefined;
    const ordinal = Math.floor(packed / 2 ** 32);
    const stream = streams[ordinal]! > after ? this.objectStreamAt(streams[ordinal]!) : null;
    return stream ? new ObjectReader(stream.data, packed % 2 ** 32).value() : undefined;
  }

  /**
   * The document catalog, from the last `/Root` that leads to one (the newest trailer or
   * cross-reference stream), else from the last `/Type /Catalog` object; and whether the file is
   * encrypted: an /Encrypt entry beside that `/Root` (anywhere in the file when there is none).
   */
  root(): { catalog: PdfDict | undefined; encrypted: boolean } {
    const buffer = asBuffer(this.bytes);
    let at = buffer.length;
    for (let tries = 0; tries < MAX_ROOT_CANDIDATES && at > 0; tries++) {
      at = ROOT_NAME.previous(buffer, at - 1);
      if (at < 0) break;
      const root = new ObjectReader(this.bytes, at + ROOT_NAME.length).value();
      const catalog = isRef(root) ? this.object(root.num) : undefined;
      if (catalog instanceof Map && catalog.has('Pages')) {
        const near = buffer.subarray(Math.max(0, at - TRAILER_REACH), Math.min(buffer.length, at + TRAILER_REACH));
        return { catalog, encrypted: ENCRYPT_NAME.next(near, 0) !== -1 };
      }
    }
    // Not knowing counts as encrypted: the check is skipped rather than run on what may be ciphertext.
    const encrypted = ENCRYPT_NAME.next(buffer, 0) !== -1;
    at = buffer.length;
    for (let tries = 0; tries < MAX_ROOT_CANDIDATES && at > 0; tries++) {
      at = CATALOG_NAME.previous(buffer, at - 1);
      if (at < 0) break;
      const header = this.found.headerBefore(at);
      const catalog = header < 0 ? undefined : this.objectAt(header);
      if (catalog instanceof Map && catalog.get('Type') === '/Catalog' && catalog.has('Pages')) return { catalog, encrypted };
    }
    return { catalog: undefined, encrypted };
  }
}

/** How far from its `/Root` entry a trailer's /Encrypt entry is looked for (trailers are a few hundred bytes). */
const TRAILER_REACH = 2048;

/**
 * A name (`/Name`, then a token end) searched for by its first six letters at most: Node's byte
 * search runs several times slower for needles of seven bytes or more.
 */
class NameSearch {
  private readonly core: Buffer;
  private readonly whole: Buffer;
  /** Bytes from the slash to the end of the name. */
  readonly length: number;

  constructor(name: string) {
    this.core = Buffer.from(name.slice(0, 6), 'latin1');
    this.whole = Buffer.from(name, 'latin1');
    this.length = name.length + 1;
  }

  /** Where the name's slash is, first at or after `from`; -1 when it is not there, -2 when too many near misses were passed. */
  next(buffer: Buffer, from: number): number {
    let misses = 0;
    for (let at = buffer.indexOf(this.core, from + 1); at >= 0; at = buffer.indexOf(this.core, at + 1)) {
      if (this.isAt(buffer, at)) return at - 1;
      if (++misses > MAX_NAME_MISSES) return -2;
    }
    return -1;
  }

  /** Where the name's slash is, last at or before `before`; -1 when it is not there, -2 when too many near misses were passed. */
  previous(buffer: Buffer, before: number): number {
    let misses = 0;
    for (let at = buffer.lastIndexOf(this.core, before + 1); at > 0; at = buffer.lastIndexOf(this.core, at - 1)) {
      if (this.isAt(buffer, at)) return at - 1;
      if (++misses > MAX_NAME_MISSES) return -2;
    }
    return -1;
  }

  private isAt(buffer: Buffer, at: number): boolean {
    if (buffer[at - 1] !== CH_SLASH || !isTokenEnd(buffer, at + this.whole.length)) return false;
    for (let k = this.core.length; k < this.whole.length; k++) if (buffer[at + k] !== this.whole[k]) return false;
    return true;
  }
}

/** Occurrences of a name's letters that are not the name (no slash, longer word) passed before a search gives up. */
const MAX_NAME_MISSES = 4096;

const ROOT_NAME = new NameSearch('Root');
const CATALOG_NAME = new NameSearch('Catalog');
const ENCRYPT_NAME = new NameSearch('Encrypt');
const OBJSTM_NAME = new NameSearch('ObjStm');
const XREF_NAME = new NameSearch('XRef');

/** What a scan of the file found: the winning definition of each object number, object streams and all headers. */
interface ScannedObjects {
  /** Object number -> byte where its `num gen obj` header starts. */
  offsets: Map<number, number>;
  /** Generation of the winning definition, for the few objects where it is not 0. */
  generations: Map<number, number>;
  /** Header offsets of the `/Type /ObjStm` streams, in file order. */
  objectStreams: number[];
  /** Header offsets of objects naming `/XRef` (cross-reference streams), in file order, when there are object streams. */
  xrefStreams: number[];
  /** The start of the last header before byte `at`, or -1. */
  headerBefore(at: number): number;
  /** The scan read the whole file within its step budget. */
  complete: boolean;
}

/**
 * Steps a scan may take (headers read, native searches): real files take one or two per object,
 * and objects average hundreds of bytes. A scan that runs out is not used: with part of the file
 * unread, an object's last definition is unknown.
 */
const MIN_SCAN_STEPS = 4096;
const BYTES_PER_SCAN_STEP = 64;
/** PDFium's own limit on object numbers. */
const MAX_OBJECT_NUMBER = 1 << 22;
const MAX_GENERATION = 65535;
/** `/Root` and `/Catalog` occurrences tried, newest first, before giving up on finding the catalog. */
const MAX_ROOT_CANDIDATES = 16;
/** White space tolerated between the numbers and `obj` of a header. */
const MAX_HEADER_GAP = 32;

const ENDOBJ_KEYWORD = Buffer.from('endobj', 'latin1');

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** Whether a token ends at `i` (the file's end, white space or a delimiter). */
function isTokenEnd(bytes: Uint8Array, i: number): boolean {
  return i >= bytes.length || WHITE[bytes[i]!] === 1 || DELIM[bytes[i]!] === 1;
}

/**
 * Finds every object definition by its `num gen obj` header, in one pass: `obj` keywords are found
 * with the native byte search, the numbers before each read backwards, and each object's dictionary
 * skipped token by token to step over its stream data (by a direct /Length that lands on
 * `endstream`, else up to the next `endstream`), so headers quoted inside streams are not taken.
 * Every byte is looked at a bounded number of times whatever the input.
 */
function scanObjects(bytes: Uint8Array): ScannedObjects {
  const buffer = asBuffer(bytes);
  const offsets = new Map<number, number>();
  const generations = new Map<number, number>();
  const starts: number[] = [];
  const header = { start: 0, num: 0, gen: 0 };
  const work: ScanWork = { left: MIN_SCAN_STEPS + Math.floor(bytes.length / BYTES_PER_SCAN_STEP) };
  const searches = new ScanSearches(bytes, buffer, work);
  let pos = 0;
  while (--work.left >= 0) {
    // Objects mostly follow each other (`endobj` then the next header): read the header right there
    // when it is, and search only when it is not.
    let hit = readHeaderAt(bytes, skipWhite(bytes, pos), header);
    if (hit < 0) {
      hit = searches.objKeyword(pos);
      if (hit < 0) break;
      pos = hit + 3;
      if (!isTokenEnd(bytes, hit + 3) || !readHeaderBefore(bytes, hit, header)) continue;
    }
    starts.push(header.start);
    // A later definition wins unless the earlier one has a higher generation.
    if (!offsets.has(header.num) || (generations.get(header.num) ?? 0) <= header.gen) {
      offsets.set(header.num, header.start);
      if (header.gen > 0) generations.set(header.num, header.gen);
    }
    pos = Math.max(pos, skipObjectBody(bytes, hit + 3, searches));
  }
  const headerBefore = (at: number): number => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? starts[lo - 1]! : -1;
  };
  // Object streams and cross-reference streams by their type, rare elsewhere: a search over the file each.
  const objectStreams = objectsNaming(buffer, OBJSTM_NAME, headerBefore, work);
  const xrefStreams = objectStreams.length > 0 ? objectsNaming(buffer, XREF_NAME, headerBefore, work) : [];
  return { offsets, generations, objectStreams, xrefStreams, headerBefore, complete: work.left >= 0 };
}

/** The header offsets of the objects in which the name occurs, in file order (a search that gives up spends the scan's work). */
function objectsNaming(buffer: Buffer, name: NameSearch, headerBefore: (at: number) => number, work: ScanWork): number[] {
  const starts: number[] = [];
  let at = name.next(buffer, 0);
  for (; at >= 0 && --work.left >= 0; at = name.next(buffer, at + 1)) {
    const start = headerBefore(at);
    if (start >= 0 && starts[starts.length - 1] !== start) starts.push(start);
  }
  if (at === -2) work.left = -1;
  return starts;
}

const HEADER_CURSOR = { end: 0 };

/**
 * Skips white space (not comments) from `i`, at most MAX_HEADER_GAP bytes: positions the scan
 * reads this way are each skipped over a bounded number of times, whatever the input.
 */
function skipWhite(bytes: Uint8Array, i: number): number {
  const end = Math.min(bytes.length, i + MAX_HEADER_GAP);
  while (i < end && WHITE[bytes[i]!]) i++;
  return i;
}

/** Reads a `num gen obj` header starting at `i` into `out`; where its `obj` keyword is, or -1 when there is none. */
function readHeaderAt(bytes: Uint8Array, i: number, out: { start: number; num: number; gen: number }): number {
  if (!isDigit(bytes[i])) return -1;
  const cursor = HEADER_CURSOR;
  const num = readUint(bytes, i, cursor);
  if (cursor.end - i > 7 || !WHITE[bytes[cursor.end] ?? 0]) return -1;
  const genAt = skipWhite(bytes, cursor.end);
  const gen = readUint(bytes, genAt, cursor);
  if (gen < 0 || cursor.end - genAt > 5 || !WHITE[bytes[cursor.end] ?? 0]) return -1;
  const keyword = skipWhite(bytes, cursor.end);
  if (!startsWith(bytes, keyword, 'obj') || !isTokenEnd(bytes, keyword + 3) || num >= MAX_OBJECT_NUMBER || gen > MAX_GENERATION) return -1;
  out.start = i;
  out.num = num;
  out.gen = gen;
  return keyword;
}

/** Reads `num gen` backwards from the `obj` keyword at `hit` into `out`; false when they are not there. */
function readHeaderBefore(bytes: Uint8Array, hit: number, out: { start: number; num: number; gen: number }): boolean {
  let k = hit - 1;
  if (k < 0 || !WHITE[bytes[k]!]) return false;
  while (k >= 0 && WHITE[bytes[k]!] && hit - k <= MAX_HEADER_GAP) k--;
  const genEnd = k;
  while (k >= 0 && isDigit(bytes[k]) && genEnd - k <= 5) k--;
  if (k === genEnd || k < 0 || !WHITE[bytes[k]!]) return false;
  const genStart = k + 1;
  const gap = k;
  while (k >= 0 && WHITE[bytes[k]!] && gap - k <= MAX_HEADER_GAP) k--;
  const numEnd = k;
  while (k >= 0 && isDigit(bytes[k]) && numEnd - k <= 7) k--;
  if (k === numEnd || (k >= 0 && !WHITE[bytes[k]!] && !DELIM[bytes[k]!])) return false;
  let num = 0;
  for (let d = k + 1; d <= numEnd; d++) num = num * 10 + bytes[d]! - CH_0;
  let gen = 0;
  for (let d = genStart; d <= genEnd; d++) gen = gen * 10 + bytes[d]! - CH_0;
  if (num >= MAX_OBJECT_NUMBER || gen > MAX_GENERATION) return false;
  out.start = k + 1;
  out.num = num;
  out.gen = gen;
  return true;
}

/**
 * The next occurrence of a byte string at or after a position, by the native search, remembering
 * the last answer: asked with positions that never go back, it looks at each byte once in all.
 */
class NextOccurrence {
  private at = -2;

  constructor(
    private readonly buffer: Buffer,
    private readonly needle: Buffer,
    /** Shared by a scan's searches; once spent, every search answers -1. */
    private readonly work: ScanWork,
  ) {}

  from(position: number): number {
    if (this.at !== -1 && this.at < position) this.at = --this.work.left < 0 ? -1 : this.buffer.indexOf(this.needle, position);
    return this.at;
  }
}

/** Steps (native searches and headers read) a scan may still take. */
interface ScanWork {
  left: number;
}

/**
 * The searches a scan makes, each over the file once. A native search call costs about as much as
 * scanning a few KB, so a scan makes about one per object: `obj`, which finds each object's
 * `endobj` (past its stream data) and the headers that do not follow an `endobj` at once; `stream`
 * only for objects whose stream data holds the letters `obj`.
 */
class ScanSearches {
  private readonly bj: NextOccurrence;
  private readonly stream: NextOccurrence;
  private readonly endobj: NextOccurrence;

  constructor(
    private readonly bytes: Uint8Array,
    buffer: Buffer,
    work: ScanWork,
  ) {
    this.bj = new NextOccurrence(buffer, BJ, work);
    this.stream = new NextOccurrence(buffer, STREAM_KEYWORD, work);
    this.endobj = new NextOccurrence(buffer, ENDOBJ_KEYWORD, work);
  }

  /**
   * The next `obj` at or after `from`, or -1. Searched as `bj`: a search stops at each byte equal
   * to the needle's first, and `o` is far more common than `b` in dictionaries and text.
   */
  objKeyword(from: number): number {
    for (let at = this.bj.from(from + 1); at >= 0; at = this.bj.from(at + 1)) if (this.bytes[at - 1] === 111) return at - 1;
    return -1;
  }

  /** The next `stream` keyword (not the tail of `endstream`, not inside a word) at or after `from`, or -1. */
  streamKeyword(from: number): number {
    const bytes = this.bytes;
    for (let at = this.stream.from(from); at >= 0; at = this.stream.from(at + 1)) {
      const before = bytes[at - 1];
      if ((before === undefined || WHITE[before] || before === CH_GT) && isTokenEnd(bytes, at + 6)) return at;
    }
    return -1;
  }

  /** Where stream data from `data` ends: at the next `endstream`, else at `endobj`, else at the file's end. */
  dataEnd(data: number): number {
    const bytes = this.bytes;
    for (let at = this.stream.from(data); at >= 0; at = this.stream.from(at + 1)) {
      if (at - 3 >= data && bytes[at - 3] === 101 && bytes[at - 2] === 110 && bytes[at - 1] === 100) return at - 3;
    }
    const endobj = this.endobj.from(data);
    return endobj >= 0 ? endobj : bytes.length;
  }
}

const STREAM_KEYWORD = Buffer.from('stream', 'latin1');
const BJ = Buffer.from('bj', 'latin1');

/**
 * Steps over an object from `body` (just past its `obj`) to where the scan for the next header
 * goes on. The next `obj` found is nearly always this object's `endobj`, after any stream data
 * (`endstream endobj`): the scan goes on past it. Otherwise (an object without `endobj`, or stream
 * data holding the letters `obj`) the stream keyword tells: the data is stepped over to its
 * `endstream`; without one, the scan goes on from the body. /Length is not read (it is often an
 * indirect object further on): stream data holding `endstream` or `endobj` is taken to end there.
 */
function skipObjectBody(bytes: Uint8Array, body: number, searches: ScanSearches): number {
  const next = searches.objKeyword(body);
  if (next < 0) return bytes.length;
  if (next - 3 >= body && startsWith(bytes, next - 3, 'end')) return next + 3;
  const value = skipWhite(bytes, body);
  if (bytes[value] !== CH_LT || bytes[value + 1] !== CH_LT) return body;
  const keyword = searches.streamKeyword(value);
  if (keyword < 0 || keyword > next) return body;
  const end = searches.dataEnd(keyword + 6);
  if (!startsWith(bytes, end, 'endstream')) return end;
  const endobj = skipWhite(bytes, end + 9);
  return startsWith(bytes, endobj, 'endobj') ? endobj + 6 : end + 9;
}

// ---------------------------------------------------------------------------------------------
// The structure check

/**
 * Checks the header, the tail (`startxref`, `%%EOF`), the cross-reference sections `startxref`
 * leads to (through /Prev), their trailers, and a sample of table entries against the objects
 * they point at. Reads a few KB, not the whole file.
 */
export function inspectPdf(bytes: Uint8Array): PdfStructure {
  const size = bytes.length;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, size);
  const headerOffset = buffer.subarray(0, 1024).indexOf('%PDF-', 0, 'latin1');
  // Only the tail is searched (past any padding of NULs or spaces some writers add): a cut-off
  // file must not cost a scan of all of it.
  let end = size;
  while (end > 0 && end > size - MAX_PADDING && WHITE[bytes[end - 1]!]) end--;
  const truncated = buffer.subarray(Math.max(0, end - EOF_TAIL_BYTES), end).lastIndexOf('%%EOF', end, 'latin1') < 0;
  const base: PdfStructure = { size, headerOffset, encrypted: false, truncated, damage: [], xref: undefined, trailer: undefined };
  if (headerOffset < 0) return base;
  const tailStart = Math.max(0, end - TAIL_BYTES);
  const tail = buffer.subarray(tailStart, end);
  // Without a readable trailer, an /Encrypt entry in the tail (where classic trailers sit) still tells.
  const tailEncrypted = (): boolean => tail.indexOf('/Encrypt', 0, 'latin1') >= 0;
  const inTail = tail.lastIndexOf('startxref', end, 'latin1');
  if (inTail < 0) return { ...base, encrypted: tailEncrypted(), damage: [{ kind: 'no-startxref' }] };
  const keyword = tailStart + inTail;
  const target = readUint(bytes, skipSpace(bytes, keyword + 9), { end: 0 });
  if (target < 0) return { ...base, encrypted: tailEncrypted(), damage: [{ kind: 'no-startxref' }] };
  const damage: StructureDamage[] = [];
  const sections: XrefSection[] = [];
  let trailer: PdfDict | undefined;
  let encrypted = false;
  const visited = new Set<number>();
  let next = target;
  let first = true;
  while (next >= 0 && sections.length < MAX_SECTIONS && !visited.has(next)) {
    visited.add(next);
    const at = sectionStart(bytes, next, headerOffset);
    if (at === undefined) {
      damage.push(first ? { kind: 'startxref-off-target', offset: next } : { kind: 'prev-off-target', offset: next });
      break;
    }
    const read = readSection(bytes, at);
    if ('damage' in read) {
      // An object that is not an xref stream: the offset named is the one the file gives.
      const offTarget = read.damage.kind === 'startxref-off-target';
      damage.push(!offTarget ? read.damage : first ? { kind: 'startxref-off-target', offset: next } : { kind: 'prev-off-target', offset: next });
      break;
    }
    sections.push(...read.sections);
    if (first) {
      trailer = read.trailer;
      encrypted = read.trailer.has('Encrypt');
      if (!read.trailer.has('Root')) damage.push({ kind: 'trailer-incomplete', missing: '/Root' });
      else if (typeof read.trailer.get('Size') !== 'number') damage.push({ kind: 'trailer-incomplete', missing: '/Size' });
    }
    first = false;
    const prev = read.trailer.get('Prev');
    next = typeof prev === 'number' ? prev : -1;
  }
  const xref = sections.length > 0 && damage.length === 0 ? new XrefIndex(bytes, sections, headerOffset) : undefined;
  if (xref) {
    const misplaced = sampleEntries(sections, xref);
    if (misplaced) damage.push({ kind: 'xref-entry-off-target', ...misplaced });
  }
  if (!trailer && damage.length === 0) damage.push({ kind: 'no-trailer', offset: target });
  if (!trailer) encrypted = tailEncrypted();
  return { ...base, encrypted, damage, xref: damage.length === 0 ? xref : undefined, trailer };
}

/** Where a section named by startxref or /Prev starts: the offset itself or, after junk before `%PDF-`, shifted. */
function sectionStart(bytes: Uint8Array, offset: number, headerOffset: number): number | undefined {
  for (const candidate of headerOffset > 0 ? [offset, offset + headerOffset] : [offset]) {
    if (candidate >= bytes.length) continue;
    const at = skipSpace(bytes, candidate);
    if (startsWith(bytes, at, 'xref') || objectHeader(bytes, at)) return at;
  }
  return undefined;
}

type SectionRead = { sections: XrefSection[]; trailer: PdfDict } | { damage: StructureDamage };

function readSection(bytes: Uint8Array, at: number): SectionRead {
  if (startsWith(bytes, at, 'xref')) {
    const table = readTable(bytes, at);
    if (!table) return { damage: { kind: 'xref-table-malformed', offset: at } };
    if (!startsWith(bytes, table.trailerAt, 'trailer')) return { damage: { kind: 'no-trailer', offset: at } };
    const trailer = new ObjectReader(bytes, table.trailerAt + 7).value();
    if (!(trailer instanceof Map)) return { damage: { kind: 'no-trailer', offset: at } };
    const sections: XrefSection[] = [table.section];
    // Hybrid files list their compressed objects in a second, stream section.
    const hybrid = trailer.get('XRefStm');
    if (typeof hybrid === 'number') {
      const stream = readStream(bytes, skipSpace(bytes, hybrid), undefined);
      const decoded = stream && xrefStreamSection(stream.dict, stream.data);
      if (decoded) sections.push(decoded);
    }
    return { sections, trailer };
  }
  const stream = readStream(bytes, at, undefined);
  if (!stream || stream.dict.get('Type') !== '/XRef') return { damage: { kind: 'startxref-off-target', offset: at } };
  const decoded = xrefStreamSection(stream.dict, stream.data);
  if (!decoded) return { damage: { kind: 'xref-stream-unreadable', offset: at } };
  return { sections: [decoded], trailer: stream.dict };
}

/** The first of a few in-use table entries (spread over the newest table) that does not point at its object. */
function sampleEntries(sections: XrefSection[], xref: XrefIndex): { object: number; offset: number } | undefined {
  const table = sections[0];
  if (!(table instanceof TableSection)) return undefined;
  const total = table.subsections.reduce((n, s) => n + s[1], 0);
  const step = Math.max(1, Math.floor(total / SAMPLED_ENTRIES));
  for (const [firstNum, count] of table.subsections) {
    for (let k = 0; k < count; k += step) {
      const num = firstNum + k;
      const loc = table.lookup(num);
      if (!loc || loc === 'free' || !('offset' in loc) || (num === 0 && loc.offset === 0)) continue;
      if (xref.offsetOf(num) === undefined) return { object: num, offset: loc.offset };
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Content streams

/**
 * The content stream object numbers of each page, in page order: at most `limit` pages, and only
 * as far as `budget` bytes of object streams (where modern files keep page dictionaries) inflate.
 * Objects are found through the cross-reference data or, when it is unusable, by scanning the file.
 */
export function pageContentObjects(bytes: Uint8Array, structure: PdfStructure, limit: number, budget = Infinity): number[][] {
  const objects = fileObjects(bytes, structure, budget);
  return objects ? pageContents(objects.lookup, objects.catalog, limit, objects.inflatedBefore + budget) : [];
}

interface FileObjects {
  lookup: ObjectLookup;
  catalog: PdfValue | undefined;
  encrypted: boolean;
  /** `lookup.inflatedBytes` before the catalog was read: what this use of the lookup has spent since. */
  inflatedBefore: number;
}

/**
 * How objects are found in the file, and its catalog: through the cross-reference data or, when it
 * is unusable, a scan of the file (a fresh one each call: the structure holds no scan, and damaged
 * files are rare). Undefined when the file has no header or no trailer.
 */
function fileObjects(bytes: Uint8Array, structure: PdfStructure, budget: number): FileObjects | undefined {
  const { xref, trailer } = structure;
  if (xref) {
    if (!trailer) return undefined;
    const inflatedBefore = xref.inflatedBytes;
    return { lookup: xref, catalog: xref.resolve(trailer.get('Root')), encrypted: structure.encrypted, inflatedBefore };
  }
  if (structure.headerOffset < 0) return undefined;
  const found = scanObjects(bytes);
  if (!found.complete) return undefined;
  const scanned = new ScanIndex(bytes, found, budget);
  const { catalog, encrypted } = scanned.root();
  return { lookup: scanned, catalog, encrypted: encrypted || structure.encrypted, inflatedBefore: 0 };
}

function pageContents(lookup: ObjectLookup, catalog: PdfValue | undefined, limit: number, budget: number): number[][] {
  const root = catalog instanceof Map ? catalog.get('Pages') : undefined;
  const pages: number[][] = [];
  const visited = new Set<number>();
  // Kids that lead nowhere still cost a lookup each: a tree may not visit many more nodes than pages.
  const maxNodes = 2 * limit + 256;
  const walk = (node: PdfValue | undefined, depth: number): void => {
    if (pages.length >= limit || visited.size >= maxNodes || lookup.inflatedBytes > budget || depth > MAX_DEPTH || !isRef(node) || visited.has(node.num)) return;
    visited.add(node.num);
    const dict = lookup.object(node.num);
    if (!(dict instanceof Map)) return;
    const kids = lookup.resolve(dict.get('Kids'));
    if (dict.get('Type') === '/Pages' || (Array.isArray(kids) && dict.get('Type') !== '/Page')) {
      if (Array.isArray(kids)) for (const kid of kids) walk(kid, depth + 1);
      return;
    }
    const contents = dict.get('Contents');
    const listed = isRef(contents) ? lookup.object(contents.num) : undefined;
    // /Contents is a stream or an array of streams, the array itself possibly indirect.
    const refs = Array.isArray(listed) ? listed : Array.isArray(contents) ? contents : [contents];
    pages.push(refs.filter(isRef).map((r) => r.num));
  };
  walk(root, 0);
  return pages;
}

/**
 * Inflates the FlateDecode content streams of the given pages (0-based, in the order given) until
 * `budget` encoded bytes (plus a set-up charge per stream) are spent, and reports the streams zlib
 * rejects. Objects are found through the cross-reference data or, when it is damaged, by scanning
 * the file as PDFium does when it rebuilds it. Skipped for encrypted files (their streams are
 * ciphertext). Never throws: what was found before an unforeseen failure is returned.
 */
export function checkContentStreams(bytes: Uint8Array, structure: PdfStructure, pageOrder: readonly number[], budget: number): StreamDamage[] {
  const damage: StreamDamage[] = [];
  if (structure.encrypted || pageOrder.length === 0) return damage;
  try {
    const objects = fileObjects(bytes, structure, budget);
    if (!objects || objects.encrypted) return damage;
    const { lookup, catalog, inflatedBefore } = objects;
    const lastPage = pageOrder.reduce((m, p) => Math.max(m, p), 0);
    const contents = pageContents(lookup, catalog, lastPage + 1, inflatedBefore + budget);
    const checked = new Set<number>();
    let spent = lookup.inflatedBytes - inflatedBefore;
    for (const page of pageOrder) {
      for (const num of contents[page] ?? []) {
        if (checked.has(num)) continue;
        checked.add(num);
        const at = lookup.offsetOf(num);
        const stream = at === undefined ? undefined : readStream(bytes, at, lookup);
        if (!stream || !isFlateOnly(stream.dict)) continue;
        const cost = stream.data.length + STREAM_OVERHEAD;
        if (spent + cost > budget) return damage;
        spent += cost;
        const failure = inflateFailure(stream.data);
        if (failure) damage.push({ page, object: num, ...failure });
      }
    }
  } catch {
    // Reading a damaged file's objects can fail in ways not foreseen; the check is best effort.
  }
  return damage;
}

function inflateFailure(data: Uint8Array): Pick<StreamDamage, 'reason' | 'detail'> | undefined {
  try {
    inflateSync(data, { maxOutputLength: MAX_INFLATED });
    return undefined;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    if (/incorrect data check/.test(message)) return { reason: 'checksum', detail: message };
    if (code === 'Z_BUF_ERROR') return { reason: 'cut-short', detail: message };
    return { reason: 'corrupt', detail: message };
  }
}

// ---------------------------------------------------------------------------------------------
// Messages

const REBUILT = 'PDFium rebuilt it by scanning the file: text may be incomplete';

/**
 * Encoded bytes inflated per document for the stream check (object streams on the way to the
 * pages included): 16 KB plus 1/128 of the file, so the check costs a small fraction of a
 * millisecond per MB and catches damage in small files whole.
 */
export function streamCheckBudget(size: number): number {
  return 16384 + Math.floor(size / 128);
}

/**
 * The warnings for a file PDFium opened: damage to its structure and content streams zlib rejects.
 * `pageChars` (characters PDFium extracted per page) puts pages without text first in the stream
 * check, where corruption would explain the missing text.
 */
export function damageWarnings(bytes: Uint8Array, structure: PdfStructure, pageChars: readonly number[]): string[] {
  const empty = pageChars.flatMap((chars, page) => (chars === 0 ? [page] : []));
  const order = [...empty, ...pageChars.flatMap((chars, page) => (chars === 0 ? [] : [page]))];
  const streams = checkContentStreams(bytes, structure, order, streamCheckBudget(bytes.length));
  return [...structureWarnings(structure, empty), ...streamWarnings(streams)];
}

/** Document warnings for a file PDFium opened despite the damage found; `emptyPages` are 0-based. */
export function structureWarnings(structure: PdfStructure, emptyPages: readonly number[] = []): string[] {
  const warnings: string[] = [];
  if (structure.truncated) {
    const lost = emptyPages.length > 0 ? `; ${pageList(emptyPages)} yielded no text` : '';
    warnings.push(`the PDF looks truncated (it ends after ${structure.size} bytes without %%EOF); PDFium read what is there: pages or text at the end may be missing${lost}`);
  }
  for (const damage of structure.damage) {
    // A cut-off file has no startxref at its end: the truncation warning already says it.
    if (damage.kind === 'no-startxref' && structure.truncated) continue;
    warnings.push(`the PDF's cross-reference table is damaged (${describeDamage(damage)}); ${REBUILT}`);
  }
  return warnings;
}

function pageList(pages: readonly number[]): string {
  const shown = pages.slice(0, 10).map((p) => p + 1).join(', ');
  return `${pages.length === 1 ? 'page' : 'pages'} ${shown}${pages.length > 10 ? ', …' : ''}`;
}

function describeDamage(damage: StructureDamage): string {
  switch (damage.kind) {
    case 'no-startxref':
      return 'no usable startxref near the end of the file';
    case 'startxref-off-target':
      return `startxref points at byte ${damage.offset}, not at an xref table or stream`;
    case 'xref-table-malformed':
      return `the xref table at byte ${damage.offset} has malformed entries`;
    case 'xref-entry-off-target':
      return `object ${damage.object} is listed at byte ${damage.offset}, where that object is not`;
    case 'xref-stream-unreadable':
      return `the xref stream at byte ${damage.offset} cannot be decoded`;
    case 'no-trailer':
      return `no trailer after the xref table at byte ${damage.offset}`;
    case 'trailer-incomplete':
      return `the trailer has no ${damage.missing}`;
    case 'prev-off-target':
      return `an earlier xref section is listed at byte ${damage.offset}, where there is none`;
  }
}

/** Document warnings for content streams zlib rejects; PDFium keeps whatever it could decode. */
export function streamWarnings(damage: readonly StreamDamage[]): string[] {
  return damage.map(({ page, object, reason, detail }) => {
    const what = `content stream of page ${page + 1} (object ${object})`;
    if (reason === 'checksum') return `${what} fails its zlib checksum (the bytes are damaged): its text may be partial or wrong`;
    if (reason === 'cut-short') return `${what} ends early (inflate ran out of data): its text may be partial`;
    return `${what} is corrupt (inflate failed: ${detail}): its text may be partial`;
  });
}

/** Why PDFium could not open the file (or found no pages), from its bytes, or undefined when they show nothing specific. */
export function openFailureReason(structure: PdfStructure): string | undefined {
  if (structure.headerOffset < 0) return 'not a PDF: no %PDF- header in the first 1024 bytes';
  if (structure.truncated) return `the PDF is truncated (it ends after ${structure.size} bytes without %%EOF) and PDFium could not rebuild it`;
  const damage = structure.damage[0];
  if (damage) return `the PDF's cross-reference table is damaged (${describeDamage(damage)}) and PDFium could not rebuild it`;
  return undefined;
}

import { inflateRawSync } from 'node:zlib';
import { detectEncoding } from '../detect/encoding.js';
import { GroundworkError, type LimitInfo } from '../errors.js';

/**
 * A ZIP reader for untrusted archives held in memory (OOXML, ODF, EPUB containers and user ZIPs).
 *
 * Safety comes first, because every check happens before any byte is inflated:
 * - the central directory is read from the end of the file (as the format requires), bounds-checked,
 *   and refused when it declares more entries, more total bytes or a higher compression ratio than
 *   the limits allow (bomb signatures: a 1 MB entry never legitimately inflates 200-fold);
 * - every read inflates with a hard output cap of the entry's declared size (zlib's
 *   `maxOutputLength`), so an entry that lies about its size stops there instead of filling memory,
 *   and all reads together are capped by `maxTotalUncompressed`;
 * - entry names that climb out of the archive (`..`, absolute paths, drive letters, backslash
 *   traversal) make the whole archive CORRUPT: the ZIP specification forbids them, so such an archive
 *   is hostile or broken, and refusing it whole is what yauzl does too.
 *
 * Inflation uses Node's native zlib rather than a JavaScript inflater: it is faster and its output
 * cap bounds memory the same way a streaming byte counter would.
 */

export interface ZipLimits {
  /** Most entries (files and folders) an archive may list. */
  maxEntries: number;
  /** Most bytes all entries may declare together, and the most `read` may inflate in total. */
  maxTotalUncompressed: number;
  /** Most bytes one entry may inflate to (checked when it is read, so an unused huge entry is harmless). */
  maxEntrySize: number;
  /** Highest uncompressed/compressed ratio, checked for entries over 1 MiB. */
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = Object.freeze({
  maxEntries: 10_000,
  maxTotalUncompressed: 1024 * 1024 * 1024,
  maxEntrySize: 256 * 1024 * 1024,
  maxRatio: 200,
});

/** Entries smaller than this are not ratio-checked: small XML parts legitimately compress 100-fold and more. */
const RATIO_CHECK_MIN_BYTES = 1024 * 1024;

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  /** 0 stored, 8 deflate; anything else cannot be read. */
  method: number;
  encrypted: boolean;
}

interface ZipEntry extends ZipEntryInfo {
  localHeaderOffset: number;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const FLAG_ENCRYPTED = 0x1;
const FLAG_UTF8 = 0x800;
const ZIP64_EXTRA_ID = 0x0001;
const MAX_U32 = 0xffffffff;
const MAX_U16 = 0xffff;

export class ZipArchive {
  readonly entries: readonly ZipEntryInfo[];
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly byName: Map<string, ZipEntry>;
  private byLowerName: Map<string, ZipEntry> | undefined;
  private readonly limits: ZipLimits;
  private readonly file: string | undefined;
  private inflatedTotal = 0;

  private constructor(bytes: Uint8Array, entries: ZipEntry[], limits: ZipLimits, file: string | undefined) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.entries = entries;
    this.limits = limits;
    this.file = file;
    this.byName = new Map();
    // The first of two same-named entries wins, as in most readers; the central directory order is kept.
    for (const entry of entries) if (!this.byName.has(entry.name)) this.byName.set(entry.name, entry);
  }

  /**
   * Reads the central directory and checks it against the limits. Throws CORRUPT (not a ZIP,
   * truncated, bad central directory, unsafe entry names) or LIMIT_EXCEEDED (entry count, declared
   * total size, compression ratio).
   */
  static open(bytes: Uint8Array, options: { limits?: Partial<ZipLimits>; file?: string } = {}): ZipArchive {
    const limits: ZipLimits = { ...DEFAULT_ZIP_LIMITS, ...options.limits };
    const entries = readCentralDirectory(bytes, limits, options.file);
    return new ZipArchive(bytes, entries, limits, options.file);
  }

  /** True when an entry of that name exists (exact, or else ignoring case: some producers vary it). */
  has(name: string): boolean {
    return this.lookup(name) !== undefined;
  }

  /** The entry's info, or undefined. */
  entry(name: string): ZipEntryInfo | undefined {
    return this.lookup(name);
  }

  /** Total bytes inflated by `read` so far. */
  get inflatedBytes(): number {
    return this.inflatedTotal;
  }

  /**
   * The entry's content. Never inflates past its declared size, `maxEntrySize`, or what is left of
   * `maxTotalUncompressed` (LIMIT_EXCEEDED); a size or stream mismatch is CORRUPT.
   */
  read(name: string): Uint8Array {
    const entry = this.lookup(name);
    if (!entry) throw this.error('CORRUPT', `the archive has no entry '${name}'`);
    if (entry.encrypted) throw this.error('ENCRYPTED', `entry '${entry.name}' is encrypted; remove the password and try again`);
    const declared = entry.uncompressedSize;
    if (declared > this.limits.maxEntrySize) {
      throw this.error('LIMIT_EXCEEDED', `entry '${entry.name}' declares ${declared} bytes, over the per-entry limit of ${this.limits.maxEntrySize} (maxEntrySize)`, undefined, { name: 'maxEntrySize', value: this.limits.maxEntrySize });
    }
    if (this.inflatedTotal + declared > this.limits.maxTotalUncompressed) {
      throw this.error('LIMIT_EXCEEDED', `reading entry '${entry.name}' would inflate more than ${this.limits.maxTotalUncompressed} bytes in total (maxTotalUncompressed)`, undefined, { name: 'maxTotalUncompressed', value: this.limits.maxTotalUncompressed });
    }
    const data = this.compressedData(entry);
    let out: Uint8Array;
    if (entry.method === 0) {
      if (data.length !== declared) throw this.error('CORRUPT', `stored entry '${entry.name}' is ${data.length} bytes but declares ${declared}`);
      out = data;
    } else if (entry.method === 8) {
      out = this.inflate(entry, data);
    } else {
      throw this.error('UNSUPPORTED', `entry '${entry.name}' uses compression method ${entry.method}; only stored and deflate are supported`);
    }
    this.inflatedTotal += out.length;
    return out;
  }

  /** The entry as UTF-8 text (a UTF-8 BOM is stripped; a UTF-16 BOM switches to UTF-16). */
  readText(name: string): string {
    return decodeXmlText(this.read(name));
  }

  /** The entry as text when it exists, else undefined (for optional parts such as footnotes.xml). */
  readTextIfPresent(name: string): string | undefined {
    return this.has(name) ? this.readText(name) : undefined;
  }

  private lookup(name: string): ZipEntry | undefined {
    const exact = this.byName.get(name);
    if (exact) return exact;
    if (!this.byLowerName) {
      this.byLowerName = new Map();
      for (const [key, entry] of this.byName) {
        const lower = key.toLowerCase();
        if (!this.byLowerName.has(lower)) this.byLowerName.set(lower, entry);
      }
    }
    return this.byLowerName.get(name.toLowerCase());
  }

  private compressedData(entry: ZipEntry): Uint8Array {
    const p = entry.localHeaderOffset;
    if (p + 30 > this.bytes.length || this.view.getUint32(p, true) !== LOCAL_SIG) {
      throw this.error('CORRUPT', `entry '${entry.name}' has no local header where the central directory points (truncated or damaged archive)`);
    }
    // The local header's name and extra lengths may differ from the central directory's.
    const start = p + 30 + this.view.getUint16(p + 26, true) + this.view.getUint16(p + 28, true);
    const end = start + entry.compressedSize;
    if (end > this.bytes.length) throw this.error('CORRUPT', `entry '${entry.name}' runs past the end of the file (truncated archive)`);
    return this.bytes.subarray(start, end);
  }

  private inflate(entry: ZipEntry, data: Uint8Array): Uint8Array {
    const declared = entry.uncompressedSize;
    let out: Buffer;
    try {
      // One byte of headroom tells "exactly the declared size" from "more than declared".
      out = inflateRawSync(data, { maxOutputLength: declared + 1 });
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw this.error('LIMIT_EXCEEDED', `entry '${entry.name}' inflates beyond its declared ${declared} bytes (a zip bomb or a damaged archive); stopped there`, cause);
      }
      throw this.error('CORRUPT', `entry '${entry.name}' cannot be inflated: ${(cause as Error).message}`, cause);
    }
    if (out.length > declared) {
      throw this.error('LIMIT_EXCEEDED', `entry '${entry.name}' inflates beyond its declared ${declared} bytes (a zip bomb or a damaged archive); stopped there`);
    }
    if (out.length !== declared) throw this.error('CORRUPT', `entry '${entry.name}' inflates to ${out.length} bytes but declares ${declared}`);
    return out;
  }

  private error(code: 'CORRUPT' | 'LIMIT_EXCEEDED' | 'ENCRYPTED' | 'UNSUPPORTED', message: string, cause?: unknown, limit?: LimitInfo): GroundworkError {
    return new GroundworkError(code, message, { ...(this.file !== undefined && { file: this.file }), ...(cause !== undefined && { cause }), ...(limit && { limit }) });
  }
}

/** Text of an XML or text part: UTF-8 unless a UTF-16 BOM says otherwise; BOMs are stripped. */
export function decodeXmlText(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  // TextDecoder strips a UTF-8 BOM by default.
  return new TextDecoder('utf-8').decode(bytes);
}

/**
 * True when an entry name would leave the folder it is extracted to: `..` segments, a leading slash
 * or backslash, a drive letter (`C:`), or backslash-separated traversal (`..\\evil`).
 */
export function isUnsafeEntryName(name: string): boolean {
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name) || name.includes('\0')) return true;
  for (const segment of name.split(SEGMENT_SEPARATOR)) if (segment === '..') return true;
  return false;
}
const SEGMENT_SEPARATOR = /[\\/]/;

function readCentralDirectory(bytes: Uint8Array, limits: ZipLimits, file: string | undefined): ZipEntry[] {
  const fail = (code: 'CORRUPT' | 'LIMIT_EXCEEDED', message: string, limit?: LimitInfo): never => {
    throw new GroundworkError(code, message, { ...(file !== undefined && { file }), ...(limit && { limit }) });
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEocd(bytes, view);
  if (eocd < 0) fail('CORRUPT', 'is not a ZIP archive, or is truncated (no end-of-central-directory record)');
  let count = view.getUint16(eocd + 10, true);
  let size = view.getUint32(eocd + 12, true);
  let offset = view.getUint32(eocd + 16, true);
  if (count === MAX_U16 || size === MAX_U32 || offset === MAX_U32) {
    const zip64 = readZip64Eocd(bytes, view, eocd);
    if (zip64) ({ count, size, offset } = zip64);
  }
  if (count > limits.maxEntries) fail('LIMIT_EXCEEDED', `the archive lists ${count} entries, over the limit of ${limits.maxEntries} (maxEntries)`, { name: 'maxEntries', value: limits.maxEntries });
  if (offset + size > bytes.length || offset > eocd) fail('CORRUPT', 'the central directory lies outside the file (truncated or damaged archive)');

  const raw: { name: Uint8Array; utf8: boolean; entry: Omit<ZipEntry, 'name'> }[] = [];
  let p = offset;
  let declaredTotal = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== CENTRAL_SIG) fail('CORRUPT', `central directory entry ${i + 1} of ${count} is damaged`);
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    let compressedSize = view.getUint32(p + 20, true);
    let uncompressedSize = view.getUint32(p + 24, true);
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    let localHeaderOffset = view.getUint32(p + 42, true);
    const nameStart = p + 46;
    const extraStart = nameStart + nameLength;
    const next = extraStart + extraLength + commentLength;
    if (next > bytes.length) fail('CORRUPT', `central directory entry ${i + 1} of ${count} runs past the end of the file`);
    if (uncompressedSize === MAX_U32 || compressedSize === MAX_U32 || localHeaderOffset === MAX_U32) {
      const sizes = readZip64Extra(view, extraStart, extraLength, uncompressedSize === MAX_U32, compressedSize === MAX_U32, localHeaderOffset === MAX_U32);
      uncompressedSize = sizes.uncompressed ?? uncompressedSize;
      compressedSize = sizes.compressed ?? compressedSize;
      localHeaderOffset = sizes.offset ?? localHeaderOffset;
    }
    if (localHeaderOffset + 30 > bytes.length) fail('CORRUPT', `central directory entry ${i + 1} points past the end of the file`);
    declaredTotal += uncompressedSize;
    raw.push({
      name: bytes.subarray(nameStart, extraStart),
      utf8: (flags & FLAG_UTF8) !== 0,
      entry: { compressedSize, uncompressedSize, method, encrypted: (flags & FLAG_ENCRYPTED) !== 0, localHeaderOffset },
    });
    p = next;
  }
  if (declaredTotal > limits.maxTotalUncompressed) {
    fail('LIMIT_EXCEEDED', `the entries declare ${declaredTotal} bytes uncompressed, over the limit of ${limits.maxTotalUncompressed} (maxTotalUncompressed)`, { name: 'maxTotalUncompressed', value: limits.maxTotalUncompressed });
  }
  const names = decodeNames(raw);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < raw.length; i++) {
    const name = names[i]!;
    const info = raw[i]!.entry;
    if (isUnsafeEntryName(name)) fail('CORRUPT', `entry name '${name}' points outside the archive (path traversal, "zip slip"); the archive is refused`);
    if (info.uncompressedSize > RATIO_CHECK_MIN_BYTES && info.uncompressedSize > limits.maxRatio * Math.max(1, info.compressedSize)) {
      const ratio = Math.round(info.uncompressedSize / Math.max(1, info.compressedSize));
      fail('LIMIT_EXCEEDED', `entry '${name}' would inflate ${ratio}-fold (${info.compressedSize} -> ${info.uncompressedSize} bytes), over the ratio limit of ${limits.maxRatio} (maxRatio): a zip bomb`, { name: 'maxRatio', value: limits.maxRatio });
    }
    entries.push({ name, ...info });
  }
  return entries;
}

/**
 * Entry names: UTF-8 when flagged or valid; otherwise the legacy code page is guessed once from all
 * the unflagged names together (GBK and Shift_JIS archives from Windows are common; CP437 is the
 * format's nominal default but rare in practice beyond ASCII).
 */
function decodeNames(raw: readonly { name: Uint8Array; utf8: boolean }[]): string[] {
  const utf8 = new TextDecoder('utf-8');
  const legacy: Uint8Array[] = [];
  for (const r of raw) if (!r.utf8 && !isAscii(r.name)) legacy.push(r.name);
  let legacyDecoder: { decode(bytes: Uint8Array): string } | undefined;
  if (legacy.length > 0) {
    const joined = Buffer.concat(legacy.flatMap((n) => [n, NEWLINE]));
    const encoding = detectEncoding(joined);
    try {
      legacyDecoder = new TextDecoder(encoding);
    } catch {
      legacyDecoder = utf8;
    }
  }
  return raw.map((r) => (r.utf8 || !legacyDecoder || isAscii(r.name) ? utf8 : legacyDecoder!).decode(r.name));
}
const NEWLINE = new Uint8Array([0x0a]);

function isAscii(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i]! > 0x7f) return false;
  return true;
}

/** The end-of-central-directory record: 22 bytes plus a comment of up to 64 KB, at the very end. */
function findEocd(b: Uint8Array, view: DataView): number {
  const stop = Math.max(0, b.length - 22 - MAX_U16);
  for (let p = b.length - 22; p >= stop; p--) {
    if (b[p] === 0x50 && b[p + 1] === 0x4b && view.getUint32(p, true) === EOCD_SIG) return p;
  }
  return -1;
}

function readZip64Eocd(b: Uint8Array, view: DataView, eocd: number): { count: number; size: number; offset: number } | undefined {
  if (eocd < 20 || view.getUint32(eocd - 20, true) !== ZIP64_LOCATOR_SIG) return undefined;
  const at = Number(view.getBigUint64(eocd - 12, true));
  if (at + 56 > b.length || view.getUint32(at, true) !== ZIP64_EOCD_SIG) return undefined;
  return {
    count: Number(view.getBigUint64(at + 32, true)),
    size: Number(view.getBigUint64(at + 40, true)),
    offset: Number(view.getBigUint64(at + 48, true)),
  };
}

/** ZIP64 extra field: the 8-byte values present are, in order, those whose 32-bit fields were 0xFFFFFFFF. */
function readZip64Extra(
  view: DataView,
  start: number,
  length: number,
  wantUncompressed: boolean,
  wantCompressed: boolean,
  wantOffset: boolean,
): { uncompressed?: number; compressed?: number; offset?: number } {
  const end = start + length;
  for (let p = start; p + 4 <= end; ) {
    const id = view.getUint16(p, true);
    const size = view.getUint16(p + 2, true);
    if (id === ZIP64_EXTRA_ID) {
      let q = p + 4;
      const stop = Math.min(end, q + size);
      const take = (): number | undefined => {
        if (q + 8 > stop) return undefined;
        const value = Number(view.getBigUint64(q, true));
        q += 8;
        return value;
      };
      const out: { uncompressed?: number; compressed?: number; offset?: number } = {};
      if (wantUncompressed) { const v = take(); if (v !== undefined) out.uncompressed = v; }
      if (wantCompressed) { const v = take(); if (v !== undefined) out.compressed = v; }
      if (wantOffset) { const v = take(); if (v !== undefined) out.offset = v; }
      return out;
    }
    p += 4 + size;
  }
  return {};
}

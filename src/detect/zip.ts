import { inflateRawSync } from 'node:zlib';

/**
 * Just enough ZIP reading to tell containers apart by their entries: the names from the central
 * directory (found from the end of the file, as readers must: LibreOffice writes a 37 MB sheet
 * before `[Content_Types].xml`, which fools sniffers that read from the front), and the small
 * `mimetype` entry of ODF and EPUB. A zip without a readable central directory (truncated) is
 * listed by walking its local headers instead.
 */

export interface ZipListing {
  names: string[];
  /** False when the names came from local headers because the central directory is missing. */
  complete: boolean;
  /** Content of the `mimetype` entry (ODF, EPUB), when present and small. */
  mimetype?: string;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
/** Names are only needed to classify; a huge archive is classified by its first entries. */
const MAX_NAMES = 20_000;

export function isZipMagic(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5 || b[2] === 7) && b[3] === b[2] + 1;
}

export function listZip(b: Uint8Array): ZipListing {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const central = readCentralDirectory(b, view);
  let listing: ZipListing;
  let mimetypeOffset: number | undefined;
  if (central) {
    listing = { names: central.names, complete: true };
    mimetypeOffset = central.mimetypeOffset;
  } else {
    const entries = walkLocalHeaders(b, view);
    listing = { names: entries.map((e) => e.name), complete: false };
    mimetypeOffset = entries.find((e) => e.name === 'mimetype')?.offset;
  }
  if (mimetypeOffset !== undefined) {
    const mimetype = readSmallEntry(b, view, mimetypeOffset);
    if (mimetype !== undefined) listing.mimetype = mimetype.trim();
  }
  return listing;
}

function readCentralDirectory(b: Uint8Array, view: DataView): { names: string[]; mimetypeOffset?: number } | undefined {
  const eocd = findEocd(b, view);
  if (eocd < 0) return undefined;
  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if ((offset === 0xffffffff || count === 0xffff) && eocd >= 20 && view.getUint32(eocd - 20, true) === ZIP64_LOCATOR_SIG) {
    const zip64 = Number(view.getBigUint64(eocd - 12, true));
    if (zip64 + 56 <= b.length && view.getUint32(zip64, true) === ZIP64_EOCD_SIG) {
      count = Number(view.getBigUint64(zip64 + 32, true));
      offset = Number(view.getBigUint64(zip64 + 48, true));
    }
  }
  const names: string[] = [];
  let mimetypeOffset: number | undefined;
  let p = offset;
  for (let i = 0; i < count && i < MAX_NAMES; i++) {
    if (p + 46 > b.length || view.getUint32(p, true) !== CENTRAL_SIG) break;
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    const name = entryName(b, p + 46, nameLength);
    if (name === 'mimetype') mimetypeOffset = view.getUint32(p + 42, true);
    names.push(name);
    p += 46 + nameLength + extraLength + commentLength;
  }
  if (names.length === 0 && count > 0) return undefined;
  return { names, ...(mimetypeOffset !== undefined && { mimetypeOffset }) };
}

/** The end-of-central-directory record: 22 bytes plus a comment of up to 64 KB, at the very end. */
function findEocd(b: Uint8Array, view: DataView): number {
  const stop = Math.max(0, b.length - 22 - 0xffff);
  for (let p = b.length - 22; p >= stop; p--) {
    if (b[p] === 0x50 && b[p + 1] === 0x4b && view.getUint32(p, true) === EOCD_SIG) return p;
  }
  return -1;
}

interface LocalEntry {
  name: string;
  offset: number;
}

/**
 * Local headers in file order. With a data descriptor (flag bit 3) the sizes in the header are zero,
 * so the next header is found by searching for its signature.
 */
function walkLocalHeaders(b: Uint8Array, view: DataView): LocalEntry[] {
  const entries: LocalEntry[] = [];
  let p = 0;
  while (p + 30 <= b.length && entries.length < MAX_NAMES && view.getUint32(p, true) === LOCAL_SIG) {
    const flags = view.getUint16(p + 6, true);
    const compressedSize = view.getUint32(p + 18, true);
    const nameLength = view.getUint16(p + 26, true);
    const extraLength = view.getUint16(p + 28, true);
    if (p + 30 + nameLength > b.length) break;
    entries.push({ name: entryName(b, p + 30, nameLength), offset: p });
    const dataStart = p + 30 + nameLength + extraLength;
    p = flags & 8 || compressedSize === 0xffffffff ? nextLocalHeader(b, dataStart) : dataStart + compressedSize;
    if (p < 0) break;
  }
  return entries;
}

function nextLocalHeader(b: Uint8Array, from: number): number {
  for (let p = b.indexOf(0x50, from); p >= 0 && p + 4 <= b.length; p = b.indexOf(0x50, p + 1)) {
    if (b[p + 1] === 0x4b && b[p + 2] === 3 && b[p + 3] === 4) return p;
  }
  return -1;
}

function entryName(b: Uint8Array, start: number, length: number): string {
  return Buffer.from(b.buffer, b.byteOffset + start, Math.min(length, b.length - start)).toString('latin1');
}

/** An entry's content when it is tiny (the `mimetype` entry), stored or deflated. */
function readSmallEntry(b: Uint8Array, view: DataView, offset: number): string | undefined {
  if (offset + 30 > b.length || view.getUint32(offset, true) !== LOCAL_SIG) return undefined;
  const method = view.getUint16(offset + 8, true);
  const compressedSize = view.getUint32(offset + 18, true);
  const start = offset + 30 + view.getUint16(offset + 26, true) + view.getUint16(offset + 28, true);
  if (compressedSize > 1024 || start + compressedSize > b.length) return undefined;
  const data = b.subarray(start, start + compressedSize);
  try {
    const raw = method === 0 ? data : method === 8 ? inflateRawSync(data, { maxOutputLength: 1024 }) : undefined;
    return raw ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1') : undefined;
  } catch {
    return undefined;
  }
}

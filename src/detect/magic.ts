import type { Format } from '../document/types.js';

/**
 * Magic-byte signatures of the binary formats Groundwork knows. A small own table rather than
 * `file-type`: it is all we need, answers in microseconds, and containers (ZIP, CFB) are classified
 * by their entries elsewhere.
 */

export interface MagicMatch {
  format: Format;
  mime: string;
}

function startsWith(b: Uint8Array, bytes: readonly number[], at = 0): boolean {
  if (b.length < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (b[at + i] !== bytes[i]) return false;
  return true;
}

function ascii(b: Uint8Array, at: number, text: string): boolean {
  if (b.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** `%PDF-` anywhere in the first 1 KB (readers accept leading garbage there). */
export function isPdf(b: Uint8Array): boolean {
  const head = b.subarray(0, 1024);
  for (let p = head.indexOf(0x25); p >= 0; p = head.indexOf(0x25, p + 1)) if (ascii(head, p, '%PDF-')) return true;
  return false;
}

export function isRtf(b: Uint8Array): boolean {
  return ascii(b, 0, '{\\rtf') || (startsWith(b, [0xef, 0xbb, 0xbf]) && ascii(b, 3, '{\\rtf'));
}

/** Binary signatures other than PDF, ZIP and CFB, which detect.ts handles itself. */
export function matchMagic(b: Uint8Array): MagicMatch | undefined {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { format: 'image', mime: 'image/png' };
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { format: 'image', mime: 'image/jpeg' };
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return { format: 'image', mime: 'image/gif' };
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return { format: 'image', mime: 'image/webp' };
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WAVE')) return { format: 'audio', mime: 'audio/wav' };
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return { format: 'image', mime: 'image/tiff' };
  if (isBmp(b)) return { format: 'image', mime: 'image/bmp' };
  if (ascii(b, 4, 'ftyp')) return isoMediaType(b);
  if (ascii(b, 0, 'ID3') || isMp3Frame(b)) return { format: 'audio', mime: 'audio/mpeg' };
  if (ascii(b, 0, 'OggS')) return { format: 'audio', mime: 'audio/ogg' };
  if (ascii(b, 0, 'fLaC')) return { format: 'audio', mime: 'audio/flac' };
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return { format: 'audio', mime: 'video/webm' };
  if (startsWith(b, [0x1f, 0x8b])) return { format: 'unknown', mime: 'application/gzip' };
  if (startsWith(b, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return { format: 'unknown', mime: 'application/x-7z-compressed' };
  if (ascii(b, 0, 'Rar!')) return { format: 'unknown', mime: 'application/vnd.rar' };
  if (startsWith(b, [0x7f, 0x45, 0x4c, 0x46])) return { format: 'unknown', mime: 'application/x-elf' };
  return undefined;
}

/** 'BM' starts plenty of text, so also require a known DIB header size at offset 14. */
function isBmp(b: Uint8Array): boolean {
  if (!ascii(b, 0, 'BM') || b.length < 18) return false;
  const dib = b[14]! | (b[15]! << 8) | (b[16]! << 16) | (b[17]! << 24);
  return dib === 12 || dib === 40 || dib === 52 || dib === 56 || dib === 64 || dib === 108 || dib === 124;
}

/** ISO base media (`ftyp` box): HEIF/AVIF are images; M4A, MP4, QuickTime and 3GP carry audio. */
function isoMediaType(b: Uint8Array): MagicMatch {
  const brand = Buffer.from(b.buffer, b.byteOffset + 8, Math.min(4, b.length - 8)).toString('latin1');
  if (/^(heic|heix|hevc|heim|heis|mif1|msf1|avif|avis)$/.test(brand)) return { format: 'image', mime: brand.startsWith('avi') ? 'image/avif' : 'image/heic' };
  if (/^M4[ABP] $/.test(brand)) return { format: 'audio', mime: 'audio/mp4' };
  if (brand === 'qt  ') return { format: 'audio', mime: 'video/quicktime' };
  if (brand.startsWith('3g')) return { format: 'audio', mime: 'video/3gpp' };
  return { format: 'audio', mime: 'video/mp4' };
}

/**
 * An MPEG audio Layer III frame header: 11 sync bits, a valid version, layer III, a valid bitrate and
 * sample rate. Layer III only, because FF FE (a UTF-16LE BOM) would pass as a Layer I header.
 */
function isMp3Frame(b: Uint8Array): boolean {
  if (b.length < 4 || b[0] !== 0xff || (b[1]! & 0xe0) !== 0xe0) return false;
  const version = (b[1]! >> 3) & 3;
  const layer = (b[1]! >> 1) & 3;
  const bitrate = b[2]! >> 4;
  const sampleRate = (b[2]! >> 2) & 3;
  return version !== 1 && layer === 1 && bitrate !== 0 && bitrate !== 15 && sampleRate !== 3;
}

import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import type { chardet as Chardet } from 'jschardet';

/**
 * Text encodings: which one a byte stream is in, and its text.
 *
 * Order of evidence, strongest first: a BOM; the NUL pattern of BOM-less UTF-16; valid UTF-8 (checked
 * natively by `isUtf8`); an ISO-2022-JP escape in 7-bit text; a charset declared in an HTML/XML
 * prolog; then jschardet on the first 64 KB, cross-checked by byte-structure scorers for the main
 * legacy codecs (short CJK samples fool jschardet, and it names codecs TextDecoder rejects).
 * Decoding is always TextDecoder with fatal:false: a stray bad byte becomes U+FFFD, never an error.
 */

export interface DecodedText {
  /** The text with the BOM removed and newlines normalised to LF (see `normalizeNewlines`). */
  text: string;
  /** A TextDecoder label: 'utf-8', 'utf-16le', 'gb18030', 'shift_jis', 'windows-1252', ... */
  encoding: string;
}

const SAMPLE_BYTES = 64 * 1024;

/** Decodes bytes whose encoding is unknown; see the module comment for the order of evidence. */
export function decodeText(bytes: Uint8Array): DecodedText {
  const encoding = detectEncoding(bytes);
  return { text: normalizeNewlines(decodeWith(bytes, encoding)), encoding };
}

/** Decodes with a known TextDecoder label (BOM stripped), newlines normalised to LF. */
export function decodeAs(bytes: Uint8Array, encoding: string): string {
  return normalizeNewlines(decodeWith(bytes, encoding));
}

/**
 * CRLF and lone CR become LF. Parsers receive normalised text, so every `sourceStart`/`sourceEnd`
 * offset refers to it (as llmware's and Python's text mode do).
 */
export function normalizeNewlines(text: string): string {
  return text.includes('\r') ? text.replace(CR_NEWLINE, '\n') : text;
}
const CR_NEWLINE = /\r\n?/g;

export function detectEncoding(bytes: Uint8Array): string {
  const bom = encodingFromBom(bytes);
  if (bom) return bom;
  const sample = bytes.length > SAMPLE_BYTES ? bytes.subarray(0, SAMPLE_BYTES) : bytes;
  const utf16 = utf16FromNulPattern(sample);
  if (utf16) return utf16;
  if (isUtf8(bytes)) return hasIso2022JpEscape(sample) ? 'iso-2022-jp' : 'utf-8';
  // A valid UTF-8 prefix with a few broken bytes later on (a truncated or patched file) is still UTF-8.
  if (mostlyUtf8(sample)) return 'utf-8';
  const declared = declaredCharset(sample);
  if (declared) return declared;
  return guessLegacyEncoding(sample);
}

function decodeWith(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes);
  return new TextDecoder(encoding, { fatal: false }).decode(bytes);
}

/**
 * Node 20's TextDecoder drops bytes 0x80-0x9F in windows-1252 (its Latin-1 fast path), losing € and
 * smart quotes; so: Latin-1 (exact for every other byte), then the 0x80-0x9F block mapped by table.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const latin = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return latin.replace(C1_RANGE, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]!);
}
const C1_RANGE = /[\x80-\x9f]/g;
/** windows-1252 0x80-0x9F; the five unassigned bytes stay C1 controls, as the WHATWG table has them. */
const WINDOWS_1252_C1 = [...'\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178'];

function encodingFromBom(b: Uint8Array): string | undefined {
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * BOM-less UTF-16 of mostly-Latin text has a NUL in every other byte: at odd offsets for LE, even
 * for BE. Requires many such NULs on one side and almost none on the other.
 */
function utf16FromNulPattern(b: Uint8Array): string | undefined {
  const n = Math.min(b.length, 4096) & ~1;
  if (n < 4) return undefined;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (b[i] === 0) evenNul++;
    if (b[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  if (oddNul >= pairs * 0.3 && evenNul <= pairs * 0.02) return 'utf-16le';
  if (evenNul >= pairs * 0.3 && oddNul <= pairs * 0.02) return 'utf-16be';
  return undefined;
}

function hasIso2022JpEscape(b: Uint8Array): boolean {
  for (let i = b.indexOf(0x1b); i >= 0 && i + 2 < b.length; i = b.indexOf(0x1b, i + 1)) {
    const a = b[i + 1];
    const c = b[i + 2];
    if (a === 0x24 && (c === 0x42 || c === 0x40)) return true; // ESC $ B, ESC $ @
  }
  return false;
}

/** Fewer than 2% of the non-ASCII characters are broken, and there are enough to judge. */
function mostlyUtf8(sample: Uint8Array): boolean {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(sample);
  let nonAscii = 0;
  let broken = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    nonAscii++;
    if (c === 0xfffd) broken++;
  }
  // The last character may be cut by the sample boundary.
  return nonAscii >= 20 && broken <= 1 + nonAscii * 0.02;
}

const DECLARED_CHARSET = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)|<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)/i;

/** `<meta charset=...>` or `<?xml encoding=...?>` in the first 2 KB, when TextDecoder knows it. */
function declaredCharset(sample: Uint8Array): string | undefined {
  const head = latin1(sample.subarray(0, 2048));
  const match = DECLARED_CHARSET.exec(head);
  const name = match?.[1] ?? match?.[2];
  if (!name) return undefined;
  const label = textDecoderLabel(name);
  // A declared UTF-8 or UTF-16 is contradicted by the bytes (they are neither), so ignore it.
  return label && !label.startsWith('utf-') ? label : undefined;
}

function latin1(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

const supported = new Map<string, string | undefined>();

/** Maps a charset name (jschardet's, or declared in a file) to a label TextDecoder accepts. */
export function textDecoderLabel(name: string): string | undefined {
  const key = name.trim().toLowerCase();
  if (supported.has(key)) return supported.get(key);
  const aliased = CHARSET_ALIASES[key] ?? key.replace(/^iso8859-/, 'iso-8859-');
  let label: string | undefined;
  try {
    label = new TextDecoder(aliased).encoding;
  } catch {
    label = undefined;
  }
  supported.set(key, label);
  return label;
}

const CHARSET_ALIASES: Record<string, string> = {
  ascii: 'utf-8',
  'us-ascii': 'utf-8',
  'utf-8-sig': 'utf-8',
  utf8: 'utf-8',
  'utf-16': 'utf-16le',
  'utf-16-le': 'utf-16le',
  'utf-16-be': 'utf-16be',
  cp932: 'shift_jis',
  'ms932': 'shift_jis',
  'windows-31j': 'shift_jis',
  cp949: 'euc-kr',
  uhc: 'euc-kr',
  'ks_c_5601-1987': 'euc-kr',
  gb2312: 'gb18030',
  gbk: 'gb18030',
  cp936: 'gb18030',
  'big5-hkscs': 'big5',
  cp950: 'big5',
  'tis-620': 'windows-874',
  maccyrillic: 'x-mac-cyrillic',
};

/** The legacy codecs the byte scorers can judge; windows-1252 stands for Western single-byte text. */
const LEGACY_CANDIDATES = ['gb18030', 'big5', 'shift_jis', 'euc-kr', 'windows-1252'] as const;
type LegacyCandidate = (typeof LEGACY_CANDIDATES)[number];

const LATIN_SINGLE_BYTE = new Set(['windows-1252', 'iso-8859-15', 'iso-8859-2', 'windows-1250', 'iso-8859-16', 'iso-8859-3', 'iso-8859-4', 'iso-8859-9', 'windows-1254', 'windows-1257', 'iso-8859-13', 'iso-8859-10', 'iso-8859-14']);

const require = createRequire(import.meta.url);
let chardet: typeof Chardet | undefined;

/**
 * jschardet, loaded on the first text that is not UTF-8 (most never need it, and its code and
 * tables stay in the memory of every process that loads it; docs/robustness.md), synchronously
 * like the rest of detection: its CommonJS build.
 */
function jschardet(): typeof Chardet {
  chardet ??= (require('jschardet') as { chardet: typeof Chardet }).chardet;
  return chardet;
}

/**
 * jschardet (modern-web codecs only: it otherwise guesses EBCDIC for short Japanese lines) decides
 * when it is sure; otherwise byte-structure scores pick among the main CJK codecs and windows-1252,
 * with jschardet's own pick favoured in proportion to its confidence.
 */
function guessLegacyEncoding(sample: Uint8Array): string {
  const guess = jschardet().detect(sample, { encodingEra: 1 });
  const label = guess.encoding ? textDecoderLabel(guess.encoding) : undefined;
  const confidence = guess.confidence ?? 0;
  if (label && confidence >= 0.9) return label;
  // A non-Latin single-byte codec (Cyrillic, Greek, Hebrew...) that jschardet is fairly sure of:
  // the CJK scorers would misread its runs of high bytes as double-byte characters.
  if (label && confidence >= 0.5 && !(LEGACY_CANDIDATES as readonly string[]).includes(label) && !LATIN_SINGLE_BYTE.has(label)) {
    return label;
  }
  let best: LegacyCandidate = 'windows-1252';
  let bestScore = -Infinity;
  for (const candidate of LEGACY_CANDIDATES) {
    let score = SCORERS[candidate](sample);
    if (candidate === label) score += 0.2 * confidence;
    if (score > bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  // A Latin codec other than windows-1252 only when jschardet is at least half sure of it.
  if (best === 'windows-1252' && label && LATIN_SINGLE_BYTE.has(label) && confidence >= 0.5) return label;
  return best;
}

/**
 * Each scorer walks the bytes by its codec's structure and returns (common - rare - 2*invalid) / n
 * over the n non-ASCII characters: "common" are the code ranges where each codec keeps its most
 * frequent characters (GB2312 level 1, Big5 frequent characters, KS X 1001 Hangul, Shift_JIS kana
 * and level-1 kanji, isolated accented Latin letters), so real text scores near 1 in its own codec.
 */
const SCORERS: Record<LegacyCandidate, (b: Uint8Array) => number> = {
  gb18030: scoreGb18030,
  big5: scoreBig5,
  shift_jis: scoreShiftJis,
  'euc-kr': scoreEucKr,
  'windows-1252': scoreWindows1252,
};

function ratio(common: number, rare: number, invalid: number, n: number): number {
  return n === 0 ? 0 : (common - rare - 2 * invalid) / n;
}

/**
 * What one character at `i` (a non-ASCII lead byte `c`) is in a codec: its byte length, positive
 * when it is in the codec's common range, negative when valid but rare; 0 when invalid there.
 */
type CharClass = (b: Uint8Array, i: number, c: number) => number;

/** Walks the bytes by a codec's character structure and scores them (see SCORERS); `n` = characters. */
function scoreMultiByte(b: Uint8Array, classify: CharClass): { score: number; n: number } {
  let common = 0;
  let rare = 0;
  let invalid = 0;
  let n = 0;
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    n++;
    const width = classify(b, i, c);
    if (width > 0) common++;
    else if (width < 0) rare++;
    else invalid++;
    i += Math.abs(width) || 1;
  }
  return { score: ratio(common, rare, invalid, n), n };
}

const gb18030Char: CharClass = (b, i, c) => {
  if (c === 0x80 || c === 0xff) return 0;
  const d = b[i + 1] ?? 0;
  if (d >= 0x30 && d <= 0x39) {
    const e = b[i + 2] ?? 0;
    const f = b[i + 3] ?? 0;
    return e >= 0x81 && e <= 0xfe && f >= 0x30 && f <= 0x39 ? -4 : 0;
  }
  if (!((d >= 0x40 && d <= 0x7e) || (d >= 0x80 && d <= 0xfe))) return 0;
  return d >= 0xa1 && ((c >= 0xa1 && c <= 0xa9) || (c >= 0xb0 && c <= 0xd7)) ? 2 : -2;
};

const big5Char: CharClass = (b, i, c) => {
  const d = b[i + 1] ?? 0;
  if (!(c >= 0x81 && c <= 0xfe && ((d >= 0x40 && d <= 0x7e) || (d >= 0xa1 && d <= 0xfe)))) return 0;
  return c >= 0xa1 && c <= 0xc6 ? 2 : -2;
};

const eucKrChar: CharClass = (b, i, c) => {
  const d = b[i + 1] ?? 0;
  const trailOk = (d >= 0x41 && d <= 0x5a) || (d >= 0x61 && d <= 0x7a) || (d >= 0x81 && d <= 0xfe);
  if (!(c >= 0x81 && c <= 0xfe && trailOk)) return 0;
  return d >= 0xa1 && ((c >= 0xa1 && c <= 0xac) || (c >= 0xb0 && c <= 0xc8)) ? 2 : -2;
};

const shiftJisChar: CharClass = (b, i, c) => {
  if (c >= 0xa1 && c <= 0xdf) return -1; // half-width katakana: rare in real text, frequent in misreadings
  const d = b[i + 1] ?? 0;
  const leadOk = (c >= 0x81 && c <= 0x9f) || (c >= 0xe0 && c <= 0xfc);
  const trailOk = (d >= 0x40 && d <= 0x7e) || (d >= 0x80 && d <= 0xfc);
  if (!(leadOk && trailOk)) return 0;
  return (c >= 0x81 && c <= 0x84) || (c >= 0x88 && c <= 0x98) ? 2 : -2;
};

function scoreGb18030(b: Uint8Array): number {
  return scoreMultiByte(b, gb18030Char).score;
}

function scoreBig5(b: Uint8Array): number {
  return scoreMultiByte(b, big5Char).score;
}

function scoreShiftJis(b: Uint8Array): number {
  return scoreMultiByte(b, shiftJisChar).score;
}

/**
 * KS X 1001 Hangul and GB2312 level 1 share a byte range, so EUC-KR also earns a bonus for what sets
 * Korean apart from Chinese: spaces between words (double-byte character, space, double-byte character).
 */
function scoreEucKr(b: Uint8Array): number {
  let wordGaps = 0;
  for (let i = 1; i < b.length - 1; i++) {
    if (b[i] === 0x20 && b[i - 1]! >= 0x80 && b[i + 1]! >= 0x80) wordGaps++;
  }
  const { score, n } = scoreMultiByte(b, eucKrChar);
  return score + (n === 0 ? 0 : Math.min(0.3, wordGaps / n));
}

function scoreWindows1252(b: Uint8Array): number {
  let common = 0;
  let rare = 0;
  let invalid = 0;
  let n = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (c < 0x80) continue;
    n++;
    if (c === 0x81 || c === 0x8d || c === 0x8f || c === 0x90 || c === 0x9d) invalid++;
    else if ((b[i - 1] ?? 0) < 0x80 && (b[i + 1] ?? 0) < 0x80) common++;
    else rare++; // Western text seldom has two non-ASCII characters in a row; double-byte text always does
  }
  return ratio(common, rare, invalid, n);
}

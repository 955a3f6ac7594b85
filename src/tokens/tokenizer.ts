import { GroundworkError } from '../errors.js';
import { PieceEncoder } from './bpe.js';
import { normalizeNfc } from './nfc.js';
import type { TokenOffsets, Tokenizer, TokenizerName } from './types.js';
import type { Vocabulary } from './vocab.js';

export interface EncodingSpec {
  readonly name: TokenizerName;
  /** Pre-tokenizer: where the piece starting at i ends (scanner.ts, the exact equivalent of tiktoken's regex). */
  readonly pieceEnd: (s: string, i: number, n: number) => number;
  /** Special tokens and their ids; always decodable. */
  readonly specials: ReadonlyMap<string, number>;
  /** Whether special-token text in the input encodes as the special token (Qwen-Agent) or as ordinary text. */
  readonly allowSpecials: boolean;
  /** Whether text is NFC-normalised before encoding (Qwen-Agent). */
  readonly nfc: boolean;
  /** Loads the ordinary ranks; called once, on first use. */
  loadVocabulary(): Vocabulary;
}

// ignoreBOM: a leading U+FEFF is text like any other, not a byte-order mark to drop.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A tiktoken-compatible BPE tokenizer whose vocabulary loads on first use. */
export class BpeTokenizer implements Tokenizer {
  readonly name: TokenizerName;
  private loaded: { vocab: Vocabulary; pieces: PieceEncoder } | undefined;
  private readonly specialRe: RegExp | undefined;
  private readonly specialBytes = new Map<number, Uint8Array>();

  constructor(private readonly spec: EncodingSpec) {
    this.name = spec.name;
    if (spec.allowSpecials && spec.specials.size > 0) {
      const alternatives = [...spec.specials.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.specialRe = new RegExp(alternatives.join('|'), 'g');
    }
    for (const [text, id] of spec.specials) this.specialBytes.set(id, Buffer.from(text, 'utf8'));
  }

  private get pieces(): PieceEncoder {
    return this.load().pieces;
  }

  private load(): { vocab: Vocabulary; pieces: PieceEncoder } {
    if (!this.loaded) {
      const vocab = this.spec.loadVocabulary();
      this.loaded = { vocab, pieces: new PieceEncoder(vocab) };
    }
    return this.loaded;
  }

  /** Drops the piece cache (the vocabulary stays loaded). Benchmarks use it to measure first passes. */
  clearCache(): void {
    this.loaded?.pieces.clearCache();
  }

  count(text: string): number {
    if (this.spec.nfc) text = text.normalize('NFC');
    const specialRe = this.specialRe;
    if (!specialRe) return this.countSegment(text);
    let total = 0;
    let pos = 0;
    for (const m of text.matchAll(specialRe)) {
      total += this.countSegment(text.slice(pos, m.index)) + 1;
      pos = m.index + m[0].length;
    }
    return total + this.countSegment(pos === 0 ? text : text.slice(pos));
  }

  encode(text: string): number[] {
    const out: number[] = [];
    if (this.spec.nfc) text = text.normalize('NFC');
    const specialRe = this.specialRe;
    if (!specialRe) {
      this.encodeSegment(text, out);
      return out;
    }
    let pos = 0;
    for (const m of text.matchAll(specialRe)) {
      this.encodeSegment(text.slice(pos, m.index), out);
      out.push(this.spec.specials.get(m[0])!);
      pos = m.index + m[0].length;
    }
    this.encodeSegment(pos === 0 ? text : text.slice(pos), out);
    return out;
  }

  encodeWithOffsets(text: string): TokenOffsets {
    const tokens: number[] = [];
    const ends = new ArrayEnds([]);
    this.collectEnds(text, ends, tokens);
    return { tokens, ends: ends.values };
  }

  tokenEnds(text: string): Uint32Array {
    const ends = new GrowableEnds(Math.max(16, text.length >>> 2));
    this.collectEnds(text, ends, undefined);
    return ends.done();
  }

  /**
   * Where each token of `text` ends (UTF-16 offsets in `text`), into `ends`, with the ids into
   * `tokens` when given: the one loop behind encodeWithOffsets and tokenEnds. Specials are split
   * out first (when they encode as themselves); offsets of NFC-normalised text map back to `text`.
   */
  private collectEnds(text: string, ends: EndSink, tokens: number[] | undefined): void {
    const nfc = this.spec.nfc ? normalizeNfc(text) : undefined;
    const source = nfc ? nfc.normalized : text;
    const specialRe = this.specialRe;
    if (!specialRe) {
      this.segmentEnds(source, 0, ends, tokens);
    } else {
      let pos = 0;
      for (const m of source.matchAll(specialRe)) {
        this.segmentEnds(source.slice(pos, m.index), pos, ends, tokens);
        tokens?.push(this.spec.specials.get(m[0])!);
        pos = m.index + m[0].length;
        ends.push(pos);
      }
      this.segmentEnds(pos === 0 ? source : source.slice(pos), pos, ends, tokens);
    }
    if (nfc && nfc.normalized !== text) ends.mapFilled(nfc.toOriginal);
  }

  decode(tokens: readonly number[]): string {
    const { vocab } = this.load();
    const { start, bytes } = vocab;
    let total = 0;
    for (const id of tokens) {
      if (id >= 0 && id < vocab.size && start[id + 1]! > start[id]!) total += start[id + 1]! - start[id]!;
      else total += this.special(id).length;
    }
    const out = new Uint8Array(total);
    let o = 0;
    for (const id of tokens) {
      if (id >= 0 && id < vocab.size && start[id + 1]! > start[id]!) {
        out.set(bytes.subarray(start[id]!, start[id + 1]!), o);
        o += start[id + 1]! - start[id]!;
      } else {
        const special = this.special(id);
        out.set(special, o);
        o += special.length;
      }
    }
    return utf8Decoder.decode(out);
  }

  private special(id: number): Uint8Array {
    const bytes = this.specialBytes.get(id);
    if (!bytes) throw new GroundworkError('INVALID_OPTIONS', `token id ${id} is not in the ${this.name} vocabulary`);
    return bytes;
  }

  private countSegment(s: string): number {
    const pieceEnd = this.spec.pieceEnd;
    const pieces = this.pieces;
    const n = s.length;
    let total = 0;
    let pos = 0;
    while (pos < n) {
      const end = pieceEnd(s, pos, n);
      const t = pieces.tokensAt(s, pos, end);
      total += typeof t === 'number' ? 1 : t.length;
      pos = end;
    }
    return total;
  }

  private encodeSegment(s: string, out: number[]): void {
    const pieceEnd = this.spec.pieceEnd;
    const pieces = this.pieces;
    const n = s.length;
    let pos = 0;
    while (pos < n) {
      const end = pieceEnd(s, pos, n);
      const t = pieces.tokensAt(s, pos, end);
      if (typeof t === 'number') out.push(t);
      else for (let i = 0; i < t.length; i++) out.push(t[i]!);
      pos = end;
    }
  }

  /** Token ends (and ids, when `tokens` is given) of one segment without specials, offset by `base`. */
  private segmentEnds(s: string, base: number, ends: EndSink, tokens: number[] | undefined): void {
    const pieceEnd = this.spec.pieceEnd;
    const { vocab, pieces } = this.load();
    const n = s.length;
    let pos = 0;
    while (pos < n) {
      const end = pieceEnd(s, pos, n);
      const t = pieces.tokensAt(s, pos, end);
      if (typeof t === 'number') {
        tokens?.push(t);
        ends.push(base + end);
      } else {
        pushPieceEnds(s, pos, t, vocab, base, ends, tokens);
      }
      pos = end;
    }
  }
}

/** Where token ends go: a plain array (encodeWithOffsets) or a typed one that grows (tokenEnds). */
interface EndSink {
  push(value: number): void;
  /** Replaces every value pushed so far by `map(value)`. */
  mapFilled(map: (value: number) => number): void;
}

/** A plain array of ends. */
class ArrayEnds implements EndSink {
  constructor(readonly values: number[]) {}
  push(value: number): void {
    this.values.push(value);
  }
  mapFilled(map: (value: number) => number): void {
    const values = this.values;
    for (let i = 0; i < values.length; i++) values[i] = map(values[i]!);
  }
}

/** A Uint32Array that doubles as it fills (one copy per doubling, no boxed numbers). */
class GrowableEnds implements EndSink {
  private data: Uint32Array;
  private length = 0;

  constructor(capacity: number) {
    this.data = new Uint32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  mapFilled(map: (value: number) => number): void {
    const data = this.data;
    for (let i = 0; i < this.length; i++) data[i] = map(data[i]!);
  }

  /** The filled part (a view: no copy). */
  done(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * Walks the piece's characters by UTF-8 length and pushes where each of its tokens ends (and the
 * token, when `tokens` is given); a token ending mid-character ends after it.
 */
function pushPieceEnds(s: string, from: number, t: Int32Array, vocab: Vocabulary, base: number, ends: EndSink, tokens: number[] | undefined): void {
  const { start } = vocab;
  let ci = from;
  let bytesDone = 0;
  let target = 0;
  for (let k = 0; k < t.length; k++) {
    const id = t[k]!;
    target += start[id + 1]! - start[id]!;
    while (bytesDone < target) {
      const c = s.charCodeAt(ci);
      if (c < 0x80) {
        bytesDone += 1;
        ci += 1;
      } else if (c < 0x800) {
        bytesDone += 2;
        ci += 1;
      } else if (c >= 0xd800 && c <= 0xdbff && ci + 1 < s.length && (s.charCodeAt(ci + 1) & 0xfc00) === 0xdc00) {
        bytesDone += 4;
        ci += 2;
      } else {
        bytesDone += 3;
        ci += 1;
      }
    }
    tokens?.push(id);
    ends.push(base + ci);
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so every fuzz case is a pure function of
 * (run seed, case index): a finding is replayed from those two numbers, and the bounded run in
 * `npm test` sees the same inputs every time. Never Math.random.
 */

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Mixes any number of 32-bit values into one seed (FNV-1a over their bytes, then splitmix). */
export function mixSeed(...parts: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    for (let shift = 0; shift < 32; shift += 8) {
      h ^= (part >>> shift) & 0xff;
      h = Math.imul(h, 0x01000193);
    }
  }
  return splitmix32(h)();
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    const next = splitmix32(seed);
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** The generator of case `index` of a run seeded `seed`. */
  static forCase(seed: number, index: number): Prng {
    return new Prng(mixSeed(seed, index));
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.u32() / 0x1_0000_0000;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    if (n <= 0) return 0;
    return Math.floor(this.float() * n);
  }

  /** An integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** Small values much more often than large ones: an integer in [1, max], log-uniform. */
  logInt(max: number): number {
    return Math.max(1, Math.min(max, Math.floor(Math.exp(this.float() * Math.log(max + 1)))));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** One of `items`, each chosen with its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((sum, [, w]) => sum + w, 0);
    let at = this.float() * total;
    for (const [item, w] of items) {
      if ((at -= w) < 0) return item;
    }
    return items[items.length - 1]![0];
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.u32();
      for (let k = 0; k < 4 && i + k < n; k++) out[i + k] = (v >>> (8 * k)) & 0xff;
    }
    return out;
  }
}

/**
 * mulberry32: a tiny seeded generator of floats in [0, 1), for fixtures and benchmarks that need
 * the same sequence everywhere (their cached libraries depend on it: never change its output).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** The inspector's pure modules are plain browser ES modules without types: loaded by URL. */
const load = async <T>(name: string): Promise<T> => (await import(new URL(`../../src/inspector/static/${name}`, import.meta.url).href)) as T;

interface FenwickTree {
  add(i: number, delta: number): void;
  prefix(i: number): number;
  find(offset: number): number;
}
const { Fenwick } = await load<{ Fenwick: new (values: Float64Array) => FenwickTree }>('virtual-list.js');
interface Segment { start: number; end: number; chunk: number; starting: number[] }
const { segmentsOf } = await load<{ segmentsOf: (text: string, chunks: { start: number; end: number }[]) => Segment[] }>('segments.js');

describe('virtual list offsets (Fenwick tree)', () => {
  it('prefix sums and the row at an offset agree with a plain array through any height updates', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 200 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 500 })), { maxLength: 50 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
      (heights, updates, probes) => {
        const tree = new Fenwick(Float64Array.from(heights));
        const plain = [...heights];
        for (const [at, h] of updates) {
          const i = at % plain.length;
          tree.add(i, h - plain[i]!);
          plain[i] = h;
        }
        let sum = 0;
        for (let i = 0; i <= plain.length; i++) {
          expect(tree.prefix(i)).toBe(sum);
          sum += plain[i] ?? 0;
        }
        // every row's first pixel belongs to it; and any offset in between
        for (let i = 0; i < plain.length; i++) expect(tree.find(tree.prefix(i))).toBe(i);
        for (const p of probes) {
          const offset = p * sum;
          const i = tree.find(offset);
          // the row whose span [prefix(i), prefix(i + 1)) holds the offset (the last row for the very end)
          expect(tree.prefix(i)).toBeLessThanOrEqual(offset);
          if (i < plain.length - 1) expect(offset).toBeLessThan(tree.prefix(i + 1));
        }
      },
    ));
  });
});

describe('canonical text segments', () => {
  /** Chunks in document order, possibly overlapping, possibly with gaps (text no chunk holds). */
  const input = fc.tuple(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '中'), minLength: 1, maxLength: 300 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 30 }))
    .map(([text, pairs]) => {
      const points = pairs.map(([a, b]) => [a % (text.length + 1), b % (text.length + 1)].sort((x, y) => x - y) as [number, number]).filter(([a, b]) => b > a);
      points.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      // ends never go back (chunkers move forward; overlap only reaches back into the previous chunk)
      let end = 0;
      const chunks = points.map(([start, e]) => ({ start, end: (end = Math.max(end, e)) }));
      return { text, chunks };
    });

  it('tile the text, cut at every boundary and blank line, each with the chunk holding its start', () => {
    fc.assert(fc.property(input, ({ text, chunks }) => {
      const segments = segmentsOf(text, chunks);
      expect(segments[0]!.start).toBe(0);
      expect(segments.at(-1)!.end).toBe(text.length);
      segments.forEach((s, k) => {
        expect(s.end).toBeGreaterThan(s.start);
        if (k > 0) expect(s.start).toBe(segments[k - 1]!.end);
        const inside = (x: number) => x > s.start && x < s.end;
        for (const c of chunks) expect(inside(c.start) || inside(c.end)).toBe(false);
        expect(text.slice(s.start, s.end - 1).includes('\n\n')).toBe(false);
        const holders = chunks.map((c, i) => (c.start <= s.start && s.start < c.end ? i : -1)).filter((i) => i >= 0);
        if (s.chunk === -1) expect(holders).toEqual([]);
        else expect(holders).toContain(s.chunk);
        expect(s.starting).toEqual(chunks.map((c, i) => (c.start === s.start ? i : -1)).filter((i) => i >= 0));
      });
    }));
  });
});

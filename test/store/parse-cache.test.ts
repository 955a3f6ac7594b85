import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { decodeParse, encodeParse } from '../../src/store/parse-cache.js';

const enc = new TextEncoder();

describe('parse cache encoding (src/store/parse-cache.ts)', () => {
  test('a parsed document comes back equal, children included; an entry in the old form (one gzip JSON) decodes too', async () => {
    const md = await parse(enc.encode('# Title\n\nA paragraph with **bold** and a [link](http://x).\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n- one\n- two 😀\n'), { name: 'a.md' });
    const doc = { ...md, children: [await parse(enc.encode('plain text\n\nsecond'), { name: 'b.txt' })] };
    const plain = JSON.parse(JSON.stringify(doc));
    expect(decodeParse(encodeParse(doc))).toEqual(plain);
    expect(decodeParse(gzipSync(JSON.stringify(doc)))).toEqual(plain);
  });

  test('random texts (any code units, lone surrogates, pairs) survive, element texts that are their span included', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 8 }), (pieces) => {
        let canonical = '';
        const elements = pieces.map((text, index) => {
          const start = canonical.length;
          canonical += text + '\n';
          // Every other element's text is not its span (as a Markdown heading's is not).
          return { kind: 'paragraph' as const, index, start, end: start + text.length, text: index % 2 === 0 ? text : `x${text}` };
        });
        const doc = { id: 'd', source: { bytes: 1 }, format: 'text' as const, mime: 'text/plain', metadata: {}, warnings: [], elements, canonical };
        expect(decodeParse(encodeParse(doc))).toEqual(doc);
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  test('a text over one compressed piece, cut inside a surrogate pair, comes back whole', () => {
    const canonical = `${'a'.repeat((1 << 20) - 1)}😀${'b'.repeat(1000)}`;
    const doc = { id: 'd', source: { bytes: 1 }, format: 'text' as const, mime: 'text/plain', metadata: {}, warnings: [], elements: [{ kind: 'paragraph' as const, index: 0, start: 0, end: canonical.length, text: canonical }], canonical };
    expect(decodeParse(encodeParse(doc))).toEqual(doc);
  });

  test('the entry of one big paragraph holds its text once, not twice (element text = its span is not written)', () => {
    const canonical = 'lorem ipsum dolor sit amet '.repeat(100_000);
    const doc = { id: 'd', source: { bytes: 1 }, format: 'text' as const, mime: 'text/plain', metadata: {}, warnings: [], elements: [{ kind: 'paragraph' as const, index: 0, start: 0, end: canonical.length, text: canonical }], canonical };
    const json = gunzipSync(encodeParse(doc)).length;
    expect(json).toBeGreaterThan(canonical.length);
    expect(json).toBeLessThan(canonical.length + 1000);
  });
});

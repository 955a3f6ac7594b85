/**
 * `tokenEnds` is `encodeWithOffsets(text).ends` in 4 bytes a token, and the whole-text structures
 * the token and sentence chunkers keep for a big one-line text stay that size (sizes, never time).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../src/chunk.js';
import { getTokenizer } from '../../src/tokens/index.js';
import type { TokenizerName } from '../../src/tokens/types.js';
import { splitSentences } from '../../src/text/sentences.js';
import { generator } from '../fixtures/pathological.js';

const NAMES: TokenizerName[] = ['cl100k_base', 'o200k_base', 'qwen'];

describe('tokenEnds', () => {
  for (const name of NAMES) {
    test(`${name}: the same ends as encodeWithOffsets, on random text (fast-check)`, () => {
      const tokenizer = getTokenizer(name);
      fc.assert(
        fc.property(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '.', '\n', '中', 'é', 'e\u0301', '😀', '<|endoftext|>', '1', '\t'), maxLength: 200 }), (text) => {
          expect([...tokenizer.tokenEnds!(text)]).toEqual(tokenizer.encodeWithOffsets(text).ends);
        }),
        { numRuns: 200 },
      );
    });
  }

  test('a 1 MB one-line text: one 4-byte end per token, no more', () => {
    const text = generator('text-one-line').generate(1024 * 1024);
    const tokenizer = getTokenizer('cl100k_base');
    const ends = tokenizer.tokenEnds!(text);
    expect(ends).toBeInstanceOf(Uint32Array);
    expect(ends.length).toBe(tokenizer.count(text));
    expect(ends[ends.length - 1]).toBe(text.length);
    // The buffer starts at one end per 4 characters (4 bytes each) and doubles: at most twice what it holds, or that start.
    expect(ends.buffer.byteLength).toBeLessThanOrEqual(Math.max(2 * ends.byteLength, text.length + 64));
  });
});

describe('sentences without any terminator', () => {
  test('one sentence, however long (the segmenter is skipped, the answer is the same)', () => {
    const text = generator('text-one-clause').generate(256 * 1024);
    expect(splitSentences(text)).toEqual([{ start: 0, end: text.length }]);
    expect(splitSentences(`${text}. Next one here.`).length).toBe(2);
  });

  test('token and sentence chunks of a 1 MB one-line text cover it once plus the declared overlap', () => {
    const text = generator('text-one-line').generate(1024 * 1024);
    for (const strategy of ['token', 'sentence']) {
      const chunks = chunkText(text, { strategy, chunkSize: 256, chunkOverlap: 32 });
      let chars = 0;
      let overlap = 0;
      chunks.forEach((c, i) => {
        chars += c.text.length;
        const prev = chunks[i - 1];
        if (prev && prev.end > c.start) overlap += prev.end - c.start;
        expect(c.tokens).toBeLessThanOrEqual(256);
      });
      expect(chars, strategy).toBeLessThanOrEqual(text.length + overlap);
      expect(chars, strategy).toBeGreaterThanOrEqual(text.length * 0.99);
    }
  });
});

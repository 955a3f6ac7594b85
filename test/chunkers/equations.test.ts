import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunk, chunkText, type ChunkOptions } from '../../src/chunk.js';
import { parse } from '../../src/parse.js';
import { splitSentences } from '../../src/text/sentences.js';
import { MathIndex, mathSpans } from '../../src/text/math.js';
import { getTokenizer } from '../../src/tokens/index.js';
import { corpus, hasShared } from '../helpers.js';

/** Groundwork's own strategies keep an equation whole unless it alone exceeds the chunk size. */

const tokenizer = getTokenizer('cl100k_base');

const STRATEGIES: Record<string, { options: ChunkOptions; size: number }> = {
  structure: { options: { strategy: 'structure', chunkSize: 40 }, size: 40 },
  sentence: { options: { strategy: 'sentence', chunkSize: 40, chunkOverlap: 10 }, size: 40 },
  'sentence chars': { options: { strategy: 'sentence', chunkSize: 120, chunkOverlap: 0, lengthUnit: 'chars' }, size: 120 },
  token: { options: { strategy: 'token', chunkSize: 32, chunkOverlap: 8 }, size: 32 },
};

const FRAGMENTS = [
  'The', 'sum', 'is', 'small.', 'Then', 'it', 'grows.', 'It costs $5 and $10.', '$A=\\pi r^{2}$', '$x_{i}. Y$',
  '$\\frac{a}{b}$', '$$\\sum_{k=0}^{n} k^{2}. Next$$', '中文句子。', ' ', ' ', '\n', '\n\n', ', ', '(see $E=mc^{2}$)',
];
const mathText = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 120 }).map((parts) => parts.join(''));

/** Equations of `text` short enough to fit a chunk with room to spare: those must never be cut. */
function protectedSpans(text: string, size: number, unit: 'tokens' | 'chars'): MathIndex {
  const index = new MathIndex(text);
  index.spans.splice(0, index.spans.length, ...index.spans.filter((s) => (unit === 'tokens' ? tokenizer.count(text.slice(s.start, s.end)) : s.end - s.start) <= size / 2));
  return index;
}

describe.each(Object.entries(STRATEGIES))('%s: equations stay whole', (name, { options, size }) => {
  test('no chunk starts or ends inside an equation that fits', () => {
    fc.assert(
      fc.property(mathText, (input) => {
        const math = protectedSpans(input, size, name === 'sentence chars' ? 'chars' : 'tokens');
        for (const c of chunkText(input, options)) {
          expect(math.containing(c.start)).toBeUndefined();
          expect(math.containing(c.end)).toBeUndefined();
        }
      }),
      { seed: 2026, numRuns: 200 },
    );
  });
});

describe('equations and sentences', () => {
  test('a sentence never ends inside an equation', () => {
    const text = 'Let $x_{i}. Y$ be given. Then $$a. B$$ holds. Costs are $5. Then $6.';
    const sentences = splitSentences(text).map((s) => text.slice(s.start, s.end).trim());
    expect(sentences).toEqual(['Let $x_{i}. Y$ be given.', 'Then $$a. B$$ holds.', 'Costs are $5.', 'Then $6.']);
  });

  test('an equation longer than a chunk is still cut (sizes are a guarantee)', () => {
    const long = `$${'x+'.repeat(200)}y$`;
    const chunks = chunkText(`Intro. ${long} Outro.`, { strategy: 'token', chunkSize: 50 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(50);
  });
});

describe.skipIf(!hasShared)('structure on docx/equations.docx', () => {
  test('each display equation is a unit: whole in one chunk, never split, inline ones never cut', async () => {
    const doc = await parse(corpus('docx', 'equations.docx'));
    // 128 tokens hold the longest equation (about 90): none may be cut.
    const chunks = chunk(doc, { strategy: 'structure', chunkSize: 128 });
    const spans = mathSpans(doc.canonical);
    expect(spans.length).toBe(27);
    for (const s of spans) {
      const holders = chunks.filter((c) => c.start < s.end && s.start < c.end);
      expect(holders).toHaveLength(1);
      expect(holders[0]!.start <= s.start && s.end <= holders[0]!.end).toBe(true);
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byStart, spanText } from '../../src/mcp/documents.js';
import { blocksOf, parsedDoc } from '../retrieval/helpers.js';
import { CONTRACT } from './helpers.js';

/**
 * read_section and the document resources cut text from the blocks' canonical spans: for any span,
 * the text of the blocks that cover it is the canonical text of that span, whatever the chunking
 * (packed sections, small blocks, overlapping windows). Whitespace a chunker left between blocks
 * is not in any block: the gap is guessed (one newline for one character, a blank line otherwise),
 * so spans are compared with whitespace runs collapsed; with the default layout it is exact.
 */
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
describe('spanText', () => {
  const layouts = [
    { strategy: 'structure' },
    { strategy: 'structure', chunkSize: 40 },
    { strategy: 'sentence', chunkSize: 60, chunkOverlap: 20 },
    { strategy: 'token', chunkSize: 50, chunkOverlap: 15 },
    { strategy: 'recursive', chunkSize: 120, chunkOverlap: 20 },
  ] as const;

  for (const layout of layouts) {
    it(`is the canonical text of any span (${JSON.stringify(layout)})`, async () => {
      const doc = await parsedDoc(CONTRACT);
      const blocks = byStart(blocksOf(doc, layout as never));
      const { canonical } = doc;
      if (layout.strategy === 'structure' && !('chunkSize' in layout)) expect(spanText(blocks).trimEnd()).toBe(canonical.trimEnd());
      expect(flat(spanText(blocks))).toBe(flat(canonical));
      fc.assert(fc.property(fc.nat(canonical.length), fc.nat(canonical.length), (a, b) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        expect(flat(spanText(blocks, from, to))).toBe(flat(canonical.slice(from, to)));
      }), { numRuns: 300 });
    });
  }

  it('is empty for an empty span and for no blocks', async () => {
    const doc = await parsedDoc(CONTRACT);
    const blocks = byStart(blocksOf(doc));
    expect(spanText(blocks, 10, 10)).toBe('');
    expect(spanText([], 0, 100)).toBe('');
  });
});

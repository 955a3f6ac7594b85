import { describe, expect, test } from 'vitest';
import { chunk } from '../../src/chunk.js';
import { buildDocument } from '../../src/document/build.js';
import { chunksToBlocks } from '../../src/library/blocks.js';

describe('block boxes', () => {
  test('a chunk over an element set in two pieces (a paragraph continued on the next page) carries both boxes', () => {
    const first = { x0: 300, y0: 700, x1: 540, y1: 760 };
    const second = { x0: 72, y0: 60, x1: 290, y1: 90 };
    const doc = buildDocument(
      {
        format: 'pdf',
        mime: 'application/pdf',
        elements: [
          { kind: 'heading', level: 1, text: 'Results', page: 1, bbox: { x0: 72, y0: 60, x1: 200, y1: 80 } },
          { kind: 'paragraph', text: 'A paragraph that goes on onto the next page.', page: 1, pageEnd: 2, bbox: first, bboxes: [{ page: 1, ...first }, { page: 2, ...second }] },
        ],
      },
      { id: 'doc', bytes: 1 },
    );
    const blocks = chunksToBlocks(doc, chunk(doc), 'hash');
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.bboxes).toEqual([
      { page: 1, x0: 72, y0: 60, x1: 200, y1: 80 },
      { page: 1, ...first },
      { page: 2, ...second },
    ]);
    expect([blocks[0]!.pageStart, blocks[0]!.pageEnd]).toEqual([1, 2]);
  });
});

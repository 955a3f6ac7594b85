import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { chunk } from '../../src/chunk.js';
import type { Chunk } from '../../src/chunkers/types.js';
import { buildDocument } from '../../src/document/build.js';
import { parse } from '../../src/parse.js';
import { chunksToBlocks, storableChunks } from '../../src/library/blocks.js';
import { runTask } from '../../src/library/worker.js';

const dir = mkdtempSync(join(tmpdir(), 'groundwork-blocks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const chunkAt = (text: string, start: number, end: number): Chunk => ({ index: 0, text, start, end, chars: text.length, tokens: 1, headingPath: [], kind: 'text', strategy: 'x' });

describe('blank chunks are not stored', () => {
  test('storableChunks drops chunks whose text or source span is only whitespace', () => {
    const source = 'Alpha   \n\n   beta';
    const chunks = [chunkAt('Alpha', 0, 5), chunkAt('   \n\n   ', 5, 13), chunkAt('beta', 13, 17), chunkAt('[page: 0]\n', 0, 0), chunkAt('\u3000', 5, 6)];
    expect(storableChunks(source, chunks).map((c) => c.text)).toEqual(['Alpha', 'beta']);
  });

  test('ingest: a chisel chunk of nothing but spaces (as llmware makes it) gives no block; ordinals stay consecutive', async () => {
    const path = join(dir, 'spaced.txt');
    writeFileSync(path, `Alpha beta gamma delta.${' '.repeat(60)}Epsilon zeta.`);
    const options = { strategy: 'chisel', maxCharSize: 20, lookBackCharRange: 5 };
    const doc = await parse(path);
    const all = chunk(doc, options);
    expect(all.some((c) => c.text.trim() === '')).toBe(true);
    const result = await runTask({ id: 1, path, parseOptions: {}, chunkOptions: options });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const stored = result.chunks[0]!;
    expect(stored.map((c) => c.text)).toEqual(all.filter((c) => c.text.trim() !== '').map((c) => c.text));
    expect(result.indexTexts[0]).toHaveLength(stored.length);
    expect(chunksToBlocks(result.document, stored, 'h').map((b) => b.ordinal)).toEqual(stored.map((_, i) => i));
  });
});

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

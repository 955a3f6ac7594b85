import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { chunk } from '../../src/chunk.js';
import type { Chunk } from '../../src/chunkers/types.js';
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

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterAll, describe, expect, test } from 'vitest';
import { CHUNK_OUTPUT_FACTOR } from '../../src/chunkers/types.js';
import { decodeParse, encodeParse } from '../../src/store/parse-cache.js';
import { INDEX_TEXT_CHARS, packResult, PART_CHARS, runTask, unpackResult, type IngestResult } from '../../src/library/worker.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A worker's result as it crosses the process boundary: each piece and the message, serialized as IPC does. */
async function cross(result: IngestResult) {
  const parts: Buffer[] = [];
  const wire = await packResult(result, async (p) => void parts.push(serialize(p)), { encodeParse });
  const message = serialize(wire);
  return { message, parts, back: unpackResult(deserialize(message), parts.map((p) => deserialize(p))) };
}

function markdown(sections: number): string {
  let text = '';
  for (let i = 0; i < sections; i++) text += `# Chapter ${i}\n\n## Part ${i}\n\n${'The tide turns twice a day and the boats wait for it. '.repeat(40)}\n\n`;
  return text;
}

describe('ingest worker results cross in pieces (packResult / unpackResult)', () => {
  test('a 3 MB Markdown file: the message holds no text but the index texts, every piece is bounded, and the Library gets the same chunks and cache entry', async () => {
    const path = join(dir, 'big.md');
    writeFileSync(path, markdown(1400));
    const result = await runTask({ id: 1, path, parseOptions: {}, chunkOptions: { strategy: 'structure' } });
    if (!result.ok) throw new Error(result.reason);
    const text = result.document.canonical.length;
    expect(text).toBeGreaterThan(3_000_000);
    const { message, parts, back } = await cross(result);
    // O(text), not O(k * text): the result message without its index texts is less than one copy of
    // the text, only the chunks' fields (it carried the canonical text, every element's text, every
    // chunk's text and prefix: over four copies).
    const indexBytes = serialize(result.indexTexts).length;
    expect(message.length - indexBytes).toBeLessThan(text * 0.75);
    // The pieces carry the chunk texts once (bounded by the chunkers' output bound) and the compressed cache entry.
    const partBytes = parts.reduce((s, p) => s + p.length, 0);
    const chunkChars = result.chunks.flat().reduce((s, c) => s + c.text.length, 0);
    expect(chunkChars).toBeLessThan(text * CHUNK_OUTPUT_FACTOR);
    const blobBytes = back.ok ? (back.parseBlob?.length ?? 0) : 0;
    expect(partBytes).toBeLessThan(chunkChars + blobBytes + result.chunks.flat().length * 8 + parts.length * 64);
    for (const p of parts) expect(p.length).toBeLessThan(PART_CHARS * 2 + 200_000);
    expect(back.ok && back.chunks).toEqual(result.chunks.map((set) => set.map(({ prefix: _p, ...c }) => c)));
    expect(back.ok && back.indexTexts).toEqual(result.indexTexts);
    expect(back.ok && back.parseBlob && decodeParse(back.parseBlob)).toEqual(JSON.parse(JSON.stringify(result.document)));
    // The Library's copy of the document keeps what it reads: kinds and spans, no texts.
    expect(back.ok && back.document.canonical).toBe('');
    expect(back.ok && back.document.elements.map((e) => [e.kind, e.start, e.end])).toEqual(result.document.elements.map((e) => [e.kind, e.start, e.end]));
  });

  test('a text over INDEX_TEXT_CHARS: no index texts are made or sent (the store analyses each block as it writes it)', async () => {
    const path = join(dir, 'line.txt');
    writeFileSync(path, 'lorem ipsum dolor sit amet '.repeat(Math.ceil((INDEX_TEXT_CHARS + 100_000) / 27)));
    const result = await runTask({ id: 2, path, parseOptions: {}, chunkOptions: { strategy: 'structure' } });
    if (!result.ok) throw new Error(result.reason);
    expect(result.indexTexts.flat()).toEqual([]);
    const { message, back } = await cross(result);
    expect(message.length).toBeLessThan(result.document.canonical.length / 4);
    expect(back.ok && back.chunks.flat().map((c) => c.text).join('').length).toBe(result.chunks.flat().map((c) => c.text).join('').length);
  });
});

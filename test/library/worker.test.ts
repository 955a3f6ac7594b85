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
  return { message, parts, back: await unpackResult(deserialize(message), parts.map((p) => deserialize(p))) };
}

function markdown(sections: number): string {
  let text = '';
  for (let i = 0; i < sections; i++) text += `# Chapter ${i}\n\n## Part ${i}\n\n${'The tide turns twice a day and the boats wait for it. '.repeat(40)}\n\n`;
  return text;
}

describe('ingest worker results cross in pieces (packResult / unpackResult)', () => {
  test('a 3 MB Markdown file: the message holds no text, every piece is bounded, and the Library gets the same chunks and cache entry', async () => {
    const path = join(dir, 'big.md');
    writeFileSync(path, markdown(1400));
    const result = await runTask({ id: 1, path, parseOptions: {}, chunkOptions: { strategy: 'structure' } });
    if (!result.ok) throw new Error(result.reason);
    const text = result.document.canonical.length;
    expect(text).toBeGreaterThan(3_000_000);
    const { message, parts, back } = await cross(result);
    // The result message only counts the chunks: everything travels in the pieces (it once carried
    // the canonical text, every element's text, every chunk's text and prefix: over four copies).
    expect(message.length).toBeLessThan(200);
    // The pieces carry the chunk texts and their index texts once (bounded by the chunkers' output
    // bound), the chunks' other fields, the document's skeleton and the compressed cache entry.
    const partBytes = parts.reduce((s, p) => s + p.length, 0);
    const chunkChars = result.chunks.flat().reduce((s, c) => s + c.text.length, 0);
    const indexChars = result.indexTexts.flat().reduce((s, t) => s + t.length, 0);
    expect(chunkChars).toBeLessThan(text * CHUNK_OUTPUT_FACTOR);
    expect(indexChars).toBeGreaterThan(0);
    const blobBytes = back.ok ? (back.parseBlob?.length ?? 0) : 0;
    const fieldBytes = serialize(result.chunks.map((set) => set.map(({ prefix: _p, text: _t, ...c }) => c))).length;
    const skeletonBytes = serialize(back.ok && back.document).length;
    // Per chunk: the text's and the index text's headers (a few bytes each).
    expect(partBytes).toBeLessThan(chunkChars + indexChars + blobBytes + fieldBytes + skeletonBytes + result.chunks.flat().length * 16 + parts.length * 64);
    expect(skeletonBytes).toBeLessThan(text * 0.25);
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
    const { message, parts, back } = await cross(result);
    expect(message.length).toBeLessThan(200);
    // The pieces carry each chunk text once, and no index text.
    const partBytes = parts.reduce((s, p) => s + p.length, 0);
    const chunkChars = result.chunks.flat().reduce((s, c) => s + c.text.length, 0);
    expect(partBytes).toBeLessThan(chunkChars * 1.1 + 100_000);
    for (const p of parts) expect(p.length).toBeLessThan(PART_CHARS * 2 + 200_000);
    expect(back.ok && back.chunks.flat().map((c) => c.text).join('').length).toBe(result.chunks.flat().map((c) => c.text).join('').length);
  });
});

/**
 * Chunk output is bounded: Σ chunk.text.length <= CHUNK_OUTPUT_FACTOR × (chunked text) + declared
 * overlap + a small fixed overhead, for every strategy, on every pathological generator (parsed, and
 * as raw text) and on random documents with wide tables, long headings and tiny units (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunk, chunkText } from '../../src/chunk.js';
import { CHUNK_OUTPUT_FACTOR, type Chunk } from '../../src/chunkers/types.js';
import { buildDocument } from '../../src/document/build.js';
import type { ElementDraft } from '../../src/document/types.js';
import { parse } from '../../src/parse.js';
import { GENERATORS } from '../fixtures/pathological.js';

/** Fixed overhead allowed per document (markers and joins of a tiny text). */
const FIXED_OVERHEAD = 64;

/** Characters each chunk repeats from the one before it, as its strategy declares them. */
function declaredOverlap(chunks: readonly Chunk[], strategy: string): number {
  let overlap = 0;
  chunks.forEach((c, i) => {
    if (c.contextStart !== undefined) overlap += c.start - c.contextStart;
    const prev = chunks[i - 1];
    if (prev && prev.end > c.start && strategy !== 'qwen') overlap += prev.end - c.start;
    // Qwen's tail: up to 150 code points of the previous chunk (300 UTF-16 units at most) and its join.
    if (prev && strategy === 'qwen') overlap += Math.min(prev.text.length, 300) + 1;
  });
  return overlap;
}

/** Largest ratio seen (stored characters over the text), for the report line at the end. */
const worst = { text: 0, table: 0, what: '' };

function checkBound(base: string, chunks: readonly Chunk[], strategy: string, what: string): void {
  let stored = 0;
  let tableText = 0;
  for (const c of chunks) {
    stored += c.text.length;
    for (const row of c.table?.rows ?? []) for (const cell of row) tableText += cell.text.length;
  }
  const bound = CHUNK_OUTPUT_FACTOR * base.length + declaredOverlap(chunks, strategy) + FIXED_OVERHEAD;
  expect(stored, `${what}: ${stored} characters of chunks for ${base.length} of text (bound ${bound})`).toBeLessThanOrEqual(bound);
  // The cells a chunk's `table` data carries are stored too (as JSON): the same bound.
  expect(tableText, `${what}: ${tableText} characters of table cells in chunks for ${base.length} of text`).toBeLessThanOrEqual(CHUNK_OUTPUT_FACTOR * base.length + FIXED_OVERHEAD);
  if (base.length > 1000) {
    if (stored / base.length > worst.text) Object.assign(worst, { text: stored / base.length, what });
    worst.table = Math.max(worst.table, tableText / base.length);
  }
}

const STRATEGIES: { strategy: string; options: Record<string, unknown> }[] = [
  { strategy: 'structure', options: {} },
  { strategy: 'structure', options: { chunkSize: 48, breadcrumb: true, chunkOverlap: 12 } },
  { strategy: 'structure', options: { chunkSize: 24, tableChunkSize: 32 } },
  { strategy: 'recursive', options: {} },
  { strategy: 'recursive', options: { chunkSize: 120, chunkOverlap: 40, lengthUnit: 'tokens' } },
  { strategy: 'chisel', options: {} },
  { strategy: 'qwen', options: { parserPageSize: 120, maxRefToken: 0 } },
  { strategy: 'sentence', options: { chunkSize: 64, chunkOverlap: 16 } },
  { strategy: 'token', options: { chunkSize: 64, chunkOverlap: 16 } },
];

describe('chunk output is bounded by CHUNK_OUTPUT_FACTOR x the text plus declared overlap', () => {
  for (const g of GENERATORS) {
    test(`${g.name}: every strategy, parsed and as raw text`, async () => {
      const text = g.generate(12 * 1024);
      let doc;
      try {
        doc = await parse(Buffer.from(text), { name: g.fileName });
      } catch {
        doc = undefined; // a limit or an empty document: the raw text is still chunked below
      }
      for (const { strategy, options } of STRATEGIES) {
        if (doc) checkBound(doc.canonical, chunk(doc, { strategy, ...options }), strategy, `${g.name} parsed, ${strategy} ${JSON.stringify(options)}`);
        checkBound(text, chunkText(text, { strategy, ...options }), strategy, `${g.name} raw, ${strategy} ${JSON.stringify(options)}`);
      }
    });
  }

  test('random documents: wide tables, long header cells, tiny units, deep headings (fast-check)', () => {
    const cell = fc.constantFrom('', '1', 'x', 'yes', 'a longer cell of several words', 'temperature_sensor_reading_name', '中文单元格', '|', 'line\nbreak');
    const table = fc
      .tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 2 }), fc.array(cell, { minLength: 1, maxLength: 8 }))
      .map(([columns, rows, headerRows, pool]): ElementDraft => ({
        kind: 'table',
        text: '',
        table: { rows: Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, (_, c) => ({ text: pool[(r * 7 + c * 3) % pool.length]! }))), headerRows: Math.min(headerRows, rows) },
      }));
    const element = fc.oneof(
      table,
      fc.constantFrom<ElementDraft>(
        { kind: 'heading', level: 1, text: 'Top' },
        { kind: 'heading', level: 3, text: 'A rather long heading that a breadcrumb repeats in every chunk below it' },
        { kind: 'paragraph', text: 'x' },
        { kind: 'paragraph', text: 'A sentence. Another one follows here. And a third.' },
        { kind: 'list-item', text: 'item', depth: 0 },
        { kind: 'code', text: 'let a = 1;\nlet b = 2;' },
        { kind: 'turn', text: 'Hello there.', speaker: 'Ann' },
      ),
    );
    fc.assert(
      fc.property(fc.array(element, { minLength: 1, maxLength: 12 }), fc.constantFrom(...STRATEGIES), (elements, { strategy, options }) => {
        const doc = buildDocument({ format: 'markdown', mime: 'text/markdown', elements }, { id: 'bound', bytes: 0 });
        if (doc.elements.length === 0) return;
        checkBound(doc.canonical, chunk(doc, { strategy, ...options }), strategy, `${strategy} ${JSON.stringify(options)}`);
      }),
      { seed: 20261201, numRuns: 300 },
    );
  });

  test('the largest ratios seen stay under the factor', () => {
    console.log(`chunk output: at most ${worst.text.toFixed(2)}x the text (${worst.what}), table cells ${worst.table.toFixed(2)}x; factor ${CHUNK_OUTPUT_FACTOR}`);
    expect(worst.text).toBeGreaterThan(1);
    expect(worst.text).toBeLessThanOrEqual(CHUNK_OUTPUT_FACTOR);
  });
});

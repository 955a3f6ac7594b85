import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chunk,
  combineVectors,
  contextualize,
  contextualText,
  embedDocuments,
  embeddingWindows,
  embedQuery,
  ensureDimensions,
  OpenAiEmbedder,
  parse,
  textHash,
  type EmbedProgress,
} from '../../src/index.js';
import { countTokens } from '../../src/tokens/index.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { fixtureVector, startEmbeddingServer, type FixtureServer } from './fixtures.js';

describe('contextualize: what is embedded', () => {
  it('puts the heading path, one heading per line, and the caption before the text (Docling’s contextualize)', () => {
    const item = contextualize({ text: '履约须满足三个前提条件。', headingPath: ['第三章 履约', '3.2 前提条件'] });
    expect(item.text).toBe('第三章 履约\n3.2 前提条件\n履约须满足三个前提条件。');
    expect(item.context).toBe('第三章 履约\n3.2 前提条件\n');
    expect(item.body).toBe('履约须满足三个前提条件。');
    expect(item.hash).toBe(createHash('sha256').update(item.text).digest('hex'));
    expect(item.hash).toBe(textHash(item.text));
    const table = contextualText({ text: '| city | population |\n| --- | --- |\n| Shanghai | 24870895 |', headingPath: ['Data'], table: { caption: 'Table 1: cities' } });
    expect(table).toBe('Data\nTable 1: cities\n| city | population |\n| --- | --- |\n| Shanghai | 24870895 |');
  });

  it('does not repeat what the text already shows: a breadcrumb, its own heading, its caption', () => {
    const path = ['Guide', 'Install', 'Steps'];
    expect(contextualText({ text: 'Guide > Install > Steps\n\nRun npm ci.', headingPath: path })).toBe('Guide > Install > Steps\n\nRun npm ci.');
    expect(contextualText({ text: 'Install > Steps\n\nRun npm ci.', headingPath: path })).toBe('Install > Steps\n\nRun npm ci.');
    expect(contextualText({ text: '### Steps\n\nRun npm ci.', headingPath: path })).toBe('Guide\nInstall\n### Steps\n\nRun npm ci.');
    expect(contextualText({ text: 'Figure 2: the dock\nA photo of the dock.', caption: 'Figure 2: the dock' })).toBe('Figure 2: the dock\nA photo of the dock.');
  });

  it('is configurable: no headings, the innermost N, no caption, another separator, a prefix', () => {
    const block = { text: 'Body.', headingPath: ['A', 'B', 'C'], caption: 'Cap' };
    expect(contextualText(block, { headings: false })).toBe('Cap\nBody.');
    expect(contextualText(block, { maxHeadings: 1, caption: false })).toBe('C\nBody.');
    expect(contextualText(block, { separator: ' | ' })).toBe('A | B | C | Cap | Body.');
    const item = contextualize(block, { prefix: 'search_document: ' });
    expect(item.text).toBe('search_document: A\nB\nC\nCap\nBody.');
    expect(item.prefix).toBe('search_document: ');
    expect(() => contextualize(block, { maxHeadings: 0 })).toThrow(/maxHeadings/);
    expect(() => contextualize(block, { headers: true } as never)).toThrow('context options: unknown setting(s) headers');
  });

  it.skipIf(!hasShared)('gives every chunk of a real Chinese manual its section context', async () => {
    const doc = await parse(corpus('zh-generated', 'warehouse-manual-zh.docx'));
    const chunks = chunk(doc, { chunkSize: 128 });
    const items = chunks.map((c) => contextualize(c));
    const under = items.filter((_, i) => chunks[i]!.headingPath.length >= 2);
    expect(under.length).toBeGreaterThan(5);
    for (const [i, item] of items.entries()) {
      expect(item.text.endsWith(chunks[i]!.text)).toBe(true);
      // Every heading of the path is in the embedded text, before or in the body.
      for (const heading of chunks[i]!.headingPath) expect(item.text).toContain(heading);
    }
    if (!hasShared) console.warn(sharedSkipReason);
  });
});

describe('embeddingWindows: long texts are split, never cut off', () => {
  const count = (t: string) => countTokens(t);

  it('answers the text itself when it fits', () => {
    expect(embeddingWindows('short text', 512, count)).toEqual({ texts: ['short text'], tokens: [count('short text')], contextDropped: false });
  });

  it('splits at sentence ends, repeating the context in every window', () => {
    const body = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is about the budget.`).join(' ');
    const item = contextualize({ text: body, headingPath: ['Finance', 'Budget'] });
    const w = embeddingWindows(item, 64, count);
    expect(w.texts.length).toBeGreaterThan(1);
    expect(w.contextDropped).toBe(false);
    for (const [k, text] of w.texts.entries()) {
      expect(text.startsWith('Finance\nBudget\n')).toBe(true);
      expect(count(text)).toBe(w.tokens[k]);
      expect(w.tokens[k]).toBeLessThanOrEqual(64);
      expect(text.trimEnd().endsWith('.')).toBe(true);
    }
    expect(w.texts.map((t) => t.slice(item.context.length)).join('')).toBe(body);
  });

  it('leaves the context out when it alone takes half the limit, and says so', () => {
    const item = contextualize({ text: 'word '.repeat(200), headingPath: ['A very long heading that goes on and on about many things indeed'] }, { prefix: 'passage: ' });
    const w = embeddingWindows(item, 24, count);
    expect(w.contextDropped).toBe(true);
    for (const text of w.texts) expect(text.startsWith('passage: word')).toBe(true);
  });

  it('property: windows cover the body in order, each within the limit, never inside a character', () => {
    const piece = fc.oneof(
      fc.constantFrom('budget ', 'review. ', '合同', '前提条件。', '😀', '👩‍👩‍👧', 'e\u0301', '\n\n', '   ', 'x'.repeat(300), 'Ω'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 60 }), fc.integer({ min: 12, max: 80 }), fc.boolean(), (pieces, max, withContext) => {
        const body = pieces.join('');
        if (body === '') return;
        const item = contextualize({ text: body, headingPath: withContext ? ['第二章 安装', '2.1 准备'] : [] });
        const w = embeddingWindows(item, max, count);
        const fits = count(item.text) <= max;
        if (fits) expect(w.texts).toEqual([item.text]);
        const header = w.contextDropped ? item.prefix : item.context;
        let rebuilt = '';
        for (const [k, text] of w.texts.entries()) {
          expect(text.startsWith(header)).toBe(true);
          expect(count(text)).toBe(w.tokens[k]);
          if (!fits) expect(w.tokens[k]).toBeLessThanOrEqual(max);
          const part = text.slice(header.length);
          expect(part.length).toBeGreaterThan(0);
          rebuilt += part;
          // Never between the halves of a surrogate pair.
          const cut = rebuilt.length;
          if (cut < body.length) expect(/[\ud800-\udbff]/.test(body[cut - 1]!) && /[\udc00-\udfff]/.test(body[cut]!)).toBe(false);
        }
        expect(rebuilt).toBe(body);
      }),
      { numRuns: 150 },
    );
  });
});

describe('embedDocuments and embedQuery (loopback endpoint)', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startEmbeddingServer({ dimensions: 6 });
  });
  afterAll(() => server.close());
  afterEach(() => server.reset());
  const embedder = (settings: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) => new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'fixture', retryBaseMs: 1, ...settings });

  it('one vector per item; identical texts embedded once; long ones windowed and averaged; all counted', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `The quarterly budget line ${i} was approved by the board.`).join(' ');
    const items = ['alpha', 'beta', 'alpha', long, 'gamma'];
    const progress: EmbedProgress[] = [];
    const { vectors, report } = await embedDocuments(embedder({ maxInputTokens: 64, batchSize: 100 }), items, { onProgress: (p) => progress.push(p), sliceSize: 4 });
    const windows = embeddingWindows(long, 64, (t) => countTokens(t));
    expect(vectors).toHaveLength(5);
    expect(Array.from(vectors[0]!)).toEqual(Array.from(fixtureVector('alpha', 6)));
    expect(vectors[2]).toBe(vectors[0]);
    const want = combineVectors(windows.texts.map((t) => fixtureVector(t, 6)), windows.tokens);
    Array.from(want).forEach((x, d) => expect(vectors[3]![d]).toBeCloseTo(x, 6));
    expect(Math.hypot(...vectors[3]!)).toBeCloseTo(1, 5);
    expect(report).toEqual({
      items: 5,
      duplicates: 1,
      inputs: 3 + windows.texts.length,
      split: 1,
      windows: windows.texts.length,
      contextDropped: 0,
      tokens: ['alpha', 'beta', 'gamma'].reduce((n, t) => n + countTokens(t), 0) + windows.tokens.reduce((a, b) => a + b, 0),
      splitItems: [{ index: 3, tokens: countTokens(long), windows: windows.texts.length }],
    });
    const sent = server.requests.flatMap((r) => r.body.input as string[]);
    expect(sent).toHaveLength(report.inputs);
    expect(new Set(sent).size).toBe(sent.length);
    for (const t of sent) expect(countTokens(t)).toBeLessThanOrEqual(64);
    expect(progress.at(-1)).toEqual({ done: report.inputs, total: report.inputs });
    expect(progress.length).toBe(Math.ceil(report.inputs / 4));
  });

  it.skipIf(!hasShared)('embeds a real manual’s chunks with their context, every request within the limits', async () => {
    const doc = await parse(corpus('zh-generated', 'warehouse-manual-zh.docx'));
    const items = chunk(doc, { chunkSize: 200 }).map((c) => contextualize(c));
    const { vectors, report } = await embedDocuments(embedder({ maxInputTokens: 96, batchSize: 8, maxBatchTokens: 400 }), items);
    expect(vectors).toHaveLength(items.length);
    expect(report.split).toBeGreaterThan(0);
    for (const r of server.requests) {
      expect(r.body.input.length).toBeLessThanOrEqual(8);
      for (const t of r.body.input) expect(countTokens(t)).toBeLessThanOrEqual(96);
    }
    // An item that fit went as its whole contextual text.
    const fitting = items.findIndex((it) => countTokens(it.text) <= 96);
    expect(Array.from(vectors[fitting]!)).toEqual(Array.from(fixtureVector(items[fitting]!.text, 6)));
  });

  it('embedQuery puts the query prefix first', async () => {
    const vector = await embedQuery(embedder({ queryPrefix: 'search_query: ' }), 'budget review');
    expect(server.requests[0]!.body.input).toEqual(['search_query: budget review']);
    expect(Array.from(vector)).toEqual(Array.from(fixtureVector('search_query: budget review', 6)));
  });

  it('ensureDimensions asks once when the dimensions are unknown, never when they are configured', async () => {
    expect(await ensureDimensions(embedder())).toBe(6);
    expect(server.requests).toHaveLength(1);
    expect(await ensureDimensions(embedder({ dimensions: 6 }))).toBe(6);
    expect(server.requests).toHaveLength(1);
  });
});

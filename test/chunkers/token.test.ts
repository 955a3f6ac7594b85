import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunk, chunkText } from '../../src/chunk.js';
import { sliceCounter, tokenChunker, tokenWindows } from '../../src/chunkers/token.js';
import type { Chunk } from '../../src/chunkers/types.js';
import { buildDocument } from '../../src/document/build.js';
import type { Document, ElementDraft } from '../../src/document/types.js';
import { isGroundworkError } from '../../src/errors.js';
import { isGraphemeBoundary } from '../../src/text/graphemes.js';
import { getTokenizer } from '../../src/tokens/index.js';
import type { TokenizerName } from '../../src/tokens/types.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

const cl100k = getTokenizer('cl100k_base');

function tokenChunks(text: string, chunkSize: number, chunkOverlap = 0, tokenizer: TokenizerName = 'cl100k_base'): Chunk[] {
  return chunkText(text, { strategy: 'token', chunkSize, chunkOverlap, tokenizer });
}

/**
 * The guarantees: text is the slice, tokens exact and within the limit (unless the chunk is one
 * grapheme cluster), cuts on grapheme boundaries, chunks in order, overlapping only when asked,
 * and every non-whitespace character inside some chunk.
 */
function expectTokenInvariants(text: string, chunks: Chunk[], chunkSize: number, chunkOverlap: number, tokenizer = cl100k): void {
  let covered = 0;
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.strategy).toBe('token');
    expect(c.text).toBe(text.slice(c.start, c.end));
    expect(c.chars).toBe(c.text.length);
    expect(c.tokens).toBe(tokenizer.count(c.text));
    const oneCluster = [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(c.text.trim())].length === 1;
    if (!oneCluster) expect(c.tokens).toBeLessThanOrEqual(chunkSize);
    expect(isGraphemeBoundary(text, c.start) && isGraphemeBoundary(text, c.end)).toBe(true);
    expect(c.end).toBeGreaterThan(c.start);
    if (i > 0) {
      const prev = chunks[i - 1]!;
      expect(c.start).toBeGreaterThan(prev.start);
      expect(c.end).toBeGreaterThan(prev.end);
      if (chunkOverlap === 0) expect(c.start).toBe(prev.end);
      else expect(c.start).toBeLessThanOrEqual(prev.end);
    }
    expect(text.slice(covered, c.start).trim()).toBe('');
    covered = Math.max(covered, c.end);
  });
  expect(text.slice(covered).trim()).toBe('');
}

describe('token chunker options', () => {
  const invalid: Record<string, unknown>[] = [
    { chunkSize: 0 },
    { chunkSize: -5 },
    { chunkSize: 10.5 },
    { chunkSize: '100' },
    { chunkSize: 10, chunkOverlap: 10 },
    { chunkSize: 10, chunkOverlap: 11 },
    { chunkOverlap: -1 },
    { chunkOverlap: 1.5 },
    { lengthUnit: 'chars' },
    { chunkSzie: 100 },
  ];
  test.each(invalid)('%j is INVALID_OPTIONS', (options) => {
    let error: unknown;
    try {
      tokenChunker.resolveOptions(options);
    } catch (e) {
      error = e;
    }
    expect(isGroundworkError(error) && error.code === 'INVALID_OPTIONS').toBe(true);
  });

  test('defaults: 512 tokens, no overlap', () => {
    expect(tokenChunker.resolveOptions({})).toEqual({ chunkSize: 512, chunkOverlap: 0 });
    expect(tokenChunker.resolveOptions({ chunkSize: 100, chunkOverlap: 10, lengthUnit: 'tokens' })).toEqual({ chunkSize: 100, chunkOverlap: 10 });
  });

  test('empty and whitespace-only input give no chunks', () => {
    expect(tokenChunks('', 10)).toEqual([]);
    expect(tokenChunks(' \n\t\u3000 ', 10)).toEqual([]);
  });
});

describe('token windows', () => {
  const english = 'Groundwork turns real documents into clean, structure-aware chunks. '.repeat(40);
  const chinese = '孙子曰：兵者，国之大事，死生之地，存亡之道，不可不察也。'.repeat(40);

  test.each([
    [english, 50, 0],
    [english, 50, 10],
    [chinese, 37, 0],
    [chinese, 37, 12],
    [`${english}\n\n${chinese}`, 64, 16],
  ])('windows of %#: exact, within the limit, covering', (text, size, overlap) => {
    const chunks = tokenChunks(text, size, overlap);
    expect(chunks.length).toBeGreaterThan(3);
    expectTokenInvariants(text, chunks, size, overlap);
    // Windows are full: every chunk but the last is close to the limit (BPE edges cost a few tokens).
    for (const c of chunks.slice(0, -1)) expect(c.tokens).toBeGreaterThanOrEqual(size - 4);
  });

  test('a window of the whole encoding is one chunk when it fits', () => {
    const text = '  Hello there, world.  ';
    const chunks = tokenChunks(text, 100);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ start: 2, end: 21, text: 'Hello there, world.', tokens: cl100k.count('Hello there, world.'), kind: 'text', headingPath: [] });
  });

  test('overlap repeats about chunkOverlap tokens', () => {
    const chunks = tokenChunks(english, 60, 20);
    for (let i = 1; i < chunks.length; i++) {
      const shared = english.slice(chunks[i]!.start, chunks[i - 1]!.end);
      // The shared text is the previous window's last 20 tokens, give or take BPE re-merging at its edges.
      expect(Math.abs(cl100k.count(shared) - 20)).toBeLessThanOrEqual(2);
    }
  });

  test('cuts never split a surrogate pair or a grapheme; a cluster wider than the window stays whole', () => {
    const text = `ok 👨‍👩‍👧‍👦 家族 🇫🇷🇩🇪 e\u0301e\u0301 😀😀😀 done`;
    for (const size of [1, 2, 3, 5, 8]) {
      const chunks = tokenChunks(text, size);
      expectTokenInvariants(text, chunks, size, 0);
      expect(chunks.some((c) => c.text.includes('\ud83d') && c.text.length === 1)).toBe(false);
    }
    const family = tokenChunks(text, 4).find((c) => c.text.includes('👨'))!;
    expect(family.text).toBe('👨‍👩‍👧‍👦');
    expect(family.tokens).toBeGreaterThan(4);
  });

  const pieces = [
    'The', ' cat', ' sat', '.', ' ', '  ', '\n', '\n\n', '中文', '，', '。', '😀', '👍🏽', 'e\u0301', "'s", "'", '1234', '\t',
    'https://a.b/c?d=e', '<|endoftext|>', '<|im_start|>', 'Ünïcödé', '（', '）', '“', '”', '—', '…', 'カタカナー', 'ひらがな', '_', '$5', '.\n', '!!', 'DON\'T', 'x\u0301.',
  ];
  const textArb = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((p) => p.join(''));

  test('property: every invariant holds on random text, sizes and overlaps', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 1, max: 40 }), fc.nat(), (text, size, o) => {
        const overlap = o % size;
        expectTokenInvariants(text, tokenChunks(text, size, overlap), size, overlap);
      }),
      { numRuns: 300, seed: 3 },
    );
  });

  test.each(['cl100k_base', 'o200k_base', 'qwen'] as const)('property (%s): counting a slice by sync points equals counting it', (name) => {
    const tokenizer = getTokenizer(name);
    fc.assert(
      fc.property(textArb, fc.nat(), fc.nat(), (text, x, y) => {
        const { ends } = tokenizer.encodeWithOffsets(text);
        const count = sliceCounter(text, tokenizer, 0, ends);
        // Slices cut at character boundaries (as the chunkers cut them).
        const cuts = [0, ...ends];
        const a = cuts[x % cuts.length]!;
        const b = cuts[y % cuts.length]!;
        const [s, e] = a <= b ? [a, b] : [b, a];
        expect(count(s, e)).toBe(tokenizer.count(text.slice(s, e)));
      }),
      { numRuns: 400, seed: 5 },
    );
  });

  test('o200k and qwen windows are exact in their own vocabularies', () => {
    const text = `${'Tokens are counted exactly, never estimated. '.repeat(20)}${'精确计数，绝不估算。'.repeat(20)}`;
    for (const name of ['o200k_base', 'qwen'] as const) {
      expectTokenInvariants(text, tokenChunks(text, 30, 5, name), 30, 5, getTokenizer(name));
    }
  });

  test('tokenWindows over a sub-range keeps absolute offsets', () => {
    const text = 'prefix that is skipped. The middle part is chunked here. suffix';
    const from = text.indexOf('The');
    const to = text.indexOf(' suffix');
    const windows = tokenWindows(text, from, to, 4, 0, cl100k);
    expect(windows[0]!.start).toBe(from);
    expect(windows[windows.length - 1]!.end).toBe(to);
    expect(windows.map((w) => text.slice(w.start, w.end)).join('')).toBe(text.slice(from, to));
  });
});

describe('token chunks of a document', () => {
  function doc(elements: ElementDraft[]): Document {
    return buildDocument({ format: 'markdown', mime: 'text/markdown', elements }, { id: 'doc', bytes: 0 });
  }

  test('heading path of the first element overlapped, page span, table and code kinds', () => {
    const long = 'This paragraph is long enough to need more than one chunk of twenty tokens, so it will be split. '.repeat(3);
    const d = doc([
      { kind: 'heading', level: 1, text: 'Guide', page: 1 },
      { kind: 'paragraph', text: long, page: 1, pageEnd: 2 },
      { kind: 'heading', level: 2, text: 'Tables', page: 3 },
      { kind: 'table', text: '', table: { headerRows: 1, rows: [[{ text: 'a' }, { text: 'b' }], [{ text: '1' }, { text: '2' }]] }, page: 3 },
      { kind: 'page-furniture', text: 'Page 3 of 3', page: 3 },
      { kind: 'code', language: 'js', text: 'const x = 1;', page: 4 },
    ]);
    const chunks = chunk(d, { strategy: 'token', chunkSize: 20 });
    expectTokenInvariants(d.canonical, chunks, 20, 0);
    expect(chunks[0]!.headingPath).toEqual(['Guide']);
    expect(chunks[0]!.pageStart).toBe(1);
    expect(chunks.some((c) => c.pageEnd === 2)).toBe(true);
    const table = chunks.find((c) => c.text.startsWith('| a'));
    const code = chunks.find((c) => c.text.startsWith('```js'));
    if (table && table.end <= d.elements[3]!.end) expect(table.kind).toBe('table');
    if (code) {
      expect(code.kind).toBe('code');
      expect(code.headingPath).toEqual(['Guide', 'Tables']);
      expect(code).toMatchObject({ pageStart: 4, pageEnd: 4 });
    }
    expect(chunks.every((c) => !c.text.includes('Page 3 of 3'))).toBe(true);
    // A chunk spanning a paragraph and a heading is text, with the first element's path.
    const mixed = chunks.find((c) => c.text.includes('## Tables'));
    expect(mixed?.kind).toBe('text');
  });
});

describe.skipIf(!hasShared)('corpus', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  test.each([
    ['md/wiki.md', 128, 32],
    ['txt/chatgpt-prompt-guide_zh.txt', 256, 0],
    ['txt/rashomon-shift-jis.txt.expected.txt', 100, 25],
    ['txt/UDHR_first_article_all.txt', 200, 50],
  ])('%s in windows of %i/%i', (path, size, overlap) => {
    const text = readFileSync(corpus(path), 'utf8');
    const chunks = tokenChunks(text, size, overlap);
    expect(chunks.length).toBeGreaterThan(1);
    expectTokenInvariants(text, chunks, size, overlap);
  });
});

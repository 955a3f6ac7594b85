import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunk, chunkText } from '../../src/chunk.js';
import { sentenceChunker, type LengthUnit } from '../../src/chunkers/sentence.js';
import type { Chunk } from '../../src/chunkers/types.js';
import { buildDocument } from '../../src/document/build.js';
import { isGroundworkError } from '../../src/errors.js';
import { isGraphemeBoundary } from '../../src/text/graphemes.js';
import { splitSentences } from '../../src/text/sentences.js';
import { getTokenizer } from '../../src/tokens/index.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

const tokenizer = getTokenizer('cl100k_base');

function sentenceChunks(text: string, chunkSize: number, chunkOverlap = 0, lengthUnit: LengthUnit = 'tokens'): Chunk[] {
  return chunkText(text, { strategy: 'sentence', chunkSize, chunkOverlap, lengthUnit });
}

function sizeOf(text: string, unit: LengthUnit): number {
  return unit === 'tokens' ? tokenizer.count(text) : text.length;
}

/** Where sentences start and end (without their whitespace) in `text`. */
function sentenceEdges(text: string): { starts: Set<number>; ends: Set<number> } {
  const starts = new Set<number>();
  const ends = new Set<number>();
  for (const s of splitSentences(text)) {
    const body = text.slice(s.start, s.end);
    const lead = body.length - body.trimStart().length;
    if (body.trim() === '') continue;
    starts.add(s.start + lead);
    ends.add(s.start + body.trimEnd().length);
  }
  return { starts, ends };
}

/**
 * The guarantees: text is the slice and starts/ends at non-whitespace; exact tokens; size within
 * the limit (unless one grapheme cluster); grapheme-safe cuts; in order; the only text outside
 * every chunk is whitespace; consecutive chunks share at most `chunkOverlap` (measured exactly).
 */
function expectSentenceInvariants(text: string, chunks: Chunk[], chunkSize: number, chunkOverlap: number, unit: LengthUnit): void {
  let covered = 0;
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.strategy).toBe('sentence');
    expect(c.text).toBe(text.slice(c.start, c.end));
    expect(c.text.trim()).toBe(c.text.length ? c.text.trim() : '');
    expect(c.chars).toBe(c.text.length);
    expect(c.tokens).toBe(tokenizer.count(c.text));
    const clusters = [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(c.text.trim())].length;
    if (clusters > 1) expect(sizeOf(c.text, unit)).toBeLessThanOrEqual(chunkSize);
    expect(isGraphemeBoundary(text, c.start) && isGraphemeBoundary(text, c.end)).toBe(true);
    if (i > 0) {
      const prev = chunks[i - 1]!;
      expect(c.start).toBeGreaterThan(prev.start);
      expect(c.end).toBeGreaterThan(prev.end);
      if (c.start < prev.end) expect(sizeOf(text.slice(c.start, prev.end), unit)).toBeLessThanOrEqual(chunkOverlap);
      if (chunkOverlap === 0) expect(c.start).toBeGreaterThanOrEqual(prev.end);
    }
    expect(text.slice(covered, c.start).trim()).toBe('');
    covered = Math.max(covered, c.end);
  });
  expect(text.slice(covered).trim()).toBe('');
}

const story = [
  'Mr. Smith went to Washington on Monday.',
  'He arrived at 5 p.m. and checked in at the hotel on St. James street.',
  'The U.S. Senate was in session, e.g. the budget debate was running late.',
  'Dr. Brown met him for dinner; they talked about version 2.4.1 of the plan.',
  'Nothing was decided.',
  '他们讨论了很久。',
  '结论是什么？',
  '没有人知道！',
].join(' ');
const storyText = `${story}\n\n${story}\n\n${story}`;

describe('sentence chunker options', () => {
  test.each([
    { chunkSize: 0 },
    { chunkSize: 8.5 },
    { chunkSize: 10, chunkOverlap: 10 },
    { chunkOverlap: -1 },
    { lengthUnit: 'words' },
    { chunkSize: 10, unknownOption: true },
  ])('%j is INVALID_OPTIONS', (options) => {
    let error: unknown;
    try {
      sentenceChunker.resolveOptions(options);
    } catch (e) {
      error = e;
    }
    expect(isGroundworkError(error) && error.code === 'INVALID_OPTIONS').toBe(true);
  });

  test('defaults: 512 tokens, no overlap', () => {
    expect(sentenceChunker.resolveOptions({})).toEqual({ chunkSize: 512, chunkOverlap: 0, lengthUnit: 'tokens' });
  });

  test('empty and whitespace-only input give no chunks', () => {
    expect(sentenceChunks('', 10)).toEqual([]);
    expect(sentenceChunks('\n \t\n', 10, 0, 'chars')).toEqual([]);
  });
});

describe('packing whole sentences', () => {
  test.each([
    [40, 0, 'tokens'],
    [40, 15, 'tokens'],
    [160, 0, 'chars'],
    [160, 60, 'chars'],
  ] as const)('chunkSize %i, overlap %i %s: chunks are runs of whole sentences', (size, overlap, unit) => {
    const chunks = sentenceChunks(storyText, size, overlap, unit);
    expect(chunks.length).toBeGreaterThan(3);
    expectSentenceInvariants(storyText, chunks, size, overlap, unit);
    const { starts, ends } = sentenceEdges(storyText);
    for (const c of chunks) {
      expect(starts.has(c.start)).toBe(true);
      expect(ends.has(c.end)).toBe(true);
    }
  });

  test('the overlap is the longest run of whole trailing sentences that fits', () => {
    const chunks = sentenceChunks(storyText, 60, 25);
    const { starts } = sentenceEdges(storyText);
    let overlapped = 0;
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]!;
      const c = chunks[i]!;
      if (c.start >= prev.end) continue;
      overlapped++;
      expect(starts.has(c.start)).toBe(true);
      // One more sentence from the previous chunk would not have fit (or the overlap would be the whole chunk).
      const earlier = [...starts].filter((s) => s > prev.start && s < c.start).sort((a, b) => a - b).pop();
      if (earlier !== undefined) expect(tokenizer.count(storyText.slice(earlier, prev.end))).toBeGreaterThan(25);
    }
    expect(overlapped).toBeGreaterThan(0);
  });

  test('paragraph breaks are sentence boundaries', () => {
    const text = 'A heading without a period\n\nThe paragraph below it.\n\nAnother paragraph';
    const chunks = sentenceChunks(text, 26, 0, 'chars');
    expect(chunks.map((c) => c.text)).toEqual(['A heading without a period', 'The paragraph below it.', 'Another paragraph']);
  });

  test('packs as many sentences as fit', () => {
    const text = 'One. Two. Three. Four. Five. Six.';
    expect(sentenceChunks(text, 20, 0, 'chars').map((c) => c.text)).toEqual(['One. Two. Three.', 'Four. Five. Six.']);
    expect(sentenceChunks(text, 100).map((c) => c.text)).toEqual([text]);
  });
});

describe('oversize sentences', () => {
  const long = `${'This single sentence keeps going and going without any end in sight, '.repeat(12)}finally.`;
  test('tokens: split at token boundaries, every piece within the limit', () => {
    const chunks = sentenceChunks(`Short one. ${long} Short two.`, 30);
    expectSentenceInvariants(`Short one. ${long} Short two.`, chunks, 30, 0, 'tokens');
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks[0]!.text.startsWith('Short one.')).toBe(true);
  });

  test('chars: split after whitespace, else at grapheme boundaries', () => {
    const text = `Short one. ${long}`;
    const chunks = sentenceChunks(text, 50, 0, 'chars');
    expectSentenceInvariants(text, chunks, 50, 0, 'chars');
    for (const c of chunks.slice(1, -1)) expect(c.text).toMatch(/^\S.*\S$/s);
    const chinese = '汉字😀'.repeat(50);
    const cut = sentenceChunks(chinese, 7, 0, 'chars');
    expectSentenceInvariants(chinese, cut, 7, 0, 'chars');
    expect(cut.map((c) => c.text).join('')).toBe(chinese);
  });

  test('a grapheme cluster wider than the limit is kept whole', () => {
    const text = 'ok 👨‍👩‍👧‍👦 ok';
    const chunks = sentenceChunks(text, 3, 0, 'chars');
    expect(chunks.map((c) => c.text)).toContain('👨‍👩‍👧‍👦');
  });
});

describe('property', () => {
  const pieces = ['Mr. ', 'Smith', ' went', ' home', '. ', '! ', '? ', '\n', '\n\n', ' ', '中文', '。', '；', '！', '“', '”', '😀', 'e\u0301', '1. ', '3.14', 'etc. ', 'The', ' end'];
  test('every invariant holds on random text, sizes, overlaps and units', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 150 }).map((p) => p.join('')),
        fc.integer({ min: 1, max: 60 }),
        fc.nat(),
        fc.constantFrom<LengthUnit>('tokens', 'chars'),
        (text, size, o, unit) => {
          const overlap = o % size;
          expectSentenceInvariants(text, sentenceChunks(text, size, overlap, unit), size, overlap, unit);
        },
      ),
      { numRuns: 300, seed: 17 },
    );
  });
});

describe('sentence chunks of a document', () => {
  test('heading path, pages and kinds come from the elements overlapped', () => {
    const d = buildDocument(
      {
        format: 'markdown',
        mime: 'text/markdown',
        elements: [
          { kind: 'heading', level: 1, text: '第三章 安装', page: 5 },
          { kind: 'paragraph', text: '安装前请检查系统。需要管理员权限。然后运行安装程序。', page: 5 },
          { kind: 'heading', level: 2, text: '3.2 前提条件', page: 6 },
          { kind: 'paragraph', text: 'Node 20 is required. Check it with node --version. Then continue.', page: 6, pageEnd: 7 },
          { kind: 'code', language: 'sh', text: 'npm install groundwork', page: 7 },
        ],
      },
      { id: 'doc', bytes: 0 },
    );
    const chunks = chunk(d, { strategy: 'sentence', chunkSize: 12 });
    expectSentenceInvariants(d.canonical, chunks, 12, 0, 'tokens');
    expect(chunks[0]!.headingPath).toEqual(['第三章 安装']);
    const node = chunks.find((c) => c.text.startsWith('Node 20'))!;
    expect(node.headingPath).toEqual(['第三章 安装', '3.2 前提条件']);
    expect(node.pageStart).toBe(6);
    const code = chunks.find((c) => c.text.includes('npm install'))!;
    expect(code.kind).toBe('code');
    expect(code.pageEnd).toBe(7);
  });
});

describe.skipIf(!hasShared)('corpus', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  test.each([
    ['md/wiki.md', 100, 30, 'tokens'],
    ['txt/sunzi-bingfa-simplified-gbk.txt.expected.txt', 200, 50, 'tokens'],
    ['txt/rashomon-shift-jis.txt.expected.txt', 300, 100, 'chars'],
    ['txt/candide-windows-1252.txt.expected.txt', 256, 0, 'tokens'],
  ] as const)('%s (%i/%i %s)', (path, size, overlap, unit) => {
    const text = readFileSync(corpus(path), 'utf8');
    const chunks = sentenceChunks(text, size, overlap, unit);
    expect(chunks.length).toBeGreaterThan(3);
    expectSentenceInvariants(text, chunks, size, overlap, unit);
  });
});

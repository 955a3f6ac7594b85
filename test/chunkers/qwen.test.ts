import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { qwenChunker, splitDocToChunks, type QwenChunk, type QwenPage, type QwenParagraph } from '../../src/chunkers/qwen.js';
import { cleanQwenParagraph, pythonLength, pythonStrip, splitQwenSentences } from '../../src/chunkers/qwen-sentences.js';
import { buildDocument } from '../../src/document/build.js';
import { getTokenizer } from '../../src/tokens/index.js';
import type { Tokenizer } from '../../src/tokens/types.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

/**
 * One token per UTF-8 byte: counts are byte lengths, so every expected value below can be worked
 * out by hand, and token windows cut characters (showing Qwen's U+FFFD replacement).
 */
const utf8 = new TextEncoder();
const byteTokenizer: Tokenizer & { decodeBytes(tokens: readonly number[]): Uint8Array } = {
  name: 'cl100k_base',
  encode: (text) => Array.from(utf8.encode(text)),
  decode: (tokens) => new TextDecoder().decode(Uint8Array.from(tokens)),
  count: (text) => utf8.encode(text).length,
  decodeBytes: (tokens) => Uint8Array.from(tokens),
  encodeWithOffsets(text) {
    // A byte inside a character ends where the character ends (the Tokenizer contract).
    const tokens: number[] = [];
    const ends: number[] = [];
    let offset = 0;
    for (const ch of text) {
      offset += ch.length;
      for (const b of utf8.encode(ch)) {
        tokens.push(b);
        ends.push(offset);
      }
    }
    return { tokens, ends };
  },
};

const F = '\uFFFD';

function para(text: string): QwenParagraph {
  return { text, isTable: false, tokens: utf8.encode(text.normalize('NFC')).length, start: 0, end: 0, exact: false };
}

function texts(pages: QwenPage[], pageSize: number): [string, number][] {
  return splitDocToChunks(pages, pageSize, byteTokenizer).map((c) => [
    c.items.map((i) => (typeof i === 'string' ? i : i.text)).join('\n'),
    c.qwenTokens,
  ]);
}

function qwenText(text: string, parserPageSize: number): QwenChunk[] {
  return qwenChunker.chunkText(text, { parserPageSize, maxRefToken: 20000 }, byteTokenizer) as QwenChunk[];
}

describe('qwen: Qwen sentence rules', () => {
  test('split on ". " and 。 only, delimiters dropped, offsets kept', () => {
    expect(splitQwenSentences('A b. C? D!。E.F. ')).toEqual([
      { text: 'A b', start: 0 },
      { text: 'C? D!', start: 5 },
      { text: 'E.F', start: 11 },
      { text: '', start: 16 },
    ]);
  });
  test("Python's strip and len", () => {
    expect(pythonStrip('\u0085\u001f x \u3000')).toBe('x');
    expect(pythonStrip('\uFEFFx')).toBe('\uFEFFx'); // U+FEFF is not Python whitespace
    expect(pythonLength('a😀b')).toBe(3);
  });
  test('clean_paragraph: cid, long hex runs, placeholder runs, newline runs', () => {
    expect(cleanQwenParagraph('a(cid:12)b 0123456789abcdef0123456789 c.......d\n\n\n\ne')).toBe('ab  c\td\n\ne');
  });
});

describe('qwen: chunkText as BaseSearch.format_docs (page 0, one paragraph), hand-worked', () => {
  test('sentences, forced pieces, overlap and Qwen token values above P', () => {
    // 48 bytes > P=20 -> sentence path with avail 20: "Alpha beta"(10), "Gamma delta"(11),
    // "Epsilon zeta eta theta." (23 > 20) -> windows "Epsilon zeta eta the"(20), "ta."(3).
    // 1: Alpha(10) fits; Gamma(11 > 10) flushes [token 10]; overlap "Alpha beta" -> avail 10.
    // 2: Gamma forced (no para yet) -> avail -1; window 20 flushes [token 21]; overlap "Gamma delta" -> avail 9.
    // 3: window forced -> avail -11; "ta." flushes [token 31]; overlap the window (20) -> avail 0.
    // 4: "ta." forced -> avail -3; end [token 23].
    const text = 'Alpha beta. Gamma delta. Epsilon zeta eta theta.';
    const chunks = qwenText(text, 20);
    expect(chunks.map((c) => [c.text, c.qwenTokens])).toEqual([
      ['[page: 0]\nAlpha beta', 10],
      ['[page: 0]\nAlpha beta\nGamma delta', 21],
      ['[page: 0]\nGamma delta\nEpsilon zeta eta the', 31],
      ['[page: 0]\nEpsilon zeta eta the\nta.', 23],
    ]);
    // Spans cover the chunk's own pieces (the overlap is context): windows map by bytes.
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 10],
      [12, 23],
      [25, 45],
      [45, 48],
    ]);
    for (const c of chunks) {
      expect(c.tokens).toBe(byteTokenizer.count(c.text));
      expect(c.pageStart).toBeUndefined();
      expect(c.kind).toBe('text');
    }
  });

  test('token windows decode with errors="replace": U+FFFD where a character is cut; negative budgets', () => {
    // P=4 bytes. "你好"(6) -> windows E4 BD A0 E5 = "你\uFFFD" (4), A5 BD = "\uFFFD\uFFFD" (2).
    // "世界和平"(12) -> E4 B8 96 E7 = "世\uFFFD", 95 8C E5 92 = 3 x U+FFFD, 8C E5 B9 B3 = "\uFFFD平".
    // Each overlap (a 6- or 9-byte window) leaves avail at -2 or -5, so every later piece is forced in.
    const chunks = qwenText('你好。世界和平', 4);
    expect(chunks.map((c) => [c.text, c.qwenTokens])).toEqual([
      [`[page: 0]\n你${F}`, 4],
      [`[page: 0]\n你${F}\n${F}${F}`, 8],
      [`[page: 0]\n${F}${F}\n世${F}`, 10],
      [`[page: 0]\n世${F}\n${F}${F}${F}`, 10],
      [`[page: 0]\n${F}${F}${F}\n${F}平`, 13],
    ]);
    expect(chunks[0]!.start).toBe(0);
    expect(chunks[0]!.end).toBe(2); // bytes 0..4 cover 你 and the start of 好
  });

  test('a window keeps a leading U+FEFF as Python does, also through a plain decode()', () => {
    // Without decodeBytes the chunker goes through decode(), whose UTF-8 decoder would drop a BOM.
    const { decodeBytes: _bytes, ...plain } = byteTokenizer;
    // P=4: EF BB BF 61 = "\uFEFFa" (4), "bcde" (4), "f" (1). "\uFEFFa" fits (avail 0); "bcde" flushes [4];
    // overlap "\uFEFFa" (U+FEFF is not Python whitespace) costs 4 -> avail 0; "bcde" forced (-4); "f" flushes
    // [8]; overlap "bcde" -> avail 0; "f" forced (-1) [5].
    const chunks = qwenChunker.chunkText('\uFEFFabcdef', { parserPageSize: 4, maxRefToken: 0 }, plain) as QwenChunk[];
    expect(chunks.map((c) => [c.text, c.qwenTokens])).toEqual([
      ['[page: 0]\n\uFEFFa', 4],
      ['[page: 0]\n\uFEFFa\nbcde', 8],
      ['[page: 0]\nbcde\nf', 5],
    ]);
  });

  test('blank input, as Qwen: format_docs makes it one paragraph on page 0, split_doc_to_chunk emits it marked', () => {
    // '' counts 0 tokens, fits, and is emitted: "[page: 0]" + "\n" + "" with token 0.
    expect(qwenText('', 500).map((c) => [c.text, c.qwenTokens, c.start, c.end])).toEqual([['[page: 0]\n', 0, 0, 0]]);
    expect(qwenText(' \n\t ', 500).map((c) => [c.text, c.qwenTokens, c.start, c.end])).toEqual([['[page: 0]\n \n\t ', 4, 0, 4]]);
    expect(qwenText('\n\n', 500).map((c) => [c.text, c.qwenTokens])).toEqual([['[page: 0]\n\n\n', 2]]);
    // Longer than a chunk: the sentence path skips blank sentences, so nothing is left.
    expect(qwenText(' '.repeat(10), 4)).toEqual([]);
    expect(qwenText('Short text.', 500).map((c) => c.text)).toEqual(['[page: 0]\nShort text.']);
  });

  test('a blank document, with or without pages, is one empty chunk of token 0 (the maxRefToken shortcut)', () => {
    const text = buildDocument({ format: 'text', mime: 'text/plain', elements: [] }, { id: 't', bytes: 0 });
    const paged = buildDocument({ format: 'pdf', mime: 'application/pdf', pageCount: 3, elements: [{ kind: 'page-furniture', text: 'Page 1', page: 1 }] }, { id: 'p', bytes: 0 });
    for (const doc of [text, paged]) {
      const chunks = qwenChunker.chunkDocument(doc, { parserPageSize: 500, maxRefToken: 20000 }, byteTokenizer) as QwenChunk[];
      expect(chunks.map((c) => [c.text, c.qwenTokens, c.start, c.end])).toEqual([['', 0, 0, 0]]);
    }
  });
});

describe('qwen: split_doc_to_chunk on pages, hand-worked', () => {
  test('page markers: chunk[0] test, popped trailing marker, empty page, overlap from the last page only', () => {
    // P=30. Page 1: 9 + 14 -> avail 7. Page 2 marker pushed; "ffff gggg"(9) > 7 -> flush, popping "[page: 2]"
    // [token 23]; overlap = both page-1 paragraphs (24 chars) -> avail 6. "ffff gggg" again: 9 > 6 and no
    // paragraph yet -> windows of 6: "ffff g"(6) fits (avail 0), "ggg" flushes [token 30]; overlap "ffff g"
    // (page 2) -> avail 24; "ggg" -> 21, "hhhh" -> 17. Pages 3 (empty) and 4 push markers; the 19-byte
    // paragraph flushes, popping only "[page: 4]" [token 13]; the last item is then "[page: 3]", so no overlap.
    const pages: QwenPage[] = [
      { pageNum: 1, paragraphs: [para('aaaa bbbb'), para('cccc dddd eeee')] },
      { pageNum: 2, paragraphs: [para('ffff gggg'), para('hhhh')] },
      { pageNum: 3, paragraphs: [] },
      { pageNum: 4, paragraphs: [para('iiii jjjj kkkk llll')] },
    ];
    expect(texts(pages, 30)).toEqual([
      ['[page: 1]\naaaa bbbb\ncccc dddd eeee', 23],
      ['[page: 1]\naaaa bbbb\ncccc dddd eeee\nffff g', 30],
      ['[page: 2]\nffff g\nggg\nhhhh\n[page: 3]', 13],
      ['[page: 4]\niiii jjjj kkkk llll', 19],
    ]);
  });

  test('overlap of a paragraph over 150 characters: sentences from the end until one does not fit', () => {
    // 174 chars > 150: sentences C*40 (fits, 110 left), B*30 (fits, 80 left), A*100 (does not) -> stop.
    const long = `${'A'.repeat(100)}. ${'B'.repeat(30)}. ${'C'.repeat(40)}`;
    const overlap = `${'B'.repeat(30)}. ${'C'.repeat(40)}`;
    expect(texts([{ pageNum: 1, paragraphs: [para(long), para('D'.repeat(50))] }], 200)).toEqual([
      [`[page: 1]\n${long}`, 174],
      [`[page: 1]\n${overlap}\n${'D'.repeat(50)}`, 72 + 50],
    ]);
    // With 。 in the paragraph the joiner is 。; 162 code points: 丙*50 and 乙*50 fit, 甲*60 does not.
    const zh = `${'甲'.repeat(60)}。${'乙'.repeat(50)}。${'丙'.repeat(50)}`;
    const zhOverlap = `${'乙'.repeat(50)}。${'丙'.repeat(50)}`;
    expect(texts([{ pageNum: 1, paragraphs: [para(zh), para('丁丁丁丁丁')] }], 500)).toEqual([
      [`[page: 1]\n${zh}`, 486],
      [`[page: 1]\n${zhOverlap}\n丁丁丁丁丁`, 303 + 15],
    ]);
  });

  test('a negative budget makes an oversize paragraph vanish; a zero budget raises as in Python', () => {
    // P=4: "你好" -> "你\uFFFD" (avail 0), "\uFFFD\uFFFD" flushes; overlap costs 6 -> avail -2, forced in (-4).
    // "ab"(2) flushes; overlap "\uFFFD\uFFFD" -> avail -2; "ab" has no paragraph before it -> sentence path with
    // windows of -2 tokens: range() is empty, "ab" is lost; the overlap-only chunk is discarded.
    expect(texts([{ pageNum: 1, paragraphs: [para('你好'), para('ab')] }], 4)).toEqual([
      [`[page: 1]\n你${F}`, 4],
      [`[page: 1]\n你${F}\n${F}${F}`, 8],
    ]);
    // P=10: "abcdefghij" fills it; the overlap is the same 10 bytes -> avail 0 -> windows of 0 tokens.
    expect(() => texts([{ pageNum: 1, paragraphs: [para('abcdefghij'), para('klmnopqrstu')] }], 10)).toThrow(/parserPageSize/);
  });
});

describe('qwen: chunkDocument', () => {
  const doc = buildDocument(
    {
      format: 'text',
      mime: 'text/plain',
      elements: [
        { kind: 'heading', level: 1, text: 'Intro' },
        { kind: 'paragraph', text: 'Hello world.\nSecond line.' },
      ],
    },
    { id: 'x', bytes: 0 },
  );

  test('whole document as one chunk under maxRefToken (get_plain_doc, token = sum of paragraph counts)', () => {
    // Lines of "# Intro\n\nHello world.\nSecond line.": 7 + 0 + 12 + 12 bytes = 31.
    const [only, ...rest] = qwenChunker.chunkDocument(doc, { parserPageSize: 500, maxRefToken: 20000 }, byteTokenizer) as QwenChunk[];
    expect(rest).toEqual([]);
    expect(only!.text).toBe(doc.canonical);
    expect(only!.qwenTokens).toBe(31);
    expect(only!.tokens).toBe(34);
    expect([only!.start, only!.end]).toEqual([0, doc.canonical.length]);
  });

  test('text documents are split into lines like parse_txt, on page 1', () => {
    // P=25: "# Intro"(7), ""(0), "Hello world."(12) -> avail 6; "Second line."(12) flushes [19]; overlap is all
    // three lines (21 bytes) -> avail 4; sentence path: windows "Seco", "nd l", "ine."; "Seco" fits (0),
    // "nd l" flushes [25]; overlap "Seco" -> avail 21; "nd l", "ine." -> 13 [12].
    const chunks = qwenChunker.chunkDocument(doc, { parserPageSize: 25, maxRefToken: 0 }, byteTokenizer) as QwenChunk[];
    expect(chunks.map((c) => [c.text, c.qwenTokens])).toEqual([
      ['[page: 1]\n# Intro\n\nHello world.', 19],
      ['[page: 1]\n# Intro\n\nHello world.\nSeco', 25],
      ['[page: 1]\nSeco\nnd l\nine.', 12],
    ]);
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 21],
      [22, 26],
      [26, 34],
    ]);
    expect(chunks.map((c) => c.headingPath)).toEqual([['Intro'], ['Intro'], ['Intro']]);
  });

  test('paged documents: element pages, empty pages keep their marker, tables rendered as |c|c| rows', () => {
    const pdf = buildDocument(
      {
        format: 'pdf',
        mime: 'application/pdf',
        pageCount: 3,
        elements: [
          { kind: 'heading', level: 1, text: 'Report', page: 1 },
          {
            kind: 'table',
            text: '',
            page: 1,
            table: { headerRows: 1, rows: [[{ text: 'k' }, { text: 'v' }], [{ text: 'a\nb' }, { text: '1' }]] },
          },
          { kind: 'paragraph', text: 'Dots.......here', page: 3 },
        ],
      },
      { id: 'y', bytes: 0 },
    );
    // Paragraphs: "Report"(6), "|k|v|\n|a b|1|"(13) on page 1; page 2 empty; "Dots\there"(9, cleaned) on page 3.
    // P=20: 6 + 13 -> avail 1; markers for pages 2 and 3; "Dots\there" flushes, popping "[page: 3]" only.
    // Overlap: last item "[page: 2]" is a marker -> none.
    const chunks = qwenChunker.chunkDocument(pdf, { parserPageSize: 20, maxRefToken: 0 }, byteTokenizer) as QwenChunk[];
    expect(chunks.map((c) => [c.text, c.qwenTokens])).toEqual([
      ['[page: 1]\nReport\n|k|v|\n|a b|1|\n[page: 2]', 19],
      ['[page: 3]\nDots\there', 9],
    ]);
    expect(chunks.map((c) => [c.pageStart, c.pageEnd, c.kind])).toEqual([
      [1, 1, 'text'],
      [3, 3, 'text'],
    ]);
    expect(chunks[1]!.headingPath).toEqual(['Report']);
  });

  test('a comment keeps its label (who, on what) in the paragraph Qwen gets', () => {
    const pptx = buildDocument(
      {
        format: 'pptx',
        mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
        pageCount: 1,
        elements: [
          { kind: 'paragraph', text: 'Ship it', page: 1, slide: 1 },
          { kind: 'comment', text: 'Which date?', comment: { author: 'Ann' }, page: 1, slide: 1 },
        ],
      },
      { id: 'z', bytes: 0 },
    );
    const chunks = qwenChunker.chunkDocument(pptx, { parserPageSize: 500, maxRefToken: 0 }, byteTokenizer) as QwenChunk[];
    expect(chunks.map((c) => c.text)).toEqual(['[page: 1]\nShip it\n[Comment by Ann, on slide 1] Which date?']);
  });

  test('options: defaults, validation, Qwen vocabulary by default', () => {
    expect(qwenChunker.resolveOptions({})).toEqual({ parserPageSize: 500, maxRefToken: 20000 });
    expect(qwenChunker.defaultTokenizer).toBe('qwen');
    expect(() => qwenChunker.resolveOptions({ parserPageSize: 0 })).toThrow(/parserPageSize/);
    expect(() => qwenChunker.resolveOptions({ chunkSize: 1 })).toThrow(/unknown option/);
  });
});

function qwenTokenizer(): Tokenizer | undefined {
  try {
    return getTokenizer('qwen');
  } catch {
    return undefined;
  }
}
const qwen = qwenTokenizer();

describe('qwen: with the Qwen vocabulary', () => {
  test.skipIf(!qwen)('paragraph counts match the spec spot checks (Qwen BPE after NFC, single digits)', () => {
    const opts = { parserPageSize: 500, maxRefToken: 20000 };
    // specs/qwen-agent.md §6: these strings are 7, 7 and 5 tokens.
    for (const [text, count] of [['你好，世界！这是一个测试。', 7], ['[page: 12]', 7], ['12345', 5]] as const) {
      const [chunk] = qwenChunker.chunkText(text, opts, qwen!) as QwenChunk[];
      expect(chunk!.qwenTokens).toBe(count);
      expect(chunk!.tokens).toBe(qwen!.count(chunk!.text));
    }
  });
});

describe.skipIf(!hasShared)('qwen: real corpus text', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  test('a Chinese guide chunked as a raw string: budgets, markers, spans in order', () => {
    const text = readFileSync(corpus('txt/chatgpt-prompt-guide_zh.txt'), 'utf8');
    const tokenizer = qwen ?? getTokenizer('cl100k_base');
    const chunks = qwenChunker.chunkText(text, { parserPageSize: 500, maxRefToken: 20000 }, tokenizer) as QwenChunk[];
    expect(chunks.length).toBeGreaterThan(5);
    let lastStart = 0;
    for (const c of chunks) {
      expect(c.text.startsWith('[page: 0]\n')).toBe(true);
      expect(c.start).toBeGreaterThanOrEqual(lastStart);
      expect(c.end).toBeLessThanOrEqual(text.length);
      lastStart = c.start;
      expect(c.tokens).toBe(tokenizer.count(c.text));
    }
    // Pieces are never split below a sentence unless one sentence alone exceeds the budget.
    expect(chunks.filter((c) => c.qwenTokens > 500).length).toBeLessThan(chunks.length);
  });
});

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chiselChunker, chiselStrings } from '../../src/chunkers/chisel.js';
import { buildDocument } from '../../src/document/build.js';
import { getTokenizer } from '../../src/tokens/index.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

const tokenizer = getTokenizer('cl100k_base');
const opts = (maxCharSize: number, lookBackCharRange: number) => ({ maxCharSize, lookBackCharRange });

/**
 * A second, literal reading of llmware's TextChunker (specs/llmware.md §a), written the slow way on
 * an array of code points with Python-style slicing, to cross-check the fast implementation.
 */
function referenceChisel(text: string, M: number, L: number): string[] {
  const T = Array.from(text);
  const n = T.length;
  const ws = (c: string) => c === ' ' || c === '\n' || c === '\r';
  const smooth = (start: number, stop: number): number => {
    const lb = stop - L > start ? stop - L : start;
    for (let x = stop - 1; x > lb; x--) {
      if (T[x] === '.' && (x + 1 === stop || ws(T[x + 1]!))) {
        const W = x > 5 ? T.slice(x - 5, x - 1) : T;
        const w = W.join('');
        if (!w.includes('.') && w !== '' && !/[0-9]/.test(W[W.length - 1]!)) {
          if (W.slice(0, -2).join('') !== 'Mr' && W.slice(0, 3).join('') !== 'Mrs' && W.slice(0, 2).join('') !== 'Dr') return x + 1;
        }
      }
      if ((T[x] === '\n' || T[x] === '\r') && (x + 1 === stop || T[x + 1] === '\n' || T[x + 1] === '\r')) return x + 1;
    }
    for (let y = stop - 1; y > lb; y--) if (ws(T[y]!)) return y;
    return stop;
  };
  const chunks: string[] = [];
  let start = 0;
  while (start < n) {
    const stop = start + M < n ? start + M : n;
    const cut = smooth(start, stop);
    const piece = T.slice(start, cut).join('');
    start = cut;
    if (Array.from(piece).length < L && chunks.length > 0) chunks[chunks.length - 1] += piece;
    else chunks.push(piece);
  }
  return chunks;
}

describe('chisel: hand-worked vectors (positions traced in the comments)', () => {
  test('periods followed by a space stop; the short final piece merges into the previous chunk', () => {
    // M=20 L=10. Window [0,20): look back to 10; '.' at 11 (next ' ', window "worl") -> cut 12.
    // [12,32): look back to 22; '.' at 27 (window " tes") -> cut 28. [28,48): no period/break in 39..47,
    // last space at 45 -> cut 45. [45,51): '.' at 50 is the window end, window " her" -> cut 51;
    // " here." has 6 < 10 code points -> appended to " Another sentence".
    const text = 'Hello world. This is a test. Another sentence here.';
    expect(chiselStrings(text, opts(20, 10))).toEqual(['Hello world.', ' This is a test.', ' Another sentence here.']);
  });

  test('(B) a digit two places before the period rejects it ("in 2023."), a single-digit step does not', () => {
    // M=34 L=20: '.' at 18 has window " 202" ending in a digit -> rejected; last space at 30 -> cut 30.
    // Next window [30,55): look back to 35, last space 50 -> " sharply and profits" (20, not < 20); " grew" merges.
    expect(chiselStrings('Sales rose in 2023. Costs fell sharply and profits grew', opts(34, 20))).toEqual([
      'Sales rose in 2023. Costs fell',
      ' sharply and profits grew',
    ]);
    // '.' at 15 has window "tep " -> accepted, cut 16; "Go on to step 2." (16 < 20) is the first chunk anyway.
    // [16,50): last space at 47 -> " Costs fell sharply and profits"; " grew" merges.
    expect(chiselStrings('Go on to step 2. Costs fell sharply and profits grew', opts(34, 20))).toEqual([
      'Go on to step 2.',
      ' Costs fell sharply and profits grew',
    ]);
  });

  test('(C) is off by one: "Mr." itself is a stop, a period five places after "Dr" is not', () => {
    // '.' at 8, window T[3:7] = "et M" -> accepted, cut 9. [9,23): last space 19 -> " Smith and";
    // [19,28): space 23 -> " his" (4 < 8) merges; " wife" merges.
    expect(chiselStrings('I met Mr. Smith and his wife', opts(14, 8))).toEqual(['I met Mr.', ' Smith and his wife']);
    // '.' at 9, window T[4:8] = "Dr A" -> rejected; last space 13 -> "Ask Dr Al. He". [13,26): space 22.
    expect(chiselStrings('Ask Dr Al. He knows it all', opts(14, 8))).toEqual(['Ask Dr Al. He', ' knows it all']);
  });

  test('a period at index <= 5 is never a stop (the window is the whole text)', () => {
    // '.' at 3 rejected; last space 7 -> "Yes. No" (7 < 8, first chunk). [7,17): space 15 -> " way out"; " here" merges.
    expect(chiselStrings('Yes. No way out here', opts(10, 8))).toEqual(['Yes. No', ' way out here']);
  });

  test('CR LF CR LF: the cut falls between CR and LF', () => {
    // [0,9): x=6 is CR followed by LF -> cut 7 ("abcd\r\n\r"). [7,16): look back to 11, space 12 -> "\nefgh".
    // [12,21): space 17 -> " ijkl". [17,22): nothing -> " mnop" (5, not < 5).
    expect(chiselStrings('abcd\r\n\r\nefgh ijkl mnop', opts(9, 5))).toEqual(['abcd\r\n\r', '\nefgh', ' ijkl', ' mnop']);
  });

  test('tab is not whitespace: hard cut mid-word', () => {
    // [0,12): look back to 8, no space/period/break in 9..11 -> hard cut 12. [12,18): look back to 14 (not examined).
    expect(chiselStrings('word\tword\tword end', opts(12, 4))).toEqual(['word\tword\two', 'rd end']);
  });

  test('positions are code points, not UTF-16 units', () => {
    // 5 emoji (code points 0-4), ' ' at 5. [0,7): look back to 4, space at 5 -> cut 5.
    // [5,12): look back to 9, nothing in 10..11 -> hard cut 12 (" abc de"); "f" (1 < 3) merges.
    expect(chiselStrings('😀😀😀😀😀 abc def', opts(7, 3))).toEqual(['😀😀😀😀😀', ' abc def']);
  });

  test('lookBackCharRange >= maxCharSize gives one chunk; empty text gives none', () => {
    const text = 'Hello world. This is a test. Another sentence here.';
    expect(chiselStrings(text, opts(10, 10))).toEqual([text]);
    expect(chiselStrings('', opts(600, 300))).toEqual([]);
  });

  test('blank input, as llmware: whitespace-only and newline-only text is kept, windows and merges as for any text', () => {
    // `while starter < len(text)`: nothing for '', one window otherwise; the whole text is shorter than L here.
    expect(chiselStrings(' ', opts(600, 300))).toEqual([' ']);
    expect(chiselStrings('\n\n\n', opts(600, 300))).toEqual(['\n\n\n']);
    expect(chiselStrings(' \r\n \t', opts(600, 300))).toEqual([' \r\n \t']);
    // Ten spaces, M=4, L=2: cuts at the last space of each window (3, 6, 9); the 1-space tail merges.
    expect(chiselStrings(' '.repeat(10), opts(4, 2))).toEqual(['   ', '   ', '    ']);
    // Newlines: a line break at the window's last position is a stop (3, 6), the 2-newline tail is L long.
    expect(chiselStrings('\n'.repeat(8), opts(3, 2))).toEqual(['\n\n\n', '\n\n\n', '\n\n']);
    for (const [text, M, L] of [[' '.repeat(10), 4, 2], ['\n'.repeat(8), 3, 2], ['\t\t\t', 2, 1]] as const) {
      expect(chiselStrings(text, opts(M, L))).toEqual(referenceChisel(text, M, L));
    }
  });
});

describe('chisel: agrees with the literal reference', () => {
  const alphabet = ['a', 'b', 'M', 'r', 'D', 's', '.', ' ', '\n', '\r', '\t', '2', '7', '中', '😀', 'é'];
  test('random texts and sizes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...alphabet), { maxLength: 400 }).map((a) => a.join('')),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 40 }),
        (text, M, L) => {
          expect(chiselStrings(text, opts(M, L))).toEqual(referenceChisel(text, M, L));
        },
      ),
      { numRuns: 1500, seed: 20240611 },
    );
  });
});

describe('chisel: chunker definition', () => {
  test('defaults and validation', () => {
    expect(chiselChunker.resolveOptions({})).toEqual({ maxCharSize: 600, lookBackCharRange: 300 });
    expect(() => chiselChunker.resolveOptions({ maxCharSize: 0 })).toThrow(/maxCharSize/);
    expect(() => chiselChunker.resolveOptions({ lookBackCharRange: -1 })).toThrow(/lookBackCharRange/);
    expect(() => chiselChunker.resolveOptions({ chunkSize: 5 })).toThrow(/unknown option/);
  });

  test('chunkText: UTF-16 spans that slice back to the text, exact token counts; blank input as llmware', () => {
    const text = '😀 Emoji first. Then words and more words. 中文没有句点所以硬切。End.';
    const chunks = chiselChunker.chunkText(text, opts(20, 8), tokenizer);
    expect(chunks.map((c) => c.text)).toEqual(chiselStrings(text, opts(20, 8)));
    for (const c of chunks) {
      expect(text.slice(c.start, c.end)).toBe(c.text);
      expect(c.tokens).toBe(tokenizer.count(c.text));
      expect(c.chars).toBe(c.text.length);
      expect(c.strategy).toBe('chisel');
    }
    expect(chunks.map((c) => c.text).join('')).toBe(text);
    expect(chiselChunker.chunkText('', opts(600, 300), tokenizer)).toEqual([]);
    const [blank, ...none] = chiselChunker.chunkText(' \n \r\n ', opts(600, 300), tokenizer);
    expect(none).toEqual([]);
    expect([blank!.text, blank!.start, blank!.end, blank!.tokens]).toEqual([' \n \r\n ', 0, 6, tokenizer.count(' \n \r\n ')]);
    const empty = buildDocument({ format: 'text', mime: 'text/plain', elements: [] }, { id: 'e', bytes: 0 });
    expect(chiselChunker.chunkDocument(empty, opts(600, 300), tokenizer)).toEqual([]);
  });

  test('chunkDocument: canonical text as one string, heading path and pages from the overlapped elements', () => {
    const doc = buildDocument(
      {
        format: 'pdf',
        mime: 'application/pdf',
        elements: [
          { kind: 'heading', level: 1, text: 'Intro', page: 1 },
          { kind: 'paragraph', text: 'First page text goes here.', page: 1 },
          { kind: 'heading', level: 2, text: 'Details', page: 2 },
          { kind: 'paragraph', text: 'Second page text is longer than the first one.', page: 2 },
        ],
      },
      { id: 'x', bytes: 0 },
    );
    const chunks = chiselChunker.chunkDocument(doc, opts(40, 10), tokenizer);
    expect(chunks.map((c) => c.text)).toEqual(chiselStrings(doc.canonical, opts(40, 10)));
    for (const c of chunks) expect(doc.canonical.slice(c.start, c.end)).toBe(c.text);
    expect(chunks[0]!.headingPath).toEqual(['Intro']);
    expect(chunks[0]!.pageStart).toBe(1);
    const last = chunks[chunks.length - 1]!;
    expect(last.headingPath).toEqual(['Intro', 'Details']);
    expect(last.pageEnd).toBe(2);
  });
});

describe.skipIf(!hasShared)('chisel: real corpus text', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  test('600/300 on English and Chinese files: reference agreement and llmware size bounds', () => {
    for (const file of ['txt/candide-windows-1252.txt.expected.txt', 'txt/chatgpt-prompt-guide_zh.txt', 'md/wiki.md']) {
      const text = readFileSync(corpus(file), 'utf8');
      const chunks = chiselStrings(text, opts(600, 300));
      expect(chunks).toEqual(referenceChisel(text, 600, 300));
      expect(chunks.join('')).toBe(text);
      // M >= 2L-1: every chunk but the last has >= M-L+1 code points and <= M; the last <= M+2L-2.
      chunks.forEach((c, i) => {
        const len = Array.from(c).length;
        if (i < chunks.length - 1) {
          expect(len).toBeGreaterThanOrEqual(301);
          expect(len).toBeLessThanOrEqual(600);
        } else expect(len).toBeLessThanOrEqual(600 + 600 - 2);
      });
    }
  });
});

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { normalizeNfc } from '../../src/tokens/nfc.js';
import { CL100K_PATTERN, O200K_PATTERN, QWEN_PATTERN } from '../../src/tokens/patterns.js';
import { cl100kPieceEnd, o200kPieceEnd, qwenPieceEnd } from '../../src/tokens/scanner.js';

/** Pieces by the regex (the readable reference) and by the hand-written scanner. */
function regexPieces(pattern: string, text: string): string[] {
  return [...text.matchAll(new RegExp(pattern, 'gu'))].map((m) => m[0]);
}

function scannerPieces(pieceEnd: (s: string, i: number, n: number) => number, text: string): string[] {
  const pieces: string[] = [];
  for (let pos = 0; pos < text.length; ) {
    const end = pieceEnd(text, pos, text.length);
    pieces.push(text.slice(pos, end));
    pos = end;
  }
  return pieces;
}

const atom = fc.oneof(
  fc.constantFrom(
    'a', 'B', 'ſ', 's', 'T', 're', 'LL', 'Ve', 'd', 'm', "'", ' ', '   ', '\t', '\n', '\r', '\u0085', '\u00a0', '\u3000', '\ufeff',
    '\u200b', '7', '123', '٣', 'Ⅻ', '.', '!', '/', '//', '你好', '。', 'カ', '\u3099', '한', '\u1161', 'É', 'ǅ', 'ʰ', 'ـ', '\u0301',
    '\u0903', '🙂', '𝔘', '𝟙', '\ud800', '\udfff',
  ),
  fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
);
const text = fc.array(atom, { maxLength: 30 }).map((parts) => parts.join(''));

describe.each([
  ['cl100k_base', CL100K_PATTERN, cl100kPieceEnd],
  ['o200k_base', O200K_PATTERN, o200kPieceEnd],
  ['qwen', QWEN_PATTERN, qwenPieceEnd],
] as const)('%s pre-tokenizer', (_name, pattern, pieceEnd) => {
  test('the scanner cuts pieces exactly where the regex does', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(scannerPieces(pieceEnd, s)).toEqual(regexPieces(pattern, s));
      }),
      { numRuns: 2000, seed: 42 },
    );
  });

  test('the regex tiles the text (every character belongs to a piece)', () => {
    const sample = "Hello,  world's\t\n\n 12345 你好。\u00a0x\u0085y ";
    expect(regexPieces(pattern, sample).join('')).toBe(sample);
  });
});

describe('cl100k_base pieces', () => {
  test('follow tiktoken on contractions, digits and whitespace', () => {
    expect(scannerPieces(cl100kPieceEnd, "I'm 12345 it'SS  \n\n  x  ")).toEqual([
      'I', "'m", ' ', '123', '45', ' it', "'S", 'S', '  \n\n', ' ', ' x', '  ',
    ]);
  });
});

describe('NFC offset map', () => {
  const composable = fc.array(
    fc.constantFrom('e', '\u0301', '\u0300', 'a', ' ', 'ｶ', '\u3099', 'か', '가', '\u1100', '\u1161', '\u11a8', 'Å', '\u212b', '中', '\u0323', 'q'),
    { maxLength: 20 },
  ).map((parts) => parts.join(''));

  test('normalises exactly like String.prototype.normalize and maps offsets monotonically into the original', () => {
    fc.assert(
      fc.property(composable, (s) => {
        const nfc = normalizeNfc(s);
        expect(nfc.normalized).toBe(s.normalize('NFC'));
        let last = 0;
        for (let offset = 0; offset <= nfc.normalized.length; offset++) {
          const original = nfc.toOriginal(offset);
          expect(original).toBeGreaterThanOrEqual(last);
          expect(original).toBeLessThanOrEqual(s.length);
          last = original;
        }
        expect(nfc.toOriginal(nfc.normalized.length)).toBe(s.length);
        expect(nfc.toOriginal(0)).toBe(0);
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  test('unchanged stretches map one to one', () => {
    const s = 'abc e\u0301 xyz';
    const nfc = normalizeNfc(s);
    expect(nfc.normalized).toBe('abc é xyz');
    expect(nfc.toOriginal(3)).toBe(3);
    expect(nfc.toOriginal(5)).toBe(6);
    expect(nfc.toOriginal(9)).toBe(10);
  });
});

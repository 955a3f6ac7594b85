/**
 * Text built around grapheme clusters longer than any window a cut looks at: a letter under
 * hundreds of combining marks, emoji ZWJ chains, runs of regional indicators (flags pair from the
 * run's start), Hangul jamo runs, Devanagari conjunct chains (GB9c), Prepend characters, and
 * whitespace that begins a cluster (a space carries the marks after it). For the chunk invariants
 * (properties.test.ts) and the grapheme tests (test/text/graphemes.test.ts).
 */
import fc from 'fast-check';

const MARKS = ['\u0301', '\u0308', '\u0323', '\u05b0', '\u064b', '\u0650', '\u0652', '\u093f', '\u0e49', '\u20dd', '\ufe0f', '\u200d'];

const marks = (min: number, max: number) => fc.array(fc.constantFrom(...MARKS), { minLength: min, maxLength: max }).map((m) => m.join(''));

/** One cluster longer than 64 UTF-16 code units (or a run of them, as flags are). */
export const longCluster = fc.oneof(
  fc.tuple(fc.constantFrom('a', 'e', 'ש', 'م', 'क', 'ก', ' ', '\u0600', '中'), marks(65, 400)).map(([base, m]) => base + m),
  fc.array(fc.constantFrom('👨', '👩', '👧', '🏳️', '❤️', '👍🏽', '🧑🏿'), { minLength: 20, maxLength: 80 }).map((e) => e.join('\u200d')),
  fc.integer({ min: 17, max: 300 }).map((n) => '🇫'.repeat(n)),
  fc.tuple(fc.integer({ min: 30, max: 200 }), fc.integer({ min: 0, max: 40 })).map(([l, v]) => '\u1100'.repeat(l) + '\u1161'.repeat(v) + '\u11a8'),
  fc.integer({ min: 20, max: 120 }).map((n) => `${'क्'.repeat(n)}क`),
  fc.integer({ min: 33, max: 200 }).map((n) => '\u0600'.repeat(n) + 'x'),
);

const FRAGMENTS = [
  'The', 'quick', 'fox', 'jumps.', 'שלום', 'עולם', 'שָׁלוֹם', 'مَرْحَبًا', 'بِكُمْ', '👨‍👩‍👧', '👍🏽', '🇨🇳', '中文', '句子。', 'हिन्दी', 'กำ',
  'e\u0301', ' \u0301', '\n\u0301', '\u0600', '\u1100\u1161', '\u0d4e', ' ', ' ', ' ', '\n', '\n\n', '. ', '\r\n', '# Heading\n', '- item\n', '$x$',
];

/** Mixed-script text with long clusters in it, at most about `maxChars` code units. */
export function longClusterText(maxChars: number): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...FRAGMENTS) }, { weight: 1, arbitrary: longCluster }), { minLength: 1, maxLength: 60 })
    .map((parts) => {
      const text = parts.join('');
      return text.length > maxChars ? text.slice(0, maxChars) : text;
    });
}

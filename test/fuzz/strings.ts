/**
 * Pathological strings for the chunkers, as fast-check arbitraries: any Unicode (graphemes, lone
 * surrogates), CJK without punctuation, emoji and flag sequences, enormous grapheme clusters
 * (combining marks, ZWJ chains), runs of one separator, huge tokens, `$` math delimiters, and
 * Markdown/HTML markup (deep headings, fences, wide and long tables, nesting). A text is a few such
 * pieces joined, sometimes with one piece repeated into a long run; `maxChars` bounds it.
 */
import fc from 'fast-check';

const COMBINING = ['\u0301', '\u0302', '\u0308', '\u0323', '\u0332', '\u034f', '\u0489', '\u20dd', '\u0e49', '\u093f', '\u200d', '\ufe0f'];

const EMOJI = [
  '👍', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇨🇳', '🇺🇸🇬🇧', '1️⃣', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '🧑🏿‍🤝‍🧑🏻', '❤️‍🔥', '©️', '☺', '\u2764\ufe0f', '🫠', '👩‍💻',
];

const SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', '\udc00\ud800', '\ud83d', '\ude00', '\ud83d \ude00', '\ud83d\n\ude00', '𠮷', '\udbff\udfff'];

const SEPARATORS = ['\n', ' ', '\r\n', '\r', '\t', '\u2028', '\u2029', '\u3000', '\u00a0', '\u200b', '\f', '\v', '\u0085', '。', '.', '!', '?', '；', '…', '-', '|', ',', '、', '\n\n', '. ', '。 ', ' \n'];

const MARKUP = [
  '# ', '###### ', '####### ', '#', '```', '```js\n', '~~~', '    code', '> ', '> > > ', '- ', '  - ', '* ', '1. ', '99999999999. ', '| a | b |\n', '| --- | --- |\n', '|', '||',
  '<div>', '</div>', '<p>', '<table><tr><td>', '</td>', '<!--', '-->', '<br>', '<![CDATA[', '&nbsp;', '&#x1F600;', '**', '*', '_', '__', '~~', '[', '](', ')', '![',
  '\\', '\\\\', '<', '>', '&', '---\n', '***\n', '===\n', '$', '$$', '\\$', '$x$', '$$x^2$$', '$5 and $10', '\\(', '\\)', '\\[', '\\]', '\\begin{align}', '\\end{align}',
  '[page: 3]', '<|endoftext|>', '<|im_start|>', '\u0000', '\ufeff', '\ufffd',
];

const WORDS = ['the', 'a', 'state-of-the-art', 'Mr.', 'e.g.', 'U.S.', 'naïve', 'café', '中文', '句子', '日本語', '한국어', 'مرحبا', 'שלום', 'Привет', 'ΑΒΓ', '123', '3.14', 'x_1'];

const cjkRun = (max: number) =>
  fc.array(fc.integer({ min: 0x4e00, max: 0x9fff }), { minLength: 1, maxLength: max }).map((cps) => String.fromCharCode(...cps));

const hugeCluster = (max: number) =>
  fc.tuple(fc.constantFrom('a', 'x', 'ก', 'क', '👨', 'e'), fc.array(fc.constantFrom(...COMBINING), { minLength: 1, maxLength: max })).map(([base, marks]) => base + marks.join(''));

const zwjChain = (max: number) => fc.array(fc.constantFrom('👨', '👩', '👧', '🏽', '❤️'), { minLength: 2, maxLength: max }).map((parts) => parts.join('\u200d'));

const hugeToken = (max: number) =>
  fc.oneof(
    fc.tuple(fc.constantFrom('a', 'Z', '0', '=', '/', '中', '_'), fc.integer({ min: 1, max })).map(([c, n]) => c.repeat(n)),
    fc.base64String({ maxLength: max }),
    fc.integer({ min: 1, max: Math.max(1, Math.floor(max / 8)) }).map((n) => `https://example.com/${'segment/'.repeat(n)}?q=${'x'.repeat(n)}`),
  );

const wideTable = (max: number) =>
  fc.tuple(fc.integer({ min: 1, max: Math.max(1, Math.floor(max / 20)) }), fc.integer({ min: 1, max: 20 })).map(([cols, rows]) => {
    const row = (c: string) => `|${` ${c} |`.repeat(cols)}\n`;
    return row('head') + `|${' --- |'.repeat(cols)}\n` + row('cell').repeat(rows);
  });

const nesting = (max: number) =>
  fc.tuple(fc.constantFrom('> ', '  ', '- ', '<div>', '[', '(', '{', '*', '#'), fc.integer({ min: 1, max }), fc.constantFrom('text', '中文', '', '\n')).map(([open, depth, body]) => open.repeat(depth) + body);

/** One piece of a pathological text, at most about `max` characters. */
function piece(max: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 3, arbitrary: fc.array(fc.constantFrom(...WORDS, ' ', ' ', ' ', '. ', ', ', '\n'), { maxLength: 80 }).map((w) => w.join('')) },
    { weight: 2, arbitrary: cjkRun(Math.min(max, 4000)) },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(...EMOJI, ' '), { maxLength: 40 }).map((e) => e.join('')) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...SURROGATES, 'a', ' '), { maxLength: 20 }).map((s) => s.join('')) },
    { weight: 1, arbitrary: hugeCluster(Math.min(max, 3000)) },
    { weight: 1, arbitrary: zwjChain(Math.max(2, Math.floor(Math.min(max / 3, 500)))) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...SEPARATORS), fc.integer({ min: 1, max: Math.max(1, Math.floor(max / 2)) })).map(([s, n]) => s.repeat(n)) },
    { weight: 1, arbitrary: hugeToken(max) },
    { weight: 3, arbitrary: fc.array(fc.constantFrom(...MARKUP, ' ', 'word', '\n'), { maxLength: 60 }).map((m) => m.join('')) },
    { weight: 1, arbitrary: wideTable(max) },
    { weight: 1, arbitrary: nesting(Math.max(1, Math.floor(Math.min(max / 6, 2000)))) },
  );
}

/** A pathological text of at most `maxChars` UTF-16 units. */
export function pathologicalText(maxChars: number): fc.Arbitrary<string> {
  const max = Math.max(16, maxChars);
  return fc
    .tuple(fc.array(piece(Math.floor(max / 4)), { minLength: 0, maxLength: 12 }), fc.option(fc.tuple(fc.nat(), fc.integer({ min: 2, max: 100_000 })), { freq: 4 }))
    .map(([pieces, repeat]) => {
      if (repeat && pieces.length > 0) {
        const [which, times] = repeat;
        const at = which % pieces.length;
        const unit = pieces[at]!;
        if (unit.length > 0) pieces[at] = unit.repeat(Math.max(1, Math.min(times, Math.floor(max / 2 / unit.length))));
      }
      const text = pieces.join('');
      return text.length > max ? text.slice(0, max) : text;
    });
}

/** The `index`-th text of a run seeded `seed` (fast-check draws it from that seed alone). */
export function sampleText(seed: number, maxChars: number): string {
  return fc.sample(pathologicalText(maxChars), { seed, numRuns: 1 })[0]!;
}

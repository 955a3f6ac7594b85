import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import * as gptCl100k from 'gpt-tokenizer/encoding/cl100k_base';
import * as gptO200k from 'gpt-tokenizer/encoding/o200k_base';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, test } from 'vitest';
import { getTokenizer } from '../../src/tokens/index.js';
import { corpusDir, evalDir, hasShared } from '../helpers.js';

/**
 * Exact parity with the two JavaScript tokenizers people use. Both use JavaScript's `\s`, which
 * counts U+FEFF as whitespace and U+0085 as not, the reverse of tiktoken's Rust `\s` (and
 * gpt-tokenizer also splits a BOM oddly), so those two characters are left out of these
 * comparisons; tokenizer.test.ts pins tiktoken's own output for them.
 */
const peers = [
  {
    name: 'cl100k_base' as const,
    jsTiktoken: new Tiktoken(cl100kRanks),
    gptTokenizer: (s: string) => gptCl100k.encode(s, { disallowedSpecial: new Set() }),
  },
  {
    name: 'o200k_base' as const,
    jsTiktoken: new Tiktoken(o200kRanks),
    gptTokenizer: (s: string) => gptO200k.encode(s, { disallowedSpecial: new Set() }),
  },
];

const withoutJsWhitespaceQuirks = (s: string): string => s.replace(/[\uFEFF\u0085]/g, '');

function textFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) textFiles(path, out);
    else if (/\.(txt|md)$/.test(entry)) out.push(path);
  }
  return out;
}

/** Every .txt/.md of the corpus, plus the first two documents of each eval corpus (en, zh, zh-Hant). */
function corpusTexts(): { path: string; text: string }[] {
  const paths = textFiles(corpusDir);
  for (const set of readdirSync(evalDir).sort()) {
    const dir = join(evalDir, set, 'corpus');
    try {
      paths.push(...readdirSync(dir).sort().slice(0, 2).map((f) => join(dir, f)));
    } catch {
      // Not every entry of eval/ is a data set with a corpus.
    }
  }
  return paths.map((path) => ({ path, text: withoutJsWhitespaceQuirks(readFileSync(path, 'utf8')) }));
}

describe.skipIf(!hasShared)('parity with js-tiktoken and gpt-tokenizer on the shared corpus', () => {
  const texts = hasShared ? corpusTexts() : [];

  test('the corpus has the documents this test is about', () => {
    expect(texts.length).toBeGreaterThan(60);
  });

  describe.each(peers)('$name', ({ name, jsTiktoken, gptTokenizer }) => {
    const ours = getTokenizer(name);
    test('every document encodes to the same ids', () => {
      for (const { path, text } of texts) {
        const ids = ours.encode(text);
        expect(ids, path).toEqual(jsTiktoken.encode(text, [], []));
        expect(ids, path).toEqual(gptTokenizer(text));
        expect(ours.count(text), path).toBe(ids.length);
      }
    });
  });
});

/** Characters chosen to hit every branch of the pre-tokenizers, plus arbitrary code units and code points. */
const atom = fc.oneof(
  fc.constantFrom(
    'a', 'Z', 's', 'S', 'ſ', 'T', 're', 'VE', 'll', 'd', 'M', "'", '’', ' ', '  ', '\t', '\n', '\r', '\r\n', '\u0085', '\u00a0',
    '\u3000', '\u2028', '0', '42', '٣', '½', '.', ',', '!', '/', '-', '<|endoftext|>', '<|im_start|>', '你', '好', '，', '。',
    'こんにちは', 'ｶ', '한', '\u1100\u1161', 'é', 'e\u0301', '\u0301', 'ǅ', 'ʰ', 'ـ', 'ß', 'İ', '😀', '👍🏽', '🇨🇳', '𝔘', '\ud800', '\udc00',
  ),
  fc.string({ unit: 'binary', maxLength: 3 }),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
);
const randomText = fc.array(atom, { maxLength: 40 }).map((parts) => withoutJsWhitespaceQuirks(parts.join('')));

describe.each(peers)('$name on random strings (fast-check)', ({ name, jsTiktoken, gptTokenizer }) => {
  const ours = getTokenizer(name);

  test('encodes like js-tiktoken and gpt-tokenizer, lone surrogates included', () => {
    fc.assert(
      fc.property(randomText, (text) => {
        const ids = ours.encode(text);
        expect(ids).toEqual(jsTiktoken.encode(text, [], []));
        expect(ids).toEqual(gptTokenizer(text));
        expect(ours.count(text)).toBe(ids.length);
      }),
      { numRuns: 400, seed: 20_260_101 },
    );
  });

  test('decode(encode(x)) === x for well-formed strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        expect(ours.decode(ours.encode(text))).toBe(text);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  test('long runs: CJK without spaces (one piece), whitespace, digits', () => {
    const runs = ['中文分词测试一个世界'.repeat(60), ' '.repeat(3000) + 'x', '\n \n'.repeat(1000), '31415926535'.repeat(300)];
    for (const text of runs) expect(ours.encode(text)).toEqual(jsTiktoken.encode(text, [], []));
  });
});

import { describe, expect, test } from 'vitest';
import { GroundworkError } from '../../src/errors.js';
import { countTokens, encodeWithOffsets, getTokenizer } from '../../src/tokens/index.js';
import type { TokenizerName } from '../../src/tokens/types.js';

/**
 * Ground truth from Python tiktoken 0.14 (the Rust engine OpenAI ships), run on the same rank
 * files: cl100k_base/o200k_base via `encode(s, disallowed_special=())`; Qwen as Qwen-Agent builds
 * it (`tiktoken.Encoding` with its PAT_STR and 208 specials, `encode(NFC(s), allowed_special='all')`).
 * Several inputs are where JavaScript's `\s` and Rust's differ (U+FEFF, U+0085).
 */
const SHORT_INPUTS = [
  '\ufeff\n',
  '\ufeff# Title',
  'a\u0085 b',
  'a \u0085\n',
  "it'ſ IT'S we'LL you'Ve",
  'x\ud800y',
  '\udc00\ud800',
  'end  \n  ',
  'tabs\t\t\n\n\t x',
  '<|endoftext|> and <|im_start|>',
  'Straße ǅemal İstanbul',
  '  \u3000全角\u3000空格',
  'e\u0301 vs é, Å vs \u212b',
  '12345678 ١٢٣٤ ½',
  '👍🏽🇨🇳 😀!',
  'path/to/file.ts\n//comment',
];

type LongInput = 'cjk20k' | 'spaces' | 'digits' | 'mixed';

function lcg(seed: number): () => number {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const COMMON_HANZI =
  '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坐集编宝谈府拉黑且随格尽剑讲布杀微怕母调局根曾准团段终乐切级克精哪官示冷域读';

/** Deterministic long inputs: a 20k-character run of hanzi (one pre-tokenizer piece), whitespace and digit runs, a mix. */
function longInput(kind: LongInput): string {
  if (kind === 'cjk20k') {
    const r = lcg(7);
    let s = '';
    for (let i = 0; i < 20000; i++) s += COMMON_HANZI[Math.floor(r() * COMMON_HANZI.length)];
    return s;
  }
  if (kind === 'spaces') return ' '.repeat(10000) + 'x' + '\n'.repeat(5000) + ' \t'.repeat(3000);
  if (kind === 'digits') return '9876543210'.repeat(2000);
  const atoms = ['the ', 'quick ', 'Brown ', "fox's ", '12,345.67 ', '\n\n', '    ', '中文', '。', '、', '😀', 'é', 'e\u0301', '\t', '—', 'ﬁ', '<|endoftext|>', '\u00a0'];
  const r = lcg(11);
  let s = '';
  for (let i = 0; i < 20000; i++) s += atoms[Math.floor(r() * atoms.length)];
  return s;
}

function checksum(ids: readonly number[]): number {
  let h = 0;
  for (const id of ids) h = (Math.imul(h, 31) + id) | 0;
  return h;
}

export const PINNED_SHORT: Record<TokenizerName, number[][]> = {
  cl100k_base: [
    [62619],
    [43372, 11106],
    [64, 126, 227, 293],
    [64, 2188, 227, 198],
    [275, 6, 129, 123, 8871, 13575, 584, 6, 4178, 499, 6, 43712],
    [87, 5809, 88],
    [10178],
    [408, 2355, 256],
    [32093, 35249, 197, 865],
    [27, 91, 8862, 728, 428, 91, 29, 323, 83739, 318, 5011, 91, 29],
    [77414, 24352, 220, 131, 227, 336, 278, 39521, 46216],
    [256, 23249, 37087, 64936, 23249, 35894, 35083],
    [68, 54939, 6296, 4046, 11, 80352, 6296, 29753, 104],
    [4513, 10961, 2495, 220, 149, 94, 149, 95, 149, 96, 149, 97, 220, 27154],
    [9468, 239, 235, 9468, 237, 121, 9468, 229, 101, 9468, 229, 111, 91416, 0],
    [2398, 33529, 24849, 21991, 198, 322, 6313],
  ],
  o200k_base: [
    [61992],
    [110862, 19612],
    [64, 126, 227, 287],
    [64, 1322, 227, 198],
    [278, 6, 70067, 8734, 31233, 581, 6, 7454, 481, 6, 27493],
    [87, 3251, 88],
    [10123],
    [419, 4066, 256],
    [68999, 75998, 197, 1215],
    [27, 91, 419, 1440, 919, 91, 29, 326, 464, 91, 321, 10949, 91, 29],
    [103575, 13153, 220, 131, 227, 347, 280, 91992],
    [256, 1397, 5145, 36205, 1397, 16207, 13511],
    [68, 13430, 10217, 1212, 11, 49805, 10217, 23966, 104],
    [7633, 19354, 4388, 220, 46600, 53184, 81473, 98713, 220, 27124],
    [82514, 52622, 121, 55506, 101, 55506, 111, 88038, 0],
    [4189, 72231, 51766, 41410, 198, 393, 12606],
  ],
  qwen: [
    [61519],
    [42272, 10869],
    [64, 126, 227, 293],
    [64, 2139, 227, 198],
    [275, 6, 144815, 8700, 13272, 582, 6, 4086, 498, 6, 42612],
    [87, 5691, 88],
    [9973],
    [408, 2303, 256],
    [30993, 34149, 197, 856],
    [151643, 323, 220, 151644],
    [76314, 23455, 220, 131, 227, 336, 278, 129514],
    [256, 22441, 35987, 63836, 22441, 34794, 33983],
    [963, 6165, 3958, 11, 79252, 6165, 79252],
    [16, 17, 18, 19, 20, 21, 22, 23, 220, 149, 94, 149, 95, 149, 96, 149, 97, 220, 26062],
    [144349, 145375, 145793, 145754, 90316, 0],
    [2343, 32429, 23903, 21288, 198, 322, 6182],
  ],
};

/** [token count, checksum of the ids] of the long inputs below. */
export const PINNED_LONG: Record<TokenizerName, Record<LongInput, [number, number]>> = {
  cl100k_base: { cjk20k: [25958, -1896587680], spaces: [3236, 83282394], digits: [6667, 1099837284], mixed: [36129, -19477290] },
  o200k_base: { cjk20k: [19923, -1575288229], spaces: [3392, 376585146], digits: [6667, 1371355714], mixed: [33161, -433025368] },
  qwen: { cjk20k: [19689, 725853078], spaces: [3236, -950577771], digits: [20000, 1901387504], mixed: [31053, 701092242] },
};

const NAMES: TokenizerName[] = ['cl100k_base', 'o200k_base', 'qwen'];
const LONG_INPUTS: LongInput[] = ['cjk20k', 'spaces', 'digits', 'mixed'];
const isWellFormed = (s: string): boolean => !/\p{Cs}/u.test(s);

describe.each(NAMES)('%s', (name) => {
  const tokenizer = getTokenizer(name);

  test('encodes edge cases exactly as tiktoken does', () => {
    SHORT_INPUTS.forEach((input, i) => {
      expect(tokenizer.encode(input), JSON.stringify(input)).toEqual(PINNED_SHORT[name][i]);
      expect(tokenizer.count(input)).toBe(PINNED_SHORT[name][i]!.length);
    });
  });

  test.each(LONG_INPUTS)('encodes the long %s input exactly as tiktoken does', (kind) => {
    const input = longInput(kind);
    const ids = tokenizer.encode(input);
    expect([ids.length, checksum(ids)]).toEqual(PINNED_LONG[name][kind]);
    expect(tokenizer.count(input)).toBe(ids.length);
  });

  test('empty input has no tokens', () => {
    expect(tokenizer.encode('')).toEqual([]);
    expect(tokenizer.count('')).toBe(0);
    expect(tokenizer.encodeWithOffsets('')).toEqual({ tokens: [], ends: [] });
    expect(tokenizer.decode([])).toBe('');
  });

  test('decode inverts encode on well-formed text', () => {
    for (const input of [...SHORT_INPUTS, ...LONG_INPUTS.map(longInput)].filter(isWellFormed)) {
      const expected = name === 'qwen' ? input.normalize('NFC') : input;
      expect(tokenizer.decode(tokenizer.encode(input))).toBe(expected);
    }
  });

  test('encodeWithOffsets returns the encode() ids and character-aligned ends', () => {
    for (const input of [...SHORT_INPUTS, longInput('mixed')]) {
      const { tokens, ends } = tokenizer.encodeWithOffsets(input);
      expect(tokens).toEqual(tokenizer.encode(input));
      expect(ends).toHaveLength(tokens.length);
      expect(ends.at(-1)).toBe(input.length);
      const bad = ends.filter((end, i) => {
        const before = input.charCodeAt(end - 1);
        const after = input.charCodeAt(end);
        const splitsPair = before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
        return splitsPair || end < (i === 0 ? 0 : ends[i - 1]!);
      });
      expect(bad, JSON.stringify(input.slice(0, 50))).toEqual([]);
    }
  });

  test('token spans decode to their text where tokens hold whole characters', () => {
    const input = 'The quick brown fox, isn\'t it?\n\n  Indented   line\t\ttabs 12345.';
    const { tokens, ends } = tokenizer.encodeWithOffsets(input);
    tokens.forEach((id, i) => expect(tokenizer.decode([id])).toBe(input.slice(i === 0 ? 0 : ends[i - 1], ends[i])));
  });
});

describe('cl100k_base specifics', () => {
  const cl100k = getTokenizer();

  test('is the default, and the helpers use it', () => {
    expect(cl100k.name).toBe('cl100k_base');
    expect(countTokens('hello world')).toBe(2);
    expect(cl100k.encode('hello world')).toEqual([15339, 1917]);
    expect(encodeWithOffsets('hello world')).toEqual({ tokens: [15339, 1917], ends: [5, 11] });
  });

  test('a token ending inside a character ends after it', () => {
    // 😀 is two tokens (its first 3 bytes, then its last byte): both end after the emoji.
    expect(cl100k.encodeWithOffsets('ab 你好😀 x')).toEqual({
      tokens: [370, 220, 57668, 53901, 76460, 222, 865],
      ends: [2, 3, 4, 5, 7, 7, 9],
    });
  });

  test('special-token text is ordinary text', () => {
    expect(cl100k.count('<|endoftext|>')).toBe(7);
    expect(cl100k.decode([100257])).toBe('<|endoftext|>');
  });

  test('returns the same instance for a name', () => {
    expect(getTokenizer('cl100k_base')).toBe(cl100k);
  });
});

describe('qwen specifics', () => {
  const qwen = getTokenizer('qwen');

  test('matches the spot checks of specs/qwen-agent.md section 6', () => {
    expect(qwen.count('你好，世界！这是一个测试。')).toBe(7);
    expect(qwen.count('[page: 12]')).toBe(7);
    expect(qwen.count('12345')).toBe(5);
  });

  test('every special token counts as one token', () => {
    expect(qwen.encode('<|im_start|>user\nhi<|im_end|><|extra_0|><|extra_204|><|endoftext|>')).toEqual([
      151644, 872, 198, 6023, 151645, 151646, 151850, 151643,
    ]);
    // Not specials in Qwen-Agent's vocabulary: ordinary text.
    expect(qwen.count('<|extra_205|>')).toBeGreaterThan(1);
    expect(qwen.count('<think>')).toBeGreaterThan(1);
  });

  test('normalises to NFC and maps offsets back to the original text', () => {
    const decomposed = 'Cafe\u0301 de\u0301ja\u0300 vu, 가\u11a8 ok';
    expect(qwen.encode(decomposed)).toEqual(qwen.encode(decomposed.normalize('NFC')));
    const { tokens, ends } = qwen.encodeWithOffsets(decomposed);
    expect(tokens).toEqual(qwen.encode(decomposed));
    expect(ends.at(-1)).toBe(decomposed.length);
    // ' ok' is untouched by normalisation, so its token starts where it does in the original.
    expect(ends).toContain(decomposed.length - 3);
    expect(ends).toContain(decomposed.indexOf(' vu'));
  });
});

describe('errors', () => {
  test('an unknown tokenizer name is an INVALID_OPTIONS error', () => {
    expect(() => getTokenizer('p50k_base' as TokenizerName)).toThrow(GroundworkError);
    expect(() => getTokenizer('toString' as TokenizerName)).toThrow(/unknown tokenizer/);
  });

  test('decoding an id outside the vocabulary throws', () => {
    expect(() => getTokenizer().decode([100_256, 5_000_000])).toThrow(/not in the cl100k_base vocabulary/);
  });
});

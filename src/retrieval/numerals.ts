/**
 * Numerals as headings and section references write them: Arabic (ASCII and full-width digits),
 * Chinese (一二三…十百千, 〇/零, 两, and the financial forms 壹贰叁…拾佰仟), Roman (I-MMMCMXCIX),
 * letters for appendices (A = 1 … Z = 26), and English number words and ordinals (one, second, 4th).
 * Each parser takes the whole token and returns its value, or undefined when the token is not one.
 */

/** Character classes for building patterns (no `g` or `y` flags: safe to embed in other patterns). */
export const ARABIC_DIGITS = '0-9０-９';
export const CHINESE_NUMERAL_CHARS = '〇零一二三四五六七八九十百千两壹贰叁肆伍陆柒捌玖拾佰仟';

const CHINESE_DIGITS: Record<string, number> = {
  〇: 0, 零: 0, 一: 1, 壹: 1, 二: 2, 贰: 2, 两: 2, 三: 3, 叁: 3, 四: 4, 肆: 4,
  五: 5, 伍: 5, 六: 6, 陆: 6, 七: 7, 柒: 7, 八: 8, 捌: 8, 九: 9, 玖: 9,
};
const CHINESE_UNITS: Record<string, number> = { 十: 10, 拾: 10, 百: 100, 佰: 100, 千: 1000, 仟: 1000 };

/** `3`, `１２` -> 3, 12. */
export function parseArabic(token: string): number | undefined {
  if (!/^[0-9０-９]+$/.test(token)) return undefined;
  let value = 0;
  for (const ch of token) {
    const code = ch.charCodeAt(0);
    value = value * 10 + (code >= 0xff10 ? code - 0xff10 : code - 48);
  }
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * `三` 3, `十一` 11, `二十` 20, `一百零五` 105, `两` 2, `〇` 0, `一〇五` 105 (digit by digit, as in
 * years), `拾贰` 12. Up to 9999.
 */
export function parseChinese(token: string): number | undefined {
  if (token === '') return undefined;
  let hasUnit = false;
  for (const ch of token) {
    if (CHINESE_UNITS[ch] !== undefined) hasUnit = true;
    else if (CHINESE_DIGITS[ch] === undefined) return undefined;
  }
  if (!hasUnit) {
    // Digit by digit (一〇五); a lone 两 is 2, but 两 never starts a positional numeral of several digits.
    if (token.length > 1 && token.includes('两')) return undefined;
    let value = 0;
    for (const ch of token) value = value * 10 + CHINESE_DIGITS[ch]!;
    return value;
  }
  let total = 0;
  let digit: number | undefined;
  let lastUnit = Infinity;
  for (const ch of token) {
    const unit = CHINESE_UNITS[ch];
    if (unit === undefined) {
      if (digit !== undefined && digit !== 0) return undefined; // 二三十: two digits in a row
      digit = CHINESE_DIGITS[ch]!;
      continue;
    }
    if (unit >= lastUnit) return undefined; // 十百, 百百: units must fall
    let multiplier: number;
    if (digit === undefined) {
      if (total !== 0) return undefined; // 一百十: a unit without its digit after the start
      multiplier = 1; // 十一 = 11
    } else {
      multiplier = digit === 0 ? 1 : digit; // 一千零十 = 1010
    }
    total += multiplier * unit;
    lastUnit = unit;
    digit = undefined;
  }
  if (digit !== undefined) total += digit;
  return total;
}

const ROMAN = /^(?=[MDCLXVI])M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$/;
const ROMAN_VALUES: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };

/** `IV` 4, `xii` 12 (case-insensitive), `Ⅲ` 3 (the Unicode Roman numeral forms). Strictly formed only: `IIII` is not. */
export function parseRoman(token: string): number | undefined {
  const upper = romanForms(token).toUpperCase();
  if (!ROMAN.test(upper)) return undefined;
  let value = 0;
  for (let i = 0; i < upper.length; i++) {
    const v = ROMAN_VALUES[upper[i]!]!;
    const next = ROMAN_VALUES[upper[i + 1] ?? ''] ?? 0;
    value += v < next ? -v : v;
  }
  return value;
}

// Ⅰ-Ⅻ and ⅰ-ⅻ are single code points; spell them out.
const ROMAN_FORMS = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII'];
function romanForms(token: string): string {
  return token.replace(/[\u2160-\u216b\u2170-\u217b]/g, (ch) => {
    const code = ch.charCodeAt(0);
    return ROMAN_FORMS[code >= 0x2170 ? code - 0x2170 : code - 0x2160]!;
  });
}
export const ROMAN_FORM_CHARS = '\u2160-\u216b\u2170-\u217b';

/** `A` 1 … `Z` 26, `Ｂ` 2 (full-width); one letter only. */
export function parseLetter(token: string): number | undefined {
  if (token.length !== 1) return undefined;
  let code = token.charCodeAt(0);
  if (code >= 0xff21 && code <= 0xff3a) code -= 0xff21 - 65;
  else if (code >= 0xff41 && code <= 0xff5a) code -= 0xff41 - 97;
  if (code >= 65 && code <= 90) return code - 64;
  if (code >= 97 && code <= 122) return code - 96;
  return undefined;
}

const CARDINALS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
const ORDINALS = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth', 'twentieth'];
const WORD_VALUES = new Map<string, number>([...CARDINALS.map((w, i) => [w, i] as const), ...ORDINALS.map((w, i) => [w, i] as const)]);

/** English number words and ordinals up to twenty (`four`, `fourth`), and `1st`, `2nd`, `4th`. */
export function parseEnglishWord(token: string): number | undefined {
  const lower = token.toLowerCase();
  const word = WORD_VALUES.get(lower);
  if (word !== undefined) return word;
  const suffixed = /^(\d+)(?:st|nd|rd|th)$/.exec(lower);
  return suffixed ? Number(suffixed[1]) : undefined;
}

/** Alternation of the English words (ordinals first, longest first, so `fourteenth` wins over `four`). */
export const ENGLISH_NUMBER_WORDS = [...ORDINALS, ...CARDINALS].sort((a, b) => b.length - a.length).join('|');
export const ENGLISH_ORDINAL_WORDS = [...ORDINALS].sort((a, b) => b.length - a.length).join('|');

/** The kinds of numeral a token may be read as. */
export type NumeralKind = 'arabic' | 'chinese' | 'roman' | 'letter' | 'word';

const PARSERS: Record<NumeralKind, (token: string) => number | undefined> = {
  arabic: parseArabic,
  chinese: parseChinese,
  roman: parseRoman,
  letter: parseLetter,
  word: parseEnglishWord,
};

/** The token's value read as the first of `kinds` that accepts it. */
export function parseNumeral(token: string, kinds: readonly NumeralKind[]): number | undefined {
  for (const kind of kinds) {
    const value = PARSERS[kind](token);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** `3.2`, `３．２`, `1.2.3` -> [3, 2], [3, 2], [1, 2, 3]. */
export function parseDotted(token: string): number[] | undefined {
  const parts = token.split(/[.．]/);
  const values: number[] = [];
  for (const part of parts) {
    const v = parseArabic(part);
    if (v === undefined) return undefined;
    values.push(v);
  }
  return values;
}

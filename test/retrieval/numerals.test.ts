import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArabic, parseChinese, parseDotted, parseEnglishWord, parseLetter, parseRoman } from '../../src/retrieval/numerals.js';

const DIGITS = '零一二三四五六七八九';

/** Standard Chinese reading of 1..9999 (十一, 二十, 一百零五, 一千零一十). */
function toChinese(n: number): string {
  if (n === 0) return '零';
  const units = ['', '十', '百', '千'];
  const digits = String(n).split('').map(Number);
  let out = '';
  let zero = false;
  digits.forEach((d, i) => {
    const unit = units[digits.length - 1 - i]!;
    if (d === 0) {
      zero = out !== '';
      return;
    }
    if (zero) out += '零';
    zero = false;
    out += (d === 1 && unit === '十' && out === '' ? '' : DIGITS[d]) + unit;
  });
  return out;
}

function toRoman(n: number): string {
  const table: [number, string][] = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];
  let out = '';
  for (const [v, s] of table) while (n >= v) (out += s), (n -= v);
  return out;
}

describe('numerals', () => {
  it('reads Chinese numerals', () => {
    expect(parseChinese('三')).toBe(3);
    expect(parseChinese('十')).toBe(10);
    expect(parseChinese('十一')).toBe(11);
    expect(parseChinese('二十')).toBe(20);
    expect(parseChinese('二十一')).toBe(21);
    expect(parseChinese('一百零五')).toBe(105);
    expect(parseChinese('一千零一十')).toBe(1010);
    expect(parseChinese('两')).toBe(2);
    expect(parseChinese('〇')).toBe(0);
    expect(parseChinese('零')).toBe(0);
    expect(parseChinese('一〇五')).toBe(105);
    expect(parseChinese('二〇一八')).toBe(2018);
    expect(parseChinese('拾贰')).toBe(12);
    expect(parseChinese('叁')).toBe(3);
  });

  it('refuses malformed Chinese numerals', () => {
    for (const bad of ['', '二三十', '十百', '百百', '一百十', '两两', '三个', 'abc']) expect(parseChinese(bad), bad).toBeUndefined();
  });

  it('reads every Chinese numeral it could be given (1..9999)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 9999 }), (n) => parseChinese(toChinese(n)) === n));
  });

  it('reads Roman numerals, strictly formed, any case, and the Unicode forms', () => {
    expect(parseRoman('IV')).toBe(4);
    expect(parseRoman('xii')).toBe(12);
    expect(parseRoman('MCMXCIV')).toBe(1994);
    expect(parseRoman('Ⅲ')).toBe(3);
    expect(parseRoman('ⅺ')).toBe(11);
    for (const bad of ['', 'IIII', 'VX', 'IC', 'ABC']) expect(parseRoman(bad), bad).toBeUndefined();
    fc.assert(fc.property(fc.integer({ min: 1, max: 3999 }), (n) => parseRoman(toRoman(n)) === n && parseRoman(toRoman(n).toLowerCase()) === n));
  });

  it('reads Arabic digits (full-width too), dotted paths, letters and English words', () => {
    expect(parseArabic('12')).toBe(12);
    expect(parseArabic('１２')).toBe(12);
    expect(parseArabic('1a')).toBeUndefined();
    expect(parseDotted('3.2')).toEqual([3, 2]);
    expect(parseDotted('３．２．１')).toEqual([3, 2, 1]);
    expect(parseDotted('3.')).toBeUndefined();
    expect(parseLetter('B')).toBe(2);
    expect(parseLetter('ｂ')).toBe(2);
    expect(parseLetter('BB')).toBeUndefined();
    expect(parseEnglishWord('fourth')).toBe(4);
    expect(parseEnglishWord('Twelve')).toBe(12);
    expect(parseEnglishWord('3rd')).toBe(3);
    expect(parseEnglishWord('forth')).toBeUndefined();
  });
});

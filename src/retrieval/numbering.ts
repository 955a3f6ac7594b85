import { ARABIC_DIGITS, CHINESE_NUMERAL_CHARS, ENGLISH_NUMBER_WORDS, parseDotted, parseNumeral, ROMAN_FORM_CHARS, type NumeralKind } from './numerals.js';

/**
 * The numbering a heading carries in its text: `第三章` (chapter 3), `（二）` (paren 2), `3.2`
 * (dotted [3, 2]), `Chapter 3`, `Part II`, `附件二`, `Appendix B`. Styles say what kind of numbering
 * it is, so a reference can prefer headings numbered the way it is written (`第二章` -> `第二章 …`
 * before `二、…`).
 */
export type NumberingStyle =
  /** 第三章, Chapter 3 */
  | 'chapter'
  /** 第二节 */
  | 'section'
  /** 第二部分, 第一篇, 第二编, Part II */
  | 'part'
  /** 第五条, Article 5 */
  | 'article'
  /** 第二款 */
  | 'clause'
  /** 第三项 */
  | 'item'
  /** 附件二, 附录A, Appendix B (values empty for a bare 附件 / Appendix) */
  | 'appendix'
  /** 一、 二、 */
  | 'cn-enum'
  /** （二） (二) ㈡ */
  | 'cn-paren'
  /** (1) （1） */
  | 'paren'
  /** 1. 3.2 1.2.3 2、 Section 3.2 */
  | 'dotted'
  /** II. IV、 */
  | 'roman'
  /** A. b) */
  | 'letter'
  /** ① ② */
  | 'circled';

export interface Numbering {
  style: NumberingStyle;
  /** The numbers: one for most styles, the path for dotted (`3.2` -> [3, 2]); empty for a bare appendix. */
  values: number[];
  /** The numbering as written, e.g. `第三章`, `（二）`, `3.2`, `Chapter 3`. */
  label: string;
  /** A one-letter Roman numeral (`C.`, `D.`) is also a letter: its value read as one (set by the outline from its siblings). */
  letterValue?: number;
}

const D = ARABIC_DIGITS;
const CN = CHINESE_NUMERAL_CHARS;
const NUMBER = `[${D}]+|[${CN}]+`;
const LATIN_NUMBER = `\\d+|[ivxlcdm]+|${ENGLISH_NUMBER_WORDS}`;

/** 第N<unit>: the unit says the style (shared with the query grammar). */
export const CHINESE_UNITS: Record<string, NumberingStyle> = {
  部分: 'part', 篇: 'part', 编: 'part', 卷: 'part', 册: 'part',
  章: 'chapter', 节: 'section', 小节: 'section', 条: 'article', 款: 'clause', 项: 'item',
};
export const CHINESE_UNIT_PATTERN = Object.keys(CHINESE_UNITS).sort((a, b) => b.length - a.length).join('|');
export const CHINESE_APPENDIX_WORDS = '附件|附录|附表|附图';

interface HeadingRule {
  /** Anchored at the start of the (trimmed) heading text; named groups `n` (and `unit`). */
  pattern: RegExp;
  style: NumberingStyle | ((groups: Record<string, string | undefined>) => NumberingStyle);
  kinds: readonly NumeralKind[];
  /** Dotted values allowed in `n`. */
  dotted?: boolean;
  /** Largest single value accepted (keeps years such as `2020 年度报告` out of dotted numbering). */
  max?: number;
}

const CJK_KINDS: NumeralKind[] = ['arabic', 'chinese'];
const LATIN_KINDS: NumeralKind[] = ['arabic', 'roman', 'word'];

// First rule that matches wins; the order puts the specific forms before the generic ones.
const HEADING_RULES: readonly HeadingRule[] = [
  { pattern: new RegExp(`^第\\s*(?<n>[${D}]+(?:[.．][${D}]+)+|${NUMBER})\\s*(?<unit>${CHINESE_UNIT_PATTERN})`, 'u'), style: (g) => CHINESE_UNITS[g.unit!]!, kinds: CJK_KINDS, dotted: true },
  { pattern: new RegExp(`^(?:${CHINESE_APPENDIX_WORDS})\\s*(?<n>${NUMBER}|[A-Za-zＡ-Ｚａ-ｚ](?![A-Za-z]))?`, 'u'), style: 'appendix', kinds: [...CJK_KINDS, 'letter'] },
  { pattern: new RegExp(`^(?:chapter|chap\\.)\\s*(?<n>${LATIN_NUMBER})\\b`, 'iu'), style: 'chapter', kinds: LATIN_KINDS },
  { pattern: new RegExp(`^part\\s+(?<n>${LATIN_NUMBER}|[A-Z])\\b`, 'iu'), style: 'part', kinds: [...LATIN_KINDS, 'letter'] },
  { pattern: new RegExp(`^(?:section|sect\\.|§)\\s*(?<n>\\d+(?:\\.\\d+)*)`, 'iu'), style: 'dotted', kinds: ['arabic'], dotted: true },
  { pattern: new RegExp(`^(?:appendix|annexe?)\\b(?:\\s+(?<n>\\d+\\b|[A-Z]\\b|[IVXLC]+\\b))?`, 'iu'), style: 'appendix', kinds: ['arabic', 'letter', 'roman'] },
  { pattern: new RegExp(`^(?:article|art\\.)\\s*(?<n>\\d+)`, 'iu'), style: 'article', kinds: ['arabic'] },
  { pattern: new RegExp(`^[（(]\\s*(?<n>[${CN}]+)\\s*[）)]`, 'u'), style: 'cn-paren', kinds: ['chinese'] },
  { pattern: /^(?<n>[\u3220-\u3229])/u, style: 'cn-paren', kinds: [] },
  { pattern: new RegExp(`^[（(]\\s*(?<n>[${D}]+)\\s*[）)]`, 'u'), style: 'paren', kinds: ['arabic'] },
  { pattern: new RegExp(`^(?<n>[${CN}]+)\\s*[、，,.．]`, 'u'), style: 'cn-enum', kinds: ['chinese'] },
  // 3.2 Title, 2.1硬件, 1.2.3. Title, 4、, 5) — a lone number needs a separator, and stays below 1000.
  { pattern: new RegExp(`^(?<n>[${D}]+(?:[.．][${D}]+)+)(?:[.．、)）]|\\s|(?=[^${D}.．]))`, 'u'), style: 'dotted', kinds: ['arabic'], dotted: true },
  { pattern: new RegExp(`^(?<n>[${D}]+)(?:[.．、)）]|\\s)`, 'u'), style: 'dotted', kinds: ['arabic'], max: 999 },
  { pattern: new RegExp(`^(?<n>[IVXLCDM]+|[ivxlcdm]+|[${ROMAN_FORM_CHARS}])[.．、)]`, 'u'), style: 'roman', kinds: ['roman'] },
  { pattern: /^(?<n>[A-Za-z])[.．)、]\s/u, style: 'letter', kinds: ['letter'] },
  { pattern: /^(?<n>[\u2460-\u2473])/u, style: 'circled', kinds: [] },
];

/** The numbering at the start of a heading's text, if it has one. */
export function parseHeadingNumbering(text: string): Numbering | undefined {
  const trimmed = text.trimStart();
  for (const rule of HEADING_RULES) {
    const match = rule.pattern.exec(trimmed);
    if (!match) continue;
    const groups = (match.groups ?? {}) as Record<string, string | undefined>;
    const n = groups.n;
    const style = typeof rule.style === 'function' ? rule.style(groups) : rule.style;
    let values: number[] | undefined;
    if (n === undefined) values = style === 'appendix' ? [] : undefined;
    else if (rule.kinds.length === 0) values = [symbolValue(n)];
    else if (rule.dotted && /[.．]/.test(n)) values = parseDotted(n);
    else {
      const value = parseNumeral(n, rule.kinds);
      values = value === undefined ? undefined : [value];
    }
    if (!values || (rule.max !== undefined && values[0]! > rule.max)) continue;
    const numbering: Numbering = { style, values, label: match[0].trim().replace(/[、，,.．]$/, '') || match[0].trim() };
    // `C.`, `Part D`: a one-letter Roman numeral may be a letter too (A, B, C, D …).
    if (n !== undefined && n.length === 1 && values[0] !== parseNumeral(n, ['letter'])) {
      const letter = parseNumeral(n, ['letter']);
      if (letter !== undefined && rule.kinds.includes('roman')) numbering.letterValue = letter;
    }
    return numbering;
  }
  return undefined;
}

/** ㈠ (U+3220) = 1 …, ① (U+2460) = 1 …. */
function symbolValue(ch: string): number {
  const code = ch.codePointAt(0)!;
  return code >= 0x3220 && code <= 0x3229 ? code - 0x321f : code - 0x245f;
}

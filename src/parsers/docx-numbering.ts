import { child, children, parseXmlTree, type XmlNode } from './xml.js';

/**
 * List numbering of a DOCX (`word/numbering.xml`): each `w:num` points to an `w:abstractNum` whose
 * levels give the format (decimal, bullet, lowerLetter...), the label template (`%1.%2.`) and the
 * start value. Counters live per abstract list, as in Word: two `w:num`s sharing an abstract list
 * continue one sequence unless a `w:lvlOverride/w:startOverride` restarts it; advancing a level
 * resets the deeper ones.
 */

export interface ListLabel {
  /** False for bullets and unnumbered levels. */
  ordered: boolean;
  /** Nesting depth, 0 for the top level. */
  depth: number;
  /** This level's counter value. */
  number: number;
  /** The rendered label, e.g. "3.", "1.2.", "(b)", "•". */
  label: string;
  /** True when the label is this level's number followed by '.' or ')' (renders as a plain numbered item). */
  simple: boolean;
}

interface Level {
  format: string;
  text: string;
  start: number;
  legal: boolean;
}

interface NumInstance {
  abstractId: string;
  /** Start overrides by level, applied the first time this instance is used. */
  overrides: Map<number, number>;
}

const MAX_LEVELS = 9;

export class DocxNumbering {
  private readonly abstracts = new Map<string, Level[]>();
  private readonly nums = new Map<string, NumInstance>();
  private readonly counters = new Map<string, number[]>();
  private readonly usedNums = new Set<string>();

  constructor(xml: string | undefined) {
    if (!xml) return;
    const root = parseXmlTree(xml);
    for (const abstract of children(root, 'w:abstractNum')) {
      const id = abstract.attributes['w:abstractNumId'];
      if (id !== undefined) this.abstracts.set(id, readLevels(abstract));
    }
    for (const num of children(root, 'w:num')) {
      const id = num.attributes['w:numId'];
      const abstractId = child(num, 'w:abstractNumId')?.attributes['w:val'];
      if (id === undefined || abstractId === undefined) continue;
      const overrides = new Map<number, number>();
      for (const override of children(num, 'w:lvlOverride')) {
        const level = Number.parseInt(override.attributes['w:ilvl'] ?? '', 10);
        const start = Number.parseInt(child(override, 'w:startOverride')?.attributes['w:val'] ?? '', 10);
        if (Number.isFinite(level) && Number.isFinite(start)) overrides.set(level, start);
      }
      this.nums.set(id, { abstractId, overrides });
    }
  }

  /** Advances the counter of (numId, level) and returns the item's label; undefined when numId is 0 or unknown. */
  next(numId: string, ilvl: number): ListLabel | undefined {
    const num = this.nums.get(numId);
    if (!num) return undefined;
    const levels = this.abstracts.get(num.abstractId);
    if (!levels) return undefined;
    const depth = Math.min(MAX_LEVELS - 1, Math.max(0, ilvl));
    const level = levels[depth] ?? { format: 'decimal', text: `%${depth + 1}.`, start: 1, legal: false };
    let counters = this.counters.get(num.abstractId);
    if (!counters) {
      counters = levels.map((l) => l.start - 1);
      while (counters.length < MAX_LEVELS) counters.push(0);
      this.counters.set(num.abstractId, counters);
    }
    if (!this.usedNums.has(numId)) {
      this.usedNums.add(numId);
      for (const [l, start] of num.overrides) if (l < MAX_LEVELS) counters[l] = start - 1;
    }
    counters[depth] = counters[depth]! + 1;
    for (let d = depth + 1; d < MAX_LEVELS; d++) counters[d] = (levels[d]?.start ?? 1) - 1;
    const ordered = level.format !== 'bullet' && level.format !== 'none';
    const label = ordered ? renderLabel(level, levels, counters) : level.format === 'bullet' ? '•' : '';
    const simple = ordered && level.format === 'decimal' && (level.text === `%${depth + 1}.` || level.text === `%${depth + 1})` || level.text === `%${depth + 1}`);
    return { ordered, depth, number: counters[depth]!, label, simple };
  }
}

function readLevels(abstract: XmlNode): Level[] {
  const levels: Level[] = [];
  for (const lvl of children(abstract, 'w:lvl')) {
    const index = Number.parseInt(lvl.attributes['w:ilvl'] ?? '', 10);
    if (!Number.isFinite(index) || index < 0 || index >= MAX_LEVELS) continue;
    const start = Number.parseInt(child(lvl, 'w:start')?.attributes['w:val'] ?? '1', 10);
    levels[index] = {
      format: child(lvl, 'w:numFmt')?.attributes['w:val'] ?? 'decimal',
      text: child(lvl, 'w:lvlText')?.attributes['w:val'] ?? '',
      start: Number.isFinite(start) ? start : 1,
      legal: child(lvl, 'w:isLgl') !== undefined,
    };
  }
  return levels;
}

const PLACEHOLDER = /%([1-9])/g;

function renderLabel(level: Level, levels: readonly (Level | undefined)[], counters: readonly number[]): string {
  return level.text.replace(PLACEHOLDER, (_, digit: string) => {
    const d = Number(digit) - 1;
    const format = level.legal ? 'decimal' : (levels[d]?.format ?? 'decimal');
    return formatNumber(counters[d] ?? 0, format);
  }).trim();
}

/** A counter in a Word number format; formats not listed fall back to decimal. */
export function formatNumber(n: number, format: string): string {
  switch (format) {
    case 'lowerLetter':
      return letters(n).toLowerCase();
    case 'upperLetter':
      return letters(n);
    case 'lowerRoman':
      return roman(n).toLowerCase();
    case 'upperRoman':
      return roman(n);
    case 'decimalZero':
      return n < 10 ? `0${n}` : String(n);
    case 'chineseCounting':
    case 'chineseCountingThousand':
    case 'ideographTraditional':
    case 'taiwaneseCounting':
    case 'taiwaneseCountingThousand':
    case 'japaneseCounting':
      return chinese(n);
    case 'none':
      return '';
    default:
      return String(n);
  }
}

/** A, B, ... Z, AA, BB, ... (Word repeats the letter rather than counting in base 26). */
function letters(n: number): string {
  if (n <= 0) return String(n);
  const letter = String.fromCharCode(65 + ((n - 1) % 26));
  return letter.repeat(Math.floor((n - 1) / 26) + 1);
}

const ROMAN: [number, string][] = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];

function roman(n: number): string {
  if (n <= 0 || n >= 4000) return String(n);
  let out = '';
  for (const [value, symbol] of ROMAN) {
    while (n >= value) {
      out += symbol;
      n -= value;
    }
  }
  return out;
}

const CHINESE_DIGITS = '〇一二三四五六七八九';

/** Chinese counting numerals for 1-9999 (一, 十, 十一, 二十, 一百零五...). */
function chinese(n: number): string {
  if (n <= 0 || n >= 10000) return String(n);
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
    // 十一, not 一十一, for 10-19.
    out += (d === 1 && unit === '十' && out === '' ? '' : CHINESE_DIGITS[d]!) + unit;
  });
  return out;
}

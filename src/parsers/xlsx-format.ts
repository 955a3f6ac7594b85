/**
 * Spreadsheet number formats (the ECMA-376 / Excel format-code language, also used by ODF's
 * converters): a number cell is rendered as the application displays it. Covered: General, fixed
 * decimals, thousands separators, percentages, scientific notation, literal text and currency
 * symbols, sections for negative and zero values, scale commas, and dates/times (y m d h s,
 * AM/PM, elapsed [h]/[m]/[s], fractions of a second) in the 1900 and 1904 date systems.
 * Locale-dependent built-in formats (14, 22: "short date") render as ISO 8601, the one reading
 * that is the same everywhere. Fractions (`# ?/?`) fall back to General.
 */

/** Built-in format ids (ECMA-376 Part 1, 18.8.30) that have a fixed code. */
const BUILTIN: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  5: '"$"#,##0_);("$"#,##0)',
  6: '"$"#,##0_);[Red]("$"#,##0)',
  7: '"$"#,##0.00_);("$"#,##0.00)',
  8: '"$"#,##0.00_);[Red]("$"#,##0.00)',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: 'General',
  13: 'General',
  14: 'yyyy-mm-dd',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'yyyy-mm-dd h:mm',
  27: 'yyyy-mm-dd',
  30: 'yyyy-mm-dd',
  36: 'yyyy-mm-dd',
  37: '#,##0_);(#,##0)',
  38: '#,##0_);[Red](#,##0)',
  39: '#,##0.00_);(#,##0.00)',
  40: '#,##0.00_);[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mm:ss.0',
  48: '##0.0E+0',
  49: '@',
  50: 'yyyy-mm-dd',
  57: 'yyyy-mm-dd',
  58: 'yyyy-mm-dd',
};

export function builtinFormat(id: number): string | undefined {
  return BUILTIN[id];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MS_PER_DAY = 86_400_000;
/** 1899-12-30: serial 0 in the 1900 system once the fictitious 1900-02-29 is accounted for. */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

type Token =
  | { t: 'lit'; v: string }
  | { t: 'date'; v: string }
  | { t: 'num'; v: string }
  | { t: 'text' };

interface Section {
  tokens: Token[];
  isDate: boolean;
  hasNumber: boolean;
  condition?: { op: string; value: number };
}

interface Compiled {
  sections: Section[];
  general: boolean;
}

const cache = new Map<string, Compiled>();

/** True when the format code shows a date or time (the cell's number is a serial date). */
export function isDateFormat(code: string): boolean {
  return compile(code).sections[0]?.isDate ?? false;
}

/** A number as the format code displays it. */
export function formatNumber(value: number, code: string, date1904 = false): string {
  if (!Number.isFinite(value)) return String(value);
  const compiled = compile(code);
  if (compiled.general) return formatGeneral(value);
  const section = pickSection(compiled.sections, value);
  if (!section) return formatGeneral(value);
  if (section.isDate) return formatDate(value, section, date1904) ?? formatGeneral(value);
  // Sections after the first print their own sign (a minus or parentheses), so they get |value|.
  return formatWithSection(section === compiled.sections[0] ? value : Math.abs(value), section);
}

/** A text cell through the format's text section (`@` stands for the text). */
export function formatText(text: string, code: string): string {
  const { sections } = compile(code);
  const section = sections[3] ?? sections.find((s) => s.tokens.some((t) => t.t === 'text'));
  if (!section) return text;
  return section.tokens.map((t) => (t.t === 'text' ? text : t.t === 'lit' ? t.v : '')).join('');
}

/** Excel's General: up to 11 significant digits, scientific for very large or small magnitudes. */
export function formatGeneral(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e11) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs >= 1e11 || abs < 1e-9)) {
    const [mantissa, exponent] = value.toExponential(5).split('e');
    const exp = Number(exponent);
    return `${trimZeros(mantissa!)}E${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const digits = abs >= 1 ? Math.floor(Math.log10(abs)) + 1 : 0;
  return trimZeros(value.toFixed(Math.max(0, Math.min(10, 10 - digits))));
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

function pickSection(sections: Section[], value: number): Section | undefined {
  const numeric = sections.filter((s) => !(s.tokens.some((t) => t.t === 'text') && !s.hasNumber && !s.isDate));
  if (numeric.some((s) => s.condition)) {
    for (const s of numeric) if (!s.condition || test(s.condition, value)) return s;
    return numeric[numeric.length - 1];
  }
  if (value < 0 && numeric.length >= 2) return numeric[1];
  if (value === 0 && numeric.length >= 3) return numeric[2];
  return numeric[0];
}

function test(condition: { op: string; value: number }, value: number): boolean {
  switch (condition.op) {
    case '>': return value > condition.value;
    case '>=': return value >= condition.value;
    case '<': return value < condition.value;
    case '<=': return value <= condition.value;
    case '=': return value === condition.value;
    case '<>': return value !== condition.value;
    default: return false;
  }
}

const CONDITION = /^\[(>=|<=|<>|>|<|=)(-?\d+(?:\.\d+)?)\]/;
const DATE_CHARS = /[ymdhsYMDHS]/;

function compile(code: string): Compiled {
  let compiled = cache.get(code);
  if (compiled) return compiled;
  const general = code.trim() === '' || /^general$/i.test(code.trim());
  compiled = { sections: general ? [] : splitSections(code).map(compileSection), general };
  if (cache.size > 2000) cache.clear();
  cache.set(code, compiled);
  return compiled;
}

function splitSections(code: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === '"') {
      const end = code.indexOf('"', i + 1);
      const stop = end < 0 ? code.length : end + 1;
      current += code.slice(i, stop);
      i = stop - 1;
    } else if (ch === '\\' && i + 1 < code.length) {
      current += code.slice(i, i + 2);
      i++;
    } else if (ch === ';') {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

function compileSection(source: string): Section {
  const tokens: Token[] = [];
  let isDate = false;
  let hasNumber = false;
  let condition: Section['condition'];
  let num = '';
  const flushNum = (): void => {
    if (num) tokens.push({ t: 'num', v: num });
    num = '';
  };
  const lit = (v: string): void => {
    flushNum();
    const last = tokens[tokens.length - 1];
    if (last?.t === 'lit') last.v += v;
    else tokens.push({ t: 'lit', v });
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '"') {
      const end = source.indexOf('"', i + 1);
      const stop = end < 0 ? source.length : end;
      lit(source.slice(i + 1, stop));
      i = stop;
    } else if (ch === '\\') {
      if (i + 1 < source.length) lit(source[++i]!);
    } else if (ch === '_') {
      // `_x`: space the width of x. Padding only; a trailing one would only add blanks.
      i++;
      lit(' ');
    } else if (ch === '*') {
      i++;
    } else if (ch === '[') {
      const end = source.indexOf(']', i);
      const inner = source.slice(i + 1, end < 0 ? source.length : end);
      const cond = CONDITION.exec(source.slice(i));
      if (cond) condition = { op: cond[1]!, value: Number(cond[2]) };
      else if (/^[hms]+$/i.test(inner)) {
        flushNum();
        tokens.push({ t: 'date', v: `[${inner.toLowerCase()}]` });
        isDate = true;
      } else if (inner.startsWith('$')) {
        // [$€-407]: a currency symbol with a locale; [$-409]: a locale only.
        const symbol = inner.slice(1).split('-')[0]!;
        if (symbol) lit(symbol);
      }
      i = end < 0 ? source.length : end;
    } else if (ch === '@') {
      flushNum();
      tokens.push({ t: 'text' });
    } else if (ch === '0' || ch === '#' || ch === '?' || ch === '.' || ch === ',' || ch === '%' || ((ch === 'E' || ch === 'e') && /[+-]/.test(source[i + 1] ?? ''))) {
      if (ch === '%') {
        flushNum();
        tokens.push({ t: 'num', v: '%' });
        continue;
      }
      if (ch === 'E' || ch === 'e') {
        num += 'E' + source[++i]!;
        continue;
      }
      // In a date format '.0' after seconds is a fraction of a second.
      if (ch === '.' && isDate && source[i + 1] === '0') {
        let j = i + 1;
        while (source[j] === '0') j++;
        flushNum();
        tokens.push({ t: 'date', v: source.slice(i, j) });
        i = j - 1;
        continue;
      }
      // A '.' or ',' outside a number is literal (e.g. "d.m.yyyy").
      if ((ch === '.' || ch === ',') && !num && !/[0#?]/.test(source[i + 1] ?? '')) {
        lit(ch);
        continue;
      }
      num += ch;
      hasNumber = true;
    } else if (DATE_CHARS.test(ch) || ((ch === 'A' || ch === 'a') && /^(am\/pm|a\/p)/i.test(source.slice(i)))) {
      flushNum();
      if (ch === 'A' || ch === 'a') {
        const m = /^(am\/pm|a\/p)/i.exec(source.slice(i))![0];
        tokens.push({ t: 'date', v: m.toLowerCase() });
        i += m.length - 1;
      } else {
        let j = i;
        while (j < source.length && source[j]!.toLowerCase() === ch.toLowerCase()) j++;
        tokens.push({ t: 'date', v: source.slice(i, j).toLowerCase() });
        i = j - 1;
      }
      isDate = true;
    } else if (ch === 'G' && /^general/i.test(source.slice(i))) {
      flushNum();
      tokens.push({ t: 'num', v: 'General' });
      hasNumber = true;
      i += 6;
    } else {
      lit(ch);
    }
  }
  flushNum();
  return { tokens, isDate: isDate && !hasNumber, hasNumber, ...(condition && { condition }) };
}

function formatWithSection(value: number, section: Section): string {
  const numTokens = section.tokens.filter((t) => t.t === 'num').map((t) => t.v);
  let scaled = value * 100 ** numTokens.filter((v) => v === '%').length;
  let pattern = numTokens.filter((v) => v !== '%').join('');
  // Commas right after the last integer digit placeholder scale by 1000 each ("#,##0," shows thousands).
  const scaleCommas = /,+$/.exec(pattern.split(/[.E]/i)[0]!);
  if (scaleCommas) {
    scaled /= 1000 ** scaleCommas[0].length;
    pattern = pattern.replace(/,+(?=[.E]|$)/i, '');
  }
  const rendered = pattern === '' || pattern === 'General' ? formatGeneral(Math.abs(scaled)) : renderDigits(Math.abs(scaled), pattern);
  const negative = scaled < 0 && /[1-9]/.test(rendered);
  let out = '';
  let placed = false;
  for (const token of section.tokens) {
    if (token.t === 'lit') out += token.v;
    else if (token.t === 'num') {
      if (token.v === '%') out += '%';
      else if (!placed) {
        out += rendered;
        placed = true;
      }
    }
  }
  return (negative ? '-' : '') + out.trim();
}

function renderDigits(value: number, pattern: string): string {
  const [mantissaPattern, exponentPattern] = pattern.split(/E[+-]/i);
  if (exponentPattern !== undefined) {
    const decimals = (mantissaPattern!.split('.')[1] ?? '').replace(/[^0#?]/g, '').length;
    const [m, e] = value.toExponential(decimals).split('e');
    const exp = Number(e);
    const width = Math.max(1, exponentPattern.replace(/[^0#?]/g, '').length);
    return `${m}E${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(width, '0')}`;
  }
  const [intPattern, fracPattern = ''] = mantissaPattern!.split('.');
  const fracDigits = fracPattern.replace(/[^0#?]/g, '');
  const minFrac = fracDigits.replace(/[#?]+$/, '').length;
  let fixed = value.toFixed(fracDigits.length);
  let [intPart, fracPart = ''] = fixed.split('.');
  while (fracPart.length > minFrac && fracPart.endsWith('0')) fracPart = fracPart.slice(0, -1);
  const minInt = intPattern!.replace(/[^0]/g, '').length;
  if (intPart === '0' && minInt === 0) intPart = '';
  intPart = intPart!.padStart(minInt, '0');
  if (intPattern!.includes(',')) intPart = intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  fixed = fracPart ? `${intPart}.${fracPart}` : fracDigits.length > 0 && pattern.includes('.') && minFrac === 0 ? `${intPart}.` : intPart;
  if (fixed.endsWith('.')) fixed = fixed.slice(0, -1);
  // "#" and "?" show nothing for a zero ("-"?? is an accounting dash).
  return fixed;
}

interface DateParts {
  year: number;
  month: number;
  day: number;
  weekday: number;
  hours: number;
  minutes: number;
  seconds: number;
  ms: number;
  serial: number;
}

/** A serial date's parts; serial 60 in the 1900 system is Excel's fictitious 1900-02-29. */
export function serialToParts(serial: number, date1904: boolean): DateParts | undefined {
  if (serial < 0 || serial > 2_958_465) return undefined;
  const whole = Math.floor(serial);
  const msOfDay = Math.round((serial - whole) * MS_PER_DAY);
  let year: number;
  let month: number;
  let day: number;
  let weekday: number;
  if (!date1904 && whole === 60) {
    [year, month, day, weekday] = [1900, 2, 29, 3];
  } else {
    const days = !date1904 && whole < 60 ? whole + 1 : whole;
    const date = new Date((date1904 ? EPOCH_1904 : EPOCH_1900) + days * MS_PER_DAY);
    [year, month, day, weekday] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCDay()];
  }
  return {
    year,
    month,
    day,
    weekday,
    hours: Math.floor(msOfDay / 3_600_000),
    minutes: Math.floor((msOfDay % 3_600_000) / 60_000),
    seconds: Math.floor((msOfDay % 60_000) / 1000),
    ms: msOfDay % 1000,
    serial,
  };
}

function formatDate(serial: number, section: Section, date1904: boolean): string | undefined {
  const tokens = section.tokens;
  const fraction = tokens.find((t) => t.t === 'date' && t.v.startsWith('.')) as { v: string } | undefined;
  // The time rounds to the shown precision (whole seconds unless fractions of a second are shown).
  const unitsPerDay = 86_400 * 10 ** (fraction ? fraction.v.length - 1 : 0);
  const rounded = Math.round(serial * unitsPerDay) / unitsPerDay;
  const parts = serialToParts(rounded, date1904);
  if (!parts) return undefined;
  const ampm = tokens.some((t) => t.t === 'date' && (t.v === 'am/pm' || t.v === 'a/p'));
  let out = '';
  tokens.forEach((token, i) => {
    if (token.t === 'lit') out += token.v;
    else if (token.t === 'date') out += dateToken(token.v, parts, ampm, isMinute(tokens, i));
  });
  return out.trim();
}

/** `m` means minutes right after an hour or right before a second, months otherwise. */
function isMinute(tokens: Token[], index: number): boolean {
  const v = (tokens[index] as { v: string }).v;
  if (v !== 'm' && v !== 'mm') return false;
  for (let i = index - 1; i >= 0; i--) {
    const t = tokens[i]!;
    if (t.t !== 'date') continue;
    if (t.v.startsWith('h') || t.v.startsWith('[h')) return true;
    break;
  }
  for (let i = index + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.t !== 'date') continue;
    return t.v.startsWith('s') || t.v.startsWith('[s');
  }
  return false;
}

function dateToken(v: string, p: DateParts, ampm: boolean, minute: boolean): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  switch (v) {
    case 'yy': return two(p.year % 100);
    case 'y': return two(p.year % 100);
    case 'm': return minute ? String(p.minutes) : String(p.month);
    case 'mm': return minute ? two(p.minutes) : two(p.month);
    case 'mmm': return MONTHS[p.month - 1]!.slice(0, 3);
    case 'mmmmm': return MONTHS[p.month - 1]![0]!;
    case 'd': return String(p.day);
    case 'dd': return two(p.day);
    case 'ddd': return DAYS[p.weekday]!.slice(0, 3);
    case 'h': return String(ampm ? ((p.hours + 11) % 12) + 1 : p.hours);
    case 'hh': return two(ampm ? ((p.hours + 11) % 12) + 1 : p.hours);
    case 's': return String(p.seconds);
    case 'ss': return two(p.seconds);
    case 'am/pm': return p.hours < 12 ? 'AM' : 'PM';
    case 'a/p': return p.hours < 12 ? 'A' : 'P';
    case '[h]': case '[hh]': return String(Math.floor(p.serial * 24));
    case '[m]': case '[mm]': return String(Math.floor(p.serial * 1440));
    case '[s]': case '[ss]': return String(Math.floor(p.serial * 86_400));
    default:
      if (v.startsWith('.')) return '.' + String(p.ms).padStart(3, '0').slice(0, v.length - 1);
      if (v.startsWith('y')) return String(p.year);
      if (v.startsWith('mmmm')) return MONTHS[p.month - 1]!;
      if (v.startsWith('d')) return DAYS[p.weekday]!;
      if (v.startsWith('h')) return two(p.hours);
      if (v.startsWith('s')) return two(p.seconds);
      if (v.startsWith('m')) return minute ? two(p.minutes) : two(p.month);
      return '';
  }
}

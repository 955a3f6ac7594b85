/**
 * Where the LaTeX equations are in a text: `$$...$$` (display) and `$...$` (inline), so chunkers can
 * keep each one whole. The rules are Pandoc's `tex_math_dollars`: an inline opening `$` has a
 * non-space character right after it, the closing `$` a non-space character right before it and no
 * digit right after it (so "$5 and $10" is not math); `\$` is a literal dollar; an equation never
 * runs across a blank line. One pass, linear in the text: the searches for closers only move forward.
 */

export interface MathSpan {
  start: number;
  end: number;
}

const DOLLAR = 36;
const BACKSLASH = 92;
const NEWLINE = 10;

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** A `$` at `i` that is not escaped by a backslash. */
function isDollar(text: string, i: number): boolean {
  if (text.charCodeAt(i) !== DOLLAR) return false;
  let backslashes = 0;
  for (let k = i - 1; k >= 0 && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
  return backslashes % 2 === 0;
}

/** The equation spans in `text[from, to)`, in order, never overlapping. */
export function mathSpans(text: string, from = 0, to = text.length): MathSpan[] {
  const spans: MathSpan[] = [];
  if (text.indexOf('$', from) < 0) return spans;
  // Forward-only searches: the first candidate at or after a position that only grows.
  let inlineCloser = from - 1;
  let displayCloser = from - 1;
  let blank = from - 1;
  const nextBlank = (at: number): number => {
    if (blank >= at) return blank;
    blank = at;
    for (; blank < to; blank++) {
      if (text.charCodeAt(blank) !== NEWLINE) continue;
      let k = blank + 1;
      while (k < to && text.charCodeAt(k) !== NEWLINE && isSpace(text.charCodeAt(k))) k++;
      if (k < to && text.charCodeAt(k) === NEWLINE) return blank;
    }
    return (blank = to);
  };
  const nextInlineCloser = (at: number): number => {
    if (inlineCloser >= at) return inlineCloser;
    for (inlineCloser = at; inlineCloser < to; inlineCloser++) {
      const c = inlineCloser;
      if (!isDollar(text, c)) continue;
      const before = text.charCodeAt(c - 1);
      const after = c + 1 < to ? text.charCodeAt(c + 1) : 32;
      if (!isSpace(before) && before !== DOLLAR && after !== DOLLAR && !isDigit(after)) return c;
    }
    return to;
  };
  const nextDisplayCloser = (at: number): number => {
    if (displayCloser >= at) return displayCloser;
    for (displayCloser = at; displayCloser + 1 < to; displayCloser++) {
      if (isDollar(text, displayCloser) && text.charCodeAt(displayCloser + 1) === DOLLAR) return displayCloser;
    }
    return (displayCloser = to);
  };
  let i = from;
  while (i < to) {
    const at = text.indexOf('$', i);
    if (at < 0 || at >= to) break;
    i = at;
    if (!isDollar(text, i)) {
      i++;
      continue;
    }
    const limit = nextBlank(i);
    if (i + 1 < to && text.charCodeAt(i + 1) === DOLLAR) {
      const close = nextDisplayCloser(i + 2);
      if (close < limit && close > i + 2) {
        spans.push({ start: i, end: close + 2 });
        i = close + 2;
      } else i += 2;
      continue;
    }
    const next = i + 1 < to ? text.charCodeAt(i + 1) : 32;
    if (isSpace(next)) {
      i++;
      continue;
    }
    const close = nextInlineCloser(i + 2);
    if (close < limit) {
      spans.push({ start: i, end: close + 1 });
      i = close + 1;
    } else i++;
  }
  return spans;
}

/** The equations of a text, with a lookup of the one a position falls strictly inside. */
export class MathIndex {
  readonly spans: MathSpan[];

  constructor(text: string, from = 0, to = text.length) {
    this.spans = mathSpans(text, from, to);
  }

  /** The span with `start < pos < end` (a cut at `pos` would split it), if any. */
  containing(pos: number): MathSpan | undefined {
    const spans = this.spans;
    let lo = 0;
    let hi = spans.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (spans[mid]!.end <= pos) lo = mid + 1;
      else hi = mid;
    }
    const span = spans[lo];
    return span && span.start < pos && pos < span.end ? span : undefined;
  }
}

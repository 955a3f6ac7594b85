/** Character classes layout decisions depend on (code-point ranges; no regex in hot loops). */

/** Han, kana, CJK punctuation and full-width forms: scripts written without spaces between words. Not Hangul. */
export function isCjk(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x3000 && code <= 0x30ff) ||
    (code >= 0xff00 && code <= 0xffef) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x20000 && code <= 0x2ffff)
  );
}

/** Hangul syllables and jamo: Korean, written with spaces between words. */
export function isHangul(code: number): boolean {
  return (code >= 0xac00 && code <= 0xd7af) || (code >= 0x1100 && code <= 0x11ff) || (code >= 0x3130 && code <= 0x318f);
}

/** Hebrew, Arabic, Syriac, Thaana, NKo and their presentation forms. */
export function isRtl(code: number): boolean {
  return (code >= 0x0590 && code <= 0x08ff) || (code >= 0xfb1d && code <= 0xfdff) || (code >= 0xfe70 && code <= 0xfeff);
}

export function isLowerLatin(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0xdf && code <= 0xff && code !== 0xf7);
}

/** Characters that end a sentence (Latin and CJK). */
export function isSentenceEnd(code: number): boolean {
  return code === 0x2e || code === 0x21 || code === 0x3f || code === 0x3002 || code === 0xff01 || code === 0xff1f || code === 0x3a || code === 0xff1a;
}

/** Last code point of a string. */
export function lastCode(text: string): number {
  if (text.length === 0) return 0;
  const c = text.charCodeAt(text.length - 1);
  if (c >= 0xdc00 && c <= 0xdfff && text.length > 1) return text.codePointAt(text.length - 2) ?? c;
  return c;
}

export function firstCode(text: string): number {
  return text.length === 0 ? 0 : (text.codePointAt(0) ?? 0);
}

/** CJK symbols and punctuation and full-width punctuation (`，` `、` `（`): never spaced from their neighbours. */
export function isWidePunctuation(code: number): boolean {
  return (code >= 0x3000 && code <= 0x303f) || (code >= 0xff01 && code <= 0xff0f) || (code >= 0xff1a && code <= 0xff20) || (code >= 0xff3b && code <= 0xff40) || (code >= 0xff5b && code <= 0xff65);
}

/** ‘ ’ “ ” and their low and reversed forms: Chinese text quotes with these, unspaced. */
export function isCurlyQuote(code: number): boolean {
  return code >= 0x2018 && code <= 0x201f;
}

/** ASCII letters, digits and the underscore: the characters of a Latin word, number or identifier. */
export function isWordChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

/**
 * Whether a space belongs between two adjacent pieces of text ending/starting with these code
 * points: not between CJK characters, not next to wide punctuation, not between a curly quote and
 * the CJK text it quotes.
 */
export function needsSpace(before: number, after: number): boolean {
  if (isCjk(before) && isCjk(after)) return false;
  // Korean spaces its words, punctuation included (`위 「법」`).
  if (isWidePunctuation(before)) return isHangul(after);
  if (isWidePunctuation(after)) return isHangul(before);
  return !((isCurlyQuote(before) && isCjk(after)) || (isCjk(before) && isCurlyQuote(after)));
}

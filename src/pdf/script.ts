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

/** Whether a space belongs between two adjacent pieces of text ending/starting with these code points. */
export function needsSpace(before: number, after: number): boolean {
  return !(isCjk(before) && isCjk(after));
}

import type { Line } from './lines.js';
import { firstCode, isLowerLatin, isWordChar, lastCode, needsSpace } from './script.js';

/**
 * Joins two pieces of running text: a Latin word broken with a hyphen at the line end is mended
 * (two letters, the last lowercase, + '-' at the end, lowercase at the next start: `exam-` + `ple`
 * -> `example`; `a d-` + `dimensional` keeps it); real
 * compounds broken after their hyphen before a capital or digit keep it, as do codes broken after
 * an unspaced en dash and words or URLs broken after a slash; otherwise a space where `needsSpace`
 * wants one (none between CJK, next to wide punctuation, or between curly quotes and CJK).
 */
export function joinText(before: string, after: string): string {
  if (!before) return after;
  if (!after) return before;
  const end = lastCode(before);
  const start = firstCode(after);
  if ((end === 0x2d || end === 0xad || end === 0x2010) && before.length >= 2 && isLowerLatin(before.charCodeAt(before.length - 2)) && isLowerLatin(start)) {
    // A single letter before a hyphen is no broken word (hyphenation leaves two or more): `a d-` + `dimensional`.
    if (end === 0xad || (before.length >= 3 && isLetter(before.charCodeAt(before.length - 3)))) return before.slice(0, -1) + after;
  }
  if (end === 0x2d || end === 0x2010) return before + after;
  // An en dash joining numbers or codes (`FAA–2020–` + `0686`, `1990–` + `2000`); a spaced one is punctuation.
  if (end === 0x2013 && before.length >= 2 && before.charCodeAt(before.length - 2) !== 0x20) return before + after;
  // Broken after a slash inside a word or URL (`and/` + `or`, `https://` + `host/path`).
  if (end === 0x2f && before.length >= 2 && isWordOrSlash(before.charCodeAt(before.length - 2))) return before + after;
  return needsSpace(end, start) ? `${before} ${after}` : before + after;
}

/** A letter of any script (a code unit: a broken word's letters are Latin, Greek, Cyrillic...). */
function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7) || (code >= 0x370 && code <= 0x52f);
}

/** A Latin letter, digit or slash: what comes before a slash that breaks a word or URL across lines. */
function isWordOrSlash(code: number): boolean {
  return isWordChar(code) || code === 0x2f || code > 0x7f;
}

/**
 * Text of consecutive lines of a paragraph (or a table cell). A line of CJK text that fills the
 * measure at its natural advance was broken wherever the line was full, inside a Latin word or
 * number too (`端口 9` + `100、`): there the pieces join without a space.
 */
export function linesText(lines: readonly Line[]): string {
  let right = -Infinity;
  let pairs = 0;
  let loose = 0;
  for (const line of lines) {
    right = Math.max(right, line.x1);
    pairs += line.cjkPairs ?? 0;
    loose += line.cjkLoose ?? 0;
  }
  // CJK set at its natural advance: the layout breaks lines by characters.
  const byCharacter = pairs >= MIN_CJK_PAIRS && loose <= TIGHT_SHARE * pairs;
  let text = '';
  let prev: Line | undefined;
  for (const line of lines) {
    const piece = line.text.trim();
    const wordBroken = byCharacter && prev !== undefined && prev.x1 >= right - FULL_LINE_EMS * prev.size && isWordChar(lastCode(text)) && isWordChar(firstCode(piece));
    text = wordBroken ? text + piece : joinText(text, piece);
    prev = line;
  }
  return text;
}

/** Adjacent CJK pairs a paragraph needs before its line breaks are read as breaks by character. */
const MIN_CJK_PAIRS = 3;
/** Share of set-apart CJK pairs up to which a paragraph counts as set at its natural advance. */
const TIGHT_SHARE = 0.1;
/**
 * How close (ems) to the paragraph's right edge a line broken by character ends: less than the
 * next character's width, at most a full-width one.
 */
const FULL_LINE_EMS = 1;

/** Lines of a code block, with indentation rebuilt from the left offsets in character widths. */
export function codeText(lines: readonly Line[]): string {
  const left = Math.min(...lines.map((l) => l.x0));
  const out: string[] = [];
  for (const line of lines) {
    const charWidth = line.chars > 0 ? Math.max(1, (line.x1 - line.x0) / Math.max(1, line.text.length)) : line.size * 0.6;
    const indent = Math.max(0, Math.round((line.x0 - left) / charWidth));
    out.push(' '.repeat(indent) + line.text);
  }
  return out.join('\n');
}

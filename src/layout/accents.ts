import { NEWLINE_BEFORE, ROTATED, SPACE_BEFORE, FILE_SPACE, type PageChars } from './chars.js';

/**
 * Accents a PDF draws as glyphs of their own over (or under) a letter: TeX's `\u{g}` in an old
 * font encoding sets a spacing breve U+02D8 and a `g` (`O˘guz`), other producers a combining mark
 * positioned over its letter. The accent is composed with the letter it sits on into one
 * character (NFC: `ğ`), in place, so runs, tables and everything after see `Oğuz`.
 */

/** Spacing accents and the combining marks they stand for. */
const SPACING_TO_COMBINING = new Map<number, number>([
  [0x60, 0x300], // ` grave
  [0xb4, 0x301], // ´ acute
  [0x2c6, 0x302], // ˆ circumflex
  [0x5e, 0x302], // ^
  [0x2dc, 0x303], // ˜ tilde
  [0x7e, 0x303], // ~
  [0xaf, 0x304], // ¯ macron
  [0x2c9, 0x304], // ˉ
  [0x2d8, 0x306], // ˘ breve
  [0x2d9, 0x307], // ˙ dot above
  [0xa8, 0x308], // ¨ diaeresis
  [0x2da, 0x30a], // ˚ ring above
  [0x2dd, 0x30b], // ˝ double acute
  [0x2c7, 0x30c], // ˇ caron
  [0xb8, 0x327], // ¸ cedilla
  [0x2db, 0x328], // ˛ ogonek
]);

/**
 * How far (content positions) from its accent the letter may come: producers draw the accent right
 * before the letter or after its word, and PDFium may put an accent drawn first after the word.
 */
const WINDOW = 24;

function combiningOf(code: number): number | undefined {
  if (code >= 0x300 && code <= 0x36f) return code;
  return SPACING_TO_COMBINING.get(code);
}

/** Letters an accent can sit on: Latin, Greek and Cyrillic (dotless i and j take the accent as i and j do). */
function isBaseLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7) || (code >= 0x370 && code <= 0x3ff) || (code >= 0x400 && code <= 0x4ff);
}

/**
 * Composes accents drawn apart with the letter under them; returns how many were composed. An
 * accent is composed when a letter within WINDOW content positions holds its centre inside the
 * middle 80% of its width and shares its line (boxes overlapping vertically, or the accent right
 * above or below), and the letter and mark compose into one code point; otherwise it stays as it
 * is. The characters are compacted in place (`count` shrinks).
 */
export function composeAccents(chars: PageChars): number {
  const { code, x0, y0, x1, y1, flags } = chars;
  let drop: Uint8Array | undefined;
  let composed = 0;
  for (let i = 0; i < chars.count; i++) {
    const mark = combiningOf(code[i]!);
    if (mark === undefined || flags[i]! & ROTATED) continue;
    const cx = (x0[i]! + x1[i]!) / 2;
    let base = -1;
    let best = Infinity;
    for (let j = Math.max(0, i - WINDOW); j <= Math.min(chars.count - 1, i + WINDOW); j++) {
      if (j === i || drop?.[j] || !isBaseLetter(code[j]!) || flags[j]! & ROTATED) continue;
      const w = x1[j]! - x0[j]!;
      if (cx < x0[j]! + 0.1 * w || cx > x1[j]! - 0.1 * w) continue;
      const h = y1[j]! - y0[j]!;
      if (y1[i]! < y0[j]! - 0.5 * h || y0[i]! > y1[j]! + 0.5 * h) continue;
      const distance = Math.abs(cx - (x0[j]! + x1[j]!) / 2);
      if (distance < best) ((best = distance), (base = j));
    }
    if (base < 0) continue;
    const letter = code[base] === 0x131 ? 0x69 : code[base] === 0x237 ? 0x6a : code[base]!;
    const nfc = String.fromCodePoint(letter, mark).normalize('NFC');
    if (nfc.length !== 1) continue;
    code[base] = nfc.codePointAt(0)!;
    // An accent drawn before its letter may carry the word's space; after the letter it carries none.
    if (base > i) flags[base]! |= flags[i]! & (SPACE_BEFORE | FILE_SPACE | NEWLINE_BEFORE);
    (drop ??= new Uint8Array(chars.count))[i] = 1;
    composed++;
  }
  if (drop) compact(chars, drop);
  return composed;
}

/** Removes the marked characters, keeping the others in order. */
function compact(chars: PageChars, drop: Uint8Array): void {
  const arrays = [chars.code, chars.x0, chars.y0, chars.x1, chars.y1, chars.size, chars.font, chars.flags, chars.dir, ...(chars.color ? [chars.color] : [])];
  let k = 0;
  for (let i = 0; i < chars.count; i++) {
    if (drop[i]) continue;
    if (k !== i) for (const a of arrays) a[k] = a[i]!;
    k++;
  }
  chars.count = k;
}

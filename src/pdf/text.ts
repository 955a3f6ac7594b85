import type { Line } from './lines.js';
import { firstCode, isCjk, isLowerLatin, lastCode } from './script.js';

/**
 * Joins two pieces of running text: a Latin word broken with a hyphen at the line end is mended
 * (lowercase + '-' at the end, lowercase at the next start: `exam-` + `ple` -> `example`); real
 * compounds broken after their hyphen before a capital or digit keep it; no space between CJK.
 */
export function joinText(before: string, after: string): string {
  if (!before) return after;
  if (!after) return before;
  const end = lastCode(before);
  const start = firstCode(after);
  if ((end === 0x2d || end === 0xad || end === 0x2010) && before.length >= 2 && isLowerLatin(before.charCodeAt(before.length - 2)) && isLowerLatin(start)) {
    return before.slice(0, -1) + after;
  }
  if (end === 0x2d || end === 0x2010) return before + after;
  if (isCjk(end) && isCjk(start)) return before + after;
  return `${before} ${after}`;
}

/** Text of consecutive lines of a paragraph. */
export function linesText(lines: readonly Line[]): string {
  let text = '';
  for (const line of lines) text = joinText(text, line.text.trim());
  return text;
}

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

/**
 * Qwen-Agent's own text rules, as Python applies them (specs/qwen-agent.md §2.4, §3.4, §3.5):
 * its sentence split, Python's `str.strip()` whitespace, Python's `len` (code points), and the
 * `clean_paragraph` regexes its PDF/PPTX/HTML parsers run.
 */

/** `re.split(r'\. |。', text)`: a period plus space, or a Chinese full stop; delimiters dropped. */
const SENTENCE_SPLIT = /\. |。/g;

export interface SentencePiece {
  text: string;
  /** UTF-16 offset of the piece in the split text. */
  start: number;
}

/** Python's `re.split(r'\. |。', text)` with each piece's offset (empty pieces kept, as Python keeps them). */
export function splitQwenSentences(text: string): SentencePiece[] {
  const pieces: SentencePiece[] = [];
  let from = 0;
  SENTENCE_SPLIT.lastIndex = 0;
  for (let m = SENTENCE_SPLIT.exec(text); m !== null; m = SENTENCE_SPLIT.exec(text)) {
    pieces.push({ text: text.slice(from, m.index), start: from });
    from = m.index + m[0].length;
  }
  pieces.push({ text: text.slice(from), start: from });
  return pieces;
}

/** Characters Python's `str.isspace()` accepts (what `str.strip()` removes); JS `trim()` differs (U+FEFF, U+001C-001F, U+0085). */
export function isPythonSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** Python `str.strip()` (no arguments). */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPythonSpace(text.charCodeAt(start))) start++;
  while (end > start && isPythonSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** True when Python's `text.strip()` is empty. */
export function isPythonBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isPythonSpace(text.charCodeAt(i))) return false;
  return true;
}

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
const HAS_SURROGATE = /[\uD800-\uDFFF]/;

/** Python `len(text)`: code points (a lone surrogate counts as one, as in Python). */
export function pythonLength(text: string): number {
  if (!HAS_SURROGATE.test(text)) return text.length;
  SURROGATE_PAIR.lastIndex = 0;
  let pairs = 0;
  while (SURROGATE_PAIR.exec(text) !== null) pairs++;
  return text.length - pairs;
}

// str_processing.py; Python's `\d` is any Unicode decimal digit.
const CID = /\(cid:\p{Nd}+\)/gu;
const HEX_RUN = /[0-9A-Fa-f]{21,}/g;
const PLACEHOLDER_RUN = /[.\- —。_*]{7,}/g;
const NEWLINE_RUN = /\n{3,}/g;

/** Qwen's `clean_paragraph` (rm_cid, rm_hexadecimal, rm_continuous_placeholders), for PDF/PPTX/HTML text. */
export function cleanQwenParagraph(text: string): string {
  return text.replace(CID, '').replace(HEX_RUN, '').replace(PLACEHOLDER_RUN, '\t').replace(NEWLINE_RUN, '\n\n');
}

import type { OcrBlock, OcrBox, OcrLine, OcrWord } from './types.js';
import { firstCode, lastCode, needsSpace } from '../layout/script.js';
import { joinText } from '../layout/text.js';

/** What Tesseract's TSV output holds for one page, before the engine and rotation are known. */
export interface TsvPage {
  width: number;
  height: number;
  blocks: OcrBlock[];
  confidence: number;
}

// Han, kana, Hangul syllables, CJK punctuation and full-width forms: no space is written between them.

/**
 * Parses `tesseract ... tsv` output (both engines produce it): levels 1 page, 2 block, 3 paragraph,
 * 4 line, 5 word, with left/top/width/height and confidence. Empty words (conf -1) are dropped.
 */
export function parseTsv(tsv: string): TsvPage {
  let width = 0;
  let height = 0;
  const blocks: OcrBlock[] = [];
  let block: OcrBlock | undefined;
  let line: OcrLine | undefined;
  let confSum = 0;
  let words = 0;
  let paragraphKey = '';
  let lineKey = '';
  for (const row of tsv.split('\n')) {
    if (row === '' || row.startsWith('level')) continue;
    const cols = row.split('\t');
    if (cols.length < 12) continue;
    const level = Number(cols[0]);
    const left = Number(cols[6]);
    const top = Number(cols[7]);
    const w = Number(cols[8]);
    const h = Number(cols[9]);
    if (level === 1) {
      width = w;
      height = h;
      continue;
    }
    if (level !== 5) continue;
    const text = cols.slice(11).join('\t').trim();
    const conf = Number(cols[10]);
    if (text === '' || conf < 0) continue;
    const blockNum = Number(cols[2]);
    const pKey = `${cols[1]}:${cols[2]}:${cols[3]}`;
    const lKey = `${pKey}:${cols[4]}`;
    if (pKey !== paragraphKey || !block) {
      block = { text: '', bbox: emptyBox(), lines: [], block: blockNum };
      blocks.push(block);
      paragraphKey = pKey;
      lineKey = '';
    }
    if (lKey !== lineKey || !line) {
      line = { text: '', bbox: emptyBox(), words: [], size: 0 };
      block.lines.push(line);
      lineKey = lKey;
    }
    const word: OcrWord = { text, bbox: { x0: left, y0: top, x1: left + w, y1: top + h }, conf };
    line.words.push(word);
    confSum += conf;
    words++;
  }
  for (const b of blocks) finishBlock(b);
  return { width, height, blocks, confidence: words ? confSum / words : 0 };
}

function emptyBox(): OcrBox {
  return { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
}

function grow(box: OcrBox, by: OcrBox): void {
  if (by.x0 < box.x0) box.x0 = by.x0;
  if (by.y0 < box.y0) box.y0 = by.y0;
  if (by.x1 > box.x1) box.x1 = by.x1;
  if (by.y1 > box.y1) box.y1 = by.y1;
}

function finishBlock(block: OcrBlock): void {
  for (const line of block.lines) {
    const heights: number[] = [];
    for (const word of line.words) {
      grow(line.bbox, word.bbox);
      heights.push(word.bbox.y1 - word.bbox.y0);
    }
    line.size = median(heights);
    line.text = joinWords(line.words.map((w) => w.text));
    grow(block.bbox, line.bbox);
  }
  block.text = joinLines(block.lines.map((l) => l.text));
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Joins tokens with spaces, except between two CJK characters (Tesseract splits CJK text into one
 * "word" per few characters) and next to wide punctuation; Korean keeps its word spaces.
 */
export function joinWords(tokens: readonly string[]): string {
  let out = '';
  for (const token of tokens) {
    if (out === '') out = token;
    else out += (needsSpace(lastCode(out), firstCode(token)) ? ' ' : '') + token;
  }
  return out;
}

/**
 * Joins a paragraph's lines by the rules the PDF text layer's lines are joined by (`joinText`):
 * "exam-" + "ple" -> "example", `and/` + `or` -> `and/or`, CJK lines without a space, others with one.
 */
export function joinLines(lines: readonly string[]): string {
  let out = '';
  for (const line of lines) out = joinText(out, line);
  return out;
}


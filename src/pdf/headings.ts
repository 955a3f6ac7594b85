import type { Block } from './blocks.js';

/**
 * Headings from the document's font statistics: the body size is the most common size by
 * character count; a heading is a short block, bigger or bolder than the body, not ending like a
 * sentence. Levels come from the rank of its style (size, then weight) among heading styles, and
 * from numbering depth (1. / 1.1 / 1.1.1, 第一章 / 第一节, Chapter 3, Appendix A) when present.
 */

export interface FontStats {
  bodySize: number;
  bodyBold: boolean;
  bodyMono: boolean;
}

export function fontStats(blocks: Iterable<Block>): FontStats {
  const bySize = new Map<number, number>();
  let boldAtBody = 0;
  let monoAtBody = 0;
  let allAtBody = 0;
  const all: Block[] = [];
  for (const block of blocks) {
    all.push(block);
    for (const line of block.lines) {
      const key = Math.round(line.size * 2) / 2;
      bySize.set(key, (bySize.get(key) ?? 0) + line.chars);
    }
  }
  let bodySize = 10;
  let best = -1;
  for (const [size, count] of bySize) if (count > best) ((best = count), (bodySize = size));
  for (const block of all) {
    for (const line of block.lines) {
      if (Math.abs(line.size - bodySize) > 0.5) continue;
      allAtBody += line.chars;
      if (line.bold) boldAtBody += line.chars;
      if (line.mono) monoAtBody += line.chars;
    }
  }
  return { bodySize, bodyBold: boldAtBody * 2 > allAtBody, bodyMono: monoAtBody * 2 > allAtBody };
}

const NUMBERED = /^(?:(\d{1,2}(?:\.\d{1,2}){0,4})\.?|([A-Z])\.(\d{1,2}(?:\.\d{1,2}){0,3}))\s+\S/;
const WORD_NUMBERED = /^(?:chapter|part|section|appendix|annex|第[一二三四五六七八九十百\d]+[章部篇])\s*[\dA-Z一二三四五六七八九十]*/i;
const CJK_SECTION = /^第[一二三四五六七八九十百\d]+[节節条]/;
const CJK_ENUM = /^[一二三四五六七八九十]+[、．.]/;
const CJK_PAREN_ENUM = /^[（(][一二三四五六七八九十]+[)）]/;
const SENTENCE_END = /[.;,。；，]$/;

/** Numbering depth of a heading text (1 for "3", "Chapter 3", "第一章"; 2 for "3.1", "第一节"), 0 when unnumbered. */
export function numberingDepth(text: string): number {
  const t = text.trim();
  const m = NUMBERED.exec(t);
  if (m) return m[1] ? m[1].split('.').length : 1 + (m[3]?.split('.').length ?? 0);
  if (WORD_NUMBERED.test(t) || CJK_ENUM.test(t)) return 1;
  if (CJK_SECTION.test(t) || CJK_PAREN_ENUM.test(t)) return 2;
  return 0;
}

export interface HeadingStyle {
  size: number;
  bold: boolean;
}

/** Whether a block reads as a heading under the document's font statistics. */
export function headingStyle(block: Block, stats: FontStats): HeadingStyle | undefined {
  if (block.lines.length > 3) return undefined;
  const text = block.lines.map((l) => l.text).join(' ').trim();
  if (text.length === 0 || text.length > 160 || SENTENCE_END.test(text)) return undefined;
  if (!/\p{L}/u.test(text)) return undefined;
  const first = block.lines[0]!;
  // Median line size: OCR line heights vary with ascenders and descenders.
  const sizes = block.lines.map((l) => l.size).sort((a, b) => a - b);
  const size = sizes.length === 2 ? Math.max(sizes[0]!, sizes[1]!) : sizes[sizes.length >> 1]!;
  const bold = block.lines.every((l) => l.bold);
  const bigger = size >= stats.bodySize * 1.12;
  const bolder = bold && !stats.bodyBold && size >= stats.bodySize * 0.9;
  const numbered = numberingDepth(text) > 0 && (bold || size > stats.bodySize * 1.04);
  if (!bigger && !bolder && !numbered) return undefined;
  // Long multi-line bold text is an emphasised paragraph.
  if (!bigger && text.length > 100) return undefined;
  if (first.mono) return undefined;
  return { size: Math.round(size * 2) / 2, bold };
}

/** Ranks heading styles: larger first, bold before regular at the same size. */
export function styleLevels(styles: Iterable<HeadingStyle>): Map<string, number> {
  const unique = new Map<string, HeadingStyle>();
  for (const s of styles) unique.set(styleKey(s), s);
  const sorted = [...unique.values()].sort((a, b) => b.size - a.size || Number(b.bold) - Number(a.bold));
  const levels = new Map<string, number>();
  sorted.forEach((s, i) => levels.set(styleKey(s), Math.min(6, i + 1)));
  return levels;
}

export function styleKey(s: HeadingStyle): string {
  return `${s.size}|${s.bold ? 'b' : 'r'}`;
}

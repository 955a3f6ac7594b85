import type { Block } from './blocks.js';
import { colorsDiffer } from './lines.js';

/**
 * Headings from the document's font statistics: the body size is the most common size by
 * character count; a heading is a short block, bigger or bolder than the body, not ending like a
 * sentence. Levels come from the rank of its style (size, then weight) among heading styles, and
 * from numbering depth (1. / 1.1 / 1.1.1, 第一章 / 第一节, Chapter 3, Appendix A) when present.
 * A colour other than the body text's counts like bold where it marks headings: on numbered
 * headings, or when the document sets headings in large type in that colour (a Word theme's blue
 * headings, whose body-size level differs from the body by colour alone).
 */

export interface FontStats {
  bodySize: number;
  bodyBold: boolean;
  bodyMono: boolean;
  /** Colour of most body-size text (0xRRGGBB); undefined when the text has no colour (OCR). */
  bodyColor?: number;
  /** Colours of text set in heading type (large, short blocks), other than the body colour. */
  headingColors: Set<number>;
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
  // Weighted majority vote for the body colour.
  let bodyColor: number | undefined;
  let colorVotes = 0;
  for (const block of all) {
    for (const line of block.lines) {
      if (Math.abs(line.size - bodySize) > 0.5) continue;
      allAtBody += line.chars;
      if (line.bold) boldAtBody += line.chars;
      if (line.mono) monoAtBody += line.chars;
      if (line.color === undefined) continue;
      if (line.color === bodyColor) colorVotes += line.chars;
      else if (colorVotes >= line.chars) colorVotes -= line.chars;
      else ((bodyColor = line.color), (colorVotes = line.chars - colorVotes));
    }
  }
  const headingColors = new Set<number>();
  for (const block of all) {
    if (block.lines.length > 3) continue;
    for (const line of block.lines) {
      if (line.size >= bodySize * BIGGER && line.color !== undefined && colorsDiffer(line.color, bodyColor)) headingColors.add(line.color);
    }
  }
  return { bodySize, bodyBold: boldAtBody * 2 > allAtBody, bodyMono: monoAtBody * 2 > allAtBody, ...(bodyColor !== undefined && { bodyColor }), headingColors };
}

/** A heading by size alone is at least this much larger than the body text. */
const BIGGER = 1.12;

const NUMBERED = /^(?:(\d{1,2}(?:\.\d{1,2}){0,4})\.?|([A-Z])\.(\d{1,2}(?:\.\d{1,2}){0,3}))\s+\S/;
const WORD_NUMBERED = /^(?:chapter|part|section|appendix|annex|第[一二三四五六七八九十百\d]+[章部篇])\s*[\dA-Z一二三四五六七八九十]*/i;
const CJK_SECTION = /^第[一二三四五六七八九十百\d]+[节節条]/;
const CJK_ENUM = /^[一二三四五六七八九十]+[、．.]/;
const CJK_PAREN_ENUM = /^[（(][一二三四五六七八九十]+[)）]/;
const SENTENCE_END = /[.;,。；，]$/;
/**
 * A sentence ending inside the text and another of three words or more after it ("… rules. The
 * rules apply …"): running prose, not a title ("Chapter 1. Scope" ends a number, "Aircraft Ltd.
 * Airplanes" an abbreviation).
 */
const INNER_SENTENCE_END = /(?:\p{Ll}{2}|\p{Lo})[.!?]\s+[\p{Lu}\p{Lo}]\S*(?:\s+\S+){2}|[。！？]\s*\S{2}/u;
const NUMBERING_PREFIX = /^(?:\(?\d{1,2}(?:\.\d{1,2}){0,4}[.)]?|[A-Z][.)]|(?:chapter|part|section|appendix|annex)\s+[\dA-Z]+\.?)\s+/i;

/** Numbering depth of a heading text (1 for "3", "Chapter 3", "第一章"; 2 for "3.1", "第一节"), 0 when unnumbered. */
export function numberingDepth(text: string): number {
  const t = text.trim();
  const m = NUMBERED.exec(t);
  if (m) return m[1] ? m[1].split('.').length : 1 + (m[3]?.split('.').length ?? 0);
  if (WORD_NUMBERED.test(t) || CJK_ENUM.test(t)) return 1;
  if (CJK_SECTION.test(t) || CJK_PAREN_ENUM.test(t)) return 2;
  return 0;
}

/**
 * Whether a text can be a heading's words: after its numbering, at least two letters (one Han or
 * Hangul character carries a word) and more letters than digits. Figure labels ("T"), issue
 * numbers ("제1695호", "No. 1695") and dates are not titles.
 */
export function isLabelText(text: string): boolean {
  const rest = text.replace(NUMBERING_PREFIX, '');
  // A bare label ("Chapter 3", "Appendix A") keeps its own letters.
  if (rest.trim().length === 0) return LETTER.test(text);
  let letters = 0;
  let wide = 0;
  let digits = 0;
  for (const ch of rest) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x30 && code <= 0x39) digits++;
    else if (isWideLetter(code)) ((letters++), wide++);
    else if (LETTER.test(ch)) letters++;
  }
  return letters + wide >= 2 && letters > digits;
}

const LETTER = /\p{L}/u;

/** Han and Hangul syllables: one character is a word or a syllable of one. */
function isWideLetter(code: number): boolean {
  return (code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3400 && code <= 0x4dbf) || (code >= 0xac00 && code <= 0xd7a3) || (code >= 0x20000 && code <= 0x2ffff);
}

const BARE_LABEL = /^(?:(?:chapter|part|section|appendix|annex|book|unit|lesson)\s+(?:\d{1,3}|[A-Z]|[IVXLC]{1,6})\.?|第[一二三四五六七八九十百\d]+[章部篇节])$/i;

/** A heading that is only a chapter or part label ("Chapter 3", "PART IV", "第一章"), its title set apart. */
export function isBareLabel(text: string): boolean {
  return BARE_LABEL.test(text.trim());
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
  if (!isLabelText(text) || INNER_SENTENCE_END.test(text)) return undefined;
  const first = block.lines[0]!;
  // Median line size: OCR line heights vary with ascenders and descenders.
  const sizes = block.lines.map((l) => l.size).sort((a, b) => a - b);
  const size = sizes.length === 2 ? Math.max(sizes[0]!, sizes[1]!) : sizes[sizes.length >> 1]!;
  const numberedText = numberingDepth(text) > 0;
  const bold = block.lines.every((l) => l.bold || (colorsDiffer(l.color, stats.bodyColor) && (numberedText || stats.headingColors.has(l.color!))));
  const bigger = size >= stats.bodySize * BIGGER;
  const bolder = bold && !stats.bodyBold && size >= stats.bodySize * 0.9;
  const numbered = numberedText && (bold || size > stats.bodySize * 1.04);
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

/** One body item in reading order as the context rules see it: a block, or a table (no block). */
export interface FlowItem {
  page: number;
  block?: Block;
  /** Characters (without spaces) of the item's text. */
  chars: number;
}

/** A heading followed at once by a heading this much larger is a label above a title (a kicker). */
const KICKER_RATIO = 1.15;
/** ...set right above it: at most this many of its own ems between them. */
const KICKER_GAP_EMS = 1;

/**
 * Removes heading candidates that their surroundings show to be something else: the blurbs, names
 * and logos of a cover page, a label set above a larger title, the byline under a title. Numbered
 * headings always stay. Mutates `styles`.
 */
export function demoteInContext(flow: readonly FlowItem[], styles: Map<Block, HeadingStyle>): void {
  demoteOnDisplayPages(flow, styles);
  demoteKickers(flow, styles);
  demoteBylines(flow, styles);
}

function blockChars(block: Block): number {
  let n = 0;
  for (const line of block.lines) n += line.chars;
  return n;
}

function blockText(block: Block): string {
  return block.lines.map((l) => l.text).join(' ').trim();
}

/**
 * A display page (cover, back cover, title page) sets most of its text in large type: blurbs,
 * author names, series logos all read as headings by size. Only its most prominent text (by ink:
 * size squared times characters) is a heading there; the rest is text.
 */
function demoteOnDisplayPages(flow: readonly FlowItem[], styles: Map<Block, HeadingStyle>): void {
  let start = 0;
  while (start < flow.length) {
    const page = flow[start]!.page;
    let end = start;
    let headingChars = 0;
    let otherChars = 0;
    const candidates: Block[] = [];
    for (; end < flow.length && flow[end]!.page === page; end++) {
      const { block, chars } = flow[end]!;
      if (block && styles.has(block)) {
        headingChars += chars;
        candidates.push(block);
      } else otherChars += chars;
    }
    start = end;
    if (candidates.length < 3 || headingChars <= otherChars) continue;
    let keep = candidates[0]!;
    let best = -1;
    for (const block of candidates) {
      const ink = styles.get(block)!.size ** 2 * blockChars(block);
      if (ink > best) ((best = ink), (keep = block));
    }
    for (const block of candidates) if (block !== keep && numberingDepth(blockText(block)) === 0) styles.delete(block);
  }
}

/**
 * "Front cover", a journal name or a series label set just above a clearly larger title (at most a
 * line of its own size between them) is not a heading of its own.
 */
function demoteKickers(flow: readonly FlowItem[], styles: Map<Block, HeadingStyle>): void {
  for (let i = 0; i + 1 < flow.length; i++) {
    const block = flow[i]!.block;
    const next = flow[i + 1]!;
    const style = block && styles.get(block);
    const nextStyle = next.block && styles.get(next.block);
    if (!style || !nextStyle || next.page !== flow[i]!.page || next.block!.y0 - block.y1 > KICKER_GAP_EMS * style.size) continue;
    if (nextStyle.size >= style.size * KICKER_RATIO && numberingDepth(blockText(block)) === 0) styles.delete(block);
  }
}

// Person names: capitalised words (with initials) in Latin script, or 2-4 Han/Hangul syllables (often
// letter-spaced). Matched on text with single spaces, so every split is unambiguous (no backtracking blow-up).
const LATIN_NAME = String.raw`\p{Lu}[\p{Ll}'’\-]*\.?(?: \p{Lu}[\p{Ll}'’\-]*\.?){1,3}`;
const WIDE_NAME = String.raw`[\p{sc=Hangul}\p{sc=Han}](?: ?[\p{sc=Hangul}\p{sc=Han}]){1,3}`;
/** Affiliation or footnote marks after a name: *, †, superscript or plain digits. */
const NAME_MARK = String.raw`(?: ?[*†‡§¶]+|\d{1,2}(?:,\d{1,2})*|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)`;
const NAME_SEPARATOR = String.raw`(?: ?[,;&、·] ?| and )`;
const NAME = `(?:${LATIN_NAME}|${WIDE_NAME})${NAME_MARK}?`;
const BYLINE = new RegExp(`^(?:[Bb]y )?${NAME}(?:${NAME_SEPARATOR}${NAME})*$`, 'u');
const MULTIPLE_SPACES = /\s+/g;

/**
 * Whether a line lists people: names only, with an affiliation or footnote mark ("김 창 호*",
 * "Jane Doe¹") or names in a list ("A. Smith, B. Jones and C. Wu"). A lone unmarked name is not
 * enough: two capitalised words are also a title.
 */
export function isByline(text: string): boolean {
  const t = text.trim().replace(MULTIPLE_SPACES, ' ');
  if (!BYLINE.test(t)) return false;
  return t.startsWith('By ') || t.startsWith('by ') || NAME_MARK_OR_SEPARATOR.test(t);
}

/** A mark after a name, or a list separator ("and" alone joins words in titles too: "Data Collection and Data Analysis"). */
const NAME_MARK_OR_SEPARATOR = new RegExp(`${NAME_MARK}(?=$|${NAME_SEPARATOR})| ?[,;、·] ?`, 'u');

/** The lines under a heading that name its authors are a byline, not sub-headings. */
function demoteBylines(flow: readonly FlowItem[], styles: Map<Block, HeadingStyle>): void {
  for (let i = 0; i + 1 < flow.length; i++) {
    const title = flow[i]!.block;
    const titleStyle = title && styles.get(title);
    if (!titleStyle) continue;
    for (let j = i + 1; j < flow.length && j <= i + 3 && flow[j]!.page === flow[i]!.page; j++) {
      const block = flow[j]!.block;
      const style = block && styles.get(block);
      if (!block || !style || style.size > titleStyle.size || !block.lines.every((l) => isByline(l.text))) break;
      styles.delete(block);
    }
  }
}

import { colorsDiffer, type Line } from './lines.js';

/** Consecutive lines of one paragraph-like unit on one page, in reading order. */
export interface Block {
  lines: Line[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** 0-based page index. */
  page: number;
}

/** Bullets and numbers that open a list item: •, -, ◦, (1), 1), a), i., 1. */
export const LIST_MARKER = /^(?:[•◦▪▫●○■□‣⁃∙·\-–*]\s+|\(?(?:\d{1,3}|[a-z]|[ivxlc]{1,6})\)\s+|(?:\d{1,3}|[a-z])\.\s+(?=\S))/;

/**
 * Groups reading-ordered lines into blocks by spacing, font and colour changes, indentation and list
 * markers. `spacing` is the page's line spacing after wrapped lines (see `wrapSpacing`).
 */
export function buildBlocks(lines: readonly Line[], page: number, pageHeight: number, spacing?: WrapSpacing): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let gapSum = 0;
  let gapCount = 0;
  const mainColor = mostCommonColor(lines);
  for (const line of lines) {
    if (
      current &&
      edgeBand(current.lines[current.lines.length - 1]!, pageHeight) === edgeBand(line, pageHeight) &&
      (continuesBlock(current, line, gapCount > 0 ? gapSum / gapCount : undefined, mainColor) || (spacing !== undefined && wrapsOn(current, line, spacing, mainColor)))
    ) {
      const prev = current.lines[current.lines.length - 1]!;
      gapSum += line.y0 - prev.y1;
      gapCount++;
      current.lines.push(line);
      current.x0 = Math.min(current.x0, line.x0);
      current.x1 = Math.max(current.x1, line.x1);
      current.y1 = Math.max(current.y1, line.y1);
      continue;
    }
    current = { lines: [line], x0: line.x0, y0: line.y0, x1: line.x1, y1: line.y1, page };
    gapSum = 0;
    gapCount = 0;
    blocks.push(current);
  }
  return blocks;
}

/** Lines whose left edges agree within this many points share a measure (a column's text width). */
const EDGE_STEP = 3;
/** Wrapped lines a page needs before its usual gap after them counts. */
const MIN_WRAPS = 3;
/** Gap (ems) after wrapped lines from which a page's text counts as widely spaced (1.5x, double). */
const WIDE_SPACING_EMS = 0.6;

/**
 * Right edge of the text measure for each left edge (rounded): where a line that wrapped ends, the
 * rightmost end of the lines starting there (a line running past the measure only makes the others
 * look short: fewer joins, never more).
 */
function measureEdges(lines: readonly Line[]): Map<number, number> {
  const edges = new Map<number, number>();
  for (const line of lines) {
    const key = Math.round(line.x0 / EDGE_STEP);
    const edge = edges.get(key);
    if (edge === undefined || line.x1 > edge) edges.set(key, line.x1);
  }
  return edges;
}

/** Narrowest measure (ems) whose lines wrap: shorter lines at one left edge are a list, labels, a poem's verses. */
const MIN_MEASURE_EMS = 15;

/** The line runs to the right edge of a measure wide enough for running text: it wrapped. */
function wrapped(line: Line, edges: Map<number, number>): boolean {
  const edge = edges.get(Math.round(line.x0 / EDGE_STEP));
  return edge !== undefined && edge - line.x0 >= MIN_MEASURE_EMS * line.size && line.x1 >= edge - 2 * line.size;
}

/** A page's line spacing after wrapped lines: the usual gap (points), and its measures' right edges. */
export interface WrapSpacing {
  gap: number;
  edges: Map<number, number>;
}

/**
 * The page's usual gap (points) between a line that runs to its measure's right edge (it wrapped)
 * and the line after it: the line spacing of its paragraphs. Double-spaced text (filings, theses,
 * Chinese documents set at 2x) has gaps of a line height or more inside paragraphs; undefined when
 * the page has too few wide gaps or too few lines wrapped to tell.
 */
export function wrapSpacing(lines: readonly Line[]): WrapSpacing | undefined {
  // Most pages are set at single spacing: too few wide gaps for a wide median, nothing to measure.
  let wide = 0;
  for (let i = 0; i + 1 < lines.length; i++) if (lines[i + 1]!.y0 - lines[i]!.y1 > WIDE_SPACING_EMS * lines[i]!.size) wide++;
  if (wide < MIN_WRAPS) return undefined;
  const edges = measureEdges(lines);
  const gaps: number[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1]!;
    const gap = next.y0 - line.y1;
    // Loose boxes of tightly set lines overlap: negative gaps count (they keep the median honest).
    if (gap < -line.size || Math.abs(line.size - next.size) > 0.12 * line.size || Math.abs(line.x0 - next.x0) > 2 * line.size) continue;
    if (wrapped(line, edges)) gaps.push(gap);
  }
  if (gaps.length < MIN_WRAPS) return undefined;
  gaps.sort((a, b) => a - b);
  return { gap: gaps[gaps.length >> 1]!, edges };
}

/**
 * A line after one that ran to the measure's edge, at no more than the page's usual gap after such
 * lines, in the same style: the paragraph goes on, however wide its line spacing.
 */
function wrapsOn(block: Block, next: Line, { gap: wrapGap, edges }: WrapSpacing, mainColor: number | undefined): boolean {
  const prev = block.lines[block.lines.length - 1]!;
  const em = Math.min(prev.size, next.size);
  const gap = next.y0 - prev.y1;
  // Only for widely spaced text: at single spacing the gap rules of `continuesBlock` decide.
  if (wrapGap <= WIDE_SPACING_EMS * em || gap < 0 || gap > wrapGap + 0.35 * em || !wrapped(prev, edges)) return false;
  if (Math.abs(prev.size - next.size) > 0.12 * em || prev.bold !== next.bold || prev.mono !== next.mono) return false;
  if (Math.abs(next.x0 - block.x0) > 0.3 * em || colorEnds(block, next, mainColor) || LIST_MARKER.test(next.text)) return false;
  return true;
}

/**
 * The line goes on from the block: near enough below it (the block's usual gap, else 0.7 em),
 * overlapping it, in the same type and colour, no list marker, no first-line indent, the block not
 * closed by a short line ending a sentence.
 */
export function continuesBlock(block: Block, next: Line, typicalGap?: number, mainColor?: number): boolean {
  const prev = block.lines[block.lines.length - 1]!;
  const em = Math.min(prev.size, next.size);
  const gap = next.y0 - prev.y1;
  if (gap < -0.5 * em) return false; // above the previous line: another column or a jump
  const overlapX = Math.min(prev.x1, next.x1) - Math.max(prev.x0, next.x0);
  if (overlapX < 0.3 * Math.min(prev.x1 - prev.x0, next.x1 - next.x0)) return false;
  if (gap > (typicalGap !== undefined ? typicalGap + 0.35 * em : 0.7 * em)) return false;
  if (Math.abs(prev.size - next.size) > 0.12 * em) return false;
  if (prev.bold !== next.bold || prev.mono !== next.mono) return false;
  if (colorEnds(block, next, mainColor)) return false;
  if (LIST_MARKER.test(next.text)) return false;
  // First-line indent opens a paragraph.
  const listItem = LIST_MARKER.test(block.lines[0]!.text);
  const centred = Math.abs(next.x0 + next.x1 - prev.x0 - prev.x1) < 2 * em && next.x1 < prev.x1 - 0.5 * em;
  if (!listItem && !centred && !flushRight(block, next, em) && next.x0 - block.x0 > 0.9 * em && prev.x0 - block.x0 < 0.3 * em && next.x1 >= block.x1 - 2 * em) {
    return false;
  }
  // A short line ending a sentence closes a paragraph in styles with no spacing and no indent.
  const width = block.x1 - block.x0;
  // A line of code ending in a colon opens a nested block (YAML, Python): it closes nothing.
  if (block.lines.length >= 2 && prev.x1 < block.x1 - 0.25 * width && /[.!?。！？:]$/.test(prev.text) && !(prev.mono && next.mono && prev.text.endsWith(':'))) return false;
  return true;
}

/**
 * A block set in a colour other than the main text's ends where text in another colour starts: a
 * heading set apart from the body by colour alone. Only the colour of whole lines counts (a link
 * inside a line leaves it without one), and a block of main text that reaches a wholly coloured
 * line (a URL on a line of its own) goes on. Syntax-highlighted code changes colour line by line.
 */
function colorEnds(block: Block, next: Line, mainColor: number | undefined): boolean {
  const prev = block.lines[block.lines.length - 1]!;
  if (prev.mono && next.mono) return false;
  if (!colorsDiffer(prev.color, next.color) || !colorsDiffer(prev.color, mainColor)) return false;
  return block.lines.every((l) => l.color === prev.color);
}

/** The colour of most characters among the lines (a weighted majority vote); undefined when none has one. */
function mostCommonColor(lines: readonly Line[]): number | undefined {
  let color: number | undefined;
  let votes = 0;
  for (const line of lines) {
    if (line.color === undefined) continue;
    if (line.color === color) votes += line.chars;
    else if (votes >= line.chars) votes -= line.chars;
    else ((color = line.color), (votes = line.chars - votes));
  }
  return color;
}

/** Narrow lines sharing their right edge (names, addresses set flush right): a ragged left edge is no indent. */
const FLUSH_RIGHT_MAX_EMS = 12;

function flushRight(block: Block, next: Line, em: number): boolean {
  if (Math.max(block.x1, next.x1) - Math.min(block.x0, next.x0) > FLUSH_RIGHT_MAX_EMS * em) return false;
  if (Math.abs(next.x1 - block.x1) > 0.3 * em) return false;
  return block.lines.every((l) => Math.abs(l.x1 - block.x1) <= 0.3 * em);
}

/**
 * The block after a margin band's last body line (or before its first), split from it only by the
 * band rule, once that line is known not to be a running header or footer: the first line of a page
 * set high up (`QA datasets, it also suffers …` over the rest of its paragraph). Undefined when
 * `next` does not go on from `block` by the rules blocks are built with.
 */
export function mergeAcrossBand(block: Block, next: Block, pageHeight: number): Block | undefined {
  const last = block.lines[block.lines.length - 1]!;
  const first = next.lines[0]!;
  if (edgeBand(last, pageHeight) === edgeBand(first, pageHeight) || !continuesBlock(block, first)) return undefined;
  return { lines: [...block.lines, ...next.lines], page: block.page, x0: Math.min(block.x0, next.x0), y0: Math.min(block.y0, next.y0), x1: Math.max(block.x1, next.x1), y1: Math.max(block.y1, next.y1) };
}

/** Top (1) or bottom (2) margin band of the page, else 0: running headers never merge with body lines. */
function edgeBand(line: Line, pageHeight: number): number {
  if (line.y1 <= 0.1 * pageHeight) return 1;
  if (line.y0 >= 0.92 * pageHeight) return 2;
  return 0;
}

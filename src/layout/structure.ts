import type { BBox, ElementDraft } from '../document/types.js';
import { continuesBlock, LIST_MARKER, mergeAcrossBand, type Block } from './blocks.js';
import { unturnBox } from './chars.js';
import { findFurniture } from './furniture.js';
import { demoteInContext, fontStats, headingStyle, isBareLabel, numberingDepth, styleKey, styleLevels, type FlowItem, type FontStats, type HeadingStyle } from './headings.js';
import type { PageItem, PageLayout } from './page.js';
import { firstCode, isCjk, isLowerLatin, lastCode } from './script.js';
import type { PageTable } from './table-cells.js';
import { codeText, joinText, linesText } from './text.js';

/**
 * Document-level structure over all analysed pages: furniture removed (kept as page-furniture
 * elements), headings from font statistics, lists, captions, footnotes, code, tables; paragraphs
 * joined across columns and pages, tables continued on the next page joined.
 */

const CAPTION = /^\[?(?:fig(?:ure)?\.?|table|tab\.|listing|algorithm|图|表|図|표|그림)\s*[\dA-Z]+(?:[.:：-]\d+)*\]?[.:：]?(?:\s|$)/i;
const FOOTNOTE_START = /^(?:\d{1,3}|[*∗†‡§¶]|\[\d+\])\s*\S/;
const OPEN_END = /[.!?。！？:：;；)"”’]$/;

export interface StructureResult {
  elements: ElementDraft[];
  warnings: string[];
  title?: string;
}

type Kind = 'heading' | 'paragraph' | 'list-item' | 'caption' | 'footnote' | 'code';

export function buildStructure(pages: readonly PageLayout[]): StructureResult {
  const furniture = findFurniture(pages);
  const bodyBlocks: Block[] = [];
  for (const page of pages) {
    page.items.forEach((item, i) => {
      if (item.type === 'block' && !furniture.items.has(`${page.index}:${i}`)) bodyBlocks.push(item.block);
    });
  }
  const stats = fontStats(bodyBlocks);
  const styles = new Map<Block, HeadingStyle>();
  const entries = pages.map((page) =>
    page.items.map((item, i): Entry => {
      const key = `${page.index}:${i}`;
      const isFurniture = furniture.items.has(key);
      if (item.type === 'block' && !isFurniture) {
        const style = headingStyle(item.block, stats);
        if (style && !isCaption(item.block) && !isFootnote(item.block, stats, page)) styles.set(item.block, style);
      }
      return { item, furniture: isFurniture };
    }),
  );
  entries.forEach((list, i) => mergeBandLines(list, styles, pages[i]!));
  entries.forEach((list) => attachSectionNumbers(list, styles));
  demoteInContext(flowOf(pages, entries), styles);
  entries.forEach((list) => joinLabelsToTitles(list, styles));
  const levelOf = headingLevels(styles);
  const title = mostProminentFirst(pages, entries, styles);
  const elements: ElementDraft[] = [];
  let lastBody = -1; // index of the last paragraph/list item/table (a table continues only right after a table)
  let open: OpenText | undefined; // the paragraph or list item that may continue in the next column or page
  const listIndents: number[] = []; // left edges of the open list levels
  for (const page of pages) {
    entries[page.index]!.forEach(({ item, furniture: isFurniture }) => {
      if (item.type === 'table') {
        lastBody = pushTable(elements, item.table, page, lastBody);
        // A table set between the halves of a paragraph (a float at the top of a column) stays out of the join.
        if (open) open.interrupted = true;
        return;
      }
      const block = item.block;
      const bbox = boxOf(block, page);
      if (isFurniture) {
        elements.push({ kind: 'page-furniture', text: linesText(block.lines), page: page.index + 1, bbox });
        return;
      }
      const style = styles.get(block);
      const kind: Kind = style ? 'heading' : classify(block, stats, page);
      if (kind === 'heading') {
        const text = linesText(block.lines);
        const level = levelOf(block, text);
        listIndents.length = 0;
        elements.push({ kind: 'heading', text, level, page: page.index + 1, bbox });
        lastBody = -1;
        open = undefined;
        return;
      }
      if (kind === 'code') {
        elements.push({ kind: 'code', text: codeText(block.lines), page: page.index + 1, bbox });
        lastBody = -1;
        open = undefined;
        return;
      }
      if (kind === 'list-item') {
        const m = LIST_MARKER.exec(block.lines[0]!.text)!;
        const marker = m[0].trim();
        const num = /^\(?(\d{1,3})[.)]/.exec(marker);
        const text = linesText(block.lines).slice(m[0].length).trim();
        const depth = listDepth(listIndents, block.x0, block.lines[0]!.size);
        const el: ElementDraft = { kind: 'list-item', text, depth, ordered: /^[(\w]/.test(marker), page: page.index + 1, bbox };
        if (el.ordered) el.number = num ? Number(num[1]) : 1;
        if (el.ordered && !num) el.text = `${marker} ${text}`;
        elements.push(el);
        lastBody = elements.length - 1;
        open = { element: el, block, page, entries: entries[page.index]!, interrupted: false };
        return;
      }
      if (kind !== 'footnote' && kind !== 'caption') listIndents.length = 0;
      const text = linesText(block.lines);
      // Small print (notes, affiliations), footnotes and captions neither continue body text nor
      // interrupt it: they keep their place, after the piece they came after.
      const small = Math.max(...block.lines.map((l) => l.size)) < stats.bodySize * 0.92;
      if (kind !== 'paragraph' || small) {
        elements.push({ kind, text, page: page.index + 1, bbox });
        // A caption between the halves stands for its figure: a float the paragraph goes on around.
        if (open && kind === 'caption') open.interrupted = true;
        return;
      }
      if (open && continues(open, { block, text, page, entries: entries[page.index]! }, stats)) {
        const prev = open.element;
        prev.text = joinText(prev.text, text);
        if (page.index + 1 !== (prev.pageEnd ?? prev.page)) prev.pageEnd = page.index + 1;
        (prev.bboxes ??= [{ page: prev.page!, ...prev.bbox! }]).push({ page: page.index + 1, ...bbox });
        open = { element: prev, block, page, entries: entries[page.index]!, interrupted: false };
        return;
      }
      const el: ElementDraft = { kind, text, page: page.index + 1, bbox };
      elements.push(el);
      lastBody = elements.length - 1;
      open = { element: el, block, page, entries: entries[page.index]!, interrupted: false };
    });
  }
  const crosswise = pages.filter((p) => (p.crosswise ?? 0) > 0);
  if (crosswise.length > 0) {
    const count = crosswise.reduce((n, p) => n + (p.crosswise ?? 0), 0);
    const list = crosswise.slice(0, 5).map((p) => p.index + 1).join(', ') + (crosswise.length > 5 ? ', …' : '');
    furniture.warnings.push(`left out ${count} characters of sideways text (margin stamps, vertical labels) on page${crosswise.length === 1 ? '' : 's'} ${list}`);
  }
  const numbered = pages.filter((p) => p.lineNumbers).length;
  if (numbered > 0) furniture.warnings.push(`removed margin line numbers on ${numbered} page${numbered === 1 ? '' : 's'}`);
  return { elements, warnings: furniture.warnings, ...(title !== undefined && { title }) };
}

interface Entry {
  item: PageItem;
  furniture: boolean;
}

/** A section number set apart from its title (in a box or a coloured tab): "1", "2.3", "A.", "IV". */
const SECTION_NUMBER = /^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[A-Z]\.|[IVX]{1,5}\.?)$/;

/**
 * A section number drawn apart from its title (a separate text object, often in a box) becomes
 * a block of its own beside the heading; it is put back in front of the title on the same line.
 */
function attachSectionNumbers(list: Entry[], styles: Map<Block, HeadingStyle>): void {
  for (let i = 0; i + 1 < list.length; i++) {
    const a = list[i]!;
    const b = list[i + 1]!;
    if (a.furniture || b.furniture || a.item.type !== 'block' || b.item.type !== 'block') continue;
    const [number, heading] = styles.has(b.item.block) ? [a.item.block, b.item.block] : [b.item.block, a.item.block];
    const style = styles.get(heading);
    if (!style || styles.has(number) || number.lines.length !== 1 || !SECTION_NUMBER.test(number.lines[0]!.text.trim())) continue;
    const line = heading.lines[0]!;
    const middle = (number.y0 + number.y1) / 2;
    const gap = line.x0 - number.x1;
    if (middle < line.y0 || middle > line.y1 || gap < -1 || gap > 4 * line.size) continue;
    const numberLine = number.lines[0]!;
    const merged: Block = {
      ...heading,
      x0: Math.min(heading.x0, number.x0),
      y0: Math.min(heading.y0, number.y0),
      lines: [{ ...line, text: `${numberLine.text.trim()} ${line.text}`, x0: numberLine.x0, chars: line.chars + numberLine.chars }, ...heading.lines.slice(1)],
    };
    styles.delete(heading);
    styles.set(merged, style);
    list.splice(i, 2, { item: { type: 'block', block: merged }, furniture: false });
  }
}

/**
 * A chapter label on its own line ("Chapter 3", "第一章") and the title set under it are one
 * heading, "Chapter 3 Methods": the label alone would head an empty section. The label's
 * numbering gives the level.
 */
function joinLabelsToTitles(list: Entry[], styles: Map<Block, HeadingStyle>): void {
  for (let i = 0; i + 1 < list.length; i++) {
    const a = list[i]!;
    const b = list[i + 1]!;
    if (a.furniture || b.furniture || a.item.type !== 'block' || b.item.type !== 'block') continue;
    const label = a.item.block;
    const heading = b.item.block;
    const labelStyle = styles.get(label);
    const style = styles.get(heading);
    if (!labelStyle || !style || !isBareLabel(linesText(label.lines))) continue;
    const text = linesText(heading.lines);
    if (numberingDepth(text) > 0 || heading.y0 - label.y1 > 3 * style.size) continue;
    const merged: Block = {
      lines: [...label.lines, ...heading.lines],
      page: label.page,
      x0: Math.min(label.x0, heading.x0),
      y0: Math.min(label.y0, heading.y0),
      x1: Math.max(label.x1, heading.x1),
      y1: Math.max(label.y1, heading.y1),
    };
    styles.delete(label);
    styles.delete(heading);
    styles.set(merged, style.size >= labelStyle.size ? style : labelStyle);
    list.splice(i, 2, { item: { type: 'block', block: merged }, furniture: false });
  }
}

/** Body items in reading order for the heading context rules (tables count by their text). */
function flowOf(pages: readonly PageLayout[], entries: readonly Entry[][]): FlowItem[] {
  const flow: FlowItem[] = [];
  for (const page of pages) {
    for (const { item, furniture: isFurniture } of entries[page.index]!) {
      if (isFurniture) continue;
      if (item.type === 'block') flow.push({ page: page.index, block: item.block, chars: item.block.lines.reduce((n, l) => n + l.chars, 0) });
      else flow.push({ page: page.index, chars: item.table.rows.reduce((n, row) => n + row.reduce((m, c) => m + c.text.replace(/\s+/g, '').length, 0), 0) });
    }
  }
  return flow;
}

/** The document's title: the largest heading on the first page that has headings (a masthead or label above it is smaller). */
function mostProminentFirst(pages: readonly PageLayout[], entries: readonly Entry[][], styles: ReadonlyMap<Block, HeadingStyle>): string | undefined {
  for (const page of pages) {
    let best: Block | undefined;
    for (const { item } of entries[page.index]!) {
      if (item.type !== 'block') continue;
      const style = styles.get(item.block);
      if (style && (!best || style.size > styles.get(best)!.size)) best = item.block;
    }
    if (best) return linesText(best.lines);
  }
  return undefined;
}

/**
 * Heading levels. Numbered headings: numbering depth, one deeper when a larger unnumbered style
 * (a title) sits above the numbered ones. Unnumbered headings: the level numbered headings of the
 * same style have; larger than any numbered style: level 1; otherwise just below the numbered
 * levels. Without numbered headings: the rank of the style (size, then weight).
 */
function headingLevels(styles: Map<Block, HeadingStyle>): (block: Block, text: string) => number {
  const ranks = styleLevels(styles.values());
  const byStyle = new Map<string, Map<number, number>>();
  let maxNumbered: HeadingStyle | undefined;
  let deepest = 0;
  for (const [block, style] of styles) {
    const depth = numberingDepth(linesText(block.lines));
    if (depth === 0) continue;
    deepest = Math.max(deepest, depth);
    if (!maxNumbered || style.size > maxNumbered.size) maxNumbered = style;
    const key = styleKey(style);
    const counts = byStyle.get(key) ?? new Map<number, number>();
    counts.set(depth, (counts.get(depth) ?? 0) + 1);
    byStyle.set(key, counts);
  }
  if (!maxNumbered) return (block) => ranks.get(styleKey(styles.get(block)!)) ?? 1;
  const top = maxNumbered;
  const offset = [...styles.values()].some((s) => s.size > top.size + 0.5) ? 1 : 0;
  return (block, text) => {
    const depth = numberingDepth(text);
    if (depth > 0) return Math.min(6, depth + offset);
    const style = styles.get(block)!;
    const counts = byStyle.get(styleKey(style));
    if (counts) return Math.min(6, [...counts].sort((a, b) => b[1] - a[1])[0]![0] + offset);
    if (style.size > top.size + 0.5) return 1;
    return Math.min(6, deepest + offset + 1);
  };
}

/** Nesting depth of a list item from its indent: deeper than the open level by 0.8 em opens a level. */
function listDepth(indents: number[], x0: number, size: number): number {
  while (indents.length > 0 && x0 < indents[indents.length - 1]! - 0.8 * size) indents.pop();
  const top = indents[indents.length - 1];
  if (top === undefined || x0 > top + 0.8 * size) indents.push(x0);
  return Math.min(indents.length - 1, 5);
}

/** A box in the displayed page's coordinates (undoing the turn of a sideways page). */
function boxOf(box: { x0: number; y0: number; x1: number; y1: number }, page: PageLayout): BBox {
  const b = page.turns ? unturnBox(box, page.turns, page.displayWidth ?? page.width, page.displayHeight ?? page.height) : box;
  return { x0: round(b.x0), y0: round(b.y0), x1: round(b.x1), y1: round(b.y1) };
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

function isCaption(block: Block): boolean {
  return CAPTION.test(block.lines[0]!.text);
}

function isFootnote(block: Block, stats: FontStats, page: PageLayout): boolean {
  const size = Math.max(...block.lines.map((l) => l.size));
  return block.y0 > 0.6 * page.height && size < stats.bodySize * 0.92 && FOOTNOTE_START.test(block.lines[0]!.text);
}

function classify(block: Block, stats: FontStats, page: PageLayout): Kind {
  // Monospace marks code only where body text is not itself monospace (typewritten transcripts).
  if (!stats.bodyMono && block.lines.length >= 2 && block.lines.every((l) => l.mono)) return 'code';
  if (isCaption(block)) return 'caption';
  if (isFootnote(block, stats, page)) return 'footnote';
  if (LIST_MARKER.test(block.lines[0]!.text)) return 'list-item';
  return 'paragraph';
}

/** The paragraph (or list item) text may continue in: its element and the block its text ends with. */
interface OpenText {
  element: ElementDraft;
  block: Block;
  page: PageLayout;
  /** The items of that block's page. */
  entries: readonly Entry[];
  /** A table or a caption (a float) was set since that block. */
  interrupted: boolean;
}

/** A block that may continue a paragraph, with its text and page. */
interface NextText {
  block: Block;
  text: string;
  page: PageLayout;
  entries: readonly Entry[];
}

/**
 * A paragraph continues into the next block (in the next column, on the next page, or below a
 * float in its own column) when it does not end like a sentence and the next block goes on in the
 * same type (size, weight, monospace and font): it starts in lowercase (Latin), or in CJK after CJK
 * text, or, across a column or page break (the last body text of its column, the next the first
 * of its own), with any other token (a capital, a digit, Hangul) where the last line was cut at the
 * measure's edge (or after a hyphen) and the next opens in a measure as wide without an indent. A
 * block right below the last one in its column is a new paragraph, unless a table or caption
 * stands between them or the lines go on from one to the other by the rules of blocks.
 */
function continues(open: OpenText, next: NextText, stats: FontStats): boolean {
  const prev = open.element;
  if (prev.kind !== 'paragraph' && prev.kind !== 'list-item') return false;
  const last = open.block;
  // Below the last block in its column: a new paragraph, unless a float stood between them, or only
  // a fragment of small print split them (a subscript set on a line of its own: `w(i)` over `|pi|`).
  const below = next.page.index === open.page.index && next.block.y0 >= last.y0 && Math.abs(next.block.x0 - last.x0) < 30;
  if (below && !open.interrupted && !(ranToEdge(last) && continuesBlock(last, next.block.lines[0]!))) return false;
  if (OPEN_END.test(prev.text.trimEnd()) || !sameType(last, next.block)) return false;
  const start = firstCode(next.text);
  const end = lastCode(prev.text);
  if (isLowerLatin(start)) return true;
  if (isCjk(start) && isCjk(end) && !isFullWidthAlnum(end)) return true;
  return (
    (ranToEdge(last) || end === 0x2d) &&
    sameMeasure(last, next.block) &&
    !indented(next.block) &&
    !textBeyond(last, open.entries, open.page, stats, 'below') &&
    !textBeyond(next.block, next.entries, next.page, stats, 'above')
  );
}

/** Full-width digits and Latin letters (a table of contents' page number `１`): no running CJK text. */
function isFullWidthAlnum(code: number): boolean {
  return (code >= 0xff10 && code <= 0xff19) || (code >= 0xff21 && code <= 0xff3a) || (code >= 0xff41 && code <= 0xff5a);
}

/** The last line of one block and the first of the next are set in the same type. */
function sameType(a: Block, b: Block): boolean {
  const x = a.lines[a.lines.length - 1]!;
  const y = b.lines[0]!;
  if (Math.abs(x.size - y.size) > 0.12 * Math.min(x.size, y.size) || x.bold !== y.bold || x.mono !== y.mono) return false;
  // The lines' fonts, or the blocks' (a line of italics, a citation, at the end of a paragraph).
  if (x.font === y.font || x.font < 0 || y.font < 0) return true;
  return mainFont(a) === mainFont(b);
}

/** The font most of the block's characters are set in (-1 when unknown, as in OCR text). */
function mainFont(block: Block): number {
  const chars = new Map<number, number>();
  let best = -1;
  let most = 0;
  for (const line of block.lines) {
    const n = (chars.get(line.font) ?? 0) + line.chars;
    chars.set(line.font, n);
    if (n > most) ((most = n), (best = line.font));
  }
  return best;
}

/** The block's last line runs to the right edge of its measure (the paragraph was cut, not ended). */
function ranToEdge(block: Block): boolean {
  const last = block.lines[block.lines.length - 1]!;
  return block.lines.length > 1 && last.x1 >= block.x1 - 1.5 * last.size;
}

/** The next block is set in a measure as wide as the last one's (a column of the same width), its first line full. */
function sameMeasure(last: Block, next: Block): boolean {
  const width = last.x1 - last.x0;
  const first = next.lines[0]!;
  if (next.lines.length === 1) return first.x1 - first.x0 <= width * 1.1;
  return first.x1 >= next.x1 - 1.5 * first.size && Math.abs(next.x1 - next.x0 - width) <= 0.1 * width;
}

/** The block's first line is indented from the lines under it (a new paragraph). */
function indented(block: Block): boolean {
  const first = block.lines[0]!;
  return block.lines.length > 1 && first.x0 - block.x0 > 0.9 * first.size;
}

/**
 * Body text of the page lies above (below) the block in its column: it is not the first (last) of
 * its column. Furniture, tables, captions, footnotes and small print do not count (floats and notes
 * sit at a column's ends).
 */
function textBeyond(block: Block, entries: readonly Entry[], page: PageLayout, stats: FontStats, side: 'above' | 'below'): boolean {
  for (const { item, furniture } of entries) {
    if (furniture || item.type !== 'block' || item.block === block) continue;
    const b = item.block;
    if (side === 'above' ? b.y1 > block.y0 + 1 : b.y0 < block.y1 - 1) continue;
    const overlap = Math.min(b.x1, block.x1) - Math.max(b.x0, block.x0);
    if (overlap <= 0.3 * Math.min(b.x1 - b.x0, block.x1 - block.x0)) continue;
    if (isCaption(b) || isFootnote(b, stats, page) || Math.max(...b.lines.map((l) => l.size)) < stats.bodySize * 0.92) continue;
    return true;
  }
  return false;
}

/**
 * A body line in a page's margin band (the top line of a page set high up) was kept apart from the
 * lines next to it when blocks were built, in case it was a running header; once it is known not to
 * be furniture it joins the block it goes on into.
 */
function mergeBandLines(list: Entry[], styles: ReadonlyMap<Block, HeadingStyle>, page: PageLayout): void {
  for (let i = 0; i + 1 < list.length; i++) {
    const a = list[i]!;
    const b = list[i + 1]!;
    if (a.furniture || b.furniture || a.item.type !== 'block' || b.item.type !== 'block' || styles.has(a.item.block) || styles.has(b.item.block)) continue;
    const merged = mergeAcrossBand(a.item.block, b.item.block, page.height);
    if (!merged) continue;
    list.splice(i, 2, { item: { type: 'block', block: merged }, furniture: false });
    i--;
  }
}

function pushTable(elements: ElementDraft[], table: PageTable, layout: PageLayout, lastBody: number): number {
  const page = layout.index + 1;
  const prev = lastBody >= 0 ? elements[lastBody] : undefined;
  const width = table.rows[0]?.length ?? 0;
  // A table continued on the next page: same column count, nothing but furniture in between.
  if (prev?.kind === 'table' && prev.table && (prev.pageEnd ?? prev.page) === page - 1 && (prev.table.rows[0]?.length ?? 0) === width) {
    const header = prev.table.rows.slice(0, prev.table.headerRows);
    const repeated = header.length > 0 && header.every((row, r) => row.map((c) => c.text).join('|') === table.rows[r]?.map((c) => c.text).join('|'));
    prev.table.rows.push(...table.rows.slice(repeated ? header.length : 0));
    prev.text = tableText(prev.table.rows);
    prev.pageEnd = page;
    (prev.bboxes ??= [{ page: prev.page!, ...prev.bbox! }]).push({ page, ...boxOf(table, layout) });
    return lastBody;
  }
  const bbox = boxOf(table, layout);
  elements.push({ kind: 'table', text: tableText(table.rows), table: { rows: table.rows, headerRows: table.headerRows }, page, bbox });
  return elements.length - 1;
}

function tableText(rows: { text: string }[][]): string {
  return rows.map((row) => row.map((c) => c.text).join('\t')).join('\n');
}

import type { BBox, ElementDraft } from '../document/types.js';
import { LIST_MARKER, type Block } from './blocks.js';
import { unturnBox } from './chars.js';
import { findFurniture } from './furniture.js';
import { fontStats, headingStyle, numberingDepth, styleKey, styleLevels, type FontStats, type HeadingStyle } from './headings.js';
import type { PageLayout } from './layout.js';
import { firstCode, isCjk, isLowerLatin, lastCode } from './script.js';
import type { PageTable } from './table-cells.js';
import { codeText, joinText, linesText } from './text.js';

/**
 * Document-level structure over all analysed pages: furniture removed (kept as page-furniture
 * elements), headings from font statistics, lists, captions, footnotes, code, tables; paragraphs
 * joined across columns and pages, tables continued on the next page joined.
 */

const CAPTION = /^\[?(?:fig(?:ure)?\.?|table|tab\.|listing|algorithm|图|表|図|표|그림)\s*[\dA-Z]+(?:[.:：-]\d+)*\]?[.:：]?(?:\s|$)/i;
const FOOTNOTE_START = /^(?:\d{1,3}|[*†‡§¶]|\[\d+\])\s*\S/;
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
  for (const block of bodyBlocks) {
    const style = headingStyle(block, stats);
    if (style && !isCaption(block) && !isFootnote(block, stats, pages[block.page]!)) styles.set(block, style);
  }
  const levelOf = headingLevels(styles);
  const elements: ElementDraft[] = [];
  let lastBody = -1; // index of the last paragraph/list item/table that may continue
  let title: string | undefined;
  const listIndents: number[] = []; // left edges of the open list levels
  for (const page of pages) {
    page.items.forEach((item, i) => {
      if (item.type === 'table') {
        lastBody = pushTable(elements, item.table, page, lastBody);
        return;
      }
      const block = item.block;
      const bbox = boxOf(block, page);
      if (furniture.items.has(`${page.index}:${i}`)) {
        elements.push({ kind: 'page-furniture', text: linesText(block.lines), page: page.index + 1, bbox });
        return;
      }
      const style = styles.get(block);
      const kind: Kind = style ? 'heading' : classify(block, stats, page);
      if (kind === 'heading') {
        const text = linesText(block.lines);
        const level = levelOf(block, text);
        title ??= text;
        listIndents.length = 0;
        elements.push({ kind: 'heading', text, level, page: page.index + 1, bbox });
        lastBody = -1;
        return;
      }
      if (kind === 'code') {
        elements.push({ kind: 'code', text: codeText(block.lines), page: page.index + 1, bbox });
        lastBody = -1;
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
        return;
      }
      if (kind !== 'footnote' && kind !== 'caption') listIndents.length = 0;
      const text = linesText(block.lines);
      // Small print (notes, affiliations) neither continues body text nor interrupts it.
      const small = Math.max(...block.lines.map((l) => l.size)) < stats.bodySize * 0.92;
      if (kind === 'paragraph' && small) {
        elements.push({ kind, text, page: page.index + 1, bbox });
        return;
      }
      if (kind === 'paragraph' && lastBody >= 0 && continues(elements[lastBody]!, text, page.index + 1, bbox)) {
        const prev = elements[lastBody]!;
        prev.text = joinText(prev.text, text);
        if (page.index + 1 !== prev.page) prev.pageEnd = page.index + 1;
        return;
      }
      elements.push({ kind, text, page: page.index + 1, bbox });
      if (kind === 'paragraph') lastBody = elements.length - 1;
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

/**
 * A paragraph continues into the next block (next column or page) when it does not end like a
 * sentence and the next starts in lowercase (Latin) or both sides are CJK.
 */
function continues(prev: ElementDraft, next: string, page: number, bbox: BBox): boolean {
  if (prev.kind !== 'paragraph' && prev.kind !== 'list-item') return false;
  const prevBox = prev.bbox!;
  const samePlace = page === (prev.pageEnd ?? prev.page) && bbox.y0 >= prevBox.y0 && Math.abs(bbox.x0 - prevBox.x0) < 30;
  if (samePlace) return false; // a new paragraph below in the same column
  if (OPEN_END.test(prev.text.trimEnd())) return false;
  const end = lastCode(prev.text);
  const start = firstCode(next);
  return isLowerLatin(start) || (isCjk(end) && isCjk(start));
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
    return lastBody;
  }
  const bbox = boxOf(table, layout);
  elements.push({ kind: 'table', text: tableText(table.rows), table: { rows: table.rows, headerRows: table.headerRows }, page, bbox });
  return elements.length - 1;
}

function tableText(rows: { text: string }[][]): string {
  return rows.map((row) => row.map((c) => c.text).join('\t')).join('\n');
}

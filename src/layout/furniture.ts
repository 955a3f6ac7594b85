import type { Block } from './blocks.js';
import type { PageLayout } from './page.js';

/**
 * Running headers and footers, found by repetition across pages rather than by a fixed band:
 * short blocks in the top or bottom fifth of a page whose text, with digits replaced, recurs on at
 * least 30% of the pages (min 3; twice in documents of 2-3 pages when identical), or that are the
 * outermost line of their pages with a page number at one end, on 2 pages or more; and page numbers
 * alone ("3", "Page 3 of 12", "- 3 -", "第 3 页 共 12 页"). A one-off heading never repeats, so it stays;
 * so does an occurrence set far larger than the text's usual size (the series name as a masthead
 * on the first page, small in the running header after): it counts towards the repetition but is
 * a heading, not furniture.
 */

const BAND = 0.2;
/** Share of pages a header or footer must recur on (odd/even pages and chapters each carry their own). */
const REPEAT_SHARE = 0.3;
/** A page number at either end of a line. */
const EDGE_NUMBER = /^(?:\d{1,5}|[ivxlc]{1,7})\s|\s(?:\d{1,5}|[ivxlc]{1,7})$/i;
const MAX_LINES = 3;
/** An occurrence whose size times this exceeds the usual (median) size of its text is a masthead. */
const MASTHEAD_RATIO = 0.7;
const PAGE_NUMBER = /^(?:(?:page|p\.|seite|página)\s*)?[-–—(]?\s*(?:\d{1,5}|[ivxlcdm]{1,7})\s*[-–—)]?(?:\s*(?:of|\/|von|de)\s*\d{1,5})?$/i;
const CJK_PAGE_NUMBER = /^第\s*\d+\s*页(?:\s*[，,]?\s*共\s*\d+\s*页)?$|^\d+\s*\/\s*\d+$/;

export interface FurnitureResult {
  /** `${page}:${item}` keys of page items that are furniture. */
  items: Set<string>;
  warnings: string[];
}

export function isPageNumber(text: string): boolean {
  // NFKC: full-width digits and dashes (`－１－`, `第１页`) as in Chinese and Japanese documents.
  const t = text.normalize('NFKC').trim();
  return PAGE_NUMBER.test(t) || CJK_PAGE_NUMBER.test(t);
}

function blockText(block: Block): string {
  return block.lines.map((l) => l.text).join(' ');
}

function repetitionKey(text: string, top: boolean): string {
  return `${top ? 'T' : 'B'}|${text.normalize('NFKC').toLowerCase().replace(/\d+/g, '#').replace(/\b[ivxlc]{1,6}\b/g, '#').replace(/\s+/g, ' ').trim().replace(/^(?:#\s*)+|(?:\s*#)+$/g, '')}`;
}

export function findFurniture(pages: readonly PageLayout[]): FurnitureResult {
  const items = new Set<string>();
  const byKey = new Map<string, Repeated>();
  let pageNumbers = 0;
  for (const page of pages) {
    let numbered = false;
    let topmost = -1;
    let bottommost = -1;
    page.items.forEach((item, i) => {
      if (item.type !== 'block') return;
      const top = page.items[topmost];
      const bottom = page.items[bottommost];
      if (!top || (top.type === 'block' && item.block.y0 < top.block.y0)) topmost = i;
      if (!bottom || (bottom.type === 'block' && item.block.y1 > bottom.block.y1)) bottommost = i;
    });
    page.items.forEach((item, i) => {
      if (item.type !== 'block') return;
      const block = item.block;
      const top = block.y1 <= BAND * page.height;
      const bottom = block.y0 >= (1 - BAND) * page.height;
      if ((!top && !bottom) || block.lines.length > MAX_LINES) return;
      const text = blockText(block);
      if (isPageNumber(text)) {
        items.add(`${page.index}:${i}`);
        numbered = true;
        return;
      }
      const key = repetitionKey(text, top);
      let entry = byKey.get(key);
      if (!entry) byKey.set(key, (entry = { pages: new Set(), texts: new Set(), occurrences: [], top, numberedEdge: 0 }));
      entry.pages.add(page.index);
      if ((i === topmost || i === bottommost) && block.lines.length === 1 && EDGE_NUMBER.test(text)) entry.numberedEdge++;
      entry.texts.add(text);
      entry.occurrences.push({ ref: `${page.index}:${i}`, page: page.index, size: maxLineSize(block) });
    });
    if (numbered) pageNumbers++;
  }
  const warnings: string[] = [];
  const pageCount = pages.length;
  const needed = Math.max(3, Math.ceil(pageCount * REPEAT_SHARE));
  for (const entry of byKey.values()) {
    const count = entry.pages.size;
    const repeated =
      count >= needed ||
      (pageCount <= 3 && count >= 2 && entry.texts.size === 1) ||
      // "4  Row and Column Access Control…" / "Chapter 3. … 19": the outermost line with a page number, seen again.
      (entry.numberedEdge >= 2 && entry.numberedEdge === count);
    if (!repeated) continue;
    const removedPages = new Set<number>();
    const usual = median(entry.occurrences.map((o) => o.size));
    for (const { ref, page, size } of entry.occurrences) {
      if (size * MASTHEAD_RATIO > usual) continue;
      items.add(ref);
      removedPages.add(page);
    }
    // The page number that changes is shown as N: "Page N of 12", "N Row and Column…".
    const generic = genericText([...entry.texts]);
    const sample = generic.length > 60 ? `${generic.slice(0, 57)}…` : generic;
    const pagesRemoved = removedPages.size;
    warnings.push(`removed running ${entry.top ? 'header' : 'footer'} '${sample}' on ${pagesRemoved} page${pagesRemoved === 1 ? '' : 's'}`);
  }
  if (pageNumbers > 0) warnings.push(`removed page numbers on ${pageNumbers} page${pageNumbers === 1 ? '' : 's'}`);
  return { items, warnings };
}

/** Blocks in the margin bands whose text (digits aside) recurs: where each occurrence is, and how large. */
interface Repeated {
  pages: Set<number>;
  texts: Set<string>;
  occurrences: { ref: string; page: number; size: number }[];
  top: boolean;
  numberedEdge: number;
}

function maxLineSize(block: Block): number {
  let size = 0;
  for (const line of block.lines) if (line.size > size) size = line.size;
  return size;
}

/** The median of a non-empty list (the lower middle value of an even count: the usual size, not a blend). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1]!;
}

/** The first text with its first/last word replaced by N where the texts differ there (the page number). */
function genericText(texts: string[]): string {
  const words = texts[0]!.split(' ');
  if (texts.length < 2 || words.length < 2) return texts[0]!;
  const other = texts[1]!.split(' ');
  const numeric = /^(?:\d{1,5}|[ivxlc]{1,7})$/i;
  if (words[0] !== other[0] && numeric.test(words[0]!)) words[0] = 'N';
  const last = words.length - 1;
  if (words[last] !== other[other.length - 1] && numeric.test(words[last]!)) words[last] = 'N';
  return words.join(' ');
}

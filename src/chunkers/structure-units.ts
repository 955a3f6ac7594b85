import { headingPaths } from '../document/build.js';
import type { Document, Element } from '../document/types.js';
import { Graphemes } from '../text/graphemes.js';
import { tableLayoutFromLines, tableLayoutFromElement, type ColumnRange, type TableLayout, type TableView } from './structure-tables.js';

/**
 * Units: the semantic pieces the `structure` chunker packs. A unit is a span of the base text (a
 * Document's canonical text, or the raw string given to chunkText) with what the packer needs to
 * know about it. Units are in order and never overlap; the text between two units is separator
 * whitespace, which is inside a chunk's span when both units are in the chunk.
 */

export type UnitKind = 'heading' | 'text' | 'code' | 'table' | 'image' | 'turn';

/** Which rows of a table a unit covers: `[from, to)` indices into `layout.rowSpans`. */
export interface TableSlice {
  layout: TableLayout;
  from: number;
  to: number;
  /** Pieces of one row split by columns: the cells `[from, to)` of row `from` this piece's body holds. */
  columns?: ColumnRange;
}

export interface Unit {
  start: number;
  end: number;
  kind: UnitKind;
  /** Heading level 1-6 (headings only). */
  level?: number;
  /** Heading stack at this unit, outermost first; a heading's own path ends with itself. */
  path: string[];
  page?: number;
  pageEnd?: number;
  /** Keep-together group: a list run, a run of turns by one speaker, or a comment thread with what it annotates. */
  group?: number;
  table?: TableSlice;
  speaker?: string;
  startTime?: number;
  endTime?: number;
  /** Context repeated in the prefix when this unit opens a chunk (table header, code fence, speaker). */
  context?: string;
  /** Context for the later pieces if this unit has to be split. */
  continuation?: string;
  /** Table units: what `context` shows of the table (header rows, key cell), for the chunk's `table` data. */
  view?: TableView;
  /** What `continuation` shows. */
  continuationView?: TableView;
  /** True when the unit is a piece of a larger unit (sentence, line, row, token run). */
  piece?: boolean;
  /** A piece that is one grapheme cluster over the limit on its own: its chunk gets no prefix. */
  bare?: boolean;
}

// ---------------------------------------------------------------------------------------------
// From a Document

function unitKind(el: Element): UnitKind {
  switch (el.kind) {
    case 'heading':
      return 'heading';
    case 'code':
      return 'code';
    case 'table':
      return 'table';
    case 'image':
      return 'image';
    case 'turn':
      return 'turn';
    default:
      return 'text';
  }
}

/** Units of a parsed Document, offsets into `doc.canonical`; page furniture and empty elements are skipped. */
export function unitsFromDocument(doc: Document): Unit[] {
  const paths = headingPaths(doc.elements);
  const units: Unit[] = [];
  let group = 0;
  let prev: Element | undefined;
  let tableId = 0;
  for (let i = 0; i < doc.elements.length; i++) {
    const el = doc.elements[i]!;
    if (el.kind === 'page-furniture' || el.end <= el.start) continue;
    const kind = unitKind(el);
    const unit: Unit = { start: el.start, end: el.end, kind, path: paths[i]! };
    if (kind === 'heading') unit.level = Math.min(6, Math.max(1, el.level ?? 1));
    if (el.page !== undefined) unit.page = el.page;
    if (el.pageEnd !== undefined) unit.pageEnd = el.pageEnd;
    if (el.kind === 'list-item') {
      if (prev?.kind !== 'list-item') group++;
      unit.group = group;
    } else if (kind === 'turn') {
      if (prev?.kind !== 'turn' || prev.speaker !== el.speaker) group++;
      unit.group = group;
      if (el.speaker) {
        unit.speaker = el.speaker;
        unit.continuation = `${el.speaker}: `;
      }
      if (el.startTime !== undefined) unit.startTime = el.startTime;
      if (el.endTime !== undefined) unit.endTime = el.endTime;
    } else if (el.kind === 'comment') {
      unit.group = commentGroup(units, prev, () => ++group);
    } else if (kind === 'table') {
      const layout = tableLayoutFromElement(doc.canonical, el, tableId++);
      unit.table = { layout, from: 0, to: layout.rowSpans.length };
    } else if (kind === 'code') {
      unit.continuation = fenceContext(doc.canonical, el.start, el.end);
    }
    units.push(unit);
    prev = el;
  }
  return units;
}

/**
 * Keep-together group of a comment: a thread continues the comment before it; a thread's first
 * comment joins the group of the text it annotates (a list's), or opens one with it, so a comment
 * and its anchor share a chunk when they fit one. Tables and headings are not pulled in.
 */
function commentGroup(units: Unit[], prev: Element | undefined, next: () => number): number {
  const anchor = units[units.length - 1];
  if (prev?.kind === 'comment' && anchor?.group !== undefined) return anchor.group;
  if (anchor && anchor.kind === 'text' && anchor.group !== undefined) return anchor.group;
  const group = next();
  if (anchor && (anchor.kind === 'text' || anchor.kind === 'code' || anchor.kind === 'image')) anchor.group = group;
  return group;
}

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})/;

/** The opening fence line of a fenced code block (repeated before its later pieces), if it has one. */
function fenceContext(base: string, start: number, end: number): string | undefined {
  const nl = base.indexOf('\n', start);
  const lineEnd = nl < 0 || nl > end ? end : nl;
  const line = base.slice(start, lineEnd);
  return FENCE_LINE.test(line) ? `${line}\n` : undefined;
}

// ---------------------------------------------------------------------------------------------
// From raw text

const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const LIST_MARKER = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const INDENTED = /^(?: {2,}|\t)/;
/** Markdown signals for `markdown: 'auto'`: an ATX heading line or a code fence line. */
const MARKDOWN_SIGNAL = /^ {0,3}(?:#{1,6}[ \t]+\S|`{3,}|~{3,})/m;

export function looksLikeMarkdown(text: string): boolean {
  return MARKDOWN_SIGNAL.test(text);
}

interface Line {
  start: number;
  /** End of the line's content, before `\r?\n`. */
  end: number;
  text: string;
}

function* lines(text: string): Generator<Line> {
  let pos = 0;
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const end = nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    yield { start: pos, end, text: text.slice(pos, end) };
    pos = nl + 1;
  }
}

function isBlank(line: Line): boolean {
  return line.text.trim() === '';
}

/**
 * Narrows [start, end) to its non-whitespace extent (end <= start when it is all whitespace),
 * widened back to grapheme boundaries: a space that carries combining marks stays with them.
 */
function trimSpan(graphemes: Graphemes, start: number, end: number): [number, number] {
  const text = graphemes.text;
  const from = start;
  const to = end;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (start > from && start < end) start = Math.max(from, graphemes.floor(start));
  if (end < to && end > start) end = Math.min(to, graphemes.ceil(end));
  return [start, end];
}

export function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000 || code === 0xfeff || (code >= 0x2000 && code <= 0x200b);
}

/**
 * Units of a raw string, offsets into it. Plain mode: paragraphs separated by blank lines.
 * Markdown mode adds ATX and setext headings, fenced code blocks, GFM pipe tables and list items.
 */
export function unitsFromText(text: string, markdown: boolean): Unit[] {
  const builder = new TextUnitBuilder(text);
  if (!markdown) {
    for (const line of lines(text)) {
      if (isBlank(line)) builder.closeParagraph();
      else builder.addParagraphLine(line);
    }
    builder.closeParagraph();
    return builder.units;
  }
  const all = [...lines(text)];
  let tableId = 0;
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!;
    if (isBlank(line)) {
      builder.closeParagraph();
      builder.blankLine();
      continue;
    }
    const fence = FENCE_LINE.exec(line.text);
    if (fence) {
      builder.closeAll();
      const marker = fence[1]!;
      const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`);
      let j = i + 1;
      while (j < all.length && !closing.test(all[j]!.text)) j++;
      const last = all[Math.min(j, all.length - 1)]!;
      builder.add({ start: line.start, end: last.end, kind: 'code', continuation: `${line.text}\n` });
      i = j;
      continue;
    }
    const heading = ATX_HEADING.exec(line.text);
    if (heading) {
      builder.closeAll();
      builder.addHeading(line.start, line.end, heading[1]!.length, heading[2] ?? '');
      continue;
    }
    const next = all[i + 1];
    if (line.text.includes('|') && next && TABLE_DELIMITER.test(next.text) && next.text.includes('|') && !builder.inParagraph) {
      builder.closeAll();
      let j = i + 2;
      while (j < all.length && !isBlank(all[j]!) && all[j]!.text.includes('|')) j++;
      const tableLines = all.slice(i, j);
      const layout = tableLayoutFromLines(text, tableLines, tableId++);
      builder.add({ start: line.start, end: tableLines[tableLines.length - 1]!.end, kind: 'table', table: { layout, from: 0, to: layout.rowSpans.length } });
      i = j - 1;
      continue;
    }
    if (builder.inParagraph && SETEXT_UNDERLINE.test(line.text) && !builder.inListItem) {
      builder.paragraphToHeading(line.end, line.text.trim()[0] === '=' ? 1 : 2);
      continue;
    }
    if (LIST_MARKER.test(line.text)) {
      builder.closeParagraph();
      builder.startListItem(line);
      continue;
    }
    if (builder.inListItem && (!builder.afterBlank || INDENTED.test(line.text))) {
      builder.continueListItem(line);
      continue;
    }
    builder.closeList();
    builder.addParagraphLine(line);
  }
  builder.closeAll();
  return builder.units;
}

/** Accumulates text units and keeps the heading stack for their paths. */
class TextUnitBuilder {
  readonly units: Unit[] = [];
  private readonly stack: { level: number; text: string }[] = [];
  private path: string[] = [];
  private paraStart = -1;
  private paraEnd = -1;
  private paraIsListItem = false;
  private listGroup = 0;
  private inList = false;
  afterBlank = false;

  private readonly graphemes: Graphemes;

  constructor(private readonly text: string) {
    this.graphemes = new Graphemes(text);
  }

  get inParagraph(): boolean {
    return this.paraStart >= 0;
  }

  get inListItem(): boolean {
    return this.paraStart >= 0 ? this.paraIsListItem : this.inList && this.lastIsListItem();
  }

  private lastIsListItem(): boolean {
    const last = this.units[this.units.length - 1];
    return last !== undefined && last.group === this.listGroup && this.inList;
  }

  blankLine(): void {
    this.afterBlank = true;
  }

  add(unit: Omit<Unit, 'path'>): void {
    const [start, end] = trimSpan(this.graphemes, unit.start, unit.end);
    if (end > start) this.units.push({ ...unit, start, end, path: this.path });
    this.afterBlank = false;
  }

  addHeading(start: number, end: number, level: number, title: string): void {
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.level >= level) this.stack.pop();
    this.stack.push({ level, text: title.replace(/\s+/g, ' ').trim() });
    this.path = this.stack.map((h) => h.text);
    this.add({ start, end, kind: 'heading', level });
  }

  addParagraphLine(line: Line): void {
    if (this.paraStart < 0) {
      this.paraStart = line.start;
      this.paraIsListItem = false;
    }
    this.paraEnd = line.end;
    this.afterBlank = false;
  }

  paragraphToHeading(end: number, level: number): void {
    const title = this.text.slice(this.paraStart, this.text.lastIndexOf('\n', end - 1));
    const start = this.paraStart;
    this.paraStart = -1;
    this.addHeading(start, end, level, title);
  }

  startListItem(line: Line): void {
    this.closeParagraph();
    if (!this.inList) {
      this.inList = true;
      this.listGroup++;
    }
    this.paraStart = line.start;
    this.paraEnd = line.end;
    this.paraIsListItem = true;
    this.afterBlank = false;
  }

  continueListItem(line: Line): void {
    if (this.paraStart < 0) {
      // An indented paragraph after a blank line inside a loose list item: extend the last item.
      const last = this.units[this.units.length - 1]!;
      this.units.pop();
      this.paraStart = last.start;
      this.paraIsListItem = true;
    }
    this.paraEnd = line.end;
    this.afterBlank = false;
  }

  closeParagraph(): void {
    if (this.paraStart < 0) return;
    const isItem = this.paraIsListItem;
    const start = this.paraStart;
    this.paraStart = -1;
    this.add(isItem ? { start, end: this.paraEnd, kind: 'text', group: this.listGroup } : { start, end: this.paraEnd, kind: 'text' });
  }

  closeList(): void {
    this.closeParagraph();
    this.inList = false;
  }

  closeAll(): void {
    this.closeList();
  }
}

import type { ElementDraft, TableCell, TableData } from '../document/types.js';
import { CDATA_SECTION_NODE, type DomElement, type DomNode, isElement, TEXT_NODE } from './html-dom.js';

/**
 * Walks a DOM subtree into flat ElementDrafts, rendering text as a browser lays it out: whitespace
 * runs collapse to one space (except in <pre>), inline children of a block join into one text, <br>
 * is a line break, and block-level elements start new elements.
 */

export interface WalkOptions {
  /** Drop navigation, page header/footer, asides, forms and elements with boilerplate roles/classes. */
  dropBoilerplate: boolean;
  /**
   * Elements the boilerplate filter never removes: the main-text chain (see `mainTextChain`).
   * `walkHtml` computes it when `dropBoilerplate` is set and none is given.
   */
  keep?: ReadonlySet<DomNode>;
}

/** Never content: scripts, styles, embedded objects, form controls, document head. */
const SKIPPED_TAGS = new Set([
  'script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'base', 'iframe', 'object',
  'embed', 'svg', 'math', 'canvas', 'select', 'option', 'optgroup', 'button', 'textarea', 'audio', 'video',
  'source', 'track', 'map', 'area', 'datalist', 'dialog', 'param', 'picture',
]);

/**
 * Page chrome, dropped when `dropBoilerplate` is set. A footer is chrome wherever it is (a page's,
 * or an article's edit links, tags and pager); a header only outside article/main/section (inside
 * them it holds the title).
 */
const BOILERPLATE_TAGS = new Set(['nav', 'aside', 'form', 'menu', 'footer']);
const PAGE_CHROME_TAGS = new Set(['header']);
const CONTENT_SECTIONS = new Set(['article', 'main', 'section']);
const BOILERPLATE_ROLES = new Set([
  'navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar', 'toolbar', 'dialog', 'alert',
]);
/** Class/id words that mark page chrome; matched as whole words of the class or id. */
const BOILERPLATE_CLASS = /(?:^|[\s_-])(?:nav|navbar|navigation|menu|breadcrumbs?|sidebar|footer|cookies?|consent|gdpr|banner|skip-?link|share|sharing|social|advert|advertisement|ads|sponsored|popup|modal|newsletter|related-posts|comments?)(?:$|[\s_-])/i;
const MAIN_CONTENT_CLASS = /(?:^|[\s_-])(?:article|main|content|post|entry|body)(?:$|[\s_-])/i;
/**
 * Never page chrome, whatever their classes or roles say: the document, its body, and the elements
 * HTML defines as the main content. (A site generator's `<body class="navigation-with-keyboard">`
 * names a feature, not a navigation bar.)
 */
const CONTENT_TAGS = new Set(['html', 'body', 'main', 'article']);
const CONTENT_ROLES = new Set(['main', 'article', 'document']);

/** Elements that end the running text block (CSS display: block, list-item, table parts...). */
const SOFT_BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'body', 'center', 'dd', 'details', 'dir', 'div', 'dl', 'dt', 'fieldset',
  'figure', 'footer', 'form', 'header', 'hgroup', 'html', 'legend', 'main', 'nav', 'p', 'section', 'summary',
  'hr', 'tr', 'td', 'th', 'tbody', 'thead', 'tfoot', 'caption', 'li', 'ul', 'ol', 'menu', 'table', 'pre',
  'blockquote', 'figcaption', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'option', 'output', 'search',
]);

/**
 * Below this element depth the structure is not walked: the subtree's text is taken whole (linkedom
 * reads it without recursion), so pathological nesting cannot exhaust the stack.
 */
const MAX_DEPTH = 400;

const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const WHITESPACE_RUN = /[ \t\n\r\f\u00a0]+/g;
const SPACES_AROUND_NEWLINE = / *\n */g;
const DISPLAY_NONE = /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;
const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang)-([\w#+.-]+)/i;

/** Whether an element is invisible to a reader: `hidden`, aria-hidden, or an inline display:none. */
function isHidden(el: DomElement): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
  const style = el.getAttribute('style');
  return style !== null && DISPLAY_NONE.test(style);
}

function isBoilerplate(el: DomElement, tag: string, keep: ReadonlySet<DomNode> | undefined): boolean {
  if (CONTENT_TAGS.has(tag) || keep?.has(el)) return false;
  const role = el.getAttribute('role');
  if (role !== null && CONTENT_ROLES.has(role.toLowerCase())) return false;
  if (BOILERPLATE_TAGS.has(tag)) return true;
  if (PAGE_CHROME_TAGS.has(tag) && !hasContentSectionAncestor(el)) return true;
  if (role !== null && BOILERPLATE_ROLES.has(role.toLowerCase())) return true;
  const label = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`;
  return label.length > 1 && BOILERPLATE_CLASS.test(label) && !MAIN_CONTENT_CLASS.test(label);
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;

/**
 * A heading's permalink (`<a href="#id">¶</a>`, `#`, `§`, a zero-width space, an icon): site
 * generators put one in every heading; it is not part of the heading's text.
 */
function isPermalink(a: DomElement): boolean {
  if (!(a.getAttribute('href') ?? '').startsWith('#')) return false;
  const text = collapse((a.textContent ?? '').replace(ZERO_WIDTH, ''));
  return text.length <= 2 && !LETTER_OR_DIGIT.test(text);
}

function hasContentSectionAncestor(el: DomElement): boolean {
  for (let p = el.parentNode; p && isElement(p); p = p.parentNode) {
    if (CONTENT_SECTIONS.has(p.localName)) return true;
  }
  return false;
}

function headingLevel(el: DomElement, tag: string): number {
  // html.ts records the original level before Readability rewrites <h1> as <h2>.
  const recorded = el.getAttribute('data-gw-level');
  return recorded ? Number(recorded) : HEADING_LEVEL[tag]!;
}

/** The language named by `class="language-x"` (or `lang-x`) on the element or its first <code> child. */
export function codeLanguage(pre: DomElement): string | undefined {
  const own = LANGUAGE_CLASS.exec(pre.getAttribute('class') ?? '');
  if (own) return own[1]!.toLowerCase();
  const code = pre.querySelector('code');
  const inner = code ? LANGUAGE_CLASS.exec(code.getAttribute('class') ?? '') : null;
  return inner ? inner[1]!.toLowerCase() : undefined;
}

/** Text of a <pre>: whitespace kept; the newline right after <pre> is dropped, as HTML parsing does. */
function preText(pre: DomElement): string {
  const text = (pre.textContent ?? '').replace(/\r\n?/g, '\n');
  return text.replace(/^\n/, '').replace(/\s+$/, '');
}

function collapse(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ').trim();
}

/**
 * Flattened text of a subtree (headings, table cells, captions): block boundaries and <br> become
 * spaces, nested tables and lists run together, skipped and hidden elements contribute nothing.
 */
export function flatText(root: DomNode, options: WalkOptions): string {
  const parts: string[] = [];
  appendFlat(root, parts, options, 0);
  return collapse(parts.join(''));
}

function appendFlat(node: DomNode, parts: string[], options: WalkOptions, depth: number): void {
  if (depth > MAX_DEPTH) {
    parts.push(' ', node.textContent ?? '', ' ');
    return;
  }
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE || child.nodeType === CDATA_SECTION_NODE) {
      parts.push(child.textContent ?? '');
      continue;
    }
    if (!isElement(child)) continue;
    const tag = child.localName;
    if (SKIPPED_TAGS.has(tag) || isHidden(child)) continue;
    if (options.dropBoilerplate && isBoilerplate(child, tag, options.keep)) continue;
    if (tag === 'a' && isPermalink(child)) continue;
    if (tag === 'br' || tag === 'img') {
      parts.push(' ');
      continue;
    }
    const block = SOFT_BLOCK_TAGS.has(tag);
    if (block) parts.push(' ');
    appendFlat(child, parts, options, depth + 1);
    if (block) parts.push(' ');
  }
}

/** What the walker is collecting text for: running paragraphs, or one list item. */
interface ListItemContext {
  depth: number;
  ordered: boolean;
  number: number;
}

class BlockWalker {
  readonly elements: ElementDraft[] = [];
  private readonly options: WalkOptions;
  private parts: string[] = [];
  /** True when the buffer is empty or ends with a space or newline (a following space collapses). */
  private atBreak = true;
  private listDepth = 0;
  private listItem: ListItemContext | undefined;
  private depth = 0;
  /** Images met inside a running paragraph; emitted after it so the paragraph is not cut in two. */
  private pendingImages: ElementDraft[] = [];

  constructor(options: WalkOptions, depth = 0) {
    this.options = options;
    this.depth = depth;
  }

  walkChildren(node: DomNode): void {
    if (this.depth > MAX_DEPTH) {
      this.appendText(node.textContent ?? '');
      return;
    }
    this.depth++;
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (isElement(child) && child.localName === 'tr') child = this.visitStrayRows(child);
      else this.visit(child);
    }
    this.depth--;
  }

  finish(): ElementDraft[] {
    this.flush();
    return this.elements;
  }

  private visit(node: DomNode): void {
    if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) {
      this.appendText(node.textContent ?? '');
      return;
    }
    if (!isElement(node)) return;
    const tag = node.localName;
    if (SKIPPED_TAGS.has(tag) || isHidden(node)) return;
    if (this.options.dropBoilerplate && isBoilerplate(node, tag, this.options.keep)) return;
    switch (tag) {
      case 'br':
        this.appendBreak();
        return;
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
        this.flush();
        this.emit({ kind: 'heading', text: flatText(node, this.options), level: headingLevel(node, tag) });
        return;
      case 'ul': case 'ol': case 'menu': case 'dir':
        this.visitList(node, tag === 'ol');
        return;
      case 'li':
        // A stray <li> outside a list is still a list item.
        this.visitListItem(node, this.listDepth, false, 1);
        return;
      case 'table':
        this.visitTable(node);
        return;
      case 'pre':
        this.flush();
        this.visitPre(node);
        return;
      case 'blockquote':
        this.flush();
        this.visitQuote(node);
        return;
      case 'figcaption': {
        this.flush();
        const text = flatText(node, this.options);
        if (text) this.emit({ kind: 'caption', text });
        return;
      }
      case 'img':
        this.visitImage(node);
        return;
      case 'input':
        if (this.listItem && (node.getAttribute('type') ?? '').toLowerCase() === 'checkbox') {
          this.appendText(node.hasAttribute('checked') ? '[x] ' : '[ ] ');
        }
        return;
      case 'hr':
        this.softBoundary();
        return;
      default:
        if (SOFT_BLOCK_TAGS.has(tag)) {
          this.softBoundary();
          this.walkChildren(node);
          this.softBoundary();
        } else {
          this.walkChildren(node);
        }
    }
  }

  private appendText(raw: string): void {
    if (raw.length === 0) return;
    let text = raw.replace(WHITESPACE_RUN, ' ');
    if (this.atBreak && text.charCodeAt(0) === 32) text = text.slice(1);
    if (text.length === 0) return;
    this.parts.push(text);
    this.atBreak = text.charCodeAt(text.length - 1) === 32;
  }

  private appendBreak(): void {
    this.parts.push('\n');
    this.atBreak = true;
  }

  /** A block boundary: inside a list item it is a line break, elsewhere it ends the paragraph. */
  private softBoundary(): void {
    if (this.listItem) {
      if (this.parts.length > 0 && this.parts[this.parts.length - 1] !== '\n') this.appendBreak();
    } else {
      this.flush();
    }
  }

  /** Emits the buffered running text as a paragraph or as the open list item. */
  private flush(): void {
    if (this.parts.length > 0) {
      const text = this.parts.join('').replace(SPACES_AROUND_NEWLINE, '\n').trim();
      this.parts = [];
      if (text) {
        const item = this.listItem;
        this.elements.push(
          item
            ? { kind: 'list-item', text, depth: item.depth, ordered: item.ordered, ...(item.ordered && { number: item.number }) }
            : { kind: 'paragraph', text },
        );
      }
    }
    this.atBreak = true;
    if (this.pendingImages.length > 0) {
      for (const image of this.pendingImages) this.elements.push(image);
      this.pendingImages = [];
    }
  }

  private emit(el: ElementDraft): void {
    if (el.text || el.kind === 'image' || el.kind === 'table') this.elements.push(el);
  }

  private visitList(list: DomElement, ordered: boolean): void {
    this.flush();
    const items: DomElement[] = [];
    for (let child = list.firstChild; child; child = child.nextSibling) {
      if (isElement(child) && child.localName === 'li') items.push(child);
    }
    const reversed = ordered && list.hasAttribute('reversed');
    const startAttr = Number.parseInt(list.getAttribute('start') ?? '', 10);
    let number = Number.isFinite(startAttr) ? startAttr : reversed ? items.length : 1;
    const depth = this.listDepth;
    this.listDepth++;
    const outer = this.listItem;
    // Items are visited in document order; other children (stray text, nested lists placed directly
    // in the list, as sloppy HTML does) are walked as part of the list at the next depth.
    for (let child = list.firstChild; child; child = child.nextSibling) {
      if (isElement(child) && child.localName === 'li') {
        const value = Number.parseInt(child.getAttribute('value') ?? '', 10);
        if (Number.isFinite(value)) number = value;
        this.visitListItem(child, depth, ordered, number);
        number += reversed ? -1 : 1;
      } else {
        this.listItem = { depth, ordered, number };
        this.visit(child);
        this.flush();
        this.listItem = outer;
      }
    }
    this.listDepth--;
    this.listItem = outer;
  }

  private visitListItem(li: DomElement, depth: number, ordered: boolean, number: number): void {
    this.flush();
    const outer = this.listItem;
    this.listItem = { depth, ordered, number };
    this.walkChildren(li);
    this.flush();
    this.listItem = outer;
  }

  private visitPre(pre: DomElement): void {
    const text = preText(pre);
    if (!text.trim()) return;
    const language = codeLanguage(pre);
    this.emit({ kind: 'code', text, ...(language && { language }) });
  }

  private visitImage(img: DomElement): void {
    const alt = collapse(img.getAttribute('alt') ?? '');
    // Inside a list item or with an empty alt, an image carries nothing a reader of the text needs.
    if (!alt || this.listItem) return;
    const image: ElementDraft = { kind: 'image', text: '', alt };
    if (this.parts.length === 0) this.elements.push(image);
    else this.pendingImages.push(image);
  }

  /** A block quote becomes one `quote` element; its inner blocks are flattened into its lines. */
  private visitQuote(quote: DomElement): void {
    const inner = new BlockWalker(this.options, this.depth);
    inner.walkChildren(quote);
    const text = joinBlockTexts(inner.finish());
    if (text) this.emit({ kind: 'quote', text });
  }

  private visitTable(table: DomElement): void {
    const role = (table.getAttribute('role') ?? '').toLowerCase();
    this.visitRows(tableRows(table), role === 'presentation' || role === 'none');
  }

  /**
   * `<tr>`s outside any table: linkedom is not an HTML5 tree builder, so on sloppy pages a stray
   * end tag (`<table></center><tr>...`) closes the table early and leaves its rows as siblings.
   * The run of such rows is read as the table it was meant to be. Returns the run's last node.
   */
  private visitStrayRows(first: DomElement): DomNode {
    const rows: DomElement[] = [first];
    let last: DomNode = first;
    for (let next = first.nextSibling; next; next = next.nextSibling) {
      if (isElement(next)) {
        if (next.localName !== 'tr') break;
        rows.push(next);
        last = next;
      } else if (next.nodeType === TEXT_NODE && (next.textContent ?? '').trim() !== '') {
        break;
      } else {
        last = next;
      }
    }
    this.visitRows({ rows, headRows: 0, caption: undefined }, false);
    return last;
  }

  private visitRows(parts: TableParts, presentational: boolean): void {
    if (presentational || isLayoutTable(parts.rows)) {
      // Layout tables (one column, or marked presentational) are page structure, not data.
      this.softBoundary();
      for (const cell of parts.rows.flatMap(rowCells)) {
        this.walkChildren(cell);
        this.softBoundary();
      }
      return;
    }
    this.flush();
    const data = buildTable(parts, this.options);
    if (!data) return;
    if (data.caption) this.elements.push({ kind: 'caption', text: data.caption });
    this.elements.push({ kind: 'table', text: tableText(data), table: data });
  }
}

/** Texts of flattened blocks joined for a quote: list items one per line, other blocks by a blank line. */
export function joinBlockTexts(elements: readonly ElementDraft[]): string {
  let out = '';
  let prev: ElementDraft | undefined;
  for (const el of elements) {
    const text = el.kind === 'image' ? el.alt ?? '' : el.kind === 'table' ? el.text.replace(/\t/g, ' ') : el.text;
    if (!text) continue;
    if (prev) out += prev.kind === 'list-item' && el.kind === 'list-item' ? '\n' : '\n\n';
    out += text;
    prev = el;
  }
  return out;
}

/** A table's plain text: cells joined by tabs, rows by newlines. */
export function tableText(table: TableData): string {
  return table.rows.map((row) => row.map((cell) => cell.text).join('\t')).join('\n');
}

/** Rows of a table in rendering order (thead, then bodies and bare rows, then tfoot), nested tables excluded. */
interface TableParts {
  rows: DomElement[];
  /** How many leading rows come from <thead>. */
  headRows: number;
  caption: DomElement | undefined;
}

function tableRows(table: DomElement): TableParts {
  const head: DomElement[] = [];
  const body: DomElement[] = [];
  const foot: DomElement[] = [];
  let caption: DomElement | undefined;
  for (let child = table.firstChild; child; child = child.nextSibling) {
    if (!isElement(child)) continue;
    const tag = child.localName;
    if (tag === 'tr') body.push(child);
    else if (tag === 'caption') caption ??= child;
    else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') {
      const target = tag === 'thead' ? head : tag === 'tfoot' ? foot : body;
      for (let row = child.firstChild; row; row = row.nextSibling) {
        if (isElement(row) && row.localName === 'tr') target.push(row);
      }
    }
  }
  return { rows: [...head, ...body, ...foot], headRows: head.length, caption };
}

function rowCells(row: DomElement): DomElement[] {
  const cells: DomElement[] = [];
  for (let child = row.firstChild; child; child = child.nextSibling) {
    if (isElement(child) && (child.localName === 'td' || child.localName === 'th')) cells.push(child);
  }
  return cells;
}

/** Presentational tables: no rows, or at most one cell in every row. */
function isLayoutTable(rows: readonly DomElement[]): boolean {
  return rows.every((row) => rowCells(row).length <= 1);
}

interface GridCell {
  text: string;
  header: boolean;
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
}

const MAX_COLSPAN = 1000;
const MAX_ROWSPAN = 65534;

function spanAttr(cell: DomElement, name: string, max: number): number {
  const value = Number.parseInt(cell.getAttribute(name) ?? '', 10);
  return Number.isFinite(value) && value >= 0 ? Math.min(value, max) : 1;
}

/**
 * Builds the table grid with the HTML table model: a rowspan/colspan cell occupies every slot it
 * covers; the top-left slot carries rowSpan/colSpan; the slots below it repeat its text (so each row
 * reads on its own, as docling renders it) and the slots to its right stay empty. Rows holding nothing but the start of row-spanning
 * cells (a common pivot-table idiom) are dropped: their content continues in the next rows.
 */
export function buildTable(parts: TableParts, options: WalkOptions): TableData | undefined {
  const { rows, headRows, caption } = parts;
  const grid: (GridCell | undefined)[][] = [];
  /** Per column: the cell still spanning down into the next rows. */
  const carried: (GridCell | undefined)[] = [];
  rows.forEach((tr, r) => {
    const slots: (GridCell | undefined)[] = [];
    let col = 0;
    const placeCarried = (): void => {
      for (let above = carried[col]; above && above.row + above.rowSpan > r; above = carried[col]) slots[col++] = above;
    };
    for (const td of rowCells(tr)) {
      placeCarried();
      const colSpan = Math.max(1, spanAttr(td, 'colspan', MAX_COLSPAN));
      const rowSpanAttr = spanAttr(td, 'rowspan', MAX_ROWSPAN);
      // rowspan="0" spans to the end of the table.
      const rowSpan = rowSpanAttr === 0 ? rows.length - r : Math.max(1, rowSpanAttr);
      const cell: GridCell = { text: flatText(td, options), header: td.localName === 'th', row: r, col, rowSpan, colSpan };
      for (let k = 0; k < colSpan; k++) {
        slots[col + k] = cell;
        carried[col + k] = rowSpan > 1 ? cell : undefined;
      }
      col += colSpan;
    }
    for (let c = col; c < carried.length; c++) {
      const above = carried[c];
      if (above && above.row + above.rowSpan > r && slots[c] === undefined) slots[c] = above;
    }
    grid.push(slots);
  });

  const kept = grid.map((slots, r) => !onlyOpensRowSpans(slots, r, grid.length));
  const width = grid.reduce((w, slots, r) => (kept[r] ? Math.max(w, slots.length) : w), 0);
  if (width === 0) return undefined;

  // Spacer columns (empty in every kept row, as layout-heavy pages use them) are dropped.
  const keptCol: boolean[] = [];
  for (let c = 0; c < width; c++) {
    keptCol.push(grid.some((slots, r) => kept[r] && slots[c] !== undefined && slots[c]!.col === c && slots[c]!.text !== ''));
  }
  const out: TableCell[][] = [];
  const seen = new Set<GridCell>();
  let headerRows = 0;
  let countingHeader = true;
  grid.forEach((slots, r) => {
    if (!kept[r]) return;
    const row: TableCell[] = [];
    let allHeader = true;
    for (let c = 0; c < width; c++) {
      const cell = slots[c];
      if (cell && !cell.header) allHeader = false;
      if (!keptCol[c]) continue;
      if (!cell) {
        row.push({ text: '' });
        allHeader = false;
        continue;
      }
      if (seen.has(cell)) {
        // Row-spanned text is repeated so each row reads on its own; column-spanned slots stay empty.
        row.push({ text: c === cell.col ? cell.text : '' });
        continue;
      }
      seen.add(cell);
      const rowSpan = keptIn(kept, r, cell.row + cell.rowSpan);
      const colSpan = keptIn(keptCol, c, cell.col + cell.colSpan);
      row.push({ text: cell.text, ...(rowSpan > 1 && { rowSpan }), ...(colSpan > 1 && { colSpan }) });
    }
    const isHeader = headRows > 0 ? r < headRows : allHeader;
    if (countingHeader && isHeader) headerRows++;
    else countingHeader = false;
    out.push(row);
  });
  if (out.every((row) => row.every((cell) => cell.text === ''))) return undefined;
  const captionText = caption ? flatText(caption, options) : '';
  return { rows: out, headerRows, ...(captionText && { caption: captionText }) };
}

/**
 * True when row r adds nothing of its own: every filled slot is empty, carried down from a row above,
 * or starts a cell spanning into the next row (where its text appears again).
 */
function onlyOpensRowSpans(slots: readonly (GridCell | undefined)[], r: number, rowCount: number): boolean {
  for (const cell of slots) {
    if (!cell || cell.text === '' || cell.row < r) continue;
    if (cell.rowSpan > 1 && r + 1 < rowCount) continue;
    return false;
  }
  return true;
}

/** How many of the rows (or columns) from..to-1 are kept. */
function keptIn(kept: readonly boolean[], from: number, to: number): number {
  let n = 0;
  for (let r = from; r < Math.min(to, kept.length); r++) if (kept[r]) n++;
  return n;
}

/** Walks `root`'s children into elements. */
export function walkHtml(root: DomNode, options: WalkOptions): ElementDraft[] {
  const keep = options.dropBoilerplate && !options.keep && isElement(root) ? mainText(root).chain : options.keep;
  const walker = new BlockWalker({ ...options, ...(keep && { keep }) });
  walker.walkChildren(root);
  return walker.finish();
}

/** Navigation landmarks by tag: their text is not the page's running text. */
function isChromeTag(tag: string, inContentSection: boolean): boolean {
  return BOILERPLATE_TAGS.has(tag) ? tag !== 'form' : PAGE_CHROME_TAGS.has(tag) && !inContentSection;
}

/** Characters of `text` that are not whitespace (what a reader sees). */
function visibleLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 32 && c !== 0xa0) n++;
  }
  return n;
}

/** What `mainText` finds: the chain the filter keeps, and the content landmark on it. */
export interface MainText {
  /** The deepest element holding most of the running text, and its ancestors. */
  chain: Set<DomNode>;
  /** The deepest `<article>`, `<main>` or role=main/article element of the chain: where the page says its content is. */
  landmark: DomElement | undefined;
  /** Running text (see `mainText`) of the landmark, and of the whole page. */
  landmarkText: number;
  totalText: number;
}

/**
 * The main text of a page. Running text is visible text outside links, scripts and hidden
 * elements, and outside navigation landmarks (`nav`, `aside`, `menu`, a page-level `header`,
 * any `footer`), so a sidebar of links never outweighs the article. The chain is the deepest
 * element holding more than half of the page's running text, and all its ancestors up to `root`.
 * The boilerplate filter never removes an element of the chain, whatever its classes or roles say:
 * a wrapper classed `has-sidebar` or `navigation-with-keyboard` that holds the article is not chrome.
 * Iterative and linear in the number of nodes (no recursion, so any nesting depth is safe).
 */
export function mainText(root: DomElement): MainText {
  const weights = runningText(root);
  const chain = new Set<DomNode>();
  const totalText = weights.get(root) ?? 0;
  let landmark: DomElement | undefined;
  if (totalText === 0) return { chain, landmark, landmarkText: 0, totalText };
  for (let at: DomElement | undefined = root; at; ) {
    chain.add(at);
    if (isContentLandmark(at)) landmark = at;
    let heavier: DomElement | undefined;
    for (let child = at.firstChild; child; child = child.nextSibling) {
      if (isElement(child) && (weights.get(child) ?? 0) * 2 > totalText) {
        heavier = child;
        break;
      }
    }
    at = heavier;
  }
  return { chain, landmark, landmarkText: landmark ? weights.get(landmark)! : 0, totalText };
}

/** Running text (see `mainText`) of `root`'s subtree. */
export function runningTextLength(root: DomElement): number {
  return runningText(root).get(root) ?? 0;
}

function isContentLandmark(el: DomElement): boolean {
  if (el.localName === 'article' || el.localName === 'main') return true;
  const role = el.getAttribute('role');
  return role !== null && (role.toLowerCase() === 'main' || role.toLowerCase() === 'article');
}

/** Running text of every element of `root`'s subtree (those the filter can see), by a post-order walk on an explicit stack. */
function runningText(root: DomElement): Map<DomElement, number> {
  interface Frame { el: DomElement; next: DomNode | null; weight: number; inSection: boolean; inLink: boolean }
  const weights = new Map<DomElement, number>();
  const stack: Frame[] = [{ el: root, next: root.firstChild, weight: 0, inSection: CONTENT_SECTIONS.has(root.localName), inLink: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const node = top.next;
    if (!node) {
      stack.pop();
      weights.set(top.el, top.weight);
      if (stack.length > 0) stack[stack.length - 1]!.weight += top.weight;
      continue;
    }
    top.next = node.nextSibling;
    if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) {
      if (!top.inLink) top.weight += visibleLength(node.textContent ?? '');
      continue;
    }
    if (!isElement(node)) continue;
    const tag = node.localName;
    if (SKIPPED_TAGS.has(tag) || isHidden(node) || isChromeTag(tag, top.inSection)) continue;
    stack.push({ el: node, next: node.firstChild, weight: 0, inSection: top.inSection || CONTENT_SECTIONS.has(tag), inLink: top.inLink || tag === 'a' });
  }
  return weights;
}

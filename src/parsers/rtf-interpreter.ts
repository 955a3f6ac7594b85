import { decodeAs } from '../detect/encoding.js';
import type { ElementDraft, TableCell } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { nestingExceeded, parseLimits } from '../limits.js';
import { charsetCodePage, codePageLabel } from './rtf-codepages.js';

/**
 * An RTF reader: tokenizer and interpreter in one pass over the bytes (as Latin-1, one char per
 * byte). It tracks the group stack (destination, font, \uc count), the font table (for each font's
 * code page) and the style sheet (for heading styles), and writes paragraphs, headings, list items
 * (from \listtext / \pntext), tables (\cell / \row, closed by the first paragraph outside \intbl),
 * footnotes and header/footer furniture. Destinations it does not render (font and colour tables,
 * pictures, objects, field instructions, every unknown `\*` destination) are skipped whole.
 */

type Sink =
  | 'body'
  | 'skip'
  | 'fonttbl'
  | 'stylesheet'
  | 'listtext'
  | 'furniture'
  | 'footnote'
  | 'object'
  | 'info'
  | 'meta';

interface GroupState {
  sink: Sink;
  font: number;
  /** Characters to skip after \uN (\ucN). */
  uc: number;
  /** Which metadata field a 'meta' sink fills. */
  metaKey?: string;
  /** The style or font being defined in this group (style sheet / font table entries). */
  styleDef?: StyleDef;
  fontDef?: { number: number };
  /** Where an \object's \result text goes (the sink outside the object). */
  outerSink?: Sink;
}

interface StyleDef {
  number?: number;
  name: string;
  outlineLevel?: number;
}

export interface RtfResult {
  elements: ElementDraft[];
  metadata: Record<string, unknown>;
  title?: string;
  /** Code page label of \ansicpg. */
  codePage: string;
}

/** Destinations skipped whole (besides every `\*` destination the reader does not know). */
const SKIPPED_DESTINATIONS = new Set([
  'colortbl', 'filetbl', 'revtbl', 'rsidtbl', 'listtable', 'listoverridetable', 'pict', 'nonshppict', 'themedata',
  'colorschememapping', 'datastore', 'latentstyles', 'generator', 'xe', 'tc', 'txe', 'bkmkstart', 'bkmkend',
  'fldinst', 'ftnsep', 'ftnsepc', 'aftnsep', 'aftnsepc', 'pgdsctbl', 'do', 'xmlnstbl', 'mmathPr', 'userprops',
  'docvar', 'template', 'operator', 'atnid', 'atnauthor', 'annotation', 'falt', 'panose', 'fname', 'listpicture',
]);
const FURNITURE_DESTINATIONS = new Set(['header', 'headerl', 'headerr', 'headerf', 'footer', 'footerl', 'footerr', 'footerf']);
const INFO_FIELDS: Record<string, string> = {
  title: 'title', author: 'author', subject: 'subject', keywords: 'keywords', company: 'company',
  manager: 'manager', category: 'category', comment: 'comment', doccomm: 'comment', hlinkbase: 'hyperlinkBase',
};
const DATE_FIELDS: Record<string, string> = { creatim: 'created', revtim: 'modified' };

/** Control symbols and words that stand for one character. */
const CHARACTER_WORDS: Record<string, string> = {
  emdash: '\u2014', endash: '\u2013', lquote: '\u2018', rquote: '\u2019', ldblquote: '\u201c', rdblquote: '\u201d',
  bullet: '\u2022', emspace: '\u2003', enspace: '\u2002', qmspace: '\u2005', zwj: '\u200d', zwnj: '\u200c',
  ltrmark: '\u200e', rtlmark: '\u200f', tab: '\t', line: '\n', lbr: '\n',
};
const HEADING_STYLE = /^(?:heading|titre|überschrift|berschrift|titolo|título|kop|rubrik|заголовок|标题|見出し)\s*(\d)$/i;
const TITLE_STYLE = /^title$/i;
const ORDERED_MARKER = /^\(?(\d{1,4}|[a-z]|[ivxlc]{1,6})[.)]?$/i;
const DIGITS = /^\d+$/;
const SPACE_RUN = /[ \t\u00a0]+/g;
const LINE_EDGES = / *\n */g;
const NEWLINES = /\n+/g;
const STYLE_NAME_END = /;\s*$/;

export function interpretRtf(bytes: Uint8Array): RtfResult {
  return new RtfInterpreter(bytes).run();
}

class RtfInterpreter {
  private readonly src: string;
  private pos = 0;
  private readonly stack: GroupState[] = [];
  /** Groups may nest this deep (maxNesting); real files stay under ten. */
  private readonly maxNesting = parseLimits().maxNesting;
  private state: GroupState = { sink: 'body', font: -1, uc: 1 };
  private ansiCodePage = 1252;
  private defaultFont = -1;
  private readonly fontCodePages = new Map<number, number>();
  private readonly styles = new Map<number, StyleDef>();
  private readonly metadata: Record<string, unknown> = {};
  private readonly elements: ElementDraft[] = [];
  private readonly dateParts: Record<string, number> = {};

  /** Pending bytes from \'hh escapes and raw 8-bit characters, decoded together (double-byte code pages). */
  private bytes: number[] = [];
  private bytesCodePage = 1252;
  /** Characters still to skip after \uN. */
  private skipChars = 0;
  /** Set by `\*`: the next control word starts a destination the reader may not know. */
  private starred = false;

  // Paragraph state (reset by \pard).
  private paragraph: string[] = [];
  private style = 0;
  private outlineLevel: number | undefined;
  private inTable = false;
  private listLevel = 0;
  private listMarker: string[] = [];
  private hasListMarker = false;
  private listId = 0;
  private leftIndent: number | undefined;
  /** The \li written inside \listtext: some writers (StarWriter) indent only the marker. */
  private markerIndent: number | undefined;
  /** Each list item's left indent (\li, twips), for depths by indentation. */
  private readonly itemIndents = new Map<ElementDraft, number>();
  // Table state.
  private rows: TableCell[][] = [];
  private cells: TableCell[] = [];
  private cellText: string[] = [];
  private headerRow = false;
  private headerRows = 0;
  // Destination buffers.
  private furniture: string[] = [];
  private footnote: string[] = [];
  private readonly pendingFootnotes: string[] = [];
  private metaText: string[] = [];

  constructor(bytes: Uint8Array) {
    this.src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }

  run(): RtfResult {
    const src = this.src;
    if (!src.startsWith('{\\rtf')) throw new GroundworkError('CORRUPT', "is not RTF: it does not start with '{\\rtf'");
    const n = src.length;
    while (this.pos < n) {
      const c = src.charCodeAt(this.pos);
      if (c === 0x5c /* \ */) this.controlSequence();
      else if (c === 0x7b /* { */) {
        this.pos++;
        this.openGroup();
      } else if (c === 0x7d /* } */) {
        this.pos++;
        this.closeGroup();
      } else if (c === 0x0d || c === 0x0a) this.pos++;
      else if (c >= 0x80) {
        this.pos++;
        this.addByte(c);
      } else this.plainRun();
    }
    while (this.stack.length > 0) this.closeGroup();
    this.endParagraph();
    this.closeTable();
    this.finishDates();
    this.depthsByIndent();
    const title = typeof this.metadata.title === 'string' ? this.metadata.title : undefined;
    return { elements: this.elements, metadata: this.metadata, ...(title && { title }), codePage: codePageLabel(this.ansiCodePage) };
  }

  // --- tokens ---------------------------------------------------------------------------------

  /** A run of ASCII text up to the next control character, brace, newline or 8-bit byte. */
  private plainRun(): void {
    const src = this.src;
    let end = this.pos;
    const n = src.length;
    while (end < n) {
      const c = src.charCodeAt(end);
      if (c === 0x5c || c === 0x7b || c === 0x7d || c === 0x0d || c === 0x0a || c >= 0x80) break;
      end++;
    }
    let start = this.pos;
    this.pos = end;
    if (this.skipChars > 0) {
      const skipped = Math.min(this.skipChars, end - start);
      this.skipChars -= skipped;
      start += skipped;
    }
    if (start < end) this.addText(src.slice(start, end));
  }

  private controlSequence(): void {
    const src = this.src;
    const next = src.charCodeAt(this.pos + 1);
    if (!isLetter(next)) {
      this.pos += 2;
      this.controlSymbol(src[this.pos - 1] ?? '');
      return;
    }
    let end = this.pos + 1;
    while (end < src.length && isLetter(src.charCodeAt(end))) end++;
    const word = src.slice(this.pos + 1, end);
    let param: number | undefined;
    let p = end;
    if (src.charCodeAt(p) === 0x2d /* - */ || isDigit(src.charCodeAt(p))) {
      const numStart = p;
      p++;
      while (p < src.length && isDigit(src.charCodeAt(p))) p++;
      param = Number(src.slice(numStart, p));
      if (!Number.isFinite(param)) param = undefined;
    }
    // One space delimits a control word and belongs to it.
    if (src.charCodeAt(p) === 0x20) p++;
    this.pos = p;
    if (this.skipChars > 0 && word !== 'bin') {
      // A control word inside \uN fallback counts as one skipped character.
      this.skipChars--;
      return;
    }
    this.controlWord(word, param);
  }

  private controlSymbol(symbol: string): void {
    if (symbol === "'") {
      const hex = this.src.slice(this.pos, this.pos + 2);
      this.pos += 2;
      if (this.skipChars > 0) {
        this.skipChars--;
        return;
      }
      const byte = Number.parseInt(hex, 16);
      if (Number.isFinite(byte)) this.addByte(byte);
      return;
    }
    if (this.skipChars > 0) {
      this.skipChars--;
      return;
    }
    switch (symbol) {
      case '*':
        this.starred = true;
        return;
      case '\\':
      case '{':
      case '}':
        this.addText(symbol);
        return;
      case '~':
        this.addText('\u00a0');
        return;
      case '_':
        this.addText('\u2011');
        return;
      case '\n':
      case '\r':
        // A backslash before a newline is a paragraph mark (old writers).
        this.controlWord('par', undefined);
        return;
      default:
        // \- (optional hyphen), \: (index subentry) and the rest print nothing.
        return;
    }
  }

  private openGroup(): void {
    if (this.stack.length >= this.maxNesting) nestingExceeded('RTF groups', this.maxNesting);
    this.flushBytes();
    this.skipChars = 0;
    this.stack.push(this.state);
    const parent = this.state;
    this.state = { sink: parent.sink, font: parent.font, uc: parent.uc, ...(parent.metaKey !== undefined && { metaKey: parent.metaKey }), ...(parent.outerSink !== undefined && { outerSink: parent.outerSink }) };
    if (parent.sink === 'stylesheet' && !parent.styleDef) this.state.styleDef = { name: '' };
    else if (parent.styleDef) this.state.styleDef = parent.styleDef;
    if (parent.sink === 'fonttbl' && !parent.fontDef) this.state.fontDef = { number: -1 };
    else if (parent.fontDef) this.state.fontDef = parent.fontDef;
  }

  private closeGroup(): void {
    this.flushBytes();
    this.skipChars = 0;
    this.starred = false;
    const closing = this.state;
    const parent = this.stack.pop();
    if (!parent) return; // an unbalanced '}' is ignored
    this.state = parent;
    if (closing.sink === parent.sink && closing.metaKey === parent.metaKey) {
      if (closing.styleDef && !parent.styleDef) this.defineStyle(closing.styleDef);
      return;
    }
    switch (closing.sink) {
      case 'listtext':
        this.hasListMarker = true;
        break;
      case 'furniture':
        if (parent.sink !== 'furniture') this.emitFurniture();
        break;
      case 'footnote':
        if (parent.sink !== 'footnote') this.endFootnote();
        break;
      case 'meta':
        this.endMeta(closing.metaKey!);
        break;
      default:
        break;
    }
    if (closing.styleDef && !parent.styleDef) this.defineStyle(closing.styleDef);
  }

  // --- control words --------------------------------------------------------------------------

  private controlWord(word: string, param: number | undefined): void {
    const starred = this.starred;
    this.starred = false;
    const state = this.state;
    if (state.sink === 'skip') {
      if (word === 'bin') this.skipBinary(param);
      return;
    }
    if (this.destination(word)) return;
    if (starred) {
      // An unknown `\*` destination: skip its group (that is what `\*` is for).
      this.flushBytes();
      state.sink = 'skip';
      return;
    }
    const character = CHARACTER_WORDS[word];
    if (character !== undefined) {
      if (state.sink === 'fonttbl' || state.sink === 'stylesheet') return;
      this.addText(character);
      return;
    }
    switch (word) {
      case 'par':
      case 'sect':
      case 'page':
        this.paragraphMark();
        return;
      case 'u':
        if (param !== undefined) this.addUnicode(param);
        return;
      case 'uc':
        state.uc = param ?? 1;
        return;
      case 'bin':
        this.skipBinary(param);
        return;
      case 'ansicpg':
        if (param !== undefined) this.ansiCodePage = param;
        return;
      case 'deff':
        if (param !== undefined) this.defaultFont = param;
        return;
      case 'f':
        this.flushBytes();
        if (state.fontDef) state.fontDef.number = param ?? 0;
        // A font table written without a group per font (`{\fonttbl\f0\fswiss Helvetica;\f1...}`).
        else if (state.sink === 'fonttbl') state.fontDef = { number: param ?? 0 };
        else state.font = param ?? 0;
        return;
      case 'fcharset':
        if (state.fontDef && param !== undefined) {
          const codePage = charsetCodePage(param);
          if (codePage !== undefined) this.fontCodePages.set(state.fontDef.number, codePage);
        }
        return;
      case 'cpg':
        // A font's explicit code page wins over its charset.
        if (state.fontDef && param !== undefined && param > 0) this.fontCodePages.set(state.fontDef.number, param);
        return;
      case 'plain':
        this.flushBytes();
        state.font = this.defaultFont;
        return;
      case 's':
        if (state.styleDef) state.styleDef.number = param ?? 0;
        else if (state.sink === 'body') this.style = param ?? 0;
        return;
      case 'cs':
      case 'ds':
      case 'ts':
        // Character, section and table styles never make a heading.
        if (state.styleDef) state.styleDef.number = undefined;
        return;
      case 'outlinelevel':
        if (state.styleDef) state.styleDef.outlineLevel = param ?? 0;
        else if (state.sink === 'body') this.outlineLevel = param ?? 0;
        return;
      case 'pard':
        if (state.sink !== 'body') return;
        this.style = 0;
        this.outlineLevel = undefined;
        this.inTable = false;
        this.listLevel = 0;
        this.listId = 0;
        this.leftIndent = undefined;
        return;
      case 'li':
        if (state.sink === 'body') this.leftIndent = param ?? 0;
        else if (state.sink === 'listtext') this.markerIndent = param ?? 0;
        return;
      case 'intbl':
        if (state.sink === 'body') this.inTable = true;
        return;
      case 'ilvl':
      case 'pnlvl':
        if (state.sink === 'body' || state.sink === 'listtext') this.listLevel = Math.max(0, (param ?? 0) - (word === 'pnlvl' ? 1 : 0));
        return;
      case 'ls':
        if (state.sink === 'body') this.listId = param ?? 0;
        return;
      case 'cell':
      case 'nestcell':
        if (state.sink === 'body') this.endCell(word === 'nestcell');
        return;
      case 'row':
      case 'nestrow':
        if (state.sink === 'body') this.endRow(word === 'nestrow');
        return;
      case 'trowd':
        if (state.sink === 'body') this.headerRow = false;
        return;
      case 'trhdr':
        if (state.sink === 'body') this.headerRow = true;
        return;
      case 'yr':
      case 'mo':
      case 'dy':
      case 'hr':
      case 'min':
        if (state.sink === 'meta' && param !== undefined) this.dateParts[`${state.metaKey}.${word}`] = param;
        return;
      default:
        return;
    }
  }

  /** Starts a destination group; true when `word` was one. */
  private destination(word: string): boolean {
    const state = this.state;
    if (word === 'fonttbl') return this.enter('fonttbl');
    if (word === 'stylesheet') return this.enter('stylesheet');
    if (word === 'info') return this.enter('info');
    if (word === 'listtext' || word === 'pntext') {
      this.flushBytes();
      this.listMarker = [];
      this.markerIndent = undefined;
      return this.enter('listtext');
    }
    if (SKIPPED_DESTINATIONS.has(word)) return this.enter('skip');
    if (FURNITURE_DESTINATIONS.has(word)) {
      this.flushBytes();
      if (state.sink !== 'furniture') this.furniture = [];
      return this.enter('furniture');
    }
    if (word === 'footnote') {
      this.flushBytes();
      if (state.sink !== 'footnote') this.footnote = [];
      return this.enter('footnote');
    }
    if (word === 'object') {
      state.outerSink = state.sink;
      return this.enter('object');
    }
    if (word === 'result' && state.sink === 'object') {
      state.sink = state.outerSink ?? 'body';
      return true;
    }
    if (state.sink === 'info') {
      const field = INFO_FIELDS[word] ?? DATE_FIELDS[word];
      if (field) {
        this.metaText = [];
        state.metaKey = field;
        return this.enter('meta');
      }
      return this.enter('skip');
    }
    return false;
  }

  private enter(sink: Sink): true {
    this.flushBytes();
    this.state.sink = sink;
    return true;
  }

  private skipBinary(length: number | undefined): void {
    this.pos += Math.max(0, length ?? 0);
  }

  // --- text -----------------------------------------------------------------------------------

  private addUnicode(value: number): void {
    this.flushBytes();
    this.addText(String.fromCharCode(value < 0 ? value + 65536 : value));
    this.skipChars = this.state.uc;
  }

  private addByte(byte: number): void {
    if (this.skipChars > 0) {
      this.skipChars--;
      return;
    }
    const codePage = this.currentCodePage();
    if (this.bytes.length > 0 && codePage !== this.bytesCodePage) this.flushBytes();
    this.bytesCodePage = codePage;
    this.bytes.push(byte);
  }

  private currentCodePage(): number {
    const font = this.state.font >= 0 ? this.state.font : this.defaultFont;
    return this.fontCodePages.get(font) ?? this.ansiCodePage;
  }

  private flushBytes(): void {
    if (this.bytes.length === 0) return;
    const text = decodeAs(Uint8Array.from(this.bytes), codePageLabel(this.bytesCodePage));
    this.bytes = [];
    this.write(text);
  }

  private addText(text: string): void {
    this.flushBytes();
    this.write(text);
  }

  /** Text to wherever the current destination collects it. */
  private write(text: string): void {
    switch (this.state.sink) {
      case 'body':
        this.paragraph.push(text);
        return;
      case 'listtext':
        this.listMarker.push(text);
        return;
      case 'furniture':
        this.furniture.push(text);
        return;
      case 'footnote':
        this.footnote.push(text);
        return;
      case 'meta':
        this.metaText.push(text);
        return;
      case 'stylesheet':
        if (this.state.styleDef) this.state.styleDef.name += text;
        return;
      default:
        return;
    }
  }

  // --- structure ------------------------------------------------------------------------------

  private paragraphMark(): void {
    this.flushBytes();
    switch (this.state.sink) {
      case 'body':
        if (this.inTable) {
          // A paragraph inside a cell: a line of the cell.
          this.cellText.push(this.takeParagraph(), '\n');
          this.hasListMarker = false;
        } else this.endParagraph();
        return;
      case 'furniture':
        this.furniture.push('\n');
        return;
      case 'footnote':
        this.footnote.push('\n');
        return;
      default:
        return;
    }
  }

  private takeParagraph(): string {
    const text = this.paragraph.join('');
    this.paragraph = [];
    return text;
  }

  private endParagraph(): void {
    const text = cleanText(this.takeParagraph());
    const marker = cleanText(this.listMarker.join(''));
    const isListItem = this.hasListMarker || this.listId > 0;
    this.hasListMarker = false;
    this.listMarker = [];
    const markerIndent = this.markerIndent;
    this.markerIndent = undefined;
    if (!text) return;
    this.closeTable();
    const level = this.headingLevel();
    if (level !== undefined && !isListItem) {
      this.elements.push({ kind: 'heading', level, text: oneLine(text) });
    } else if (isListItem) {
      const ordered = ORDERED_MARKER.exec(marker);
      const item: ElementDraft = {
        kind: 'list-item',
        text,
        depth: this.listLevel,
        ordered: ordered !== null,
        ...(ordered && DIGITS.test(ordered[1]!) && { number: Number(ordered[1]) }),
      };
      this.elements.push(item);
      const indent = markerIndent ?? this.leftIndent;
      if (indent !== undefined) this.itemIndents.set(item, indent);
    } else {
      this.elements.push({ kind: 'paragraph', text });
    }
    this.emitPendingFootnotes();
  }

  private headingLevel(): number | undefined {
    if (this.outlineLevel !== undefined && this.outlineLevel < 9) return Math.min(6, this.outlineLevel + 1);
    const style = this.styles.get(this.style);
    if (!style) return undefined;
    if (style.outlineLevel !== undefined && style.outlineLevel < 9) return Math.min(6, style.outlineLevel + 1);
    const name = style.name;
    const m = HEADING_STYLE.exec(name);
    if (m) return Math.min(6, Math.max(1, Number(m[1])));
    return TITLE_STYLE.test(name) ? 1 : undefined;
  }

  /**
   * Word writes a nested level as a separate list override at level 0 (\ls4 under \ls1\ilvl1), so
   * \ilvl alone misreads nesting; within a run of list items that all have a left indent, depth is
   * the rank of the item's indent among the run's indents.
   */
  private depthsByIndent(): void {
    const elements = this.elements;
    for (let i = 0; i < elements.length; ) {
      if (elements[i]!.kind !== 'list-item') {
        i++;
        continue;
      }
      let end = i;
      while (end < elements.length && elements[end]!.kind === 'list-item') end++;
      const run = elements.slice(i, end);
      if (run.every((item) => this.itemIndents.has(item))) {
        const indents = [...new Set(run.map((item) => this.itemIndents.get(item)!))].sort((a, b) => a - b);
        for (const item of run) item.depth = indents.indexOf(this.itemIndents.get(item)!);
      }
      i = end;
    }
  }

  private defineStyle(def: StyleDef): void {
    if (def.number === undefined) return;
    const name = def.name.replace(STYLE_NAME_END, '').trim();
    this.styles.set(def.number, { number: def.number, name, ...(def.outlineLevel !== undefined && { outlineLevel: def.outlineLevel }) });
  }

  private endCell(nested: boolean): void {
    this.flushBytes();
    if (nested) {
      // Nested tables are flattened into their outer cell, one nested cell per line.
      this.cellText.push(this.takeParagraph(), '\n');
      return;
    }
    this.cellText.push(this.takeParagraph());
    this.cells.push({ text: cleanText(this.cellText.join('')) });
    this.cellText = [];
    this.hasListMarker = false;
    this.listMarker = [];
  }

  private endRow(nested: boolean): void {
    if (nested) return;
    if (this.cells.length > 0) {
      if (this.headerRow && this.rows.length === this.headerRows) this.headerRows++;
      this.rows.push(this.cells);
    }
    this.cells = [];
  }

  private closeTable(): void {
    if (this.cells.length > 0) this.endRow(false);
    if (this.rows.length === 0) return;
    const rows = this.rows;
    this.rows = [];
    const text = rows.map((row) => row.map((cell) => cell.text.replace(NEWLINES, ' ')).join('\t')).join('\n');
    this.elements.push({ kind: 'table', text, table: { rows, headerRows: this.headerRows } });
    this.headerRows = 0;
  }

  private emitFurniture(): void {
    const text = cleanText(this.furniture.join(''));
    this.furniture = [];
    if (text) this.elements.push({ kind: 'page-furniture', text });
  }

  private endFootnote(): void {
    const text = cleanText(this.footnote.join(''));
    this.footnote = [];
    if (text) this.pendingFootnotes.push(text);
  }

  private emitPendingFootnotes(): void {
    for (const text of this.pendingFootnotes) this.elements.push({ kind: 'footnote', text });
    this.pendingFootnotes.length = 0;
  }

  private endMeta(key: string): void {
    const text = cleanText(this.metaText.join(''));
    this.metaText = [];
    if (text && !(key in DATE_KEYS)) this.metadata[key] ??= text;
  }

  /** \creatim / \revtim groups carry \yr \mo \dy \hr \min: an ISO date (local time, no zone). */
  private finishDates(): void {
    for (const key of Object.values(DATE_FIELDS)) {
      const year = this.dateParts[`${key}.yr`];
      if (year === undefined) continue;
      const pad = (v: number | undefined): string => String(v ?? 0).padStart(2, '0');
      const month = this.dateParts[`${key}.mo`] ?? 1;
      const day = this.dateParts[`${key}.dy`] ?? 1;
      this.metadata[key] = `${year}-${pad(month)}-${pad(day)}T${pad(this.dateParts[`${key}.hr`])}:${pad(this.dateParts[`${key}.min`])}:00`;
    }
  }
}

const DATE_KEYS: Record<string, true> = { created: true, modified: true };

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Spaces and tabs collapsed, lines trimmed, blank lines at the edges dropped. */
function cleanText(text: string): string {
  return text.replace(SPACE_RUN, ' ').replace(LINE_EDGES, '\n').trim();
}

function oneLine(text: string): string {
  return text.replace(NEWLINES, ' ');
}

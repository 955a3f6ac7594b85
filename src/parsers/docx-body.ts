import type { ElementDraft, TableCell, TableData } from '../document/types.js';
import type { DocxComments } from './docx-comments.js';
import type { DocxNumbering } from './docx-numbering.js';
import { RevisionMarks, REVISION_SKIPPED, REVISION_SKIPPED_SHOWN } from './docx-revisions.js';
import type { RevisionsMode } from './review-options.js';
import { isMonospaceFont, type DocxStyles } from './docx-styles.js';
import { SubtreeCapture } from './math/capture.js';
import { ommlParagraph, ommlToLatex } from './math/omml.js';
import { saxParse, type XmlAttributes } from './xml.js';

/**
 * Walks a WordprocessingML part (the body, a header or footer, the footnotes or comments) with a
 * SAX stream and produces elements in reading order.
 *
 * Finished elements go to the innermost "sink": the part's element list, a table cell, a text box or
 * a note. So a table cell is just the elements of its paragraphs (nested tables included, flattened
 * into the cell's text), and a text box's paragraphs follow the paragraph anchoring it. Footnote
 * and endnote references become `footnote` elements, comment references the comment's thread
 * (docx-comments.ts) and charts their caption and table, right after the paragraph (or the table)
 * that holds them, so a chunk keeps a note with the text it explains. Tracked changes give the
 * final text, or both sides marked (docx-revisions.ts). Equations (OMML) are captured as a tree
 * and converted to LaTeX (math/omml.ts): `m:oMath` inline as `$...$` in the paragraph's text, each
 * equation of an `m:oMathPara` a `formula` element where it stands.
 */

export interface DocxContext {
  styles: DocxStyles;
  numbering: DocxNumbering;
  /** Relationship id -> target, for hyperlinks. */
  links: Map<string, string>;
  footnotes: Map<string, string>;
  endnotes: Map<string, string>;
  /** The comments part, threaded; absent while the comments part itself is read. */
  comments?: DocxComments;
  /** A chart drawing's elements (caption and table) from its relationship id; absent where charts are not read. */
  chart?: (relId: string) => ElementDraft[];
  /** Tracked changes: the final text, or insertions and deletions marked. */
  revisions: RevisionsMode;
  /** Collected hyperlinks (text and URL), in order. */
  hyperlinks: { text: string; url: string }[];
  /** Counters shared across parts: footnote and endnote labels, images without alt text. */
  counters: { footnotes: number; endnotes: number; imagesWithoutAlt: number };
  /** Set when embedded pictures will be OCR'd: each image element -> the relationship id of its picture. */
  imageRels?: Map<ElementDraft, string>;
}

export interface NoteEntry {
  id: string;
  type?: string;
  author?: string;
  /** `w:date` (comments). */
  date?: string;
  /** `w14:paraId` of the note's last paragraph. */
  paraId?: string;
  text: string;
}

interface ParagraphState {
  parts: string[];
  chars: number;
  monoChars: number;
  styleId?: string;
  numId?: string;
  ilvl?: number;
  outline?: number;
  /** Text-box content, which follows the paragraph. */
  after: ElementDraft[];
  /** Notes, comments, images and charts: they follow the paragraph, or its table when it is in one. */
  notes: ElementDraft[];
  inPPr: boolean;
  /** Display equations (m:oMathPara), each with the number of text parts before it. */
  displays?: { at: number; latex: string }[];
}

interface CellState {
  elements: ElementDraft[];
  gridSpan: number;
  vMerge?: 'restart' | 'continue';
}

interface RowState {
  cells: CellState[];
  header: boolean;
  gridBefore: number;
  /** A tracked deletion of the whole row (`w:trPr/w:del`). */
  deleted?: boolean;
}

interface TableState {
  rows: RowState[];
}

interface NoteState {
  id: string;
  type?: string;
  author?: string;
  date?: string;
  paraId?: string;
  elements: ElementDraft[];
}

/** Elements whose whole subtree is ignored: field codes, fallbacks duplicating mc:Choice, formatting changes, and deleted text unless revisions are shown. */
const SKIPPED = new Set(['w:instrText', 'mc:Fallback', 'w:sdtPr', 'w:fldData', 'w:rPrChange', 'w:pPrChange', 'w:tblPrChange', 'w:trPrChange', 'w:tcPrChange', 'w:sectPrChange']);
const SKIPPED_FINAL = new Set([...SKIPPED, ...REVISION_SKIPPED]);
const SKIPPED_SHOWN = new Set([...SKIPPED, ...REVISION_SKIPPED_SHOWN]);
const NOTE_CONTAINERS = new Set(['w:footnote', 'w:endnote', 'w:comment']);
const SEPARATOR_NOTE = /separator|continuationNotice/;

export class DocxWalker {
  readonly elements: ElementDraft[] = [];
  readonly notes: NoteEntry[] = [];
  private readonly sinks: ElementDraft[][] = [this.elements];
  private readonly paragraphs: ParagraphState[] = [];
  private readonly tables: TableState[] = [];
  private readonly noteStack: NoteState[] = [];
  /** Notes and images cited inside a table wait until the outermost table is closed. */
  private readonly deferred: ElementDraft[] = [];
  private skipDepth = 0;
  private inText = false;
  private inRun = false;
  private inRunProps = false;
  private runMono = false;
  private runHidden = false;
  private drawingAlt: string | undefined;
  /** Relationship id of the drawing's picture (a:blip r:embed, v:imagedata r:id). */
  private drawingRel: string | undefined;
  private inDrawing = 0;
  private link: { id?: string; start: number } | undefined;
  /** Relationship id of the drawing's chart (c:chart / cx:chart r:id). */
  private drawingChart: string | undefined;
  private inRowProps = false;
  private readonly skipped: ReadonlySet<string>;
  private readonly marks: RevisionMarks | undefined;
  /** Comment ranges open at this point (id -> the text they cover so far). */
  private readonly ranges = new Map<string, string>();
  /** The equation (m:oMath or m:oMathPara) being read, as a tree for the OMML converter. */
  private math: SubtreeCapture | undefined;

  constructor(private readonly ctx: DocxContext) {
    this.skipped = ctx.revisions === 'show' ? SKIPPED_SHOWN : SKIPPED_FINAL;
    if (ctx.revisions === 'show') this.marks = new RevisionMarks();
  }

  walk(xml: string): this {
    saxParse(xml, { open: (n, a) => this.open(n, a), close: (n) => this.close(n), text: (t) => this.text(t) });
    return this;
  }

  private get paragraph(): ParagraphState | undefined {
    return this.paragraphs[this.paragraphs.length - 1];
  }

  private get sink(): ElementDraft[] {
    return this.sinks[this.sinks.length - 1]!;
  }

  private open(name: string, a: XmlAttributes): void {
    if (this.math) {
      this.math.open(name, a);
      return;
    }
    if (this.skipDepth > 0) {
      this.skipDepth++;
      return;
    }
    // A deleted row: gone from the final text, its cells marked deleted when revisions are shown.
    if (name === 'w:del' && this.inRowProps) {
      const row = this.currentRow();
      if (row && !this.marks) row.deleted = true;
    }
    if (this.skipped.has(name)) {
      this.skipDepth++;
      return;
    }
    const p = this.paragraph;
    if ((name === 'm:oMathPara' || name === 'm:oMath') && p) {
      this.math = new SubtreeCapture(name, a);
      return;
    }
    if (this.marks?.handles(name)) {
      // On a paragraph mark or a row (pPr/rPr, trPr) the change carries no text and is not marked.
      this.marks.open(name, p && !p.inPPr && !this.inRunProps && !this.inRowProps ? p.parts : undefined);
      return;
    }
    switch (name) {
      case 'w:p': {
        this.paragraphs.push({ parts: [], chars: 0, monoChars: 0, after: [], notes: [], inPPr: false });
        const note = this.noteStack[this.noteStack.length - 1];
        if (note && a['w14:paraId']) note.paraId = a['w14:paraId'];
        return;
      }
      case 'w:pPr':
        if (p) p.inPPr = true;
        return;
      case 'w:pStyle':
        if (p?.inPPr && a['w:val']) p.styleId = a['w:val'];
        return;
      case 'w:outlineLvl':
        if (p?.inPPr) p.outline = toInt(a['w:val']);
        return;
      case 'w:numId':
        if (p?.inPPr && a['w:val'] !== undefined) p.numId = a['w:val'];
        return;
      case 'w:ilvl':
        if (p?.inPPr) p.ilvl = toInt(a['w:val']);
        return;
      case 'w:r':
        this.inRun = true;
        this.runMono = false;
        this.runHidden = false;
        return;
      case 'w:rPr':
        if (this.inRun) this.inRunProps = true;
        return;
      case 'w:rFonts':
        if (this.inRunProps) this.runMono = isMonospaceFont(a['w:ascii'] ?? a['w:hAnsi'] ?? a['w:cs'] ?? '');
        return;
      case 'w:rStyle':
        if (this.inRunProps && a['w:val'] && this.ctx.styles.monospaceCharacter.has(a['w:val'])) this.runMono = true;
        return;
      case 'w:vanish':
        if (this.inRunProps) this.runHidden = a['w:val'] !== 'false' && a['w:val'] !== '0';
        return;
      case 'w:t':
      case 'w:delText':
        this.inText = true;
        return;
      case 'w:tab':
      case 'w:ptab':
        if (this.inRun && !this.inRunProps) this.append('\t', false);
        return;
      case 'w:br':
      case 'w:cr':
        if (this.inRun && !this.inRunProps) this.append('\n', false);
        return;
      case 'w:noBreakHyphen':
        this.append('-', this.runMono);
        return;
      case 'w:hyperlink':
        this.link = { ...(a['r:id'] !== undefined && { id: a['r:id'] }), start: this.paragraphLength() };
        return;
      case 'w:footnoteReference':
        this.noteReference('footnote', a['w:id']);
        return;
      case 'w:endnoteReference':
        this.noteReference('endnote', a['w:id']);
        return;
      case 'w:commentReference':
        this.commentReference(a['w:id']);
        return;
      case 'w:commentRangeStart':
        // Ranges never closed (a broken file) must not make every later run slower: a few dozen at a time.
        if (a['w:id'] !== undefined && this.ctx.comments && this.ranges.size < MAX_OPEN_RANGES) this.ranges.set(a['w:id'], '');
        return;
      case 'w:commentRangeEnd': {
        const id = a['w:id'];
        const text = id === undefined ? undefined : this.ranges.get(id);
        if (text === undefined) return;
        this.ranges.delete(id!);
        this.ctx.comments?.setAnchor(id!, text);
        return;
      }
      case 'c:chart':
      case 'cx:chart':
        if (this.inDrawing > 0 && a['r:id']) this.drawingChart ??= a['r:id'];
        return;
      case 'w:trPr':
        this.inRowProps = true;
        return;
      case 'w:drawing':
      case 'w:pict':
      case 'w:object':
        this.inDrawing++;
        return;
      case 'wp:docPr':
        this.drawingAlt = (a['descr'] || a['title'] || '').trim() || this.drawingAlt || '';
        return;
      case 'v:shape':
      case 'v:imagedata':
        if (this.inDrawing > 0) this.drawingAlt = (a['alt'] || a['o:title'] || '').trim() || this.drawingAlt || '';
        if (this.inDrawing > 0 && a['r:id']) this.drawingRel ??= a['r:id'];
        return;
      case 'a:blip':
        if (this.inDrawing > 0 && a['r:embed']) this.drawingRel ??= a['r:embed'];
        return;
      case 'w:txbxContent':
        this.sinks.push([]);
        return;
      case 'w:tbl':
        this.tables.push({ rows: [] });
        return;
      case 'w:tr':
        this.tables[this.tables.length - 1]?.rows.push({ cells: [], header: false, gridBefore: 0 });
        return;
      case 'w:tblHeader': {
        const row = this.currentRow();
        if (row) row.header = a['w:val'] !== 'false' && a['w:val'] !== '0';
        return;
      }
      case 'w:gridBefore': {
        const row = this.currentRow();
        if (row) row.gridBefore = Math.min(64, toInt(a['w:val']) ?? 0);
        return;
      }
      case 'w:tc': {
        const cell: CellState = { elements: [], gridSpan: 1 };
        this.currentRow()?.cells.push(cell);
        this.sinks.push(cell.elements);
        return;
      }
      case 'w:gridSpan': {
        const cell = this.currentCell();
        if (cell) cell.gridSpan = Math.max(1, Math.min(64, toInt(a['w:val']) ?? 1));
        return;
      }
      case 'w:vMerge': {
        const cell = this.currentCell();
        if (cell) cell.vMerge = a['w:val'] === 'restart' ? 'restart' : 'continue';
        return;
      }
      default:
        if (NOTE_CONTAINERS.has(name)) {
          const note: NoteState = { id: a['w:id'] ?? '', elements: [] };
          if (a['w:type']) note.type = a['w:type'];
          if (a['w:author']) note.author = a['w:author'];
          if (a['w:date']) note.date = a['w:date'];
          this.noteStack.push(note);
          this.sinks.push(note.elements);
        }
    }
  }

  private close(name: string): void {
    if (this.math) {
      if (this.math.close()) this.finishMath();
      return;
    }
    if (this.skipDepth > 0) {
      this.skipDepth--;
      return;
    }
    if (this.marks?.handles(name)) {
      this.marks.close();
      return;
    }
    switch (name) {
      case 'w:t':
      case 'w:delText':
        this.inText = false;
        return;
      case 'w:trPr':
        this.inRowProps = false;
        return;
      case 'w:pPr': {
        const p = this.paragraph;
        if (p) p.inPPr = false;
        return;
      }
      case 'w:r':
        this.inRun = false;
        this.inRunProps = false;
        return;
      case 'w:rPr':
        this.inRunProps = false;
        return;
      case 'w:hyperlink':
        this.closeLink();
        return;
      case 'w:drawing':
      case 'w:pict':
      case 'w:object':
        this.inDrawing--;
        if (this.inDrawing === 0) this.closeDrawing();
        return;
      case 'w:p': {
        const p = this.paragraphs.pop();
        if (p) this.finishParagraph(p);
        return;
      }
      case 'w:txbxContent': {
        const content = this.sinks.pop() ?? [];
        const host = this.paragraph;
        if (host) host.after.push(...content);
        else this.sink.push(...content);
        return;
      }
      case 'w:tc':
        this.sinks.pop();
        return;
      case 'w:tbl': {
        const table = this.tables.pop();
        if (table) this.finishTable(table);
        if (this.tables.length === 0 && this.deferred.length > 0) this.sink.push(...this.deferred.splice(0));
        return;
      }
      default:
        if (NOTE_CONTAINERS.has(name)) {
          const note = this.noteStack.pop();
          this.sinks.pop();
          if (note && !SEPARATOR_NOTE.test(note.type ?? '')) {
            this.notes.push({
              id: note.id,
              ...(note.type && { type: note.type }),
              ...(note.author && { author: note.author }),
              ...(note.date && { date: note.date }),
              ...(note.paraId && { paraId: note.paraId }),
              // A comment keeps its paragraphs apart; a note is one line.
              text: joinTexts(note.elements, name === 'w:comment' ? '\n' : ' '),
            });
          }
        }
    }
  }

  private text(text: string): void {
    if (this.math) this.math.text(text);
    else if (this.inText && this.skipDepth === 0 && !this.runHidden) this.append(text, this.runMono);
  }

  private append(text: string, mono: boolean): void {
    const p = this.paragraph;
    if (!p) return;
    p.parts.push(text);
    p.chars += text.length;
    if (mono) p.monoChars += text.length;
    if (this.ranges.size > 0) this.extendRanges(text);
  }

  /** Adds text to the open comment ranges (each keeps its first few hundred characters). */
  private extendRanges(text: string): void {
    for (const [id, covered] of this.ranges) if (covered.length < MAX_RANGE_TEXT) this.ranges.set(id, covered + text);
  }

  private paragraphLength(): number {
    const p = this.paragraph;
    return p ? p.parts.join('').length : 0;
  }

  private currentRow(): RowState | undefined {
    const rows = this.tables[this.tables.length - 1]?.rows;
    return rows?.[rows.length - 1];
  }

  private currentCell(): CellState | undefined {
    const cells = this.currentRow()?.cells;
    return cells?.[cells.length - 1];
  }

  private closeLink(): void {
    const link = this.link;
    this.link = undefined;
    const url = link?.id ? this.ctx.links.get(link.id) : undefined;
    const p = this.paragraph;
    if (!link || !url || !p) return;
    const text = p.parts.join('').slice(link.start).trim();
    if (this.ctx.hyperlinks.length < MAX_HYPERLINKS) this.ctx.hyperlinks.push({ text, url });
  }

  private closeDrawing(): void {
    const alt = this.drawingAlt;
    const rel = this.drawingRel;
    const chartRel = this.drawingChart;
    this.drawingAlt = undefined;
    this.drawingRel = undefined;
    this.drawingChart = undefined;
    // A chart shows its data (a caption and a table) instead of an image with its alt text.
    const chart = chartRel !== undefined && this.ctx.chart ? this.ctx.chart(chartRel) : [];
    if (chart.length > 0) {
      const p = this.paragraph;
      if (p) p.notes.push(...chart);
      else this.sink.push(...chart);
      return;
    }
    if (alt === undefined) return;
    const imageRels = this.ctx.imageRels;
    // Without alt text a picture is kept only when OCR may give it text (docx.ts drops it if not).
    if (alt === '' && !(imageRels && rel)) {
      this.ctx.counters.imagesWithoutAlt++;
      return;
    }
    const image: ElementDraft = { kind: 'image', text: '', alt };
    if (imageRels && rel) imageRels.set(image, rel);
    const p = this.paragraph;
    if (p) p.notes.push(image);
    else this.sink.push(image);
  }

  private noteReference(kind: 'footnote' | 'endnote', id: string | undefined): void {
    const p = this.paragraph;
    if (!p || id === undefined) return;
    const body = (kind === 'footnote' ? this.ctx.footnotes : this.ctx.endnotes).get(id);
    if (body === undefined) return;
    const counters = this.ctx.counters;
    const label = kind === 'footnote' ? String(++counters.footnotes) : romanLower(++counters.endnotes);
    this.append(`[${label}]`, false);
    p.notes.push({ kind: 'footnote', text: `[${label}] ${body}` });
  }

  private commentReference(id: string | undefined): void {
    const p = this.paragraph;
    if (!p || id === undefined || !this.ctx.comments) return;
    p.notes.push(...this.ctx.comments.take(id));
  }

  private finishMath(): void {
    const root = this.math!.root;
    this.math = undefined;
    const p = this.paragraph;
    if (!p) return;
    if (root.name === 'm:oMathPara') {
      for (const latex of ommlParagraph(root)) (p.displays ??= []).push({ at: p.parts.length, latex });
      return;
    }
    const latex = ommlToLatex(root);
    if (latex) this.append(`$${latex}$`, false);
  }

  /**
   * A paragraph holding display equations: the text before the first one is the paragraph (its
   * style and numbering apply), then each equation is a `formula` element, the text after it a
   * paragraph; images and notes follow the last piece.
   */
  private finishWithDisplays(p: ParagraphState, displays: { at: number; latex: string }[]): void {
    const piece = (from: number, to: number, last = false): ParagraphState => {
      const parts = p.parts.slice(from, to);
      return { parts, chars: parts.join('').length, monoChars: 0, after: last ? p.after : [], notes: last ? p.notes : [], inPPr: false };
    };
    this.finishParagraph({ ...piece(0, displays[0]!.at), ...(p.styleId !== undefined && { styleId: p.styleId }), ...(p.numId !== undefined && { numId: p.numId }), ...(p.ilvl !== undefined && { ilvl: p.ilvl }), ...(p.outline !== undefined && { outline: p.outline }) });
    displays.forEach((d, i) => {
      this.sink.push({ kind: 'formula', text: d.latex });
      const last = i === displays.length - 1;
      this.finishParagraph(piece(d.at, last ? p.parts.length : displays[i + 1]!.at, last));
    });
  }

  private finishParagraph(p: ParagraphState): void {
    if (p.displays) return this.finishWithDisplays(p, p.displays);
    const text = p.parts.join('').trim();
    const { styles, numbering } = this.ctx;
    const styleId = p.styleId ?? styles.defaultParagraph;
    const style = styleId ? styles.paragraph.get(styleId) : undefined;
    const numId = p.numId ?? style?.numId;
    const label = numId && numId !== '0' && text ? numbering.next(numId, p.ilvl ?? style?.ilvl ?? 0) : undefined;
    const level = p.outline !== undefined ? (p.outline <= 8 ? Math.min(6, p.outline + 1) : undefined) : style?.headingLevel;
    const sink = this.sink;
    if (text) {
      if (level !== undefined) {
        sink.push({ kind: 'heading', level, text: label?.ordered && label.label ? `${label.label} ${text}` : text });
      } else if (label) {
        if (label.ordered && label.simple) sink.push({ kind: 'list-item', text, depth: label.depth, ordered: true, number: label.number });
        else sink.push({ kind: 'list-item', text: label.ordered && label.label ? `${label.label} ${text}` : text, depth: label.depth, ordered: false });
      } else if (this.isCode(p, style?.code ?? false, text)) {
        const previous = sink[sink.length - 1];
        if (previous?.kind === 'code') previous.text += `\n${p.parts.join('').replace(TRAILING_SPACE, '')}`;
        else sink.push({ kind: 'code', text: p.parts.join('').replace(TRAILING_SPACE, '') });
      } else {
        sink.push({ kind: 'paragraph', text });
      }
    }
    if (this.ranges.size > 0) this.extendRanges(' ');
    sink.push(...p.after);
    if (this.tables.length > 0) this.deferred.push(...p.notes);
    else sink.push(...p.notes);
  }

  /**
   * A code paragraph: a code style, or set wholly in a monospace font and either looking like code
   * (operators, brackets, indentation) or continuing a code block. Monospace prose (a memo in a
   * typewriter face) stays a paragraph.
   */
  private isCode(p: ParagraphState, codeStyle: boolean, text: string): boolean {
    if (codeStyle) return true;
    if (p.monoChars === 0 || p.monoChars < p.chars - countSpaces(p.parts)) return false;
    const previous = this.sink[this.sink.length - 1];
    return previous?.kind === 'code' || CODE_LIKE.test(text) || LEADING_INDENT.test(p.parts.join(''));
  }

  private finishTable(table: TableState): void {
    const sink = this.sink;
    // Rows deleted by a tracked change are not in the final text.
    if (table.rows.some((row) => row.deleted)) table.rows = table.rows.filter((row) => !row.deleted);
    const only = table.rows.length === 1 && table.rows[0]!.cells.length === 1 ? table.rows[0]!.cells[0]! : undefined;
    // A one-cell table is a frame around content (a callout, a boxed note): its content is kept as is.
    if (only) {
      sink.push(...only.elements);
      return;
    }
    const data = buildTable(table);
    if (!data) return;
    sink.push({ kind: 'table', text: data.rows.map((row) => row.map((c) => c.text).join('\t')).join('\n'), table: data });
  }
}

const MAX_HYPERLINKS = 1000;
/** Characters of commented text collected per range (the anchor keeps fewer), and ranges followed at once. */
const MAX_RANGE_TEXT = 400;
const MAX_OPEN_RANGES = 64;
const TRAILING_SPACE = /\s+$/;
const CODE_LIKE = /[{}[\];=<>#$`|\\]|\w\(|\)\s*:|^\s*(?:def|class|import|from|return|function|var|let|const|if|for|while|SELECT|INSERT|UPDATE|DELETE)\b/;
const LEADING_INDENT = /^(?: {2,}|\t)\S/;

function countSpaces(parts: readonly string[]): number {
  let n = 0;
  for (const part of parts) for (let i = 0; i < part.length; i++) if (part.charCodeAt(i) <= 32) n++;
  return n;
}

function toInt(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** Text of elements joined (a nested table contributes its rows, cells separated by ' | '). */
export function joinTexts(elements: readonly ElementDraft[], separator: string): string {
  const out: string[] = [];
  for (const el of elements) {
    const text = el.kind === 'table' && el.table ? el.table.rows.map((row) => row.map((c) => c.text).filter(Boolean).join(' | ')).join(separator) : el.kind === 'image' ? '' : el.kind === 'formula' ? `$$${el.text}$$` : el.text;
    if (text) out.push(text);
  }
  return out.join(separator);
}

interface GridCell {
  text: string;
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
}

/**
 * The table grid: `w:gridSpan` becomes colSpan and a `w:vMerge` run becomes rowSpan on its first
 * cell. As everywhere in Groundwork (see the HTML parser), row-spanned slots below repeat the text
 * so each row reads on its own, and column-spanned slots to the right stay empty.
 */
function buildTable(table: TableState): TableData | undefined {
  const grid: (GridCell | undefined)[][] = [];
  let above: (GridCell | undefined)[] = [];
  table.rows.forEach((row, r) => {
    const slots: (GridCell | undefined)[] = [];
    let col = row.gridBefore;
    for (const cell of row.cells) {
      const anchor = cell.vMerge === 'continue' ? above[col] : undefined;
      if (anchor && anchor.col === col) {
        anchor.rowSpan = r - anchor.row + 1;
        for (let k = 0; k < cell.gridSpan; k++) slots[col + k] = anchor;
      } else {
        const grid: GridCell = { text: joinTexts(cell.elements, '\n'), row: r, col, rowSpan: 1, colSpan: cell.gridSpan };
        for (let k = 0; k < cell.gridSpan; k++) slots[col + k] = grid;
      }
      col += cell.gridSpan;
    }
    grid.push(slots);
    above = slots;
  });
  const width = grid.reduce((w, slots) => Math.max(w, slots.length), 0);
  if (width === 0) return undefined;
  const rows: TableCell[][] = grid.map((slots, r) => {
    const out: TableCell[] = [];
    for (let c = 0; c < width; c++) {
      const cell = slots[c];
      if (!cell) out.push({ text: '' });
      else if (cell.row === r && cell.col === c) out.push({ text: cell.text, ...(cell.rowSpan > 1 && { rowSpan: cell.rowSpan }), ...(cell.colSpan > 1 && { colSpan: cell.colSpan }) });
      else out.push({ text: cell.row < r && c === cell.col ? cell.text : '' });
    }
    return out;
  });
  if (rows.every((row) => row.every((cell) => cell.text === ''))) return undefined;
  let headerRows = 0;
  while (headerRows < table.rows.length && table.rows[headerRows]!.header) headerRows++;
  if (headerRows === 0 && rows.length > 1) headerRows = 1;
  return { rows, headerRows };
}

function romanLower(n: number): string {
  const numerals: [number, string][] = [[1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'], [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i']];
  let out = '';
  for (const [value, symbol] of numerals) {
    while (n >= value) {
      out += symbol;
      n -= value;
    }
  }
  return out;
}

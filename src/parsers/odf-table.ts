import { ANNOTATION_ELEMENTS, annotationElement, cellReference, OdfAnnotationReader } from './odf-review.js';
import { formatGeneral } from './xlsx-format.js';
import type { AnchoredElements, CellKind, SheetCell, SheetGrid } from './xlsx-tables.js';
import type { XmlAttributes } from './xml.js';

/**
 * One ODF `table:table` (a spreadsheet sheet, or a table on a slide) read from SAX events into the
 * sparse grid the sheet layout uses. ODF compresses repeats (`table:number-rows-repeated`,
 * `table:number-columns-repeated`): blank repeats only move the cursor, and repeats of cells that
 * hold something are expanded up to a cap, so a sheet that formats a million blank rows costs
 * nothing and one that repeats content cannot grow without bound. Cells show the text the
 * application stored (`text:p`), falling back to the typed value. A cell's annotation
 * (`office:annotation`) is a comment anchored at the cell.
 */

/** Most cells one table may expand repeats into. */
export const MAX_REPEATED_CELLS = 1_000_000;
/** Columns beyond this are ignored (ODF applications allow 1,024 or 16,384). */
const MAX_COLUMN = 16_384;

export interface OdfTable extends SheetGrid {
  name: string;
  /** Repeated content cut at the cap. */
  truncated: boolean;
  /** Cell annotations as comments, at their cells. */
  comments: AnchoredElements[];
}

interface PendingCell {
  col: number;
  repeat: number;
  colSpan: number;
  rowSpan: number;
  kind: CellKind;
  value: string;
  paragraphs: string[];
}

export class OdfTableReader {
  private readonly table: OdfTable;
  private row = 0;
  private col = 0;
  private rowRepeat = 1;
  private rowCells: SheetCell[] = [];
  private rowMerges: { col: number; colSpan: number; rowSpan: number }[] = [];
  private cell: PendingCell | undefined;
  private paragraph: string | undefined;
  /** Depth inside elements whose text is not cell text (nested tables). */
  private skip = 0;
  private expanded = 0;
  private annotation: OdfAnnotationReader | undefined;
  private readonly annotationNames = new Set<string>();

  constructor(name: string) {
    this.table = { name, rows: [], rowNumbers: [], merges: [], truncated: false, comments: [] };
  }

  /** Feeds an opening tag inside this table (not the table's own); saxes reports a closing tag for self-closing ones too. */
  open(name: string, attrs: XmlAttributes, selfClosing: boolean): void {
    if (this.skip > 0) {
      this.skip++;
      return;
    }
    if (this.annotation) {
      this.annotation.open(name, attrs);
      return;
    }
    if (ANNOTATION_ELEMENTS.has(name)) {
      this.annotation = new OdfAnnotationReader(attrs);
      return;
    }
    switch (name) {
      case 'table:table':
        // A table inside a cell is rare (ODS subtables); its text is not this cell's.
        this.skip = 1;
        return;
      case 'table:table-row':
        this.row++;
        this.col = 0;
        this.rowRepeat = Math.max(1, count(attrs['table:number-rows-repeated']));
        this.rowCells = [];
        this.rowMerges = [];
        if (selfClosing) this.closeRow();
        return;
      case 'table:table-cell':
      case 'table:covered-table-cell': {
        const repeat = Math.max(1, count(attrs['table:number-columns-repeated']));
        const col = this.col + 1;
        this.col += repeat;
        if (name === 'table:covered-table-cell') return;
        const type = attrs['office:value-type'] ?? '';
        this.cell = {
          col,
          repeat,
          colSpan: Math.max(1, count(attrs['table:number-columns-spanned'])),
          rowSpan: Math.max(1, count(attrs['table:number-rows-spanned'])),
          kind: KIND[type] ?? 'text',
          value: typedValue(type, attrs),
          paragraphs: [],
        };
        if (selfClosing) this.closeCell();
        return;
      }
      case 'text:p':
      case 'text:h':
        if (this.cell) this.paragraph = '';
        if (selfClosing) this.closeParagraph();
        return;
      case 'text:s':
        if (this.paragraph !== undefined) this.paragraph += ' '.repeat(Math.min(1000, Math.max(1, count(attrs['text:c']))));
        return;
      case 'text:tab':
        if (this.paragraph !== undefined) this.paragraph += '\t';
        return;
      case 'text:line-break':
        if (this.paragraph !== undefined) this.paragraph += '\n';
        return;
      default:
        return;
    }
  }

  close(name: string): void {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    if (this.annotation) {
      if (this.annotation.close(name)) this.closeAnnotation();
      return;
    }
    switch (name) {
      case 'text:p':
      case 'text:h':
        this.closeParagraph();
        return;
      case 'table:table-cell':
        this.closeCell();
        return;
      case 'table:table-row':
        this.closeRow();
        return;
      default:
        return;
    }
  }

  text(text: string): void {
    if (this.skip > 0) return;
    if (this.annotation) this.annotation.text(text);
    else if (this.paragraph !== undefined) this.paragraph += text;
  }

  /** True when a closing `table:table` now would be this table's own (not a nested one's). */
  atTop(): boolean {
    return this.skip === 0 && !this.annotation;
  }

  private closeAnnotation(): void {
    const annotation = this.annotation!.annotation();
    this.annotation = undefined;
    const cell = this.cell;
    if (!cell || cell.col > MAX_COLUMN) return;
    const element = annotationElement(annotation, this.annotationNames, { cell: cellReference(this.row, cell.col) });
    if (element) this.table.comments.push({ row: this.row, col: cell.col, elements: [element], attach: 'cell' });
  }

  finish(): OdfTable {
    return this.table;
  }

  private closeParagraph(): void {
    if (this.cell && this.paragraph !== undefined) this.cell.paragraphs.push(this.paragraph);
    this.paragraph = undefined;
  }

  private closeCell(): void {
    const cell = this.cell;
    this.cell = undefined;
    if (!cell) return;
    const shown = cell.paragraphs.join('\n').trim();
    const text = shown || cell.value;
    if (!text || cell.col > MAX_COLUMN) return;
    const kind: CellKind = shown || cell.kind !== 'text' ? cell.kind : 'text';
    const last = Math.min(MAX_COLUMN, cell.col + cell.repeat - 1);
    for (let c = cell.col; c <= last; c++) {
      if (!this.take(1)) break;
      this.rowCells.push({ col: c, text, kind });
      if (cell.colSpan > 1 || cell.rowSpan > 1) this.rowMerges.push({ col: c, colSpan: cell.colSpan, rowSpan: cell.rowSpan });
    }
  }

  private closeRow(): void {
    const first = this.row;
    // Blank repeated rows only move the cursor.
    this.row += this.rowRepeat - 1;
    if (this.rowCells.length === 0) return;
    for (let r = first; r < first + this.rowRepeat; r++) {
      if (r > first && !this.take(this.rowCells.length)) break;
      this.table.rows.push(r === first ? this.rowCells : this.rowCells.map((c) => ({ ...c })));
      this.table.rowNumbers.push(r);
      for (const m of this.rowMerges) this.table.merges.push({ row: r, col: m.col, lastRow: r + m.rowSpan - 1, lastCol: m.col + m.colSpan - 1 });
    }
    this.rowCells = [];
    this.rowMerges = [];
  }

  private take(cells: number): boolean {
    if (this.expanded + cells > MAX_REPEATED_CELLS) {
      this.table.truncated = true;
      return false;
    }
    this.expanded += cells;
    return true;
  }
}

const KIND: Record<string, CellKind> = {
  float: 'number',
  percentage: 'number',
  currency: 'number',
  date: 'date',
  time: 'date',
  boolean: 'bool',
  string: 'text',
};

function count(value: string | undefined): number {
  if (value === undefined) return 1;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : 1;
}

/** The typed value as text, for cells that store no display text. */
function typedValue(type: string, attrs: XmlAttributes): string {
  switch (type) {
    case 'float':
    case 'currency': {
      const n = Number(attrs['office:value']);
      return Number.isFinite(n) ? formatGeneral(n) : '';
    }
    case 'percentage': {
      const n = Number(attrs['office:value']);
      return Number.isFinite(n) ? `${formatGeneral(n * 100)}%` : '';
    }
    case 'date':
      return attrs['office:date-value'] ?? '';
    case 'time':
      return attrs['office:time-value'] ?? '';
    case 'boolean':
      return attrs['office:boolean-value'] === 'true' ? 'TRUE' : attrs['office:boolean-value'] === 'false' ? 'FALSE' : '';
    default:
      return attrs['office:string-value'] ?? '';
  }
}

import { builtinFormat, formatGeneral, formatNumber, isDateFormat } from './xlsx-format.js';
import type { SheetCell, SheetGrid } from './xlsx-tables.js';
import { child, children, parseXmlTree, saxParse, type XmlAttributes } from './xml.js';

/**
 * SpreadsheetML parts read with SAX, never as a DOM: the shared-string table, the cell styles'
 * number formats, and each worksheet's non-empty cells (formatted as displayed), merged ranges and
 * print headers/footers. Memory grows with the cells that hold something, not with the XML.
 */

/** Shared strings: each `si` is its text runs joined; phonetic guides (`rPh`) are not text. */
export function readSharedStrings(xml: string): string[] {
  const strings: string[] = [];
  let current: string | undefined;
  let inText = false;
  let phonetic = 0;
  saxParse(xml, {
    open(name) {
      if (name === 'si') current = '';
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && phonetic === 0 && current !== undefined) inText = true;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si') {
        strings.push(current ?? '');
        current = undefined;
      }
    },
    text(text) {
      if (inText) current += text;
    },
  });
  return strings;
}

/** Number format code of each cell style (`cellXfs` index), from styles.xml. */
export function readCellFormats(xml: string | undefined): string[] {
  if (!xml) return [];
  const root = parseXmlTree(xml);
  const custom = new Map<number, string>();
  for (const fmt of children(child(root, 'numFmts'), 'numFmt')) {
    const id = Number(fmt.attributes['numFmtId']);
    if (Number.isFinite(id)) custom.set(id, fmt.attributes['formatCode'] ?? 'General');
  }
  return children(child(root, 'cellXfs'), 'xf').map((xf) => {
    const id = Number(xf.attributes['numFmtId'] ?? 0);
    return custom.get(id) ?? builtinFormat(id) ?? 'General';
  });
}

export interface SheetReadOptions {
  sharedStrings: readonly string[];
  formats: readonly string[];
  date1904: boolean;
}

export interface SheetContent extends SheetGrid {
  /** Print header/footer texts (`&L`/`&C`/`&R` sections joined), each once. */
  headerFooter: string[];
}

const A = 65;

/** 'BC12' -> [row 12, column 55] (1-based); undefined when the reference is not a cell reference. */
export function parseCellRef(ref: string): [number, number] | undefined {
  let col = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const code = ref.charCodeAt(i) & ~32;
    if (code < A || code > A + 25) break;
    col = col * 26 + (code - A + 1);
  }
  if (i === 0 || i === ref.length) return undefined;
  const row = Number(ref.slice(i));
  return Number.isInteger(row) && row > 0 ? [row, col] : undefined;
}

/** Reads one worksheet's non-empty cells in row order, formatted as displayed. */
export function readSheet(xml: string, options: SheetReadOptions): SheetContent {
  const rows: SheetCell[][] = [];
  const rowNumbers: number[] = [];
  const merges: SheetGrid['merges'] = [];
  const headerFooter: string[] = [];
  let rowNumber = 0;
  let current: SheetCell[] | undefined;
  let col = 0;
  let cellType = 'n';
  let cellStyle = 0;
  let value = '';
  let inValue = false;
  let inInline = false;
  let phonetic = 0;
  let headerText: string | undefined;

  const finishRow = (): void => {
    if (current && current.length > 0) {
      rows.push(current);
      rowNumbers.push(rowNumber);
    }
    current = undefined;
  };

  saxParse(xml, {
    open(name: string, attrs: XmlAttributes) {
      switch (name) {
        case 'row': {
          finishRow();
          const r = Number(attrs['r']);
          rowNumber = Number.isInteger(r) && r > rowNumber ? r : rowNumber + 1;
          current = [];
          col = 0;
          return;
        }
        case 'c': {
          const ref = attrs['r'] ? parseCellRef(attrs['r']) : undefined;
          col = ref ? ref[1] : col + 1;
          cellType = attrs['t'] ?? 'n';
          cellStyle = Number(attrs['s'] ?? 0) || 0;
          value = '';
          return;
        }
        case 'v':
          inValue = true;
          return;
        case 'is':
          inInline = true;
          return;
        case 'rPh':
          phonetic++;
          return;
        case 't':
          if (inInline && phonetic === 0) inValue = true;
          return;
        case 'mergeCell': {
          const [from, to] = (attrs['ref'] ?? '').split(':');
          const a = from ? parseCellRef(from) : undefined;
          const b = to ? parseCellRef(to) : a;
          if (a && b) merges.push({ row: Math.min(a[0], b[0]), col: Math.min(a[1], b[1]), lastRow: Math.max(a[0], b[0]), lastCol: Math.max(a[1], b[1]) });
          return;
        }
        case 'oddHeader':
        case 'oddFooter':
        case 'evenHeader':
        case 'evenFooter':
        case 'firstHeader':
        case 'firstFooter':
          headerText = '';
          return;
        default:
          return;
      }
    },
    close(name: string) {
      switch (name) {
        case 'v':
        case 't':
          if (name === 'v' || inInline) inValue = false;
          return;
        case 'is':
          inInline = false;
          return;
        case 'rPh':
          phonetic--;
          return;
        case 'c': {
          if (!current) current = [];
          const cell = displayCell(value, cellType, options.formats[cellStyle] ?? 'General', options);
          if (cell && cell.text !== '') current.push({ col, ...cell });
          return;
        }
        case 'row':
          finishRow();
          return;
        case 'oddHeader':
        case 'oddFooter':
        case 'evenHeader':
        case 'evenFooter':
        case 'firstHeader':
        case 'firstFooter': {
          const text = headerFooterText(headerText ?? '');
          if (text && !headerFooter.includes(text)) headerFooter.push(text);
          headerText = undefined;
          return;
        }
        default:
          return;
      }
    },
    text(text: string) {
      if (inValue) value += text;
      else if (headerText !== undefined) headerText += text;
    },
  });
  finishRow();
  return { rows, rowNumbers, merges, headerFooter };
}

/** A cell's displayed text and its kind, from its raw value, type and number format. */
function displayCell(raw: string, type: string, format: string, options: SheetReadOptions): Omit<SheetCell, 'col'> | undefined {
  switch (type) {
    case 's': {
      const text = options.sharedStrings[Number(raw)];
      return text === undefined ? undefined : { text: text.trim(), kind: 'text' };
    }
    case 'str':
    case 'inlineStr':
      return { text: raw.trim(), kind: 'text' };
    case 'b':
      return raw === '' ? undefined : { text: raw === '1' || raw === 'true' ? 'TRUE' : 'FALSE', kind: 'bool' };
    case 'e':
      return { text: raw.trim(), kind: 'error' };
    case 'd': {
      // ISO 8601 date cell (rare; strict OOXML): shown through its format when it has one.
      const ms = Date.parse(raw);
      if (!Number.isFinite(ms) || !isDateFormat(format)) return { text: raw.trim(), kind: 'date' };
      const serial = (ms - Date.UTC(1899, 11, 30)) / 86_400_000;
      return { text: formatNumber(serial, format, false), kind: 'date' };
    }
    default: {
      if (raw === '') return undefined;
      const n = Number(raw);
      if (!Number.isFinite(n)) return { text: raw.trim(), kind: 'text' };
      const date = isDateFormat(format);
      let text: string;
      try {
        text = formatNumber(n, format, options.date1904);
      } catch {
        text = formatGeneral(n);
      }
      return { text, kind: date ? 'date' : 'number' };
    }
  }
}

const HEADER_CODE = /&(?:"[^"]*"|\d+|[LCR]|[PNDTFAZGBIUESXY+-]|&)/g;

/** `&LLeft&CCentre&RRight` -> "Left Centre Right"; field codes (page, date, file...) are dropped. */
export function headerFooterText(code: string): string {
  return code
    .replace(HEADER_CODE, (m) => (m === '&&' ? '&' : m === '&L' || m === '&C' || m === '&R' ? '\n' : ''))
    .split('\n')
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join(' ');
}

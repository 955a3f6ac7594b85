import type { Document } from '../document/types.js';
import { invalidOption } from '../errors.js';
import { Graphemes } from '../text/graphemes.js';
import { MathIndex } from '../text/math.js';
import { splitSentences } from '../text/sentences.js';
import type { Tokenizer } from '../tokens/types.js';
import { cellTokenSums, headerText, pipeCellSpans, TableHeader, tableDataFor, type CellSpan, type TableLayout, type TableView } from './structure-tables.js';
import { isSpace, looksLikeMarkdown, unitsFromDocument, unitsFromText, type Unit } from './structure-units.js';
import type { Chunk, ChunkKind, ChunkerDefinition } from './types.js';

/**
 * `structure`, the default strategy: packs whole semantic units (a heading and its paragraphs, a
 * list, a table, a code block, a dialog turn) into chunks of at most `chunkSize` tokens, splitting
 * only the units that cannot fit (by sentences, then tokens; code by lines; tables by rows with the
 * header repeated). An equation (`$...$`, `$$...$$`) is never cut unless it alone exceeds the
 * limit. Algorithm and guarantees: docs/chunkers/structure.md.
 */

export interface StructureOptions {
  /** Token limit of every chunk's text (prefix included). */
  chunkSize: number;
  /**
   * Text units are packed together only while the chunk stays within this many tokens; a single
   * unit up to chunkSize stays whole. Smaller chunks for retrieval without cutting paragraphs.
   */
  targetSize: number;
  /** Tokens of the previous chunk's tail repeated in the prefix of a chunk that continues it. */
  chunkOverlap: number;
  /** Prefix each chunk with its heading path (`A > B > C\n\n`). */
  breadcrumb: boolean;
  /** Token limit of table chunks. */
  tableChunkSize: number;
  /** Token limit of code chunks. */
  codeChunkSize: number;
  /** Headings of this level or higher (numerically <=) start a new chunk; 0 never forces a break. */
  sectionBreakLevel: number;
  /** A chunk with fewer body tokens is not closed at a section break: the next section joins it. */
  minChunkSize: number;
  /** chunkText: read the text as Markdown (headings, fences, tables, lists); 'auto' sniffs it. */
  markdown: 'auto' | boolean;
}

const OPTION_NAMES = ['chunkSize', 'targetSize', 'chunkOverlap', 'breadcrumb', 'tableChunkSize', 'codeChunkSize', 'sectionBreakLevel', 'minChunkSize', 'markdown'];

function integerOption(input: Record<string, unknown>, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = input[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    invalidOption(`structure: option '${name}' must be an integer ${range}, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function resolveStructureOptions(input: Record<string, unknown>): StructureOptions {
  for (const key of Object.keys(input)) {
    if (input[key] !== undefined && !OPTION_NAMES.includes(key)) {
      invalidOption(`structure: unknown option '${key}'; known options: ${OPTION_NAMES.join(', ')}`);
    }
  }
  // Defaults tuned on the six eval sets (docs/results.md): chunks of about 160 tokens of whole
  // paragraphs, a paragraph of up to 384 kept whole, and up to 96 tokens of the previous chunk's last
  // sentences where a chunk has room for them below targetSize.
  const chunkSize = integerOption(input, 'chunkSize', 384, 1);
  const chunkOverlap = integerOption(input, 'chunkOverlap', Math.floor(chunkSize / 4), 0);
  if (chunkOverlap >= chunkSize) invalidOption(`structure: option 'chunkOverlap' (${chunkOverlap}) must be smaller than 'chunkSize' (${chunkSize})`);
  const breadcrumb = input.breadcrumb ?? false;
  if (typeof breadcrumb !== 'boolean') invalidOption(`structure: option 'breadcrumb' must be true or false, got ${JSON.stringify(breadcrumb)}`);
  const markdown = input.markdown ?? 'auto';
  if (markdown !== 'auto' && typeof markdown !== 'boolean') invalidOption(`structure: option 'markdown' must be 'auto', true or false, got ${JSON.stringify(markdown)}`);
  return {
    chunkSize,
    targetSize: integerOption(input, 'targetSize', Math.max(1, Math.round((chunkSize * 5) / 12)), 1, chunkSize),
    chunkOverlap,
    breadcrumb,
    tableChunkSize: integerOption(input, 'tableChunkSize', chunkSize, 1),
    codeChunkSize: integerOption(input, 'codeChunkSize', chunkSize, 1),
    sectionBreakLevel: integerOption(input, 'sectionBreakLevel', 6, 0, 6),
    minChunkSize: integerOption(input, 'minChunkSize', Math.floor(chunkSize / 8), 0, chunkSize),
    markdown,
  };
}

export const structureChunker: ChunkerDefinition<StructureOptions> = {
  name: 'structure',
  description: 'Packs whole semantic units (sections, lists, tables, code, turns) up to chunkSize tokens; keeps heading paths and pages.',
  resolveOptions: resolveStructureOptions,
  chunkDocument(doc: Document, options: StructureOptions, tokenizer: Tokenizer): Chunk[] {
    return chunkUnits(doc.canonical, unitsFromDocument(doc), options, tokenizer);
  },
  chunkText(text: string, options: StructureOptions, tokenizer: Tokenizer): Chunk[] {
    if (text.trim() === '') return [];
    const markdown = options.markdown === 'auto' ? looksLikeMarkdown(text) : options.markdown;
    return chunkUnits(text, unitsFromText(text, markdown), options, tokenizer);
  },
};

// ---------------------------------------------------------------------------------------------
// Packing

/** What a chunk holds besides headings: undefined while it holds headings only. */
type Content = ChunkKind | undefined;

interface Sized extends Unit {
  /** Token count of the unit's own text (an estimate input; chunk texts are counted exactly). */
  tokens: number;
  /** Exact tokens of `context + text` when already counted (pieces of rows split by columns, chunks of their own). */
  exact?: number;
}

/** Characters a token cut prefers to end after: whitespace is handled separately. */
const SOFT_BREAKS = new Set(['，', '、', '；', '：', ',', ';', ':', '。', '！', '？', '.', '!', '?', '）', ')']);
/** Average line length (UTF-16 units) from which a block's lines count as paragraphs of their own. */
const LOGICAL_LINE_CHARS = 160;
/** `.` `!` `?` `;` end a clause when whitespace follows, whatever the case of the next word. */
const CLAUSE_ENDS = new Set(['.', '!', '?', ';'].map((c) => c.charCodeAt(0)));
/** Full-width sentence and clause ends need no space after them. */
const WIDE_CLAUSE_ENDS = new Set(['。', '！', '？', '；'].map((c) => c.charCodeAt(0)));

function contentOf(unit: Unit): Content {
  return unit.kind === 'heading' ? undefined : unit.kind;
}

/** The content kind of a chunk after adding `b` to content `a`, or null when they must not share a chunk. */
function combine(a: Content, b: Content): Content | null {
  if (a === undefined) return b;
  if (b === undefined || a === b) return a;
  // Tables and dialog turns get chunks of their own; code and images may sit in a text chunk.
  if (a === 'table' || b === 'table' || a === 'turn' || b === 'turn') return null;
  return 'text';
}

/** A chunk's overlap text and, when it is a verbatim source range ending at the chunk's start, where it begins. */
interface Overlap {
  text: string;
  start: number | undefined;
}

const NO_OVERLAP: Overlap = { text: '', start: undefined };

/**
 * Share of a table chunk's limit that a repeated header may take. A header that does not fit is not
 * repeated before whole rows; before the pieces of a row split by columns it is cut to the piece's
 * columns, and left out when even that does not fit.
 */
export const HEADER_SHARE = 1 / 2;
/**
 * A header cut to a piece's columns is repeated only while it, the breadcrumb and the key cell are
 * at most this many times the piece's own text (in characters): what split rows add to the output
 * stays within this factor of the row (CHUNK_OUTPUT_FACTOR).
 */
export const HEADER_BODY_RATIO = 3;
/** Share of the limit the key (first) cell may take to be repeated before the later pieces of its row. */
export const KEY_SHARE = 1 / 8;

/** A row being split by columns, and what its pieces repeat. */
interface RowSplit {
  unit: Unit;
  /** Its row index in the layout. */
  r: number;
  cells: CellSpan[];
  limit: number;
  /** Body rows of a table with a header: the header to cut to each piece's columns. */
  header: TableHeader | undefined;
  /** Says the row is split, in the prefix of each piece of a cell too big for a chunk. */
  marker: string;
  /** `| key | `, repeated before the cells of later pieces ('' when too long to repeat). */
  key: string;
  keyTokens: number;
  /** Estimated tokens before each cell's stretch of the row (cellTokenSums). */
  sums: Float64Array | undefined;
  /** Characters of the breadcrumb before every piece. */
  crumb: number;
}

class Packer {
  private readonly counts = new Map<string, number>();
  private readonly crumbs = new Map<string, string>();
  private readonly headers = new Map<TableLayout, TableHeader>();
  private readonly chunks: Chunk[] = [];
  private units: Sized[] = [];
  private gapTokens: number[] = [];
  /** cum[k] = tokens of units[0..k) plus the gaps before units 1..k-1 (prefix sums for estimates). */
  private cum: number[] = [];
  private groupEnd: number[] = [];
  /** Body of the previous chunk when the next chunk may continue it (for overlap). */
  private previous: { start: number; end: number; kind: Content } | undefined;
  /** Exact grapheme boundaries of the base text (cuts never split a cluster, however long). */
  private readonly graphemes: Graphemes;

  constructor(
    private readonly base: string,
    private readonly options: StructureOptions,
    private readonly tokenizer: Tokenizer,
  ) {
    this.graphemes = new Graphemes(base);
  }

  run(raw: Unit[]): Chunk[] {
    for (const unit of raw) this.expand(unit, this.units);
    this.prepareEstimates();
    const n = this.units.length;
    let i = 0;
    while (i < n) {
      const { last, fit } = this.extend(i);
      i = this.emit(i, fit ? this.carryHeadings(i, last) : last) + 1;
    }
    return this.chunks;
  }

  // -- sizes ---------------------------------------------------------------------------------

  private count(text: string): number {
    return this.tokenizer.count(text);
  }

  /** Counts for short strings that repeat (gaps, prefixes). */
  private countCached(text: string): number {
    let n = this.counts.get(text);
    if (n === undefined) {
      n = this.tokenizer.count(text);
      if (text.length <= 2000) {
        // Bounded: header cuts and keys of split rows are mostly distinct.
        if (this.counts.size >= 8192) this.counts.clear();
        this.counts.set(text, n);
      }
    }
    return n;
  }

  private limitFor(content: Content): number {
    if (content === 'table') return this.options.tableChunkSize;
    if (content === 'code') return this.options.codeChunkSize;
    return this.options.chunkSize;
  }

  /** The breadcrumb for a chunk opening with `unit`: its heading path, at most a quarter of the limit. */
  private breadcrumb(unit: Unit): string {
    if (!this.options.breadcrumb) return '';
    // A chunk that opens with a heading shows that heading in its body already.
    const path = unit.kind === 'heading' ? unit.path.slice(0, -1) : unit.path;
    if (path.length === 0) return '';
    const cap = Math.floor(this.limitFor(contentOf(unit)) / 4);
    const key = `${cap}\u0000${path.join('\u0000')}`;
    let crumb = this.crumbs.get(key);
    if (crumb === undefined) {
      crumb = '';
      for (let from = 0; from < path.length; from++) {
        const text = `${path.slice(from).join(' > ')}\n\n`;
        if (this.countCached(text) <= cap) {
          crumb = text;
          break;
        }
      }
      this.crumbs.set(key, crumb);
    }
    return crumb;
  }

  private prefixFor(unit: Unit, overlap = ''): string {
    // A cluster over the limit alone is a chunk of its own, as small as it can be: nothing added.
    if (unit.bare) return '';
    return this.breadcrumb(unit) + overlap + (unit.context ?? '');
  }

  // -- expansion: every unit that cannot fit a chunk alone becomes pieces that can --------------

  private fitsAlone(unit: Unit, tokens: number): boolean {
    return tokens + this.countCached(this.prefixFor(unit)) <= this.limitFor(contentOf(unit));
  }

  private expand(unit: Unit, out: Sized[]): void {
    // A unit far longer than any chunk is split without counting it whole (its pieces are counted).
    const huge = unit.end - unit.start > this.limitFor(contentOf(unit)) * 32;
    const tokens = huge ? Infinity : this.count(this.base.slice(unit.start, unit.end));
    if (this.fitsAlone(unit, tokens)) {
      out.push({ ...unit, tokens });
      return;
    }
    if (unit.table && unit.table.to - unit.table.from > 1) this.splitTable(unit, out);
    else if (unit.kind === 'code') this.splitSpans(unit, this.lineSpans(unit.start, unit.end), out);
    else if (unit.table) this.splitRow(unit, out);
    else if (this.hasLogicalLines(unit)) this.splitLines(unit, out);
    else this.splitSpans(unit, splitSentences(this.base, unit.start, unit.end), out);
  }

  /**
   * Long lines with no blank line between them are paragraphs of their own (wiki dumps, logs,
   * exported records), not prose wrapped at a margin: an oversize block of them is split at its
   * line breaks before sentences. Wrapped prose (lines under LOGICAL_LINE_CHARS on average) is not.
   */
  private hasLogicalLines(unit: Unit): boolean {
    let breaks = 0;
    for (let p = this.base.indexOf('\n', unit.start); p >= 0 && p < unit.end; p = this.base.indexOf('\n', p + 1)) breaks++;
    return breaks > 0 && (unit.end - unit.start) / (breaks + 1) >= LOGICAL_LINE_CHARS;
  }

  /** Logical lines first; a line too big alone is split by its sentences (then as splitSpans does). */
  private splitLines(unit: Unit, out: Sized[]): void {
    this.splitSpans(unit, this.lineSpans(unit.start, unit.end), out, (piece) =>
      this.splitSpans(piece, splitSentences(this.base, piece.start, piece.end), out),
    );
  }

  /**
   * Pieces of `unit` over `spans` (sentences or lines). A piece too big alone is split at its line
   * breaks and clause ends first (a table pasted as text, or lower-case sentences the sentence
   * splitter does not separate), and only then by tokens; `oversize` replaces that fallback.
   */
  private splitSpans(
    unit: Unit,
    spans: readonly { start: number; end: number }[],
    out: Sized[],
    oversize: ((piece: Unit) => void) | 'loose' | 'tokens' = 'loose',
  ): void {
    let first = true;
    for (const span of spans) {
      const [start, end] = this.trim(span.start, span.end);
      if (end <= start) continue;
      const piece = this.pieceOf(unit, start, end, first);
      first = false;
      const huge = end - start > this.limitFor(contentOf(piece)) * 32;
      const tokens = huge ? Infinity : this.count(this.base.slice(start, end));
      // The piece is fresh: sized in place, not copied (one object per sentence of a long paragraph).
      if (this.fitsAlone(piece, tokens)) out.push(Object.assign(piece, { tokens }));
      else if (typeof oversize === 'function') oversize(piece);
      else if (oversize === 'loose' && unit.kind !== 'code') this.splitLoose(piece, out);
      else out.push(...this.splitByTokens(piece));
    }
    if (first) out.push(...this.splitByTokens(unit));
  }

  /** Splits at line breaks and at clause punctuation (followed by whitespace, or CJK); then by tokens. */
  private splitLoose(unit: Unit, out: Sized[]): void {
    const spans: { start: number; end: number }[] = [];
    const math = this.mathIn(unit.start, unit.end);
    let from = unit.start;
    for (let p = unit.start; p < unit.end; p++) {
      const code = this.base.charCodeAt(p);
      const next = p + 1 < unit.end ? this.base.charCodeAt(p + 1) : 32;
      if ((code === 10 || (CLAUSE_ENDS.has(code) && isSpace(next)) || WIDE_CLAUSE_ENDS.has(code)) && !math.containing(p + 1)) {
        spans.push({ start: from, end: p + 1 });
        from = p + 1;
      }
    }
    if (from < unit.end) spans.push({ start: from, end: unit.end });
    if (spans.length < 2) out.push(...this.splitByTokens(unit));
    else this.splitSpans(unit, spans, out, 'tokens');
  }

  private pieceOf(unit: Unit, start: number, end: number, first: boolean): Unit {
    const piece: Unit = { ...unit, start, end, piece: true };
    if (!first) {
      const continued = unit.continuation !== undefined;
      const context = continued ? unit.continuation : unit.context;
      const view = continued ? unit.continuationView : unit.view;
      if (context === undefined) delete piece.context;
      else piece.context = context;
      if (view === undefined) delete piece.view;
      else piece.view = view;
      // Only the opening piece of a split heading is the heading; the rest is its text.
      if (unit.kind === 'heading') {
        piece.kind = 'text';
        delete piece.level;
      }
    }
    return piece;
  }

  /** A table that does not fit whole: the header with the first body row, then one unit per row. */
  private splitTable(unit: Unit, out: Sized[]): void {
    const slice = unit.table!;
    const { layout } = slice;
    const header = headerText(this.base, layout);
    const limit = this.limitFor('table');
    // Repeat the header only while it leaves room for rows.
    const context = header && header.length <= limit * 32 && this.count(`${header}\n`) <= limit * HEADER_SHARE ? `${header}\n` : undefined;
    const rowUnit = (from: number, to: number, start: number, end: number, withContext: boolean): Unit => {
      const row: Unit = { ...unit, start, end, table: { layout, from, to } };
      delete row.context;
      delete row.continuation;
      delete row.view;
      delete row.continuationView;
      if (withContext && context) {
        row.context = context;
        row.continuation = context;
        row.view = { header: 'all' };
        row.continuationView = { header: 'all' };
      }
      return row;
    };
    const spans = layout.rowSpans;
    let r = slice.from;
    const h = layout.headerRows;
    if (r === 0 && h > 0) {
      const firstBody = Math.min(h + 1, slice.to);
      const headed = rowUnit(0, firstBody, spans[0]!.start, Math.max(layout.headerEnd, spans[firstBody - 1]!.end), false);
      const tokens = headed.end - headed.start > limit * 32 ? Infinity : this.count(this.base.slice(headed.start, headed.end));
      if (this.fitsAlone(headed, tokens)) {
        out.push({ ...headed, tokens });
        r = firstBody;
      } else {
        for (; r < h; r++) {
          const withDelimiter = r === h - 1 && layout.headerEnd > spans[r]!.end;
          if (!withDelimiter) {
            this.expand(rowUnit(r, r + 1, spans[r]!.start, spans[r]!.end, false), out);
            continue;
          }
          // The last header row with the `| --- |` line under it, or, when that does not fit, the two apart.
          const headerRow = rowUnit(r, r + 1, spans[r]!.start, layout.headerEnd, false);
          const rowTokens = headerRow.end - headerRow.start > limit * 32 ? Infinity : this.count(this.base.slice(headerRow.start, headerRow.end));
          if (this.fitsAlone(headerRow, rowTokens)) {
            out.push({ ...headerRow, tokens: rowTokens });
            continue;
          }
          this.expand(rowUnit(r, r + 1, spans[r]!.start, spans[r]!.end, false), out);
          const [ds, de] = this.trim(spans[r]!.end, layout.headerEnd);
          if (de > ds) this.expand(rowUnit(h, h, ds, de, false), out);
        }
      }
    }
    for (; r < slice.to; r++) this.expand(rowUnit(r, r + 1, spans[r]!.start, spans[r]!.end, r >= h), out);
  }

  /** Header rows of a table cut to some columns (built once per table, on its first split row). */
  private tableHeader(layout: TableLayout): TableHeader {
    let header = this.headers.get(layout);
    if (!header) {
      header = new TableHeader(this.base, layout);
      this.headers.set(layout, header);
    }
    return header;
  }

  /**
   * A single row too big for a chunk: split by columns. Each piece holds a run of whole cells; a
   * piece after the first repeats the row's key (first) cell, and a body row's pieces repeat the
   * header cut to their own columns (while that fits HEADER_SHARE of the limit). A cell too big for
   * a chunk of its own is split by its sentences (then clauses, then tokens), each piece saying so.
   */
  private splitRow(unit: Unit, out: Sized[]): void {
    const slice = unit.table!;
    // The `| --- |` line of a header too wide to keep it with the header row.
    if (slice.to <= slice.from) {
      out.push(...this.splitByTokens(unit));
      return;
    }
    const { layout } = slice;
    const r = slice.from;
    const line = layout.rowSpans[r]!;
    const [, lineEnd] = this.trim(line.start, line.end);
    if (unit.end > lineEnd) {
      // A row with the `| --- |` line under it: apart.
      this.expand({ ...unit, end: lineEnd }, out);
      const [ds, de] = this.trim(lineEnd, unit.end);
      if (de > ds) {
        const delimiter: Unit = { ...unit, start: ds, end: de, table: { layout, from: layout.headerRows, to: layout.headerRows } };
        for (const field of ['context', 'continuation', 'view', 'continuationView'] as const) delete delimiter[field];
        this.expand(delimiter, out);
      }
      return;
    }
    const cells = pipeCellSpans(this.base, Math.max(line.start, unit.start), Math.min(line.end, unit.end));
    // Pieces are sized with their breadcrumb, which comes before their own prefix.
    const limit = this.limitFor('table') - this.countCached(this.breadcrumb(unit));
    const header = r >= layout.headerRows && layout.headerRows > 0 ? this.tableHeader(layout) : undefined;
    const bodyRow = r - layout.headerRows + 1;
    const marker = bodyRow >= 1 ? `[table row ${bodyRow} is split across chunks]\n` : '[table header row is split across chunks]\n';
    const row: RowSplit = { unit, r, cells, limit, header, marker, key: '', keyTokens: 0, sums: undefined, crumb: this.breadcrumb(unit).length };
    if (cells.length < 2) {
      // One cell: its text is split.
      this.splitCells(row, 0, 1, out);
      return;
    }
    const key = `${this.base.slice(unit.start, cells[0]!.close)} `;
    const keyTokens = this.count(key);
    if (keyTokens <= limit * KEY_SHARE) {
      row.key = key;
      row.keyTokens = keyTokens;
    }
    row.sums = cellTokenSums(this.base, unit.start, cells, this.tokenizer);
    const n = cells.length;
    let a = 0;
    while (a < n) {
      const withHeader = this.headerFits(row, a, a + 1);
      let b = a + 1;
      while (b < n && (!withHeader || this.headerFits(row, a, b + 1)) && this.estimateColumns(row, a, b + 1, withHeader) <= limit) b++;
      let piece = this.columnPiece(row, a, b, withHeader);
      while (piece.total > limit && b > a + 1) {
        // Back off in proportion to the excess (estimates are close, so this is usually one step).
        b = Math.max(a + 1, Math.min(b - 1, a + Math.floor(((b - a) * limit) / piece.total)));
        piece = this.columnPiece(row, a, b, withHeader);
      }
      if (piece.total > limit) {
        // This cell does not fit a chunk even alone.
        this.splitCells(row, a, a + 1, out);
        a += 1;
        continue;
      }
      // A few small cells before a cell that must be split go with that cell's first piece.
      if (b < n && this.estimateColumns(row, b, b + 1, this.headerFits(row, b, b + 1)) > limit && piece.total <= limit / 4) {
        this.splitCells(row, a, b + 1, out);
        a = b + 1;
        continue;
      }
      out.push(piece.unit);
      a = b;
    }
  }

  /** Whether the header cut to columns [from, to) may be repeated (its estimate within HEADER_SHARE). */
  private headerFits(row: RowSplit, from: number, to: number): boolean {
    return row.header !== undefined && row.header.estimate(from, to, this.tokenizer) <= row.limit * HEADER_SHARE;
  }

  /** Estimated tokens of a piece holding cells [from, to) of the row with its prefix. */
  private estimateColumns(row: RowSplit, from: number, to: number, withHeader: boolean): number {
    const sums = row.sums!;
    const body = sums[to]! - sums[from]!;
    const key = from > 0 ? row.keyTokens : 0;
    return body + key + (withHeader ? row.header!.estimate(from, to, this.tokenizer) : 0);
  }

  /** The start of the stretch of cells from `from` in the row (the line start for the first cell). */
  private cellsStart(row: RowSplit, from: number): number {
    if (from === 0) return row.unit.start;
    const cell = row.cells[from]!;
    // An empty cell starts at the pipe that closes it.
    return cell.end > cell.start || cell.close === cell.end ? cell.start : cell.close - 1;
  }

  /** The prefix of a piece of the row starting at column `from` whose header shows columns [from, to). */
  private rowContext(row: RowSplit, from: number, to: number, withHeader: boolean, marker: string, bodyChars = Infinity): { context: string; view: TableView } {
    let context = '';
    const view: TableView = {};
    if (withHeader && row.header) {
      // A cut to every column is the header itself, as whole rows repeat it.
      const full = from <= 1 && to >= row.cells.length ? `${headerText(this.base, row.header.layout)}\n` : undefined;
      const all = full !== undefined && full.length <= row.limit * 32 && this.count(full) <= row.limit * HEADER_SHARE;
      const cut = all ? full : row.header.cut(from, to);
      // A header far longer than the cells it names (long names over one-digit cells) is left out:
      // with the breadcrumb and the key, what a piece repeats stays within HEADER_BODY_RATIO of it.
      const key = from > 0 ? row.key.length : 0;
      if (all || (row.crumb + cut.length + key <= HEADER_BODY_RATIO * bodyChars && this.count(cut) <= row.limit * HEADER_SHARE)) {
        context += cut;
        view.header = all ? 'all' : { from, to };
      }
    }
    context += marker;
    if (from > 0 && row.key) {
      context += row.key;
      view.key = true;
    }
    return { context, view };
  }

  /** Cells [from, to) of the row as one piece, with its prefix and exact count (`total`, prefix included). */
  private columnPiece(row: RowSplit, from: number, to: number, withHeader: boolean): { unit: Sized; total: number } {
    const start = this.cellsStart(row, from);
    const end = row.cells[to - 1]!.close;
    const { context, view } = this.rowContext(row, from, to, withHeader, '', end - start);
    const unit: Unit = { ...row.unit, start, end, table: { layout: row.unit.table!.layout, from: row.r, to: row.r + 1, columns: { from, to } }, piece: true };
    delete unit.continuation;
    delete unit.continuationView;
    if (context) {
      unit.context = context;
      unit.view = view;
    } else {
      delete unit.context;
      delete unit.view;
    }
    const total = this.count(context + this.base.slice(start, end));
    // Body tokens are only an estimate here (the piece is a chunk of its own, counted as a whole).
    const prefixTokens = context ? Math.min(total - 1, (view.header && view.header !== 'all' ? row.header!.estimate(from, to, this.tokenizer) : 0) + (view.key ? row.keyTokens : 0)) : 0;
    return { unit: { ...unit, tokens: Math.max(1, total - prefixTokens), exact: total }, total };
  }

  /**
   * Cells [from, to) of the row, the last of them too big for a chunk: split by sentences (then as
   * splitSpans does). The first piece repeats the header of these columns, later ones the header of
   * the big cell's column; all say the row is split, and repeat its key cell when it is not in the body.
   */
  private splitCells(row: RowSplit, from: number, to: number, out: Sized[]): void {
    const big = to - 1;
    const start = this.cellsStart(row, from);
    const end = big === row.cells.length - 1 ? row.unit.end : row.cells[big]!.close;
    const first = this.rowContext(row, from, to, this.headerFits(row, from, to), row.marker);
    const later = this.rowContext(row, big, big + 1, this.headerFits(row, big, big + 1), row.marker);
    const split: Unit = {
      ...row.unit,
      start,
      end,
      table: { layout: row.unit.table!.layout, from: row.r, to: row.r + 1, columns: { from, to, cells: row.cells } },
      context: first.context,
      view: first.view,
      continuation: later.context,
      continuationView: later.view,
    };
    // Sentences of the cells' text; the cell's closing ` |` stays with the last one.
    const textEnd = Math.max(start + 1, Math.min(end, row.cells[big]?.end ?? end));
    const sentences = splitSentences(this.base, start, textEnd);
    if (sentences.length > 0) sentences[sentences.length - 1]!.end = end;
    this.splitSpans(split, sentences, out);
  }

  private lineSpans(start: number, end: number): { start: number; end: number }[] {
    const spans: { start: number; end: number }[] = [];
    let pos = start;
    while (pos < end) {
      let nl = this.base.indexOf('\n', pos);
      if (nl < 0 || nl > end) nl = end;
      spans.push({ start: pos, end: nl });
      pos = nl + 1;
    }
    return spans;
  }

  /**
   * [start, end) without its leading and trailing whitespace, widened back to grapheme boundaries:
   * a space that carries combining marks (or follows a Prepend character) stays with its cluster.
   */
  private trim(start: number, end: number): [number, number] {
    const from = start;
    const to = end;
    while (start < end && isSpace(this.base.charCodeAt(start))) start++;
    while (end > start && isSpace(this.base.charCodeAt(end - 1))) end--;
    if (start > from && start < end) start = Math.max(from, this.graphemes.floor(start));
    if (end < to && end > start) end = Math.min(to, this.graphemes.ceil(end));
    return [start, end];
  }

  /**
   * Pieces of `unit` by tokens, each verified exactly: tokens(prefix + piece) <= limit. Cuts land on
   * grapheme boundaries, preferring whitespace or punctuation near the end of the budget. The only
   * piece that may exceed the limit is a single grapheme that exceeds it alone.
   */
  private splitByTokens(unit: Unit): Sized[] {
    const limit = this.limitFor(contentOf(unit));
    const pieces: Sized[] = [];
    let [s] = this.trim(unit.start, unit.end);
    while (s < unit.end) {
      const piece = this.pieceOf(unit, s, unit.end, pieces.length === 0);
      let prefix = this.prefixFor(piece);
      if (this.countCached(prefix) >= limit) {
        delete piece.context;
        delete piece.view;
        prefix = this.prefixFor(piece);
      }
      const prefixTokens = this.countCached(prefix);
      const { end, tokens } = this.keepMath(prefix, s, this.fitCut(prefix, s, unit.end, limit), limit, this.mathIn(unit.start, unit.end));
      const [, trimmedEnd] = this.trim(s, end);
      if (tokens > limit) {
        // Only one grapheme cluster is ever over the limit (fitCut takes at least one, whole): it
        // goes without prefix, alone, over the chunk size.
        pieces.push({ ...piece, end: trimmedEnd, bare: true, tokens: this.count(this.base.slice(s, trimmedEnd)) });
      } else {
        pieces.push({ ...piece, end: trimmedEnd, tokens: Math.max(1, tokens - prefixTokens) });
      }
      [s] = this.trim(end, unit.end);
    }
    return pieces;
  }

  /** A cut inside an equation moves back to the equation's start, unless the equation begins the piece (it alone is over the limit). */
  private keepMath(prefix: string, s: number, cut: { end: number; tokens: number }, limit: number, math: MathIndex): { end: number; tokens: number } {
    const span = math.containing(cut.end);
    if (!span || span.start <= s) return cut;
    const [, end] = this.trim(s, span.start);
    if (end <= s) return cut;
    const tokens = this.count(prefix + this.base.slice(s, end));
    return tokens <= limit ? { end: span.start, tokens } : cut;
  }

  /** The equations in base[start, end), computed once per unit being split. */
  private mathIn(start: number, end: number): MathIndex {
    const cached = this.mathCache;
    if (cached && cached.start === start && cached.end === end) return cached.index;
    const index = new MathIndex(this.base, start, end);
    this.mathCache = { start, end, index };
    return index;
  }

  private mathCache: { start: number; end: number; index: MathIndex } | undefined;

  /** The largest cut `end` it finds with tokens(prefix + base[s, end)) <= limit (at least one grapheme). */
  private fitCut(prefix: string, s: number, end: number, limit: number): { end: number; tokens: number } {
    // Pieces are stored without trailing whitespace, so that is what gets measured.
    // Cuts inside one whitespace run measure the same text: each distinct text is counted once.
    const measured = new Map<number, number>();
    const measure = (cut: number): number => {
      const to = this.trim(s, cut)[1];
      let tokens = measured.get(to);
      if (tokens === undefined) {
        tokens = this.count(prefix + this.base.slice(s, to));
        measured.set(to, tokens);
      }
      return tokens;
    };
    // Characters a limit's worth of tokens probably spans, from the last cut (adapts to the script).
    const reach = Math.ceil(limit * this.charsPerToken * 1.5) + 16;
    if (end - s <= reach) {
      const whole = measure(end);
      if (whole <= limit) return { end, tokens: whole };
    }
    // The common case takes one measurement: the guessed cut, moved back to a break close before it.
    const window = Math.ceil(limit * this.charsPerToken * 1.2) + 16;
    const guess = this.snap(s, this.firstGuess(prefix, s, Math.min(end, s + window), limit), end);
    const atBreak = this.snap(s, this.breakBefore(s, guess), end);
    const first = { end: atBreak, tokens: measure(atBreak) };
    if (first.tokens <= limit && (atBreak < guess || limit - first.tokens <= Math.max(1, limit >> 6))) return this.learn(s, first);
    // Otherwise search: secant steps on the count between a fitting cut and one that does not fit.
    const oneGrapheme = this.graphemeEnd(s, end);
    let best = first.tokens <= limit ? first : { end: oneGrapheme, tokens: measure(oneGrapheme) };
    if (best.tokens > limit) return best;
    let lo = best.end;
    let hi = first.tokens <= limit ? end : atBreak;
    let cut = first.tokens <= limit ? guess + 1 : s + Math.floor(((atBreak - s) * limit) / first.tokens);
    for (let step = 0; step < 24 && hi - lo > 1; step++) {
      cut = Math.min(Math.max(cut, lo + 1), hi - 1);
      cut = this.snap(s, cut, end);
      if (cut <= lo || cut >= hi) cut = this.snap(s, lo + Math.ceil((hi - lo) / 2), end);
      if (cut <= lo || cut >= hi) break;
      const tokens = measure(cut);
      if (tokens <= limit) {
        best = { end: cut, tokens };
        lo = cut;
        if (limit - tokens <= Math.max(1, limit >> 6)) break;
        cut = cut + Math.max(1, Math.floor(((cut - s) * (limit - tokens)) / Math.max(1, tokens)));
      } else {
        hi = cut;
        cut = s + Math.floor(((cut - s) * limit) / tokens);
      }
    }
    return this.learn(s, this.preferBreak(s, best, end, limit, measure));
  }

  /** Records the characters per token of a cut, to size the next cut's window. */
  private learn(s: number, cut: { end: number; tokens: number }): { end: number; tokens: number } {
    if (cut.tokens > 0) this.charsPerToken = Math.max(0.5, (cut.end - s) / cut.tokens);
    return cut;
  }

  /** Just after the last whitespace or soft punctuation in the last fifth of [s, cut) (at a grapheme boundary), else cut. */
  private breakBefore(s: number, cut: number): number {
    const floor = cut - Math.floor((cut - s) / 5);
    for (let p = cut - 1; p > floor && p > s; p--) {
      if ((isSpace(this.base.charCodeAt(p)) || SOFT_BREAKS.has(this.base[p]!)) && this.graphemes.isBoundary(p + 1)) return p + 1;
    }
    return cut;
  }

  /**
   * Where `limit` tokens of prefix + text probably end: at the limit-th token's end when the tokenizer
   * reports offsets, else by the window's characters-per-token ratio. Only a guess: fitCut measures.
   */
  private firstGuess(prefix: string, s: number, windowEnd: number, limit: number): number {
    const window = this.base.slice(s, windowEnd);
    const withOffsets = (this.tokenizer as { encodeWithOffsets?: (text: string) => { ends: readonly number[] } }).encodeWithOffsets;
    if (withOffsets) {
      const { ends } = withOffsets.call(this.tokenizer, prefix + window);
      if (ends.length > limit) return s + Math.max(1, ends[limit - 1]! - prefix.length);
      return windowEnd;
    }
    const windowTokens = this.count(window);
    return s + Math.floor(((windowEnd - s) * limit) / Math.max(1, windowTokens));
  }

  /** Moves a cut back to just after whitespace or punctuation when one is close (last 20%) and ends a grapheme cluster. */
  private preferBreak(s: number, best: { end: number; tokens: number }, end: number, limit: number, measure: (cut: number) => number): { end: number; tokens: number } {
    if (best.end >= end) return best;
    const floor = best.end - Math.floor((best.end - s) / 5);
    for (let p = best.end - 1; p > floor && p > s; p--) {
      if ((isSpace(this.base.charCodeAt(p)) || SOFT_BREAKS.has(this.base[p]!)) && this.graphemes.isBoundary(p + 1)) {
        // A shorter text can (rarely) count more tokens: keep the break only if it still fits.
        const tokens = measure(p + 1);
        return tokens <= limit ? { end: p + 1, tokens } : best;
      }
    }
    return best;
  }

  /** End of the grapheme cluster that starts at `s`, whole whatever its length (at most `end`). */
  private graphemeEnd(s: number, end: number): number {
    return Math.min(end, this.graphemes.next(this.graphemes.floor(s)));
  }

  /** The grapheme boundary at or before `cut` (but after `s`: else the end of the first cluster). */
  private snap(s: number, cut: number, end: number): number {
    if (cut >= end) return end;
    if (cut <= s) return this.graphemeEnd(s, end);
    const boundary = this.graphemes.floor(cut);
    return boundary > s ? boundary : this.graphemeEnd(s, end);
  }

  // -- estimates -------------------------------------------------------------------------------

  private prepareEstimates(): void {
    const units = this.units;
    const n = units.length;
    this.gapTokens = new Array<number>(n).fill(0);
    this.cum = new Array<number>(n + 1).fill(0);
    for (let k = 0; k < n; k++) {
      if (k > 0) this.gapTokens[k] = this.countCached(this.base.slice(units[k - 1]!.end, units[k]!.start));
      this.cum[k + 1] = this.cum[k]! + this.gapTokens[k]! + units[k]!.tokens;
    }
    // Keep-together groups: list runs and same-speaker turn runs, and each heading's section.
    this.groupEnd = new Array<number>(n).fill(-1);
    for (let k = 0; k < n; k++) {
      const group = units[k]!.group;
      if (group === undefined || (k > 0 && units[k - 1]!.group === group)) continue;
      let e = k;
      while (e + 1 < n && units[e + 1]!.group === group) e++;
      this.groupEnd[k] = e;
    }
    const open: number[] = [];
    for (let k = 0; k < n; k++) {
      const unit = units[k]!;
      if (unit.kind !== 'heading') continue;
      while (open.length > 0 && units[open[open.length - 1]!]!.level! >= unit.level!) this.groupEnd[open.pop()!] = k - 1;
      open.push(k);
    }
    for (const k of open) this.groupEnd[k] = n - 1;
  }

  /** Estimated body tokens of units[a..b] with the separators between them. */
  private estimate(a: number, b: number): number {
    return this.cum[b + 1]! - this.cum[a]! - this.gapTokens[a]!;
  }

  // -- packing ---------------------------------------------------------------------------------

  /** Greedy extension from unit i; `fit` says the chunk stopped because the next unit did not fit. */
  private extend(i: number): { last: number; fit: boolean } {
    const units = this.units;
    const first = units[i]!;
    // A piece of a row split by columns is a chunk of its own (see below): nothing to measure.
    if (first.exact !== undefined) return { last: i, fit: true };
    let content = contentOf(first);
    let tableId = first.table?.layout.id;
    const overlap = this.overlapFor(first).text;
    const prefixTokens = this.countCached(this.prefixFor(first, overlap));
    let body = first.tokens;
    let j = i;
    while (j + 1 < units.length) {
      const k = j + 1;
      const unit = units[k]!;
      const hasContent = content !== undefined;
      if (unit.kind === 'heading' && unit.level! <= this.options.sectionBreakLevel && hasContent && body >= this.options.minChunkSize) {
        return { last: j, fit: false };
      }
      const next = combine(content, contentOf(unit));
      if (next === null) return { last: j, fit: true };
      // A piece of a row split by columns is a chunk of its own (its prefix is its own header cut);
      // only the pieces of one cell split by sentences (one columns range) pack together.
      const columns = unit.table?.columns;
      const previousColumns = units[j]!.table?.columns;
      if (hasContent && (columns || previousColumns) && columns !== previousColumns) return { last: j, fit: true };
      if (unit.table && tableId !== undefined && unit.table.layout.id !== tableId) return { last: j, fit: true };
      const limit = this.limitFor(next);
      const grown = body + this.gapTokens[k]! + unit.tokens;
      if (prefixTokens + grown > limit) return { last: j, fit: true };
      // Text is packed up to targetSize only (the unit opens the next chunk instead), except inside a
      // keep-together group (a list, a speaker's run), which may fill the chunk.
      const inGroup = unit.group !== undefined && units[j]!.group === unit.group;
      if (hasContent && next === 'text' && !inGroup && prefixTokens + grown > this.options.targetSize) return { last: j, fit: true };
      // A list, a speaker's run or a section that fits a chunk of its own is not split across two.
      const groupEnd = this.groupEnd[k]!;
      if (hasContent && groupEnd > k) {
        const group = this.estimate(k, groupEnd);
        if (prefixTokens + body + this.gapTokens[k]! + group > limit && this.countCached(this.prefixFor(unit)) + group <= this.limitFor(contentOf(unit))) {
          return { last: j, fit: true };
        }
      }
      j = k;
      content = next;
      body = grown;
      if (unit.table) tableId = unit.table.layout.id;
    }
    return { last: j, fit: false };
  }

  /** A chunk stopped for size does not end with headings: they move on with the content they open. */
  private carryHeadings(i: number, last: number): number {
    let k = last;
    while (k > i && this.units[k]!.kind === 'heading') k--;
    return this.units[k]!.kind === 'heading' ? last : k;
  }

  /** Emits units[i..last] as one chunk, backing off units while the exact count is over; returns the last unit used. */
  private emit(i: number, last: number): number {
    const units = this.units;
    const first = units[i]!;
    const tail = this.overlapFor(first);
    let overlap = tail.text;
    for (let j = last; ; ) {
      const content = this.contentRange(i, j);
      const limit = this.limitFor(content);
      const prefix = this.prefixFor(first, overlap);
      // A lone unit without prefix (or with just its own context, for a piece counted with it) was counted exactly already.
      const counted = i === j ? (prefix === '' ? first.tokens : first.exact !== undefined && prefix === (first.context ?? '') ? first.exact : undefined) : undefined;
      const tokens = counted ?? this.count(prefix + this.base.slice(first.start, units[j]!.end));
      if (tokens <= limit) {
        this.push(i, j, prefix, tokens, content, overlap ? tail.start : undefined);
        return j;
      }
      if (j > i) {
        j--;
        const kept = this.carryHeadings(i, j);
        if (kept < j) j = kept;
        continue;
      }
      if (overlap) {
        overlap = '';
        continue;
      }
      // Exact count over the limit though the estimate fit (BPE counts are not additive): split it.
      for (const piece of this.splitByTokens(first)) {
        const piecePrefix = this.prefixFor(piece);
        this.pushUnits([piece], piecePrefix, this.count(piecePrefix + this.base.slice(piece.start, piece.end)), contentOf(piece));
      }
      return i;
    }
  }

  private contentRange(i: number, j: number): Content {
    let content: Content = undefined;
    for (let k = i; k <= j; k++) {
      const next = combine(content, contentOf(this.units[k]!));
      content = next === null ? 'text' : next;
    }
    return content;
  }

  private push(i: number, j: number, prefix: string, tokens: number, content: Content, contextStart?: number): void {
    this.pushUnits(this.units.slice(i, j + 1), prefix, tokens, content, contextStart);
  }

  private pushUnits(units: readonly Unit[], prefix: string, tokens: number, content: Content, contextStart?: number): void {
    const first = units[0]!;
    const last = units[units.length - 1]!;
    const body = this.base.slice(first.start, last.end);
    const text = prefix + body;
    const kind: ChunkKind = content ?? 'text';
    const chunk: Chunk = {
      index: this.chunks.length,
      text,
      start: first.start,
      end: last.end,
      chars: text.length,
      tokens,
      // A chunk opening with a run of headings is about its first body unit's section.
      headingPath: [...(units.find((u) => u.kind !== 'heading') ?? first).path],
      kind,
      strategy: 'structure',
    };
    let pageStart: number | undefined;
    let pageEnd: number | undefined;
    for (const unit of units) {
      if (unit.page === undefined) continue;
      const end = Math.max(unit.page, unit.pageEnd ?? unit.page);
      if (pageStart === undefined || unit.page < pageStart) pageStart = unit.page;
      if (pageEnd === undefined || end > pageEnd) pageEnd = end;
    }
    if (pageStart !== undefined) chunk.pageStart = pageStart;
    if (pageEnd !== undefined) chunk.pageEnd = pageEnd;
    if (prefix) chunk.prefix = prefix;
    if (contextStart !== undefined) chunk.contextStart = contextStart;
    if (kind === 'table') {
      const tableUnits = units.filter((u) => u.table);
      // The prefix shows what the first unit's context shows (breadcrumb and overlap are not table rows).
      const view = first.context !== undefined && prefix.endsWith(first.context) ? first.view : undefined;
      const table = tableUnits.length > 0 ? tableDataFor(this.base, tableUnits[0]!.table!.layout, tableUnits.map((u) => u.table!), view, { start: first.start, end: last.end }) : undefined;
      if (table) chunk.table = table;
    }
    if (kind === 'turn') this.addTurnFields(chunk, units);
    this.chunks.push(chunk);
    this.previous = { start: first.start, end: last.end, kind };
  }

  private addTurnFields(chunk: Chunk, units: readonly Unit[]): void {
    const turns = units.filter((u) => u.kind === 'turn');
    const speaker = turns[0]?.speaker;
    if (speaker !== undefined && turns.every((u) => u.speaker === speaker)) chunk.speaker = speaker;
    for (const turn of turns) {
      if (turn.startTime !== undefined && (chunk.startTime === undefined || turn.startTime < chunk.startTime)) chunk.startTime = turn.startTime;
      if (turn.endTime !== undefined && (chunk.endTime === undefined || turn.endTime > chunk.endTime)) chunk.endTime = turn.endTime;
    }
  }

  // -- overlap ---------------------------------------------------------------------------------

  /**
   * Overlap for a chunk opening with `unit`: whole trailing sentences of the previous chunk's body, up
   * to chunkOverlap tokens and to the room `unit` leaves below targetSize, when this chunk continues
   * it (same kind of text, no heading in between).
   * The text is the source from `start` up to the unit, verbatim, so the overlap is a source range
   * (`contextStart`); when something other than whitespace lies between (text no unit holds) the
   * sentences are joined by a newline instead and `start` is undefined.
   */
  private overlapFor(unit: Sized): Overlap {
    // Overlap only fills a chunk up to targetSize: a chunk whose first unit is that big already gets
    // none, so overlap never makes chunk texts bigger than packing would.
    const budget = Math.min(this.options.chunkOverlap, this.options.targetSize - unit.tokens - this.countCached(this.breadcrumb(unit)));
    const previous = this.previous;
    if (budget <= 0 || !previous || unit.kind === 'heading' || previous.kind !== 'text' || contentOf(unit) !== 'text') return NO_OVERLAP;
    if (this.overlapCache?.unitStart === unit.start) return this.overlapCache.overlap;
    const from = Math.max(previous.start, previous.end - budget * 8);
    const sentences = splitSentences(this.base, from, previous.end);
    // Sum sentence counts from the end (cheap), then verify the joined tail exactly, dropping its
    // first sentence while it is over (counts are not additive).
    let first = sentences.length;
    let sum = 0;
    for (let k = sentences.length - 1; k >= 0; k--) {
      if (k === 0 && from > previous.start) break;
      sum += this.count(this.base.slice(sentences[k]!.start, sentences[k]!.end));
      if (sum > budget) break;
      first = k;
    }
    let overlap = NO_OVERLAP;
    for (; first < sentences.length; first++) {
      const [a, b] = this.trim(sentences[first]!.start, previous.end);
      if (b > a && this.count(this.base.slice(a, b)) <= budget) {
        const [gapStart, gapEnd] = this.trim(b, unit.start);
        overlap = gapStart === gapEnd ? { text: this.base.slice(a, unit.start), start: a } : { text: `${this.base.slice(a, b)}\n`, start: undefined };
        break;
      }
    }
    this.overlapCache = { unitStart: unit.start, overlap };
    return overlap;
  }

  private overlapCache: { unitStart: number; overlap: Overlap } | undefined;
  /** Characters per token of the last token cut, to size the next cut's window. */
  private charsPerToken = 4;
}

/**
 * The core: chunks of `base` from its units (in order, non-overlapping). Exported for strategies and
 * tools that build their own units.
 */
export function chunkUnits(base: string, units: Unit[], options: StructureOptions, tokenizer: Tokenizer): Chunk[] {
  if (units.length === 0) return [];
  return new Packer(base, options, tokenizer).run(units);
}

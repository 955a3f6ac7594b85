import { headingPaths } from '../document/build.js';
import { renderElement } from '../document/canonical.js';
import type { Document, Element, Format, TableData } from '../document/types.js';
import { GroundworkError, invalidOption } from '../errors.js';
import type { Tokenizer } from '../tokens/types.js';
import {
  cleanQwenParagraph,
  isPythonBlank,
  pythonLength,
  pythonStrip,
  splitQwenSentences,
} from './qwen-sentences.js';
import type { Chunk, ChunkerDefinition } from './types.js';

export interface QwenOptions {
  /** Qwen `parser_page_size`: the chunk budget in tokens. */
  parserPageSize: number;
  /** Qwen `max_ref_token`: a document whose paragraphs total at most this many tokens is one chunk. */
  maxRefToken: number;
}

/** A `qwen` chunk: Qwen-Agent's exact content, plus Qwen's own `token` value for it. */
export interface QwenChunk extends Chunk {
  /**
   * Qwen's `token` for the chunk: `parser_page_size - available_token`, i.e. the cached counts of the
   * paragraphs/sentences/windows it holds plus the overlap's count; markers and `\n` joins are not
   * counted, and it can exceed parserPageSize. `tokens` is the exact count of `text`.
   */
  qwenTokens: number;
}

/** One paragraph of Qwen's parsed page (`{text}` or `{table}` with its cached `token`). */
export interface QwenParagraph {
  text: string;
  isTable: boolean;
  /** `count_tokens(text)`: Qwen BPE after NFC. */
  tokens: number;
  /** Span in the source the paragraph came from. */
  start: number;
  end: number;
  /** True when `text` is exactly `source.slice(start, end)`, so pieces of it map to exact sub-spans. */
  exact: boolean;
  /** Element index (documents), for the heading path. */
  element?: number;
  /** Real source page (documents with pages), for pageStart/pageEnd. */
  page?: number;
}

/** One page of Qwen's parsed document: `{page_num, content}`. */
export interface QwenPage {
  pageNum: number;
  paragraphs: QwenParagraph[];
}

/** A `[text, page_num]` pair of Qwen's chunk list, with where its text came from. */
interface Piece {
  text: string;
  pageNum: number;
  paragraph: QwenParagraph;
  start: number;
  end: number;
}

/** Chunk list items: page markers and overlap text are plain strings, as in Qwen. */
type Item = string | Piece;

interface RawChunk {
  items: Item[];
  qwenTokens: number;
}

/** Qwen's chunk-level overlap budget, in characters (code points). */
const OVERLAP_CHARS = 150;
const PARAGRAPH_JOIN = '\n';
const MARKER = /^\[page: \p{Nd}+\]$/u;

function marker(pageNum: number): string {
  return `[page: ${pageNum}]`;
}

/**
 * Counting as Qwen does: `count_tokens` tokenizes `unicodedata.normalize('NFC', text)`. Normalising
 * here keeps counts right whatever the tokenizer does; NFC is idempotent.
 */
function qwenCount(tokenizer: Tokenizer, text: string): number {
  return tokenizer.count(text.normalize('NFC'));
}

/** A tokenizer that can hand back the raw bytes of tokens (needed to cut windows exactly as Qwen). */
interface ByteTokenizer extends Tokenizer {
  decodeBytes(tokens: readonly number[]): Uint8Array;
}

function hasBytes(tokenizer: Tokenizer): tokenizer is ByteTokenizer {
  return typeof (tokenizer as Partial<ByteTokenizer>).decodeBytes === 'function';
}

// Python `bytes.decode('utf-8', errors='replace')`: one U+FFFD per maximal invalid subpart (the
// WHATWG decoder does the same) and a leading BOM is kept, hence ignoreBOM.
const utf8Replace = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * `tokenizer.decode` with a leading U+FEFF kept: a UTF-8 decoder drops a BOM at the start of its input,
 * Python's does not. Decoding behind one ASCII token and removing it keeps the BOM and changes nothing
 * else (an ASCII byte never joins the bytes after it).
 */
function decodeKeepingBom(tokenizer: Tokenizer, tokens: readonly number[]): string {
  const sentinel = tokenizer.encode('a')[0]!;
  return tokenizer.decode([sentinel, ...tokens]).slice(1);
}

interface Window {
  text: string;
  tokens: number;
  /** UTF-16 span of the window in the NFC sentence (a character cut between windows goes to the earlier one). */
  start: number;
  end: number;
}

/**
 * `tokenizer.tokenize(s)` cut into windows of `size` tokens, each turned back into text with
 * `convert_tokens_to_string` (bytes decoded with errors='replace', so a cut character becomes U+FFFD).
 * The count of each window is `min(size, remaining)`, as Qwen records it.
 */
function tokenWindows(tokenizer: Tokenizer, nfcSentence: string, size: number): Window[] {
  // Python: range(0, n, 0) raises; a negative step gives an empty range, so the sentence vanishes.
  if (size === 0) {
    throw new GroundworkError(
      'INVALID_OPTIONS',
      'qwen: no token budget left for an oversize sentence after the overlap (Qwen-Agent raises here too); use a larger parserPageSize',
    );
  }
  if (size < 0) return [];
  const { tokens, ends } = tokenizer.encodeWithOffsets(nfcSentence);
  const windows: Window[] = [];
  for (let i = 0; i < tokens.length; i += size) {
    const stop = Math.min(tokens.length, i + size);
    const slice = tokens.slice(i, stop);
    const text = hasBytes(tokenizer) ? utf8Replace.decode(tokenizer.decodeBytes(slice)) : decodeKeepingBom(tokenizer, slice);
    windows.push({ text, tokens: slice.length, start: i === 0 ? 0 : ends[i - 1]!, end: ends[stop - 1]! });
  }
  return windows;
}

interface SentencePieceOut {
  text: string;
  tokens: number;
  start: number;
  end: number;
}

/**
 * §3.4 step 1-2: the paragraph's sentences with their counts; sentences over `avail` tokens become
 * token windows of `avail` (the value when the paragraph arrived, frozen for the whole paragraph).
 */
function sentencePieces(tokenizer: Tokenizer, paragraph: QwenParagraph, avail: number): SentencePieceOut[] {
  const out: SentencePieceOut[] = [];
  for (const piece of splitQwenSentences(paragraph.text)) {
    const s = piece.text;
    const n = qwenCount(tokenizer, s);
    if (isPythonBlank(s) || n === 0) continue;
    const start = paragraph.exact ? paragraph.start + piece.start : paragraph.start;
    const end = paragraph.exact ? start + s.length : paragraph.end;
    if (n <= avail) {
      out.push({ text: s, tokens: n, start, end });
      continue;
    }
    const nfc = s.normalize('NFC');
    // Window spans are exact only where NFC left the sentence unchanged.
    const mappable = paragraph.exact && nfc === s;
    for (const w of tokenWindows(tokenizer, nfc, avail)) {
      out.push({ text: w.text, tokens: w.tokens, start: mappable ? start + w.start : start, end: mappable ? start + w.end : end });
    }
  }
  return out;
}

/**
 * Qwen `_get_last_part`: up to 150 characters of the chunk's tail, from the last item's page only,
 * whole pieces first, then sentences; the first sentence that does not fit ends it. Strings (markers,
 * an earlier overlap) are skipped, so overlaps never chain.
 */
export function qwenLastPart(items: readonly Item[]): string {
  const last = items[items.length - 1];
  // Python reads `chunk[-1][1]`: for a marker string that is the character 'p', which equals no page.
  if (last === undefined || typeof last === 'string') return '';
  const needPage = last.pageNum;
  let overlap = '';
  let budget = OVERLAP_CHARS;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (typeof item === 'string') continue;
    if (item.pageNum !== needPage) return overlap;
    const para = item.text;
    const length = pythonLength(para);
    if (length <= budget) {
      overlap = overlap ? `${para}${PARAGRAPH_JOIN}${overlap}` : para;
      budget -= length;
      continue;
    }
    const joiner = para.includes('。') ? '。' : '. ';
    const sentences = splitQwenSentences(para)
      .filter((p) => p.text !== '')
      .map((p) => pythonStrip(p.text));
    for (let j = sentences.length - 1; j >= 0; j--) {
      const sent = sentences[j]!;
      if (isPythonBlank(sent)) continue;
      const sentLength = pythonLength(sent);
      if (sentLength > budget) return overlap;
      overlap = overlap ? `${sent}${joiner}${overlap}` : sent;
      budget -= sentLength;
    }
  }
  return overlap;
}

/**
 * Qwen `DocParser.split_doc_to_chunk`, step for step (specs/qwen-agent.md §3.3-3.5): paragraphs packed
 * up to `pageSize` tokens, oversize paragraphs by sentences then token windows, `[page: N]` markers,
 * the 150-character overlap.
 */
export function splitDocToChunks(pages: readonly QwenPage[], pageSize: number, tokenizer: Tokenizer): RawChunk[] {
  const res: RawChunk[] = [];
  let chunk: Item[] = [];
  let avail = pageSize;
  let hasPara = false;

  const emit = (): void => {
    const last = chunk[chunk.length - 1];
    if (typeof last === 'string' && MARKER.test(last)) chunk.pop();
    res.push({ items: chunk.slice(), qwenTokens: pageSize - avail });
  };
  const flush = (): void => {
    emit();
    const overlap = qwenLastPart(chunk);
    if (!isPythonBlank(overlap)) {
      chunk = [marker((chunk[chunk.length - 1] as Piece).pageNum), overlap];
      avail = pageSize - qwenCount(tokenizer, overlap);
    } else {
      chunk = [];
      avail = pageSize;
    }
    hasPara = false;
  };

  for (const page of pages) {
    const pageNum = page.pageNum;
    // Qwen compares with chunk[0], so a chunk crossing pages gets a marker for each page it enters.
    if (chunk.length === 0 || chunk[0] !== marker(pageNum)) chunk.push(marker(pageNum));
    let idx = 0;
    while (idx < page.paragraphs.length) {
      if (chunk.length === 0) chunk.push(marker(pageNum));
      const para = page.paragraphs[idx]!;
      if (para.tokens <= avail) {
        avail -= para.tokens;
        chunk.push({ text: para.text, pageNum, paragraph: para, start: para.start, end: para.end });
        hasPara = true;
        idx++;
      } else if (hasPara) {
        flush();
      } else {
        const sentences = sentencePieces(tokenizer, para, avail);
        let s = 0;
        while (s < sentences.length) {
          const sentence = sentences[s]!;
          if (chunk.length === 0) chunk.push(marker(pageNum));
          // `|| !hasPara` forces one piece into every chunk, so avail can go negative.
          if (sentence.tokens <= avail || !hasPara) {
            avail -= sentence.tokens;
            chunk.push({ text: sentence.text, pageNum, paragraph: para, start: sentence.start, end: sentence.end });
            hasPara = true;
            s++;
          } else {
            flush();
          }
        }
        idx++;
      }
    }
  }
  if (hasPara) emit();
  return res;
}

function resolveQwenOptions(input: Record<string, unknown>): QwenOptions {
  const { parserPageSize = 500, maxRefToken = 20000, ...rest } = input;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) invalidOption(`qwen: unknown option(s) ${unknown.join(', ')}; known: parserPageSize, maxRefToken`);
  if (!Number.isSafeInteger(parserPageSize) || (parserPageSize as number) < 1) {
    invalidOption(`qwen: parserPageSize must be an integer >= 1 (got ${String(parserPageSize)})`);
  }
  if (!Number.isSafeInteger(maxRefToken) || (maxRefToken as number) < 0) {
    invalidOption(`qwen: maxRefToken must be an integer >= 0 (got ${String(maxRefToken)})`);
  }
  return { parserPageSize: parserPageSize as number, maxRefToken: maxRefToken as number };
}

/** Turns Qwen chunk lists into Chunks: exact text, span over the pieces, provenance from the first piece. */
function finishChunks(raw: readonly RawChunk[], tokenizer: Tokenizer, paths: readonly string[][] | undefined): QwenChunk[] {
  return raw.map((rc, index) => {
    const text = rc.items.map((item) => (typeof item === 'string' ? item : item.text)).join(PARAGRAPH_JOIN);
    const pieces = rc.items.filter((item): item is Piece => typeof item !== 'string');
    return toChunk(index, text, pieces.map((p) => ({ paragraph: p.paragraph, start: p.start, end: p.end })), rc.qwenTokens, tokenizer, paths);
  });
}

interface Source {
  paragraph: QwenParagraph;
  start: number;
  end: number;
}

function toChunk(
  index: number,
  text: string,
  sources: readonly Source[],
  qwenTokens: number,
  tokenizer: Tokenizer,
  paths: readonly string[][] | undefined,
): QwenChunk {
  let start = Infinity;
  let end = -Infinity;
  let pageStart: number | undefined;
  let pageEnd: number | undefined;
  let allTables = sources.length > 0;
  for (const s of sources) {
    start = Math.min(start, s.start);
    end = Math.max(end, s.end);
    if (!s.paragraph.isTable) allTables = false;
    const page = s.paragraph.page;
    if (page !== undefined) {
      pageStart = pageStart === undefined ? page : Math.min(pageStart, page);
      pageEnd = pageEnd === undefined ? page : Math.max(pageEnd, page);
    }
  }
  const first = sources[0]?.paragraph.element;
  return {
    index,
    text,
    start: Number.isFinite(start) ? start : 0,
    end: Number.isFinite(end) ? end : 0,
    chars: text.length,
    tokens: tokenizer.count(text),
    headingPath: paths && first !== undefined ? (paths[first] ?? []) : [],
    ...(pageStart !== undefined && { pageStart, pageEnd }),
    kind: allTables ? 'table' : 'text',
    strategy: 'qwen',
    qwenTokens,
  };
}

// ---- Qwen's view of a Document ----------------------------------------------------------------

/** Formats Qwen reads with `parse_txt` (every `\n`-separated line a paragraph, blank ones included). */
const LINE_FORMATS: ReadonlySet<Format> = new Set<Format>(['text', 'markdown']);
/** Formats Qwen reads with pandas + tabulate (one Markdown table per file or sheet). */
const PANDAS_FORMATS: ReadonlySet<Format> = new Set<Format>(['csv', 'tsv', 'xlsx', 'xls', 'ods']);
/** Formats whose text Qwen passes through `clean_paragraph`. */
const CLEANED_FORMATS: ReadonlySet<Format> = new Set<Format>(['pdf', 'pptx', 'html', 'odp']);
/** Formats Qwen reads line by line, dropping blank lines (BeautifulSoup `get_text` split on `\n`). */
const HTML_FORMATS: ReadonlySet<Format> = new Set<Format>(['html']);

/** Python `str(x)` of a float-free cell is the text itself; pandas would re-type numbers (not reproduced). */
function isNumeric(text: string): boolean {
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim());
}

/** Qwen's `table_converter` / python-docx / python-pptx rendering: `|c1|c2|` rows joined by `\n`. */
function renderPipeRows(table: TableData, format: Format): string {
  return table.rows
    .map((row) => {
      const cells: string[] = [];
      for (const cell of row) {
        // pdfplumber replaces in-cell newlines; merged cells read as None (PDF) or repeat (python-docx/pptx).
        const text = format === 'pdf' ? cell.text.replace(/\n/g, ' ') : cell.text;
        cells.push(text);
        for (let extra = 1; extra < (cell.colSpan ?? 1); extra++) cells.push(format === 'pdf' ? 'None' : text);
      }
      return `|${cells.join('|')}|`;
    })
    .join('\n');
}

/**
 * Qwen's `df_to_md`: tabulate `pipe` with the first row as header, every cell re-padded to one space
 * each side, dash runs of 6+ shortened to `-----`. Alignment follows tabulate (numbers right, text left);
 * pandas' re-typing of numbers (1 -> 1.0 next to NaN) is not reproduced.
 */
function renderPandasTable(table: TableData): string {
  const width = table.rows.reduce((w, row) => Math.max(w, row.length), 0);
  if (width === 0 || table.rows.length === 0) return '';
  const cell = (r: number, c: number): string => (table.rows[r]![c]?.text ?? '').replace(/\n/g, ' ').trim();
  const lines: string[] = [];
  const header: string[] = [];
  const separator: string[] = [];
  for (let c = 0; c < width; c++) {
    const head = cell(0, c);
    let colWidth = pythonLength(head) + 2;
    let numeric = true;
    let anyValue = false;
    for (let r = 1; r < table.rows.length; r++) {
      const value = cell(r, c);
      colWidth = Math.max(colWidth, pythonLength(value));
      if (value !== '') {
        anyValue = true;
        if (!isNumeric(value)) numeric = false;
      }
    }
    header.push(head);
    // tabulate: padded width = colWidth + 2, segment ':' + dashes or dashes + ':' with colWidth + 1 dashes.
    const dashes = colWidth + 1 >= 6 ? '-----' : '-'.repeat(colWidth + 1);
    separator.push(numeric && anyValue ? `${dashes}:` : `:${dashes}`);
  }
  const row = (cells: readonly string[]): string => `|${cells.map((c) => ` ${c} `).join('|')}|`;
  lines.push(row(header), row(separator));
  for (let r = 1; r < table.rows.length; r++) {
    const cells: string[] = [];
    for (let c = 0; c < width; c++) cells.push(cell(r, c));
    lines.push(row(cells));
  }
  return lines.join('\n');
}

function qwenTableText(el: Element, format: Format): string {
  const table = el.table;
  if (!table) return el.text;
  if (!PANDAS_FORMATS.has(format)) return renderPipeRows(table, format);
  const body = renderPandasTable(table);
  return format === 'csv' || format === 'tsv' ? body : `### Sheet: ${el.sheet ?? ''}\n${body}`;
}

/** The element's text as Qwen's parser would give it (plain text, no Markdown markers). */
function elementText(el: Element): string {
  if (el.kind === 'image') return el.ocrText ?? el.text;
  if (el.kind === 'turn' && el.speaker) return `${el.speaker}: ${el.text}`;
  // Qwen's parsers read no comments; ours keep who wrote them and what they annotate.
  if (el.kind === 'comment') return renderElement(el);
  return el.text;
}

/** Binary search: index of the last element whose start is <= offset (or 0). */
function elementAt(elements: readonly Element[], offset: number): number {
  let lo = 0;
  let hi = elements.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (elements[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Text and Markdown: Qwen's `parse_txt` on the canonical text: one page (page_num 1), every line a paragraph. */
function linePages(doc: Document, elements: readonly Element[], tokenizer: Tokenizer): QwenPage[] {
  const text = doc.canonical;
  const paragraphs: QwenParagraph[] = [];
  let from = 0;
  for (;;) {
    const nl = text.indexOf('\n', from);
    const to = nl === -1 ? text.length : nl;
    const line = text.slice(from, to);
    const element = elements.length > 0 ? elements[elementAt(elements, from)]!.index : undefined;
    paragraphs.push({
      text: line,
      isTable: false,
      tokens: qwenCount(tokenizer, line),
      start: from,
      end: to,
      exact: true,
      ...(element !== undefined && { element }),
    });
    if (nl === -1) break;
    from = nl + 1;
  }
  return [{ pageNum: 1, paragraphs }];
}

/** Other formats: one paragraph per element (HTML: per non-blank line), grouped by page. */
function elementPages(doc: Document, elements: readonly Element[], tokenizer: Tokenizer): QwenPage[] {
  const byPage = new Map<number, QwenParagraph[]>();
  const sheetPages = new Map<string, number>();
  const hasPages = elements.some((el) => el.page !== undefined);
  let currentPage = 1;
  const cleaned = CLEANED_FORMATS.has(doc.format);
  for (const el of elements) {
    if (el.page !== undefined) currentPage = el.page;
    else if (!hasPages && PANDAS_FORMATS.has(doc.format) && el.sheet !== undefined) {
      // Qwen: one page per sheet, numbered from 1.
      if (!sheetPages.has(el.sheet)) sheetPages.set(el.sheet, sheetPages.size + 1);
      currentPage = sheetPages.get(el.sheet)!;
    }
    const realPage = el.page;
    const add = (text: string, isTable: boolean, start: number, end: number, exact: boolean): void => {
      let list = byPage.get(currentPage);
      if (!list) byPage.set(currentPage, (list = []));
      list.push({
        text,
        isTable,
        tokens: qwenCount(tokenizer, text),
        start,
        end,
        exact,
        element: el.index,
        ...(realPage !== undefined && { page: realPage }),
      });
    };
    if (el.kind === 'table') {
      add(qwenTableText(el, doc.format), true, el.start, el.end, false);
      continue;
    }
    const text = elementText(el);
    // Sub-spans map exactly only where the canonical rendering is the text itself.
    const verbatim = doc.canonical.slice(el.start, el.end) === text;
    if (HTML_FORMATS.has(doc.format)) {
      let from = 0;
      for (const rawLine of text.split('\n')) {
        const line = cleanQwenParagraph(rawLine);
        if (!isPythonBlank(line)) {
          const exact = verbatim && line === rawLine;
          add(line, false, exact ? el.start + from : el.start, exact ? el.start + from + line.length : el.end, exact);
        }
        from += rawLine.length + 1;
      }
      continue;
    }
    const paraText = cleaned ? cleanQwenParagraph(text) : text;
    if (isPythonBlank(paraText)) continue;
    add(paraText, false, el.start, el.end, verbatim && paraText === text);
  }
  // Qwen's PDF/PPTX parsers keep a page entry for every page, empty or not (each adds a marker).
  const numbers = new Set(byPage.keys());
  if (hasPages) {
    const lastPage = Math.max(doc.pageCount ?? 0, ...numbers);
    for (let p = 1; p <= lastPage; p++) numbers.add(p);
  }
  const pages: QwenPage[] = [...numbers]
    .sort((a, b) => a - b)
    .map((pageNum) => ({ pageNum, paragraphs: byPage.get(pageNum) ?? [] }));
  return pages;
}

/** The paged document Qwen's SimpleDocParser would produce for this Document (see docs/chunkers/qwen.md). */
export function qwenPagesOfDocument(doc: Document, tokenizer: Tokenizer): QwenPage[] {
  const elements = doc.elements.filter((el) => el.kind !== 'page-furniture' && el.end > el.start);
  return LINE_FORMATS.has(doc.format) ? linePages(doc, elements, tokenizer) : elementPages(doc, elements, tokenizer);
}

/** `DocParser.call`: the whole document as one chunk when it fits `maxRefToken`, else split_doc_to_chunk. */
function chunkPages(pages: readonly QwenPage[], options: QwenOptions, tokenizer: Tokenizer, paths: readonly string[][]): QwenChunk[] {
  const paragraphs = pages.flatMap((p) => p.paragraphs);
  // get_plain_doc: every paragraph joined by '\n', no markers.
  const plain = paragraphs.map((p) => p.text).join(PARAGRAPH_JOIN);
  // A blank or empty document fits maxRefToken too: Qwen returns it as one chunk (token 0 when empty).
  const total = paragraphs.reduce((sum, p) => sum + p.tokens, 0);
  if (total <= options.maxRefToken) {
    return [toChunk(0, plain, paragraphs.map((p) => ({ paragraph: p, start: p.start, end: p.end })), total, tokenizer, paths)];
  }
  return finishChunks(splitDocToChunks(pages, options.parserPageSize, tokenizer), tokenizer, paths);
}

/**
 * `qwen`: Qwen-Agent's DocParser chunking, output identical on the paged document it is given
 * (specs/qwen-agent.md §3). Each chunk carries Qwen's own `token` value as `qwenTokens`.
 */
export const qwenChunker: ChunkerDefinition<QwenOptions> = {
  name: 'qwen',
  description:
    "Qwen-Agent's DocParser: the whole document when it fits maxRefToken, else paragraphs packed to parserPageSize tokens, oversize ones split by sentences then token windows, [page: N] markers, 150-character overlap.",
  defaultTokenizer: 'qwen',
  resolveOptions: resolveQwenOptions,
  chunkDocument(doc, options, tokenizer) {
    return chunkPages(qwenPagesOfDocument(doc, tokenizer), options, tokenizer, headingPaths(doc.elements));
  },
  /**
   * As `BaseSearch.format_docs` treats a raw string: one page numbered 0 holding the whole string as
   * one paragraph, passed straight to split_doc_to_chunk (no whole-document shortcut there, so
   * maxRefToken does not apply).
   */
  chunkText(text, options, tokenizer) {
    // Blank text too: format_docs makes it a page of one paragraph, which split_doc_to_chunk emits ("[page: 0]\n" for '').
    const paragraph: QwenParagraph = { text, isTable: false, tokens: qwenCount(tokenizer, text), start: 0, end: text.length, exact: true };
    return finishChunks(splitDocToChunks([{ pageNum: 0, paragraphs: [paragraph] }], options.parserPageSize, tokenizer), tokenizer, undefined);
  },
};

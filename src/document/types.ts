/**
 * The document model every parser produces (DESIGN.md, "Document model").
 * A Document is a flat, ordered list of elements; heading structure comes from heading levels.
 * Every element has `start`/`end` offsets into `canonical`, the one deterministic Markdown-like
 * rendering of the document, so `canonical.slice(el.start, el.end)` is the element's rendering.
 */

export type Format =
  | 'text'
  | 'markdown'
  | 'html'
  | 'json'
  | 'jsonl'
  | 'csv'
  | 'tsv'
  | 'pdf'
  | 'docx'
  | 'pptx'
  | 'xlsx'
  | 'odt'
  | 'odp'
  | 'ods'
  | 'epub'
  | 'eml'
  | 'rtf'
  | 'vtt'
  | 'transcribe'
  | 'image'
  | 'audio'
  | 'zip'
  | 'doc'
  | 'xls'
  | 'ppt'
  | 'unknown';

export type ElementKind =
  | 'heading'
  | 'paragraph'
  | 'list-item'
  | 'table'
  | 'code'
  | 'image'
  | 'quote'
  | 'footnote'
  | 'caption'
  | 'page-furniture'
  | 'turn'
  | 'comment'
  | 'formula';

/** A box in page coordinates: x0,y0 top-left, x1,y1 bottom-right, in the format's own units (PDF points). */
export interface BBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A box on a given page (1-based). */
export interface PageBox extends BBox {
  page: number;
}

export interface TableCell {
  text: string;
  rowSpan?: number;
  colSpan?: number;
}

export interface TableData {
  /** Rows of cells; header rows come first. */
  rows: TableCell[][];
  /** How many leading rows are header rows (0 when the table has none). */
  headerRows: number;
  caption?: string;
}

/**
 * A review comment (DOCX comment, XLSX note or threaded comment, PPTX comment, ODF annotation).
 * The element's `text` is the comment's body; it follows the element it is anchored to.
 */
export interface CommentInfo {
  author?: string;
  /** When it was written, ISO 8601 as the file stores it (often local time without a zone). */
  time?: string;
  /** The commented text (DOCX, ODT ranges), when the comment marks a stretch of text. */
  anchor?: string;
  /** The commented cell (`B3`) in a spreadsheet; the sheet is the element's `sheet`. */
  cell?: string;
  /** True on a reply: replies follow their thread's first comment, in thread order. */
  reply?: boolean;
  /** The thread was marked resolved (done). */
  resolved?: boolean;
}

/** What a parser emits: an element without canonical offsets (the builder assigns them). */
export interface ElementDraft {
  kind: ElementKind;
  /**
   * Plain text of the element, without Markdown markers. For tables, the rows joined by tabs/newlines.
   * For a `formula` (a display equation) its LaTeX, without the `$$` delimiters. Inline equations stay
   * in their paragraph's text as `$...$` (LaTeX), whatever the element kind.
   */
  text: string;
  /** Heading level 1-6. */
  level?: number;
  /** List nesting depth, 0 for top level. */
  depth?: number;
  ordered?: boolean;
  /** The list item's own number when ordered (1, 2, ...). */
  number?: number;
  table?: TableData;
  /** Code block language. */
  language?: string;
  /** Image alt text and OCR text. */
  alt?: string;
  ocrText?: string;
  /** Review comment (kind `comment`): author, time and what it is anchored to. */
  comment?: CommentInfo;
  /** Dialog turn. */
  speaker?: string;
  startTime?: number;
  endTime?: number;
  /** Provenance. Pages are 1-based. */
  page?: number;
  pageEnd?: number;
  /** Where the element starts: its first piece's box, on `page`. */
  bbox?: BBox;
  /**
   * Every piece's box in reading order, when the element is set in more than one (a paragraph
   * continued in the next column or on the next page, a table continued on the next page);
   * `bboxes[0]` is `bbox` on `page`.
   */
  bboxes?: PageBox[];
  sheet?: string;
  slide?: number;
  /** Offsets into the decoded source text, where the format is text (Markdown, plain text). */
  sourceStart?: number;
  sourceEnd?: number;
}

export interface Element extends ElementDraft {
  /** Index in `Document.elements`. */
  index: number;
  /** Span of this element's rendering in `Document.canonical` (empty for page furniture, which is not rendered). */
  start: number;
  end: number;
}

export interface DocumentSource {
  name?: string;
  path?: string;
  url?: string;
  bytes: number;
  mtime?: string;
}

export interface Document {
  /** sha256 (hex) of the source bytes. */
  id: string;
  source: DocumentSource;
  format: Format;
  mime: string;
  /** Text encoding the source was decoded from, for text formats. */
  encoding?: string;
  /** Version of the parser that produced it (part of the parse-cache key). */
  parserVersion?: string;
  title?: string;
  language?: string;
  pageCount?: number;
  metadata: Record<string, unknown>;
  elements: Element[];
  /** What the parser skipped, repaired or removed, in sentences a user can read. */
  warnings: string[];
  /** The canonical text all offsets refer to. */
  canonical: string;
  /** Parsed attachments and archive entries (an e-mail's attachments, a ZIP's files), each a full Document. */
  children?: Document[];
}

/** A file inside another (mail attachment, archive entry, embedded object) for parse() to parse as a child. */
export interface Attachment {
  /** Name inside the container, e.g. `report.pdf` or `dir/notes.txt`. */
  name: string;
  bytes: Uint8Array;
}

/** What a parser returns; `buildDocument` turns it into a Document. */
export interface DocumentDraft {
  format: Format;
  mime: string;
  encoding?: string;
  title?: string;
  language?: string;
  pageCount?: number;
  metadata?: Record<string, unknown>;
  elements: ElementDraft[];
  warnings?: string[];
  /** Files inside this one; parse() parses each into `Document.children` (failures become warnings). */
  attachments?: Attachment[];
}

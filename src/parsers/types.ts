import type { DocumentDraft, Format } from '../document/types.js';
import type { ParseLimits } from '../limits.js';
import type { CommentsMode, RevisionsMode } from './review-options.js';

/** What a parser receives: the raw bytes, and for text formats the decoded text. */
export interface ParseInput {
  bytes: Uint8Array;
  /** File name or path, for messages and extension hints. */
  name?: string;
  /** The detected (or forced) format, for parsers that handle several. */
  format?: Format;
  /** Decoded text (text formats only), and the encoding it was decoded from. */
  text?: string;
  encoding?: string;
}

/**
 * Parse options. The limits (`maxNesting`, `maxTableColumns`) come from their schema in
 * src/limits.ts, which gives their defaults and meaning; a file over one is LIMIT_EXCEEDED.
 */
export interface ParseOptions extends Partial<ParseLimits> {
  /** Force a format instead of detecting it. */
  format?: Format;
  /** File name used for detection and messages when the input is bytes. */
  name?: string;
  /** JSON/JSONL: keys whose values become the text of each record (llmware-style). Default `['text']`. */
  jsonKeys?: string[];
  /** Refuse inputs larger than this many bytes (TOO_LARGE). Default 512 MiB. */
  maxBytes?: number;
  /** HTML: keep only the main content (Readability), dropping navigation and boilerplate. Default true. */
  htmlMainContent?: boolean;
  /** Password for encrypted documents (PDF). */
  password?: string;
  /** OCR: 'auto' (pages/images without usable text), 'on' (every page), 'off'. Default 'auto'. */
  ocr?: 'auto' | 'on' | 'off';
  /** Tesseract language(s), e.g. 'eng' or 'eng+chi_sim'. Default 'eng+chi_sim'. */
  ocrLang?: string;
  /** OpenAI-compatible transcription endpoint for audio (e.g. a whisper.cpp server), e.g. http://127.0.0.1:8080/v1/audio/transcriptions. Default: $GROUNDWORK_TRANSCRIBE_URL. */
  transcribeUrl?: string;
  /** Attachments / archive entries are parsed to this depth (an archive inside an archive is depth 2). Default 3. */
  maxDepth?: number;
  /** Review comments (DOCX, XLSX, PPTX, ODF) as `comment` elements after their anchor ('include'), or left out. Default 'include'. See review-options.ts. */
  comments?: CommentsMode;
  /** Tracked changes: the final text ('final'), or insertions and deletions marked `{+...+}` `{-...-}` ('show'). Default 'final'. */
  revisions?: RevisionsMode;
}

/** A parser: one file in `src/parsers/`, registered by the formats it handles. */
export interface ParserDefinition {
  readonly formats: readonly Format[];
  /** Bumped when output changes; part of the parse-cache key. */
  readonly version: string;
  /** True when the parser wants `input.text` (the detector decodes it). */
  readonly textual: boolean;
  parse(input: ParseInput, options: ParseOptions): DocumentDraft | Promise<DocumentDraft>;
}

/**
 * A parser known by its formats and version, whose code is loaded the first time one of its
 * formats is parsed (the built-in ones are listed so in src/parsers/catalog.ts). `load` resolves
 * to the parser, whose `formats` and `version` must be these.
 */
export interface LazyParser {
  /** For messages: which parser this is. */
  readonly name: string;
  readonly formats: readonly Format[];
  /** Bumped when output changes; part of the parse-cache key. */
  readonly version: string;
  load(): Promise<ParserDefinition>;
}

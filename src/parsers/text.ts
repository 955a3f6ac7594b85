import { decodeText } from '../detect/encoding.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import type { ParseInput, ParserDefinition } from './types.js';

/**
 * Plain text, kept faithful: one `paragraph` per run of non-blank lines, with its exact span in the
 * decoded (LF-normalised) text, so `text.slice(sourceStart, sourceEnd) === element.text`. No
 * heading guessing. A form feed is a page break (pdftotext and printers write them): it ends a
 * paragraph and elements carry `page` when the text has any. Title: the first paragraph when it is a
 * single short line that does not read as a sentence, and more text follows.
 */
export const textParser: ParserDefinition = {
  formats: ['text'],
  version: '1',
  textual: true,
  parse(input: ParseInput): DocumentDraft {
    const text = input.text ?? decodeText(input.bytes).text;
    const elements = paragraphs(text);
    const title = guessTitle(elements);
    return {
      format: 'text',
      mime: 'text/plain',
      ...(title !== undefined && { title }),
      ...(text.includes('\f') && { pageCount: countPages(text) }),
      elements,
    };
  },
};

const TITLE_MAX_CHARS = 80;

/** Splits on blank lines (whitespace-only) and form feeds; trims each paragraph's outer whitespace. */
export function paragraphs(text: string): ElementDraft[] {
  const paged = text.includes('\f');
  const elements: ElementDraft[] = [];
  let page = 1;
  let start = -1; // start of the current paragraph's first non-blank line, -1 when between paragraphs
  let end = 0; // end of its last non-blank line
  let paragraphPage = 1;
  const flush = (): void => {
    if (start < 0) return;
    const s = start + leadingSpace(text, start, end);
    const e = end - trailingSpace(text, s, end);
    if (e > s) elements.push({ kind: 'paragraph', text: text.slice(s, e), sourceStart: s, sourceEnd: e, ...(paged && { page: paragraphPage }) });
    start = -1;
  };
  let lineStart = 0;
  let nextFormFeed = paged ? text.indexOf('\f') : -1;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    // Form feeds split the line into pieces on different pages. The next form feed is searched
    // for once per form feed, not once per line (millions of lines and no form feed: one search).
    let pieceStart = lineStart;
    while (nextFormFeed >= 0 && nextFormFeed < lineEnd) {
      addPiece(pieceStart, nextFormFeed);
      flush();
      page++;
      pieceStart = nextFormFeed + 1;
      nextFormFeed = text.indexOf('\f', pieceStart);
    }
    addPiece(pieceStart, lineEnd);
    lineStart = lineEnd + 1;
  }
  flush();
  return elements;

  function addPiece(from: number, to: number): void {
    if (isBlank(text, from, to)) {
      flush();
      return;
    }
    if (start < 0) {
      start = from;
      paragraphPage = page;
    }
    end = to;
  }
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0b || c === 0x0d || c === 0xa0 || c === 0x3000 || c === 0xfeff || (c >= 0x2000 && c <= 0x200b);
}

function leadingSpace(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && isSpace(text.charCodeAt(i))) i++;
  return i - from;
}

function trailingSpace(text: string, from: number, to: number): number {
  let i = to;
  while (i > from && isSpace(text.charCodeAt(i - 1))) i--;
  return to - i;
}

function countPages(text: string): number {
  let pages = 1;
  for (let i = text.indexOf('\f'); i >= 0; i = text.indexOf('\f', i + 1)) pages++;
  // A trailing form feed closes the last page rather than opening an empty one.
  return /\f\s*$/.test(text) ? pages - 1 : pages;
}

const SENTENCE_END = /[.:;,!?。：；，！？]$/;

function guessTitle(elements: readonly ElementDraft[]): string | undefined {
  const first = elements[0];
  if (!first || elements.length < 2) return undefined;
  const line = first.text;
  if (line.includes('\n') || line.length > TITLE_MAX_CHARS || SENTENCE_END.test(line)) return undefined;
  return line;
}

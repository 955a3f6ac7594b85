import type { DocumentDraft } from '../document/types.js';
import { interpretRtf } from './rtf-interpreter.js';
import type { ParseInput, ParserDefinition } from './types.js';

/**
 * RTF: paragraphs, headings (paragraph styles named "heading N" or with an outline level), lists
 * (\listtext / \pntext numbering), tables (\cell / \row), footnotes, header/footer furniture and
 * \info metadata (title, author, subject, dates). Text is decoded from the raw bytes, never from the
 * detector's guess: `\'hh` escapes use the code page of their font's \fcharset (Shift_JIS, GB2312,
 * Big5...) or the document's \ansicpg, and \uN escapes skip their \ucN fallback characters.
 */
export const rtfParser: ParserDefinition = {
  formats: ['rtf'],
  version: '1',
  textual: false,
  parse(input: ParseInput): DocumentDraft {
    const result = interpretRtf(input.bytes);
    return {
      format: 'rtf',
      mime: 'application/rtf',
      encoding: result.codePage,
      ...(result.title && { title: result.title }),
      metadata: result.metadata,
      elements: result.elements,
    };
  },
};

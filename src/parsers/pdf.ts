import type { DocumentDraft } from '../document/types.js';
import { parsePdf } from '../pdf/parse.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

/**
 * PDF through PDFium (WebAssembly): per-character layout -> runs -> reading order (columns) ->
 * blocks -> headings, lists, captions, footnotes, code, ruled and unruled tables; running headers
 * and footers removed by repetition. See docs/pdf.md.
 */
export const pdfParser: ParserDefinition = {
  formats: ['pdf'],
  version: '1',
  textual: false,
  parse(input: ParseInput, options: ParseOptions): Promise<DocumentDraft> {
    return parsePdf(input.bytes, { ...options, ...(input.name !== undefined && { name: input.name }) });
  },
};

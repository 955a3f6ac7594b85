import { audioParser } from './audio.js';
import { csvParser } from './csv.js';
import { docxParser } from './docx.js';
import { emlParser } from './eml.js';
import { epubParser } from './epub.js';
import { htmlParser } from './html.js';
import { imageParser } from './image.js';
import { jsonParser } from './json.js';
import { markdownParser } from './markdown.js';
import { odpParser } from './odp.js';
import { odsParser } from './ods.js';
import { odtParser } from './odt.js';
import { pdfParser } from './pdf.js';
import { pptxParser } from './pptx.js';
import { rtfParser } from './rtf.js';
import { textParser } from './text.js';
import { transcribeParser } from './transcribe.js';
import { vttParser } from './vtt.js';
import { xlsxParser } from './xlsx.js';
import { zipParser } from './zip.js';
import type { Format } from '../document/types.js';
import type { ParserDefinition } from './types.js';

/** Parsers by the formats they handle. Adding one = one file in this folder + one line here. */
const parsers = new Map<Format, ParserDefinition>();

export function registerParser(parser: ParserDefinition): void {
  for (const format of parser.formats) parsers.set(format, parser);
}

[
  textParser,
  markdownParser,
  htmlParser,
  jsonParser,
  csvParser,
  emlParser,
  epubParser,
  rtfParser,
  vttParser,
  transcribeParser,
  audioParser,
  docxParser,
  odtParser,
  zipParser,
  pptxParser,
  xlsxParser,
  odpParser,
  odsParser,
  imageParser,
  pdfParser,
].forEach(registerParser);

export function getParser(format: Format): ParserDefinition | undefined {
  return parsers.get(format);
}

export function supportedFormats(): Format[] {
  return [...parsers.keys()];
}

import { csvParser } from './csv.js';
import { htmlParser } from './html.js';
import { jsonParser } from './json.js';
import { markdownParser } from './markdown.js';
import { textParser } from './text.js';
import type { Format } from '../document/types.js';
import type { ParserDefinition } from './types.js';

/** Parsers by the formats they handle. Adding one = one file in this folder + one line here. */
const parsers = new Map<Format, ParserDefinition>();

export function registerParser(parser: ParserDefinition): void {
  for (const format of parser.formats) parsers.set(format, parser);
}

[textParser, markdownParser, htmlParser, jsonParser, csvParser].forEach(registerParser);

export function getParser(format: Format): ParserDefinition | undefined {
  return parsers.get(format);
}

export function supportedFormats(): Format[] {
  return [...parsers.keys()];
}

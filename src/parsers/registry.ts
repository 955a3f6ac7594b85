import type { Format } from '../document/types.js';
import { PARSER_CATALOG } from './catalog.js';
import type { LazyParser, ParserDefinition } from './types.js';

/**
 * Parsers by the formats they handle. The built-in ones are the entries of src/parsers/catalog.ts
 * (adding one = one file in this folder + one line there); their code is loaded on first use, so
 * what is asked synchronously (`supportedFormats`, `parserVersion`) never loads a parser.
 */
interface Slot {
  readonly name: string;
  readonly formats: readonly Format[];
  readonly version: string;
  readonly load?: () => Promise<ParserDefinition>;
  definition?: ParserDefinition;
  loading?: Promise<ParserDefinition>;
}

const parsers = new Map<Format, Slot>();

/**
 * Registers a parser for its formats, replacing the one registered for them before. A
 * `ParserDefinition` is used as it is; a `LazyParser` is loaded the first time one of its formats
 * is parsed.
 */
export function registerParser(parser: ParserDefinition | LazyParser): void {
  const slot: Slot = 'parse' in parser
    ? { name: parser.formats.join('/'), formats: parser.formats, version: parser.version, definition: parser }
    : { name: parser.name, formats: parser.formats, version: parser.version, load: () => parser.load() };
  for (const format of parser.formats) parsers.set(format, slot);
}

PARSER_CATALOG.forEach(registerParser);

/**
 * The parser of a format, its code loaded if it was not yet (once, however many ask at the same
 * time); undefined for a format no parser handles. A failed load is not kept: the next call tries again.
 */
export function getParser(format: Format): Promise<ParserDefinition | undefined> {
  const slot = parsers.get(format);
  return slot ? loadSlot(slot) : Promise.resolve(undefined);
}

function loadSlot(slot: Slot): Promise<ParserDefinition> {
  if (slot.definition) return Promise.resolve(slot.definition);
  slot.loading ??= slot.load!().then(
    (definition) => {
      checkDefinition(slot, definition);
      slot.definition = definition;
      return definition;
    },
    (error: unknown) => {
      slot.loading = undefined;
      throw error;
    },
  );
  return slot.loading;
}

/** A loaded parser must be what its entry said: its version is the parse-cache key, known before it loads. */
function checkDefinition(slot: Slot, definition: ParserDefinition): void {
  const same = definition.version === slot.version && definition.formats.length === slot.formats.length && definition.formats.every((f, i) => f === slot.formats[i]);
  if (!same) {
    throw new Error(
      `parser '${slot.name}' loaded version ${definition.version} for ${definition.formats.join(', ')}, ` +
        `but its registry entry says version ${slot.version} for ${slot.formats.join(', ')}`,
    );
  }
}

/** The version of the parser registered for a format (part of the parse-cache key), without loading it. */
export function parserVersion(format: Format): string | undefined {
  return parsers.get(format)?.version;
}

/** True once the code of the parser registered for a format is loaded (or was given as a definition). */
export function isParserLoaded(format: Format): boolean {
  return parsers.get(format)?.definition !== undefined;
}

export function supportedFormats(): Format[] {
  return [...parsers.keys()];
}

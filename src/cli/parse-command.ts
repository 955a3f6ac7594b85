import type { Document } from '../document/types.js';
import { exclusive, flag, parseCommandArgs } from './args.js';
import { HELP_FLAG_SPEC, PARSE_FLAG_SPECS, PARSE_FLAGS_HELP, parseFileArg, parseOptionsFrom, printWarnings, singleFile } from './common.js';
import { EXIT_OK, reportError, STDIN_NAME, type CliIO } from './io.js';

export const PARSE_HELP = `Usage: groundwork parse FILE|- [--md | --json] [parse options]

Parses one document (format and text encoding detected from its bytes) and prints it.
  FILE                  a path, or - to read the bytes from stdin

Output:
  --md                  the canonical text: # headings, - list items, pipe tables, fenced code (default)
  --json                the Document as JSON: id, source, format, mime, encoding, title, language,
                        pageCount, metadata, warnings, elements (kind, text, level, depth, page, bbox,
                        start, end, ...) and canonical (the text every start/end offset refers to)

${PARSE_FLAGS_HELP}

Parser warnings go to stderr with --md (they are in the JSON with --json).
Exit codes: 0 ok, 1 the file failed (message and code on stderr), 2 usage error.
`;

const SPECS = { ...HELP_FLAG_SPEC, ...PARSE_FLAG_SPECS, json: { type: 'boolean' }, md: { type: 'boolean' } } as const;

export async function parseCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let file: string | undefined;
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(PARSE_HELP);
      return EXIT_OK;
    }
    exclusive(args, ['json', 'md']);
    const options = parseOptionsFrom(args);
    file = singleFile(args);
    const doc = await parseFileArg(io, file, options);
    if (flag(args, 'json')) {
      io.out(`${JSON.stringify(documentJson(doc), null, 2)}\n`);
    } else {
      printWarnings(io, file === '-' ? STDIN_NAME : file, doc);
      io.out(doc.canonical.endsWith('\n') ? doc.canonical : `${doc.canonical}\n`);
    }
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'parse', file === '-' ? STDIN_NAME : file);
  }
}

/** The Document with its summary fields first and the bulky ones (elements, canonical) last. */
export function documentJson(doc: Document): Record<string, unknown> {
  const { id, source, format, mime, encoding, title, language, pageCount, metadata, warnings, elements, canonical, ...rest } = doc;
  return { format, title, pageCount, language, encoding, mime, id, source, metadata, warnings, ...rest, elements, canonical };
}

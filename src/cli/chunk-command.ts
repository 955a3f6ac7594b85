import { chunk, chunkText, type ChunkOptions } from '../chunk.js';
import { DEFAULT_STRATEGY, getChunker, listChunkers } from '../chunkers/registry.js';
import type { Chunk } from '../chunkers/types.js';
import { detect } from '../detect/detect.js';
import type { Format } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { exclusive, flag, integerValue, parseCommandArgs, stringValue, stringValues, UsageError, type ParsedArgs } from './args.js';
import { buildChunkOptions, effectiveTokenizer, TOKENIZERS, validateChunkOptions } from './chunk-options.js';
import { storableChunks } from '../library/blocks.js';
import { CHUNK_FLAG_SPECS, HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC, openExistingLibrary, PARSE_FLAG_SPECS, PARSE_FLAGS_HELP, parseFileArg, parseOptionsFrom, printWarnings, singleFile } from './common.js';
import { CHUNK_LIMIT_FLAG_SPECS, CHUNK_LIMIT_FLAGS_HELP, chunkLimitsFrom } from './limit-flags.js';
import { EXIT_OK, readInputBytes, reportError, STDIN_NAME, type CliIO } from './io.js';

export const CHUNK_FLAGS_HELP = `Chunk options:
  -s, --strategy S      ${listChunkers().map((c) => c.name).join(', ')} (default: ${DEFAULT_STRATEGY})
  --chunk-size N        the strategy's size limit: chunkSize (structure, recursive, sentence, token),
                        maxCharSize (chisel), parserPageSize (qwen)
  --chunk-overlap N     chunkOverlap (structure, recursive, sentence, token); chisel and qwen have
                        their own fixed overlap rules and reject it
  --unit tokens|chars   lengthUnit for recursive (default chars, like LangChain) and sentence
                        (default tokens); the other strategies measure in one unit only
  --tokenizer T         ${TOKENIZERS.join(', ')} (default: cl100k_base; qwen's own for --strategy qwen)
  -o, --opt key=value   any other option of the strategy, repeatable; the value is read as JSON when
                        it is JSON (numbers, true/false, arrays), else as a string. Examples:
                        --opt lookBackCharRange=200   --opt keepSeparator=false
                        --opt 'separators=["\\n\\n","\\n"," ",""]'`;

export function chunkHelp(): string {
  const strategies = listChunkers()
    .map((c) => `  ${c.name.padEnd(10)} ${c.description}`)
    .join('\n');
  return `Usage: groundwork chunk FILE|- [chunk options] [--json | --jsonl] [parse options]
       groundwork chunk --doc DOC [--library DIR] [chunk options] [--json | --jsonl] [parse options]

Parses one document and splits it into chunks with their provenance (heading path, pages, offsets
into the canonical text, exact token counts).
  FILE                  a path, or - to read the bytes from stdin

Output:
  (default)             a readable listing: index, tokens, chars, pages, kind, heading path, text
  --json                one JSON array of chunks
  --jsonl               one JSON chunk per line (index, text, start, end, chars, tokens,
                        headingPath, pageStart, pageEnd, kind, strategy, prefix, table...)
  --raw                 chunk the file's decoded text as it is, without parsing it into a document
                        (offsets then refer to that text): what LangChain or llmware would be given
  --doc DOC             chunk a document of the library again (id, id prefix or path), from its
                        cached parse (else its kept original): nothing is stored; the strategy and
                        tokenizer default to the library's, as for ingest
${LIBRARY_FLAG_HELP}

${CHUNK_FLAGS_HELP}
${CHUNK_LIMIT_FLAGS_HELP}

${PARSE_FLAGS_HELP}

Strategies:
${strategies}

Exit codes: 0 ok, 1 the file failed, 2 usage error (including options a strategy rejects).
`;
}

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...PARSE_FLAG_SPECS,
  ...CHUNK_FLAG_SPECS,
  ...CHUNK_LIMIT_FLAG_SPECS,
  json: { type: 'boolean' },
  jsonl: { type: 'boolean' },
  raw: { type: 'boolean' },
  doc: { type: 'string' },
  ...LIBRARY_FLAG_SPEC,
} as const;

/** The chunk options the generic flags (`--strategy`, `--chunk-size`, `--opt`...) describe. */
export function chunkOptionsFrom(args: ParsedArgs, defaultStrategy: string = DEFAULT_STRATEGY): ChunkOptions {
  return buildChunkOptions({
    strategy: stringValue(args, 'strategy') ?? defaultStrategy,
    chunkSize: integerValue(args, 'chunk-size', 1),
    chunkOverlap: integerValue(args, 'chunk-overlap', 0),
    unit: stringValue(args, 'unit'),
    tokenizer: stringValue(args, 'tokenizer'),
    opts: stringValues(args, 'opt'),
  });
}

export async function chunkCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let label: string | undefined;
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(chunkHelp());
      return EXIT_OK;
    }
    exclusive(args, ['json', 'jsonl']);
    let options: ChunkOptions = { ...chunkOptionsFrom(args), ...chunkLimitsFrom(args) };
    validateChunkOptions(chunkOptionsFrom(args));
    const parseOptions = parseOptionsFrom(args);

    let chunks: Chunk[];
    const ref = stringValue(args, 'doc');
    if (ref !== undefined) {
      if (args.positionals.length > 0) throw new UsageError('--doc chunks a stored document: give no FILE with it');
      if (flag(args, 'raw')) throw new UsageError('--doc and --raw do not go together');
      label = ref;
      const library = await openExistingLibrary(args, io);
      try {
        const settings = await library.settings();
        // The library's strategy and tokenizer unless the flags name others (ingest's defaults).
        const strategy = stringValue(args, 'strategy') ?? settings.strategy;
        if (strategy !== options.strategy) {
          options = { ...chunkOptionsFrom(args, strategy), ...chunkLimitsFrom(args) };
          validateChunkOptions(chunkOptionsFrom(args, strategy));
        }
        options.tokenizer ??= settings.tokenizer as ChunkOptions['tokenizer'];
        const { document } = await library.parsedDocument(ref, parseOptions);
        chunks = storableChunks(document.canonical, chunk(document, options));
      } finally {
        await library.close();
      }
    } else if (flag(args, 'raw')) {
      if (parseOptions.jsonKeys || parseOptions.htmlMainContent === false) {
        throw new UsageError('--raw chunks the text as it is: --json-keys and --keep-boilerplate do not apply');
      }
      const file = singleFile(args);
      label = file === '-' ? STDIN_NAME : file;
      chunks = chunkText(await decodedText(io, file, parseOptions.format), options);
    } else {
      const file = singleFile(args);
      label = file === '-' ? STDIN_NAME : file;
      const doc = await parseFileArg(io, file, parseOptions);
      printWarnings(io, label, doc);
      chunks = chunk(doc, options);
    }

    if (flag(args, 'json')) io.out(`${JSON.stringify(chunks, null, 2)}\n`);
    else if (flag(args, 'jsonl')) io.out(chunks.map((c) => `${JSON.stringify(c)}\n`).join(''));
    else {
      io.out(chunks.map(formatChunk).join('\n'));
      io.out(`${summaryLine(chunks, options)}\n`);
    }
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'chunk', label);
  }
}

/** `--raw`: the file's text decoded with the detected encoding, nothing else. */
async function decodedText(io: CliIO, file: string, format: Format | undefined): Promise<string> {
  const { bytes, label } = await readInputBytes(io, file);
  if (bytes.length === 0) throw new GroundworkError('EMPTY', 'the file is empty (0 bytes)', { file: label });
  const detection = detect(bytes, { name: label, ...(format !== undefined && { format }) });
  if (detection.text === undefined) {
    throw new GroundworkError('UNSUPPORTED', `--raw needs a text file; this is ${detection.format} (${detection.mime})`, { file: label });
  }
  return detection.text;
}

/** One chunk of the readable listing: a header line with its metadata, then its text. */
export function formatChunk(c: Chunk): string {
  const parts = [`#${c.index}`, `${c.tokens} tokens`, `${c.chars} chars`];
  if (c.pageStart !== undefined) parts.push(c.pageEnd !== undefined && c.pageEnd !== c.pageStart ? `pages ${c.pageStart}-${c.pageEnd}` : `page ${c.pageStart}`);
  parts.push(c.kind, `[${c.start}, ${c.end})`);
  const path = c.headingPath.length > 0 ? `\n   ${c.headingPath.join(' > ')}` : '';
  return `--- ${parts.join(' | ')}${path}\n${c.text}\n`;
}

function summaryLine(chunks: readonly Chunk[], options: ChunkOptions): string {
  const strategy = options.strategy ?? DEFAULT_STRATEGY;
  const tokenizer = effectiveTokenizer(options, getChunker(strategy).defaultTokenizer);
  const tokens = chunks.reduce((sum, c) => sum + c.tokens, 0);
  const largest = chunks.reduce((max, c) => Math.max(max, c.tokens), 0);
  const noun = chunks.length === 1 ? 'chunk' : 'chunks';
  return `\n${chunks.length} ${noun}, ${tokens} tokens in all, largest ${largest} (${tokenizer}, strategy ${strategy})`;
}

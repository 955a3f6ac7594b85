import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { buildDocument, contentHash } from './document/build.js';
import type { Document, DocumentDraft, Format } from './document/types.js';
import { detect } from './detect/detect.js';
import { GroundworkError, isGroundworkError } from './errors.js';
import { engineLimitError, limitExceeded, resolveParseLimits, withParseLimits, type ParseLimits } from './limits.js';
import { getParser } from './parsers/registry.js';
import { resolveReviewOptions } from './parsers/review-options.js';
import type { ParseOptions, ParserDefinition } from './parsers/types.js';

export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

/** Binary Office formats we do not read, with what the user can do about it. */
const LEGACY_FORMATS: Partial<Record<string, string>> = {
  doc: 'is a legacy binary Word document (.doc, Word 97-2003), which Groundwork does not read; save it as .docx (Word: File > Save As, or `soffice --headless --convert-to docx FILE`) and ingest that',
  xls: 'is a legacy binary Excel workbook (.xls, Excel 97-2003), which Groundwork does not read; save it as .xlsx (`soffice --headless --convert-to xlsx FILE`) and ingest that',
  ppt: 'is a legacy binary PowerPoint file (.ppt, PowerPoint 97-2003), which Groundwork does not read; save it as .pptx (`soffice --headless --convert-to pptx FILE`) and ingest that',
};

/**
 * Parses one document. A string is a file path; bytes are parsed as they are (pass `options.name`
 * to help detection). Throws GroundworkError (EMPTY, CORRUPT, UNSUPPORTED, TOO_LARGE, IO...) naming
 * the file; any other failure inside a parser is reported as CORRUPT with the parser's message.
 */
export async function parse(input: string | Uint8Array, options: ParseOptions = {}): Promise<Document> {
  const review = resolveReviewOptions(options);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const limits = resolveParseLimits(options as Record<string, unknown>);
  let bytes: Uint8Array;
  let path: string | undefined;
  let mtime: string | undefined;
  if (typeof input === 'string') {
    path = input;
    const info = await stat(path).catch((cause: NodeJS.ErrnoException) => {
      throw new GroundworkError('IO', `cannot read: ${cause.code === 'ENOENT' ? 'no such file' : cause.message}`, { file: path, cause });
    });
    if (info.isDirectory()) throw new GroundworkError('IO', 'is a directory, not a file', { file: path });
    if (info.size > maxBytes) throw tooLarge(info.size, maxBytes, path);
    mtime = info.mtime.toISOString();
    bytes = await readFile(path).catch((cause: Error) => {
      throw new GroundworkError('IO', `cannot read: ${cause.message}`, { file: path, cause });
    });
  } else {
    bytes = input;
  }
  const name = options.name ?? (path ? basename(path) : undefined);
  const label = path ?? name ?? '<bytes>';
  if (bytes.length > maxBytes) throw tooLarge(bytes.length, maxBytes, label);
  if (bytes.length === 0) throw new GroundworkError('EMPTY', 'the file is empty (0 bytes)', { file: label });

  const detection = detect(bytes, { name, format: options.format });
  if (detection.encrypted) {
    throw new GroundworkError('ENCRYPTED', `is password-protected (${detection.format === 'unknown' ? 'encrypted Office file' : detection.format}); remove the password and try again`, { file: label });
  }
  const parser = await loadParser(detection.format, label);
  if (!parser) {
    throw new GroundworkError('UNSUPPORTED', LEGACY_FORMATS[detection.format] ?? `format '${detection.format}' (${detection.mime}) is not supported yet`, { file: label });
  }
  let draft;
  let doc: Document;
  try {
    draft = await withParseLimits(limits, () => parser.parse(
      { bytes, name: label, format: detection.format, ...(detection.text !== undefined && { text: detection.text }), ...(detection.encoding && { encoding: detection.encoding }) },
      options,
    ));
    checkTables(draft, limits);
    if (detection.encoding && !draft.encoding) draft.encoding = detection.encoding;
    if (review.comments === 'exclude') draft.elements = draft.elements.filter((el) => el.kind !== 'comment');
    doc = buildDocument(draft, {
      id: contentHash(bytes),
      bytes: bytes.length,
      ...(name !== undefined && { name }),
      ...(path !== undefined && { path }),
      ...(mtime !== undefined && { mtime }),
    });
  } catch (error) {
    throw asParseError(error, label, detection.format, limits);
  }
  doc.parserVersion = parser.version;
  if (draft.attachments?.length) doc.children = await parseAttachments(draft.attachments, label, options, doc.warnings);
  if (doc.elements.length === 0 && !doc.children?.length) {
    throw new GroundworkError('EMPTY', 'no text content was found', { file: label });
  }
  return doc;
}

/**
 * What a failure inside a parser means for the user. A GroundworkError keeps its code (gaining the
 * file name). The engine's own limits are not damage: a stack overflow (nesting too deep for the
 * parser) or a failed allocation (too big to hold) is LIMIT_EXCEEDED naming the limit. Anything
 * else a parser throws means the bytes are not a valid file of the format: CORRUPT.
 */
function asParseError(error: unknown, label: string, format: string, limits: ParseLimits): GroundworkError {
  if (isGroundworkError(error)) {
    return error.file ? error : new GroundworkError(error.code, error.message, { file: label, cause: error, ...(error.limit && { limit: error.limit }) });
  }
  const limit = engineLimitError(error, limits.maxNesting);
  if (limit) return new GroundworkError(limit.code, limit.message, { file: label, cause: error, ...(limit.limit && { limit: limit.limit }) });
  return new GroundworkError('CORRUPT', `could not be parsed as ${format}: ${(error as Error).message}`, { file: label, cause: error });
}

/** The format's parser, its code loaded on first use; a module that cannot be loaded means this install cannot read the format. */
async function loadParser(format: Format, label: string): Promise<ParserDefinition | undefined> {
  try {
    return await getParser(format);
  } catch (cause) {
    throw new GroundworkError('UNSUPPORTED', `the ${format} parser could not be loaded: ${(cause as Error).message}`, { file: label, cause });
  }
}

function tooLarge(size: number, maxBytes: number, file: string): GroundworkError {
  return new GroundworkError('TOO_LARGE', `${size} bytes exceeds the limit of ${maxBytes} bytes (maxBytes; raise it with --max-bytes)`, { file, limit: { name: 'maxBytes', value: maxBytes, flag: '--max-bytes' } });
}

/** A table row wider than `maxTableColumns` is refused before the document is rendered and chunked. */
function checkTables(draft: DocumentDraft, limits: ParseLimits): void {
  for (const el of draft.elements) {
    const rows = el.table?.rows;
    if (!rows) continue;
    for (let r = 0; r < rows.length; r++) {
      if (rows[r]!.length > limits.maxTableColumns) {
        throw limitExceeded('maxTableColumns', limits.maxTableColumns, `a table row has ${rows[r]!.length} columns, more than a table may have`);
      }
    }
  }
}

/**
 * Parses a container's files as child documents, one level deeper. A child that fails is not
 * fatal to its parent: the failure is reported in the parent's warnings with its code.
 */
async function parseAttachments(attachments: NonNullable<DocumentDraft['attachments']>, label: string, options: ParseOptions, warnings: string[]): Promise<Document[]> {
  const depth = (options as { depth?: number }).depth ?? 1;
  const maxDepth = options.maxDepth ?? 3;
  if (depth + 1 > maxDepth) {
    warnings.push(`${attachments.length} nested file(s) not parsed: nesting deeper than maxDepth ${maxDepth}`);
    return [];
  }
  const children: Document[] = [];
  for (const attachment of attachments) {
    const childOptions: ParseOptions & { depth: number } = { ...options, name: `${label}#${attachment.name}`, depth: depth + 1 };
    delete childOptions.format;
    try {
      children.push(await parse(attachment.bytes, childOptions));
    } catch (error) {
      const e = error as GroundworkError;
      warnings.push(`'${attachment.name}' not parsed: ${e.code ?? 'CORRUPT'}: ${e.message}`);
    }
  }
  return children;
}

import { decodeText } from '../detect/encoding.js';
import type { DocumentDraft, ElementDraft, Format } from '../document/types.js';
import { GroundworkError, invalidOption } from '../errors.js';
import { nestingExceeded, parseLimits } from '../limits.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

/**
 * JSON and JSON Lines, llmware-style: each record's text is the values of `options.jsonKeys`
 * (default `['text']`) that the record has, each on its own line; one `paragraph` per record, never
 * split here. Differences from llmware, on purpose:
 * - a key may be a dotted path into nested objects (`meta.title`), used when no literal key matches;
 * - records are: the items of a top-level array; the items of the one array-of-objects property of a
 *   top-level object (`{"data": [...]}`); else the top-level value itself;
 * - a record with none of the keys is skipped (llmware makes an empty block), counted in a warning;
 * - when no record has any of the keys, every record is rendered whole as readable `key: value`
 *   lines instead of yielding nothing (e.g. a config file or SQuAD data with the default keys);
 * - blank JSONL lines are skipped (llmware raises on them).
 * JSONL records carry `sourceStart`/`sourceEnd` (their line); invalid JSON is CORRUPT with line:column.
 */
export const jsonParser: ParserDefinition = {
  formats: ['json', 'jsonl'],
  version: '1',
  textual: true,
  parse(input: ParseInput, options: ParseOptions): DocumentDraft {
    const text = input.text ?? decodeText(input.bytes).text;
    const keys = validKeys(options.jsonKeys);
    const jsonl = isJsonl(input.name, text, options);
    const records = jsonl ? parseJsonLines(text) : recordsOf(parseJson(text));
    // Valid JSON first (else CORRUPT), then its depth: rendering and key lookup recurse per level.
    checkJsonNesting(text);
    return draftFromRecords(records, keys, jsonl ? 'jsonl' : 'json');
  },
};

interface SourcedRecord {
  value: unknown;
  sourceStart?: number;
  sourceEnd?: number;
}

/**
 * The parser is not told the detected format, so it decides the same way the detector does: a forced
 * format, a .jsonl/.ndjson name, or JSON Lines content.
 */
function isJsonl(name: string | undefined, text: string, options: ParseOptions): boolean {
  if (options.format === 'jsonl' || options.format === 'json') return options.format === 'jsonl';
  const lower = name?.toLowerCase() ?? '';
  return lower.endsWith('.jsonl') || lower.endsWith('.ndjson') || looksLikeJsonLines(text);
}

/** Two or more non-blank lines, the first of which is a whole JSON value on its own. */
function looksLikeJsonLines(text: string): boolean {
  const firstEnd = text.indexOf('\n');
  if (firstEnd < 0 || text.slice(firstEnd + 1).trim() === '') return false;
  try {
    JSON.parse(text.slice(0, firstEnd));
    return true;
  } catch {
    return false;
  }
}

function validKeys(keys: string[] | undefined): string[] {
  if (keys === undefined) return ['text'];
  if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string' || k === '')) {
    invalidOption('jsonKeys must be a non-empty array of non-empty strings');
  }
  return keys;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw corrupt(text, error as Error, 0, 'JSON');
  }
}

function parseJsonLines(text: string): SourcedRecord[] {
  const records: SourcedRecord[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    if (line.trim() !== '') {
      try {
        records.push({ value: JSON.parse(line), sourceStart: start + leading(line), sourceEnd: start + line.trimEnd().length });
      } catch (error) {
        throw corrupt(text, error as Error, start, 'JSON Lines', 0);
      }
    }
    start = end + 1;
  }
  return records;
}

function leading(line: string): number {
  return line.length - line.trimStart().length;
}

const POSITION = /position (\d+)/;

/**
 * CORRUPT naming the line and column (1-based) of the syntax error. V8 gives a position for most
 * errors but not all ("Unexpected token 'o', ... is not valid JSON"): then only the line is named
 * (the JSONL record's line, or for a whole document the last line).
 */
function corrupt(text: string, error: Error, offset: number, what: string, fallbackPosition = text.length): GroundworkError {
  const match = POSITION.exec(error.message);
  const position = offset + (match ? Number(match[1]) : fallbackPosition);
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < position; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  const where = match ? `line ${line}, column ${position - lineStart + 1}` : `line ${line}`;
  const reason = error.message.replace(/\s*in JSON at position \d+.*$/s, '');
  return new GroundworkError('CORRUPT', `invalid ${what} at ${where}: ${reason}`, { cause: error });
}

/**
 * Throws LIMIT_EXCEEDED when arrays and objects in `text` (valid JSON or JSON Lines) nest deeper
 * than `maxNesting`. One pass over the characters, strings skipped.
 */
export function checkJsonNesting(text: string, maxNesting = parseLimits().maxNesting): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > maxNesting) nestingExceeded('JSON arrays and objects', maxNesting);
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The records of a parsed JSON document (see the module comment). */
export function recordsOf(value: unknown): SourcedRecord[] {
  if (Array.isArray(value)) return value.map((v) => ({ value: v }));
  if (isPlainObject(value)) {
    const arrays = Object.values(value).filter((v): v is unknown[] => Array.isArray(v) && v.length > 0 && v.every(isPlainObject));
    if (arrays.length === 1) return arrays[0]!.map((v) => ({ value: v }));
  }
  return [{ value }];
}

function draftFromRecords(records: readonly SourcedRecord[], keys: readonly string[], format: Format): DocumentDraft {
  const elements: ElementDraft[] = [];
  const warnings: string[] = [];
  const texts = records.map((r) => textOfRecord(r.value, keys));
  const anyKeyed = texts.some((t) => t !== undefined);
  let skipped = 0;
  records.forEach((record, i) => {
    const text = anyKeyed ? texts[i] : render(record.value);
    if (text === undefined) {
      skipped++;
      return;
    }
    const sourced = record.sourceStart !== undefined ? { sourceStart: record.sourceStart, sourceEnd: record.sourceEnd } : {};
    elements.push({ kind: 'paragraph', text, ...sourced });
  });
  const keyList = keys.map((k) => `'${k}'`).join(', ');
  if (!anyKeyed && records.length > 0) warnings.push(`no record has any of the keys [${keyList}] (option jsonKeys); each record is rendered whole as key: value lines`);
  if (skipped > 0) warnings.push(`skipped ${skipped} of ${records.length} records that have none of the keys [${keyList}] (option jsonKeys)`);
  return {
    format,
    mime: format === 'jsonl' ? 'application/x-ndjson' : 'application/json',
    metadata: { records: records.length, jsonKeys: [...keys] },
    elements,
    ...(warnings.length > 0 && { warnings }),
  };
}

/** The record's text from the listed keys, or undefined when it has none of them. A bare string is its own text. */
function textOfRecord(value: unknown, keys: readonly string[]): string | undefined {
  if (typeof value === 'string') return value;
  if (!isPlainObject(value)) return undefined;
  const parts: string[] = [];
  for (const key of keys) {
    const found = key in value ? value[key] : key.includes('.') ? atPath(value, key) : undefined;
    if (found === undefined || found === null) continue;
    parts.push(typeof found === 'string' ? found : render(found));
  }
  return parts.length > 0 ? parts.join('\n') : undefined;
}

function atPath(value: Record<string, unknown>, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

/**
 * A readable rendering of any JSON value, YAML-like: `key: value` lines, nested objects indented two
 * spaces, array items as `- ` lines. Multi-line strings stay multi-line, indented under their key.
 * Indentation stops growing at MAX_INDENT_DEPTH levels, so a deeply nested value renders in text
 * proportional to its size (every line of a value nested 10,000 deep would otherwise carry 20,000 spaces).
 */
export function render(value: unknown): string {
  const lines: string[] = [];
  renderInto(value, 0, lines, undefined);
  return lines.join('\n');
}

/** Levels of nesting that still indent their lines; deeper levels stay at this indentation. */
export const MAX_INDENT_DEPTH = 16;
const PADS = Array.from({ length: MAX_INDENT_DEPTH + 1 }, (_, d) => '  '.repeat(d));

function padFor(depth: number): string {
  return PADS[Math.min(depth, MAX_INDENT_DEPTH)]!;
}

function scalar(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  return String(value);
}

function isScalar(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.length === 0;
  for (const _ in value) return false;
  return true;
}

function emptyContainer(value: unknown): string {
  return Array.isArray(value) ? '[]' : '{}';
}

/**
 * Renders `value` at `depth` into `lines`. `lead`, when given, replaces the indentation of the first
 * line: an array item's `- ` marker (for a chain of arrays, `- - `...), so no line is ever rewritten.
 */
function renderInto(value: unknown, depth: number, lines: string[], lead: string | undefined): void {
  const pad = padFor(depth);
  let first = lead;
  const push = (line: string): void => {
    lines.push((first ?? pad) + line);
    first = undefined;
  };
  if (isScalar(value)) {
    const text = typeof value === 'object' && value !== null ? emptyContainer(value) : scalar(value);
    for (const line of text.split('\n')) push(line);
    return;
  }
  if (Array.isArray(value)) {
    const childPad = padFor(depth + 1);
    for (const item of value) {
      if (isScalar(item)) {
        const text = typeof item === 'object' && item !== null ? emptyContainer(item) : scalar(item);
        push(`- ${text.replace(/\n/g, `\n${childPad}`)}`);
      } else {
        // The first line of the nested block carries the dash.
        renderInto(item, depth + 1, lines, `${first ?? pad}- `);
        first = undefined;
      }
    }
    return;
  }
  const childPad = padFor(depth + 1);
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (isScalar(item)) {
      const text = typeof item === 'object' && item !== null ? emptyContainer(item) : scalar(item);
      push(`${key}: ${text.replace(/\n/g, `\n${childPad}`)}`);
    } else {
      push(`${key}:`);
      renderInto(item, depth + 1, lines, undefined);
    }
  }
}

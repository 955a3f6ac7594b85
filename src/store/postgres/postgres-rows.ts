import type { Block, StoredDocument } from '../types.js';

type Row = Record<string, any>;

/**
 * Postgres text cannot hold U+0000, which SQLite stores and a parsed document may contain. Text
 * cells go through this reversible escape: U+0000 becomes ESC '0' and ESC itself ESC ESC, with ESC
 * a private-use character (U+E001). Text without either is stored as it is (the common case costs
 * two scans).
 */
const ESC = '\uE001';
const NEEDS_ESCAPE = /[\u0000\uE001]/;
const ESCAPED = /[\u0000\uE001]/g;
const UNESCAPE = /\uE001([\uE0010])/g;

export function toPgText(text: string): string;
export function toPgText(text: string | null): string | null;
export function toPgText(text: string | null): string | null {
  if (text === null || !NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPED, (ch) => (ch === ESC ? ESC + ESC : `${ESC}0`));
}

export function fromPgText(text: string): string;
export function fromPgText(text: string | null): string | null;
export function fromPgText(text: string | null): string | null {
  if (text === null || !text.includes(ESC)) return text;
  return text.replace(UNESCAPE, (_, ch: string) => (ch === '0' ? '\u0000' : ESC));
}

/** JSON for a `json` column: JSON.stringify escapes U+0000 as \u0000, which `json` keeps as text. */
export function toPgJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * `json` columns come back parsed by node-postgres; a string column holding JSON text (none today)
 * would be parsed here.
 */
function fromPgJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** The columns of `blocks` in insert order, and one block's values for them. */
export const BLOCK_COLUMNS = [
  'id', 'doc_id', 'ordinal', 'kind', 'text', 'heading_path', 'page_start', 'page_end', 'bboxes', 'start', '"end"', 'chars', 'tokens',
  'table_rows', 'speaker', 'time_start', 'time_end', 'strategy', 'config_hash',
] as const;

/** The Postgres array type of each column in BLOCK_COLUMNS, for `unnest($n::type[])` inserts. */
export const BLOCK_COLUMN_TYPES = [
  'text', 'text', 'integer', 'text', 'text', 'text', 'integer', 'integer', 'json', 'integer', 'integer', 'integer', 'integer',
  'json', 'text', 'double precision', 'double precision', 'text', 'text',
] as const;

/**
 * The values of a block for BLOCK_COLUMNS. The heading path goes as JSON text and becomes text[]
 * in SQL (`ARRAY(SELECT json_array_elements_text(...))`), since an array of arrays cannot be unnested.
 */
export function blockValues(block: Block): unknown[] {
  return [
    block.id,
    block.docId,
    block.ordinal,
    block.kind,
    toPgText(block.text),
    JSON.stringify(block.headingPath.map((h) => toPgText(h))),
    block.pageStart,
    block.pageEnd,
    toPgJson(block.bboxes),
    block.start,
    block.end,
    block.chars,
    block.tokens,
    toPgJson(block.table),
    toPgText(block.speaker),
    block.time ? block.time[0] : null,
    block.time ? block.time[1] : null,
    block.strategy,
    block.configHash,
  ];
}

export function toBlock(row: Row): Block {
  return {
    id: row.id,
    docId: row.doc_id,
    ordinal: row.ordinal,
    kind: row.kind,
    text: fromPgText(row.text as string),
    headingPath: (row.heading_path as string[]).map((h) => fromPgText(h)),
    pageStart: row.page_start,
    pageEnd: row.page_end,
    bboxes: row.bboxes === null ? null : fromPgJson(row.bboxes),
    start: row.start,
    end: row.end,
    chars: row.chars,
    tokens: row.tokens,
    table: row.table_rows === null ? null : fromPgJson(row.table_rows),
    speaker: fromPgText(row.speaker as string | null),
    time: row.time_start !== null && row.time_start !== undefined ? [row.time_start, row.time_end] : null,
    strategy: row.strategy,
    configHash: row.config_hash,
  };
}

export function toStoredDocument(row: Row): StoredDocument {
  return {
    id: row.id,
    format: row.format,
    mime: row.mime,
    title: fromPgText(row.title as string | null),
    language: row.language,
    pageCount: row.page_count,
    bytes: row.bytes,
    metadata: fromPgJson(row.metadata),
    warnings: fromPgJson(row.warnings),
    paths: row.path_list ?? [],
    strategy: row.strategy,
    configHash: row.config_hash,
    blocks: row.block_count,
    tables: row.tables,
    images: row.images,
    addedAt: row.added_at,
    original: row.original,
  };
}

import type { Block, StoredDocument } from '../store/types.js';
import type { BlockOutput, Citation, DocumentOutput } from './schemas.js';

/** The URI of a document as an MCP resource. */
export function documentUri(docId: string): string {
  return `groundwork://documents/${docId}`;
}

export function citationOf(
  where: { docId: string; path: string | null; headingPath: readonly string[]; pageStart: number | null; pageEnd: number | null },
  blockId: string,
  title: string | null,
): Citation {
  return {
    file: where.path,
    title,
    docId: where.docId,
    blockId,
    pageStart: where.pageStart,
    pageEnd: where.pageEnd,
    headingPath: [...where.headingPath],
    uri: documentUri(where.docId),
  };
}

/** `contracts/a.docx, p. 3, 第三章 > 3.2 前提条件 (block 1f3a9c0d)`: one line an agent can quote. */
export function citationLine(c: Citation): string {
  const parts = [c.file ?? c.title ?? `document ${c.docId.slice(0, 12)}`];
  const pages = pageLabel(c.pageStart, c.pageEnd);
  if (pages) parts.push(pages);
  if (c.headingPath.length > 0) parts.push(c.headingPath.join(' > '));
  return `${parts.join(', ')} (block ${c.blockId})`;
}

export function pageLabel(start: number | null, end: number | null): string {
  if (start === null) return '';
  return end !== null && end !== start ? `pp. ${start}-${end}` : `p. ${start}`;
}

export function blockOutput(block: Block): BlockOutput {
  return {
    id: block.id, docId: block.docId, ordinal: block.ordinal, kind: block.kind, text: block.text, headingPath: [...block.headingPath],
    pageStart: block.pageStart, pageEnd: block.pageEnd, start: block.start, end: block.end, tokens: block.tokens,
  };
}

export function documentOutput(doc: StoredDocument): DocumentOutput {
  return {
    id: doc.id, title: doc.title, format: doc.format, paths: [...doc.paths], language: doc.language, pageCount: doc.pageCount,
    blocks: doc.blocks, bytes: doc.bytes, addedAt: doc.addedAt, uri: documentUri(doc.id),
  };
}

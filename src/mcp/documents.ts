import { GroundworkError } from '../errors.js';
import type { Library } from '../library/library.js';
import { blockBody } from '../retrieval/clean.js';
import type { Block, StoredDocument } from '../store/types.js';

/** A document by id, unique id prefix or path; NOT_FOUND names what was asked for. */
export async function documentOf(library: Library, ref: string): Promise<StoredDocument> {
  const doc = await library.document(ref);
  if (!doc) throw new GroundworkError('NOT_FOUND', `no document with the id, id prefix or path ${JSON.stringify(ref)} (list_documents lists them)`);
  return doc;
}

/**
 * The text of `blocks` (sorted by start) within the canonical span [from, to): each block adds only
 * what lies past the text so far, cut to the span; a gap between blocks is one newline when it is
 * one character (list items) and a blank line otherwise, as in the canonical text. Blocks whose
 * strategy does not keep the canonical text (qwen) add their whole text on a new line.
 */
export function spanText(blocks: readonly Block[], from = 0, to = Number.POSITIVE_INFINITY): string {
  const parts: string[] = [];
  let end = -1;
  for (const block of blocks) {
    const body = blockBody(block);
    if (body === undefined) {
      parts.push(parts.length > 0 ? `\n${block.text}` : block.text);
      end = Math.max(end, block.end);
      continue;
    }
    const start = Math.max(block.start, from, end);
    const stop = Math.min(block.end, to);
    if (stop <= start) continue;
    if (parts.length > 0 && start > end) parts.push(start - end === 1 ? '\n' : '\n\n');
    parts.push(body.slice(start - block.start, stop - block.start));
    end = stop;
  }
  return parts.join('');
}

/** Blocks in canonical order (start, then end, then ordinal). */
export function byStart(blocks: readonly Block[]): Block[] {
  return [...blocks].sort((a, b) => a.start - b.start || a.end - b.end || a.ordinal - b.ordinal);
}

import { createHash } from 'node:crypto';
import { renderElement, separatorBetween } from './canonical.js';
import type { Document, DocumentDraft, DocumentSource, Element, ElementDraft } from './types.js';

/** sha256 hex of the source bytes: the document id and the library's dedupe key. */
export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Turns a parser's draft into a Document: renders the canonical text and gives every element its
 * span in it. Elements whose rendering is empty (blank paragraphs) are dropped; page furniture is
 * kept with an empty span at its position so it stays visible to callers but never reaches chunks.
 */
export function buildDocument(draft: DocumentDraft, source: DocumentSource & { id: string }): Document {
  const parts: string[] = [];
  const elements: Element[] = [];
  let offset = 0;
  let prev: ElementDraft | undefined;
  for (const draftEl of draft.elements) {
    if (draftEl.kind === 'page-furniture') {
      elements.push({ ...draftEl, index: elements.length, start: offset, end: offset });
      continue;
    }
    const rendered = renderElement(draftEl);
    if (rendered.trim() === '') continue;
    if (prev) {
      const sep = separatorBetween(prev, draftEl);
      parts.push(sep);
      offset += sep.length;
    }
    elements.push({ ...draftEl, index: elements.length, start: offset, end: offset + rendered.length });
    parts.push(rendered);
    offset += rendered.length;
    prev = draftEl;
  }
  const { id, ...rest } = source;
  return {
    id,
    source: rest,
    format: draft.format,
    mime: draft.mime,
    ...(draft.encoding !== undefined && { encoding: draft.encoding }),
    ...(draft.title !== undefined && { title: draft.title }),
    ...(draft.language !== undefined && { language: draft.language }),
    ...(draft.pageCount !== undefined && { pageCount: draft.pageCount }),
    metadata: draft.metadata ?? {},
    elements,
    warnings: draft.warnings ?? [],
    canonical: parts.join(''),
  };
}

/** Heading path of every element: the texts of the headings above it, outermost first. */
export function headingPaths(elements: readonly Element[]): string[][] {
  const stack: { level: number; text: string }[] = [];
  const paths: string[][] = [];
  let current: string[] = [];
  for (const el of elements) {
    if (el.kind === 'heading') {
      const level = el.level ?? 1;
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, text: el.text.replace(/\s+/g, ' ').trim() });
      current = stack.map((h) => h.text);
    }
    // A heading's own path ends with itself: it opens the section it names.
    paths.push(current);
  }
  return paths;
}

import picomatch from 'picomatch';
import { z } from 'zod';
import type { Block } from '../store/types.js';
import { hasPathPrefix } from './outline.js';

/**
 * What a search may be restricted to. Every retriever applies it before ranking (k results are k
 * results of the filter); all given fields must hold, `sections` is any-of. A superset of the
 * store's `SearchFilter` (docId, format, path, pageFrom, pageTo).
 */
const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1)]);

/**
 * A section of a document. With a span (`start`..`end`: the section's text after its heading, in the
 * canonical text), a block is inside when its span overlaps it, so a block that packs several small
 * sections is inside each; without one, when its heading path starts with `headingPath`.
 */
export const SectionScopeSchema = z.object({
  docId: z.string().min(1),
  headingPath: z.array(z.string()),
  start: z.number().int().min(0).optional(),
  end: z.number().int().min(0).optional(),
}).strict();

export const RetrievalFilterSchema = z.object({
  docId: oneOrMany(z.string().min(1)).optional().describe('only these documents (ids)'),
  format: oneOrMany(z.string().min(1)).optional().describe('only documents of these formats, e.g. pdf, docx'),
  path: z.string().min(1).optional().describe("only documents with a path matching this glob, e.g. '**/contracts/*.pdf'"),
  pageFrom: z.number().int().min(1).optional().describe('only blocks ending on or after this page'),
  pageTo: z.number().int().min(1).optional().describe('only blocks starting on or before this page'),
  headingPrefix: z.array(z.string()).min(1).optional().describe('only blocks whose heading path starts with these headings'),
  sections: z.array(SectionScopeSchema).min(1).optional().describe('only blocks inside one of these sections (document and heading path)'),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('only documents whose metadata has these values'),
}).strict().refine((f) => f.pageFrom === undefined || f.pageTo === undefined || f.pageFrom <= f.pageTo, {
  message: 'pageFrom comes after pageTo',
  path: ['pageFrom'],
});

export type RetrievalFilter = z.infer<typeof RetrievalFilterSchema>;
export type SectionScope = z.infer<typeof SectionScopeSchema>;

/** What a filter needs to know about a block's document. */
export interface FilterDocument {
  format: string;
  paths: readonly string[];
  metadata: Record<string, unknown>;
}

export function asList<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * Does a block pass the filter? The reference semantics every store's filter must agree with (the
 * in-memory retriever uses it; store tests can compare with it). Blocks without pages fail a page
 * bound, as in the SQLite store.
 */
export function blockMatches(block: FilterBlock, doc: FilterDocument, filter: RetrievalFilter): boolean {
  return compileFilter(filter)(block, doc);
}

/** What a filter needs to know about a block. */
export type FilterBlock = Pick<Block, 'docId' | 'headingPath' | 'pageStart' | 'pageEnd' | 'start' | 'end'>;

/** Is the block inside the section (by span when the scope has one, else by heading path)? */
export function inSection(block: Pick<Block, 'docId' | 'headingPath' | 'start' | 'end'>, scope: SectionScope): boolean {
  if (scope.docId !== block.docId) return false;
  if (scope.start !== undefined && scope.end !== undefined) return block.start < scope.end && block.end > scope.start;
  return hasPathPrefix(block.headingPath, scope.headingPath);
}

/** `blockMatches` with the globs compiled once. */
export function compileFilter(filter: RetrievalFilter): (block: FilterBlock, doc: FilterDocument) => boolean {
  const docIds = new Set(asList(filter.docId));
  const formats = new Set(asList(filter.format));
  const glob = filter.path !== undefined ? picomatch(filter.path, { dot: true }) : undefined;
  const metadata = Object.entries(filter.metadata ?? {});
  return (block, doc) => {
    if (docIds.size > 0 && !docIds.has(block.docId)) return false;
    if (formats.size > 0 && !formats.has(doc.format)) return false;
    if (glob && !doc.paths.some((p) => glob(p))) return false;
    if (filter.pageFrom !== undefined && (block.pageEnd === null || block.pageEnd < filter.pageFrom)) return false;
    if (filter.pageTo !== undefined && (block.pageStart === null || block.pageStart > filter.pageTo)) return false;
    if (filter.headingPrefix && !hasPathPrefix(block.headingPath, filter.headingPrefix)) return false;
    if (filter.sections && !filter.sections.some((s) => inSection(block, s))) return false;
    for (const [key, want] of metadata) {
      const have = doc.metadata[key];
      if (Array.isArray(have) ? !have.includes(want) : have !== want) return false;
    }
    return true;
  };
}

/**
 * The filter narrowed to `sections` (any of them). Sections the filter already had are intersected:
 * a new section inside one of them stays, one of them inside a new section stays.
 */
export function withinSections(filter: RetrievalFilter, sections: readonly SectionScope[]): RetrievalFilter {
  const scopes = sections.map(scopeOf);
  if (!filter.sections) return { ...filter, sections: dedupeScopes(scopes) };
  const kept: SectionScope[] = [];
  for (const a of filter.sections) {
    for (const b of scopes) {
      if (a.docId !== b.docId) continue;
      if (contains(a, b)) kept.push(b);
      else if (contains(b, a)) kept.push(a);
    }
  }
  // Nothing in common: a filter no block passes (an empty `sections` would fail the schema).
  return { ...filter, sections: kept.length > 0 ? dedupeScopes(kept) : [{ docId: '', headingPath: [] }] };
}

/** A scope from a resolved section: its body span when it has one. */
export function scopeOf(section: SectionScope & { bodyStart?: number }): SectionScope {
  const scope: SectionScope = { docId: section.docId, headingPath: [...section.headingPath] };
  const start = section.bodyStart ?? section.start;
  if (start !== undefined && section.end !== undefined) {
    scope.start = start;
    scope.end = section.end;
  }
  return scope;
}

/** Is `inner` within `outer` (by spans when both have them, else by heading paths)? */
function contains(outer: SectionScope, inner: SectionScope): boolean {
  if (outer.start !== undefined && outer.end !== undefined && inner.start !== undefined && inner.end !== undefined) {
    return outer.start <= inner.start && inner.end <= outer.end;
  }
  return hasPathPrefix(inner.headingPath, outer.headingPath);
}

function dedupeScopes(scopes: SectionScope[]): SectionScope[] {
  const seen = new Set<string>();
  return scopes.filter((s) => {
    const key = JSON.stringify([s.docId, s.headingPath, s.start, s.end]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Retrieval above the store: section references, outlines, fusion, clean results, the search pipeline. */
export { retrieve, type RetrievalSources, type RetrievedHit, type RetrievalResult, type SectionResolution, type RetrievalExplanation, type RetrieverRun } from './pipeline.js';
export { RetrievalOptionsSchema, parseRetrievalOptions, SEARCH_MODES, type SearchMode, type RetrievalOptions, type RetrievalOptionsInput } from './options.js';
export { RetrievalFilterSchema, SectionScopeSchema, blockMatches, compileFilter, withinSections, type RetrievalFilter, type SectionScope, type FilterDocument } from './filter.js';
export type { Candidate, HitScores, Retriever, BlockFetcher, PassageReranker } from './types.js';
export { reciprocalRankFusion, fusionRetriever, rankedScores, RRF_K, type RankedList } from './fusion.js';
export { mergeOverlapping, collapseDuplicates, joinBlocks, blockBody, SPAN_TEXT_STRATEGIES, type Passage, type DuplicateSource } from './clean.js';
export { findSectionReferences, parseReference, REFERENCE_GRAMMAR, ROLE_RANK, type SectionReference, type ReferenceStep, type ReferenceRole, type ReferenceScan } from './references.js';
export { parseHeadingNumbering, type Numbering, type NumberingStyle } from './numbering.js';
export { parseChinese as parseChineseNumeral, parseRoman as parseRomanNumeral } from './numerals.js';
export { outlineFromDocument, outlineFromBlocks, outlineNodes, hasPathPrefix, type Outline, type OutlineNode } from './outline.js';
export { resolveReference, resolveSelector, resolveInOutline, type ResolvedSection, type MatchKind } from './resolve.js';
export { MemoryIndex, type MemoryDocument } from './memory.js';
export { librarySources, type LibraryLike } from './library-source.js';

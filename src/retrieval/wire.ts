import type { Block } from '../store/types.js';
import type { DuplicateSource } from './clean.js';
import type { RetrievalResult, RetrievedHit } from './pipeline.js';

/** A hit as the HTTP API returns it (`POST /v1/search`, schema `Hit` in src/serve/schemas.ts). */
export interface HitJson {
  score: number;
  scores: Record<string, number>;
  docId: string;
  path: string | null;
  text: string;
  snippet: string;
  start: number;
  end: number;
  headingPath: string[];
  pageStart: number | null;
  pageEnd: number | null;
  block: Block;
  blockIds: string[];
  matched: string[];
  duplicates: DuplicateSource[];
  section?: { headingPath: string[]; title: string; label?: string };
}

/** A search result as the HTTP API returns it (the 200 body of `POST /v1/search`). */
export interface RetrievalResultJson {
  hits: HitJson[];
  keywords: string;
  mode: string;
  section: Record<string, unknown> | null;
  explanation?: Record<string, unknown>;
}

/**
 * The JSON form of a search result, defined once: the HTTP route sends it, and a search worker
 * serialises it where the search ran (search-pool.ts), so the server's thread neither copies the
 * result's object graph across threads nor serialises it again.
 */
export function retrievalResultJson(result: RetrievalResult): RetrievalResultJson {
  return {
    hits: result.hits.map(hitJson),
    keywords: result.keywords,
    mode: result.mode,
    section: (result.section ?? null) as Record<string, unknown> | null,
    ...(result.explanation && { explanation: result.explanation as unknown as Record<string, unknown> }),
  };
}

function hitJson(hit: RetrievedHit): HitJson {
  return {
    score: hit.score, scores: hit.scores as Record<string, number>, docId: hit.docId, path: hit.path, text: hit.text, snippet: hit.snippet,
    start: hit.start, end: hit.end, headingPath: hit.headingPath, pageStart: hit.pageStart, pageEnd: hit.pageEnd, block: hit.block,
    blockIds: hit.blockIds, matched: hit.matched, duplicates: hit.duplicates, ...(hit.section && { section: hit.section }),
  };
}

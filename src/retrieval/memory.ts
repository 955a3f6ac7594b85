import type { Chunk } from '../chunkers/types.js';
import type { Document } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { chunksToBlocks } from '../library/blocks.js';
import { analyze, queryTerms, type TermStats } from '../search/analyze.js';
import type { Block } from '../store/types.js';
import { asList, compileFilter, type FilterDocument, type RetrievalFilter } from './filter.js';
import { outlineFromDocument, type Outline } from './outline.js';
import type { BlockFetcher, Candidate, Retriever } from './types.js';

/**
 * Blocks searched in memory with BM25 (k1 1.2, b 0.75) over the same analysis as the library's
 * index (jieba-segmented Chinese, stemmed English, heading path included), filters applied before
 * ranking. For chunks that never go into a library (`parse` + `chunk` in an app) and for tests of
 * everything above the store; it is also a `BlockFetcher`, so it runs the whole pipeline.
 */
export interface MemoryDocument {
  id: string;
  format: string;
  paths: string[];
  metadata: Record<string, unknown>;
  blocks: Block[];
  /** From the parsed document, when it is at hand (else the fetcher builds one from the blocks). */
  outline?: Outline;
}

const K1 = 1.2;
const B = 0.75;

export class MemoryIndex implements BlockFetcher {
  private readonly docs = new Map<string, MemoryDocument>();
  private readonly entries: { block: Block; doc: MemoryDocument; length: number }[] = [];
  private readonly postings = new Map<string, { entry: number; tf: number }[]>();
  private totalLength = 0;

  /** A parsed document and its chunks, as the library would store them. */
  addDocument(doc: Document, chunks: readonly Chunk[], options: { path?: string; configHash?: string } = {}): MemoryDocument {
    const path = options.path ?? doc.source.path ?? doc.source.name;
    return this.add({
      id: doc.id,
      format: doc.format,
      paths: path !== undefined ? [path] : [],
      metadata: doc.metadata,
      blocks: chunksToBlocks(doc, chunks, options.configHash ?? 'memory').filter((b) => b.text.trim() !== ''),
      outline: outlineFromDocument(doc),
    });
  }

  add(doc: MemoryDocument): MemoryDocument {
    if (this.docs.has(doc.id)) throw new GroundworkError('INVALID_OPTIONS', `document ${doc.id} is already in the index`);
    this.docs.set(doc.id, doc);
    for (const block of doc.blocks) {
      const terms = analyze(`${block.headingPath.join(' ')}\n${block.text}`);
      const entry = this.entries.length;
      this.entries.push({ block, doc, length: terms.length });
      this.totalLength += terms.length;
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [term, n] of tf) {
        let list = this.postings.get(term);
        if (!list) this.postings.set(term, (list = []));
        list.push({ entry, tf: n });
      }
    }
    return doc;
  }

  /** The BM25 retriever (`bm25`). */
  retriever(name = 'bm25'): Retriever {
    return { name, search: async (query, k, filter) => this.search(query, k, filter) };
  }

  search(query: string, k: number, filter: RetrievalFilter = {}): Candidate[] {
    const stats: TermStats = { blocks: this.entries.length, df: (t) => this.postings.get(t)?.length ?? 0 };
    const terms = queryTerms(query, stats);
    if (terms.length === 0 || k <= 0) return [];
    const passes = compileFilter(filter);
    const verdict = new Map<number, boolean>();
    const scores = new Map<number, number>();
    const n = this.entries.length;
    const avg = this.totalLength / Math.max(1, n);
    for (const term of terms) {
      const list = this.postings.get(term) ?? [];
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { entry, tf } of list) {
        let ok = verdict.get(entry);
        if (ok === undefined) {
          const e = this.entries[entry]!;
          verdict.set(entry, (ok = passes(e.block, e.doc)));
        }
        if (!ok) continue;
        const length = this.entries[entry]!.length;
        const score = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avg));
        scores.set(entry, (scores.get(entry) ?? 0) + score);
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([entry, score]) => {
        const { block, doc } = this.entries[entry]!;
        return { block, path: doc.paths[0] ?? null, score };
      });
  }

  async blocks(docId: string): Promise<Block[]> {
    return this.docs.get(docId)?.blocks ?? [];
  }

  async outline(docId: string): Promise<Outline | undefined> {
    return this.docs.get(docId)?.outline;
  }

  async documents(filter: RetrievalFilter, limit: number): Promise<string[]> {
    const ids = asList(filter.docId);
    const inSections = filter.sections ? new Set(filter.sections.map((s) => s.docId)) : undefined;
    const docFilter = compileFilter({ ...filter, pageFrom: undefined, pageTo: undefined, headingPrefix: undefined, sections: undefined });
    const out: string[] = [];
    for (const doc of this.docs.values()) {
      if ((ids.length > 0 && !ids.includes(doc.id)) || (inSections && !inSections.has(doc.id))) continue;
      if (!docFilter({ docId: doc.id, headingPath: [], pageStart: null, pageEnd: null, start: 0, end: 0 }, doc as FilterDocument)) continue;
      out.push(doc.id);
      if (out.length >= limit) break;
    }
    return out;
  }

  async documentPath(docId: string): Promise<string | null> {
    return this.docs.get(docId)?.paths[0] ?? null;
  }
}

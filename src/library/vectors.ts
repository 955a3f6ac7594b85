import { contextualize, embedDocuments, type EmbeddingText } from '../embed/documents.js';
import type { Embedder } from '../embed/types.js';
import { GroundworkError } from '../errors.js';
import type { Block, LibraryStore, VectorSpace } from '../store/types.js';

/**
 * Embedding inside the library: which text of a block is embedded (its contextual text, see
 * src/embed/documents.ts), how vectors are found again (text hash + model), and how ingest batches
 * blocks across documents.
 *
 * How vectors relate to the document transaction: a document's blocks land first, in their own
 * transaction (writeDocument); its vectors follow in a later one (putVectors), batched with other
 * documents' and always whole per document. An endpoint that fails leaves those documents stored
 * with no vectors (reported per document with EMBEDDER), never half-embedded; `groundwork embed`
 * (Library.embed) fills every such gap later, resumably: each batch is committed as it goes.
 */

/** What embedding did, in `IngestReport.embedding` and `Library.embed`'s report. */
export interface EmbeddingReport {
  /** The vectors' model (embedder id). */
  model: string;
  /** Blocks given a vector. */
  blocks: number;
  /** New texts embedded and stored. */
  embedded: number;
  /** Blocks whose text already had a vector (re-ingest, re-chunk, identical blocks): nothing sent. */
  reused: number;
  /** Blocks longer than the model's input limit: embedded as windows whose vectors were averaged. */
  split: number;
  windows: number;
  /** Split blocks whose heading/caption context was left out of their windows. */
  contextDropped: number;
  /** Tokens sent to the embedder. */
  tokens: number;
  /** Documents stored without vectors because embedding failed (code EMBEDDER; run `groundwork embed` later). */
  failed: { path: string; code: string; reason: string }[];
}

export function emptyEmbeddingReport(model: string): EmbeddingReport {
  return { model, blocks: 0, embedded: 0, reused: 0, split: 0, windows: 0, contextDropped: 0, tokens: 0, failed: [] };
}

/** The texts of blocks as they are embedded for this embedder (its document prefix included). */
export function blockTexts(embedder: Embedder, blocks: readonly Block[]): EmbeddingText[] {
  const options = embedder.documentPrefix ? { prefix: embedder.documentPrefix } : {};
  return blocks.map((block) => contextualize(block, options));
}

type Write = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * Embeds the blocks whose text has no vector yet (each distinct text once) and links every block
 * to its vector, in one store transaction. Adds to `report`.
 */
export async function embedBlocks(
  store: LibraryStore, write: Write, embedder: Embedder, space: VectorSpace, blocks: readonly Block[], report: EmbeddingReport, signal?: AbortSignal,
): Promise<void> {
  if (blocks.length === 0) return;
  const texts = blockTexts(embedder, blocks);
  const known = await store.knownVectors(space, [...new Set(texts.map((t) => t.hash))]);
  const fresh = new Map<string, EmbeddingText>();
  for (const t of texts) if (!known.has(t.hash) && !fresh.has(t.hash)) fresh.set(t.hash, t);
  const items = [...fresh.values()];
  const { vectors, report: r } = await embedDocuments(embedder, items, signal ? { signal } : {});
  const byHash = new Map(items.map((t, i) => [t.hash, vectors[i]!]));
  // The first block of a new text carries its vector; the others link to it.
  const entries = blocks.map((block, i) => {
    const hash = texts[i]!.hash;
    const vector = byHash.get(hash);
    if (vector) byHash.delete(hash);
    return { blockId: block.id, hash, ...(vector && { vector }) };
  });
  const put = await write(() => store.putVectors(space, entries));
  report.blocks += put.linked;
  report.embedded += put.stored;
  report.reused += blocks.length - items.length;
  report.split += r.split;
  report.windows += r.windows;
  report.contextDropped += r.contextDropped;
  report.tokens += r.tokens;
}

/**
 * Ingest's embedding: documents' blocks are queued as they are written and embedded in batches of
 * about `batchBlocks` blocks across documents (whole documents per batch). `add` waits while a
 * full batch is embedded, so memory stays bounded by the batch. After an endpoint failure the
 * remaining documents are not sent (each reported as failed) so a dead endpoint costs one time-out.
 */
export class IngestEmbedder {
  readonly report: EmbeddingReport;
  private pending: { path: string; blocks: Block[] }[] = [];
  private pendingBlocks = 0;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  constructor(
    private readonly store: LibraryStore,
    private readonly write: Write,
    private readonly embedder: Embedder,
    private readonly space: VectorSpace,
    private readonly batchBlocks = 256,
  ) {
    this.report = emptyEmbeddingReport(space.model);
  }

  /** Queues a written document's blocks; embeds a batch once enough are queued. Never throws. */
  async add(path: string, blocks: readonly Block[]): Promise<void> {
    if (blocks.length === 0) return;
    this.pending.push({ path, blocks: [...blocks] });
    this.pendingBlocks += blocks.length;
    if (this.pendingBlocks >= this.batchBlocks) await this.flush();
  }

  /** Embeds what is queued (after the batches before it). */
  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.pendingBlocks = 0;
    this.chain = this.chain.then(() => this.embedBatch(batch));
    return this.chain;
  }

  private async embedBatch(batch: { path: string; blocks: Block[] }[]): Promise<void> {
    if (batch.length === 0) return;
    if (!this.failure) {
      try {
        await embedBlocks(this.store, this.write, this.embedder, this.space, batch.flatMap((d) => d.blocks), this.report);
        return;
      } catch (error) {
        this.failure = error as Error;
        for (const doc of batch) this.fail(doc.path, `${doc.path}: stored without vectors: ${(error as Error).message}`);
        return;
      }
    }
    for (const doc of batch) this.fail(doc.path, `${doc.path}: stored without vectors (the embedder failed earlier in this run: ${this.failure.message})`);
  }

  private fail(path: string, reason: string): void {
    this.report.failed.push({ path, code: 'EMBEDDER', reason: `${reason}; run groundwork embed to add them` });
  }
}

/** The error for an embedder whose model is not the one the library's vectors come from. */
export function mixedModelsError(stored: string, configured: string): GroundworkError {
  return new GroundworkError(
    'INVALID_OPTIONS',
    `this library's vectors come from ${stored}, but the embedder configured is ${configured}: vectors of two models cannot be searched together. ` +
      `Use the library's model (leave out the --embed-* flags and GROUNDWORK_EMBEDDINGS_* variables that name another), ` +
      `or re-embed the library for the new one: groundwork embed --model <model> [--drop-old]`,
  );
}

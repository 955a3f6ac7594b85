import { createHash } from 'node:crypto';
import { createReadStream, rmSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { copyFile, mkdir, rename, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import type { ChunkOptions } from '../chunk.js';
import { DEFAULT_STRATEGY, getChunker } from '../chunkers/registry.js';
import type { Document } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { getParser } from '../parsers/registry.js';
import type { ParseOptions } from '../parsers/types.js';
import { Highlighter } from '../search/snippet.js';
import { isLibraryStore, openStore } from '../store/registry.js';
import type { Block, BlockWithPath, LibraryStore, SearchFilter, SearchHit, StoreSpec, StoreStats, StoredDocument } from '../store/types.js';
import { chunksToBlocks, configHash } from './blocks.js';
import { TaskPool } from './pool.js';
import { Serial } from './serial.js';
import { documentTree } from './worker.js';
import { walkFiles, type WalkedFile } from './walk.js';

export interface IngestOptions {
  /** Chunking strategy (default: the library's `strategy` setting, else `structure`). */
  strategy?: string;
  /** The strategy's options, e.g. `{ chunkSize: 512 }`. */
  chunkOptions?: Record<string, unknown>;
  tokenizer?: string;
  parseOptions?: ParseOptions;
  /** Keep a copy of each original under `files/` by content hash. Default true. */
  copyFiles?: boolean;
  /** Globs on paths relative to each given folder. */
  include?: string[];
  exclude?: string[];
  /** Files larger than this are rejected with TOO_LARGE. Default 512 MiB. */
  maxFileSize?: number;
  /** Parse and chunk, report what would change, write nothing. */
  dryRun?: boolean;
  /** Worker threads for parsing and chunking. Default: cores - 1 (at least 1, at most 8). */
  workers?: number;
  onProgress?: (progress: IngestProgress) => void;
}

export interface IngestProgress {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  path: string;
}

export interface RejectedFile {
  path: string;
  code: string;
  reason: string;
}

export interface IngestReport {
  docsAdded: number;
  /** Unchanged files and duplicates of stored content. */
  docsSkipped: number;
  /** Files whose content changed (old blocks replaced) or that were re-chunked with a new configuration. */
  docsUpdated: number;
  blocksAdded: number;
  pagesAdded: number;
  tablesAdded: number;
  imagesAdded: number;
  /** How many documents were parsed (the rest came from the parse cache or were skipped). */
  parsed: number;
  rejected: RejectedFile[];
  durationMs: number;
  dryRun: boolean;
}

export interface SearchOptions {
  k?: number;
  filter?: SearchFilter;
}

export interface LibraryOpenOptions {
  /**
   * Where the documents and blocks are kept: a store spec (`{ kind: 'sqlite', file }`, see
   * `openStore`) or an open store, which the Library then owns (its `close()` closes it). Default:
   * SQLite in `DIR/library.sqlite`.
   */
  store?: StoreSpec | LibraryStore;
  /**
   * Shorthand for `store: { kind: 'postgres', url }`: the library in a PostgreSQL database
   * (schema `groundwork`; name another with `store`). Ignored when `store` is given.
   */
  postgres?: string;
  /** Hears the blocks done of the total while an upgrade re-indexes every block. */
  onIndexRebuild?: (done: number, total: number) => void;
}

export const DEFAULT_MAX_FILE_SIZE = 512 * 1024 * 1024;

/** How a document's `original` names an original the store holds (see StoredDocument.original). */
const STORE_ORIGINAL = 'store:';

/** Where a library lives when none is named: $GROUNDWORK_HOME, else ./.groundwork. */
export function defaultLibraryDir(): string {
  return resolve(process.env.GROUNDWORK_HOME ?? '.groundwork');
}

/**
 * The library: documents and blocks in a store, originals under `files/`. It orchestrates only:
 * detection, parsing and chunking run in worker threads; every document is written in one
 * transaction, so an interrupted ingest leaves each document fully stored or absent.
 */
export class Library {
  /** Present when the store takes one writer at a time: every write of this Library waits its turn. */
  private readonly writes: Serial | undefined;

  private constructor(
    readonly dir: string,
    private readonly store: LibraryStore,
  ) {
    this.writes = store.capabilities.concurrentWriters ? undefined : new Serial();
  }

  /**
   * Opens (or creates) the library in `dir`, its originals under `dir/files`, its documents and
   * blocks in `options.store` (default: SQLite in `dir/library.sqlite`). A library written by an
   * older Groundwork is upgraded on open; where that re-indexes every block, `onIndexRebuild`
   * hears the blocks done of the total.
   */
  static async open(dir: string = defaultLibraryDir(), options: LibraryOpenOptions = {}): Promise<Library> {
    const abs = resolve(dir);
    const given = options.store ?? (options.postgres !== undefined ? { kind: 'postgres', url: options.postgres } : { kind: 'sqlite', file: join(abs, 'library.sqlite') });
    // The folder holds the SQLite file and kept originals; a store that keeps originals itself
    // (a server database) needs none.
    const keepsOriginals = isLibraryStore(given) ? typeof given.putOriginal === 'function' : given.kind !== 'sqlite';
    if (!keepsOriginals) {
      await mkdir(join(abs, 'files'), { recursive: true }).catch((cause: Error) => {
        throw new GroundworkError('IO', `cannot create the library folder: ${cause.message}`, { file: abs, cause });
      });
    }
    const store = isLibraryStore(given) ? given : await openStore(given, options.onIndexRebuild ? { onIndexRebuild: options.onIndexRebuild } : {});
    return new Library(abs, store);
  }

  /** Where the documents and blocks live, for messages (a file, or a server without credentials). */
  get location(): string {
    return this.store.location;
  }

  /** The kind of store the library is in (`sqlite`, `postgres`), undefined for one without a spec. */
  get storeKind(): string | undefined {
    return this.store.spec?.kind;
  }

  /** A write to the store, taking its turn where the store takes one writer at a time. */
  private write<T>(task: () => Promise<T>): Promise<T> {
    return this.writes ? this.writes.run(task) : task();
  }

  async settings(): Promise<{ strategy: string; tokenizer: string }> {
    const [strategy, tokenizer] = await Promise.all([this.store.getSetting('strategy'), this.store.getSetting('tokenizer')]);
    return { strategy: strategy ?? DEFAULT_STRATEGY, tokenizer: tokenizer ?? 'cl100k_base' };
  }

  async setSetting(key: 'strategy' | 'tokenizer', value: string): Promise<void> {
    if (key === 'strategy') getChunker(value);
    await this.write(() => this.store.setSetting(key, value));
  }

  async addFiles(paths: string | string[], options: IngestOptions = {}): Promise<IngestReport> {
    const started = performance.now();
    const roots = Array.isArray(paths) ? paths : [paths];
    const settings = await this.settings();
    const strategy = options.strategy ?? settings.strategy;
    const tokenizer = options.tokenizer ?? settings.tokenizer;
    const chunker = getChunker(strategy);
    const resolved = chunker.resolveOptions({ ...(options.chunkOptions ?? {}) }) as Record<string, unknown>;
    const hash = configHash({ strategy, options: resolved, tokenizer });
    const chunkOptions: ChunkOptions = { ...(options.chunkOptions ?? {}), strategy, tokenizer: tokenizer as ChunkOptions['tokenizer'] };
    const parseOptions = options.parseOptions ?? {};
    const parseOptionsHash = createHash('sha256').update(JSON.stringify(parseOptions)).digest('hex').slice(0, 16);
    const maxFileSize = options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
    const report: IngestReport = {
      docsAdded: 0, docsSkipped: 0, docsUpdated: 0, blocksAdded: 0, pagesAdded: 0, tablesAdded: 0, imagesAdded: 0,
      parsed: 0, rejected: [], durationMs: 0, dryRun: options.dryRun ?? false,
    };
    const walkOptions = { skipDirs: [this.dir], ...(options.include && { include: options.include }), ...(options.exclude && { exclude: options.exclude }) };

    // Totals for the progress bar come from a stat-only pre-walk (cheap next to parsing).
    const progress: IngestProgress = { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0, path: '' };
    if (options.onProgress) {
      for await (const f of walkFiles(roots, walkOptions)) {
        progress.filesTotal++;
        if ('size' in f) progress.bytesTotal += f.size;
      }
    }
    const tick = (path: string, bytes: number) => {
      progress.filesDone++;
      progress.bytesDone += bytes;
      progress.path = path;
      options.onProgress?.({ ...progress });
    };

    // One core stays with this thread, which hashes files and writes every document; on 2 cores one
    // worker ingests about as fast as two and keeps peak memory well lower (bench/library.ts).
    const pool = new TaskPool(options.workers ?? Math.max(1, Math.min(availableParallelism() - 1, 8)));
    const inFlight = new Set<Promise<void>>();
    let nextId = 0;
    const seen = new Set<string>();
    try {
      for await (const entry of walkFiles(roots, walkOptions)) {
        if ('error' in entry) {
          report.rejected.push({ path: entry.path, code: 'IO', reason: `${entry.path}: ${entry.error.message}` });
          tick(entry.path, 0);
          continue;
        }
        const job = this.ingestOne(entry, { pool, id: nextId++, hash, strategy, chunkOptions, parseOptions, parseOptionsHash, maxFileSize, copy: options.copyFiles ?? true, dryRun: report.dryRun, seen }, report)
          .catch((error: unknown) => {
            const e = error as GroundworkError;
            report.rejected.push({ path: entry.path, code: e.code ?? 'IO', reason: e.message });
          })
          .finally(() => {
            inFlight.delete(job);
            tick(entry.path, entry.size);
          });
        inFlight.add(job);
        // Bounded: never more files in flight than workers (plus one being hashed).
        if (inFlight.size > Math.max(1, pool.size)) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
    } finally {
      await pool.close();
    }
    report.durationMs = Math.round(performance.now() - started);
    return report;
  }

  private async ingestOne(
    file: WalkedFile,
    ctx: {
      pool: TaskPool; id: number; hash: string; strategy: string; chunkOptions: ChunkOptions; parseOptions: ParseOptions;
      parseOptionsHash: string; maxFileSize: number; copy: boolean; dryRun: boolean; seen: Set<string>;
    },
    report: IngestReport,
  ): Promise<void> {
    if (file.size > ctx.maxFileSize) {
      report.rejected.push({ path: file.path, code: 'TOO_LARGE', reason: `${file.path}: ${file.size} bytes exceeds the limit of ${ctx.maxFileSize} bytes (maxFileSize)` });
      return;
    }
    const known = await this.store.pathRecord(file.path);
    const knownDoc = known ? await this.store.documentInfo(known.docId) : undefined;
    // Unchanged file (same size and mtime) already chunked this way: nothing to read or parse.
    if (known && knownDoc && known.size === file.size && known.mtimeMs === file.mtimeMs && knownDoc.configHash === ctx.hash) {
      report.docsSkipped++;
      return;
    }
    const docId = await hashFile(file.path);
    // The same bytes under another name may be in flight right now: let that one finish first.
    const twin = this.inFlightContent.get(docId);
    if (twin) await twin;
    let done!: () => void;
    this.inFlightContent.set(docId, new Promise<void>((r) => (done = r)));
    try {
      await this.storeContent(file, docId, known, ctx, report);
    } finally {
      this.inFlightContent.delete(docId);
      done();
    }
  }

  private readonly inFlightContent = new Map<string, Promise<void>>();

  private async storeContent(
    file: WalkedFile,
    docId: string,
    known: { docId: string } | undefined,
    ctx: {
      pool: TaskPool; id: number; hash: string; strategy: string; chunkOptions: ChunkOptions; parseOptions: ParseOptions;
      parseOptionsHash: string; copy: boolean; dryRun: boolean; seen: Set<string>;
    },
    report: IngestReport,
  ): Promise<void> {
    const stored = await this.store.documentInfo(docId);
    // A dry run writes nothing, so it remembers this run's contents itself to count duplicates.
    if (ctx.dryRun) {
      if (ctx.seen.has(docId)) {
        report.docsSkipped++;
        return;
      }
      ctx.seen.add(docId);
    }
    const pathRecord = { path: file.path, docId, size: file.size, mtimeMs: file.mtimeMs };
    if (stored && stored.configHash === ctx.hash) {
      // Same bytes already stored (a duplicate, a touched file, or a rename): record the path only.
      if (!ctx.dryRun) await this.write(() => this.store.recordPath(pathRecord));
      if (known && known.docId !== docId) report.docsUpdated++;
      else report.docsSkipped++;
      return;
    }
    const cacheKey = createHash('sha256').update(`${docId}:${ctx.parseOptionsHash}`).digest('hex');
    const cached = await this.cachedDocument(cacheKey);
    const result = await ctx.pool.run({
      id: ctx.id,
      path: file.path,
      ...(cached && { cached }),
      parseOptions: ctx.parseOptions,
      chunkOptions: ctx.chunkOptions,
    });
    if (!result.ok) {
      report.rejected.push({ path: file.path, code: result.code, reason: result.reason });
      return;
    }
    if (result.parsed) report.parsed++;
    const isUpdate = Boolean(stored) || (known !== undefined && known.docId !== docId);
    // Attachments and archive entries are documents of their own, at `<path>#<name>`.
    const tree = documentTree(result.document);
    for (let i = 0; i < tree.length; i++) {
      const doc = tree[i]!;
      const isRoot = i === 0;
      if (!isRoot && (await this.store.documentInfo(doc.id))?.configHash === ctx.hash) {
        const record = { path: doc.source.name ?? `${file.path}#${i}`, docId: doc.id, size: doc.source.bytes, mtimeMs: file.mtimeMs };
        if (!ctx.dryRun) await this.write(() => this.store.recordPath(record));
        continue;
      }
      const blocks = chunksToBlocks(doc, result.chunks[i] ?? [], ctx.hash);
      if (!ctx.dryRun) {
        const original = isRoot && ctx.copy ? await this.keepOriginal(file.path, docId) : null;
        await this.write(() => this.store.writeDocument({
          // The parse cache keeps the whole tree under the root's key; each stored row keeps only itself.
          document: isRoot ? doc : { ...doc, children: [] },
          blocks,
          indexTexts: result.indexTexts[i] ?? [],
          path: isRoot ? pathRecord : { path: doc.source.name ?? `${file.path}#${i}`, docId: doc.id, size: doc.source.bytes, mtimeMs: file.mtimeMs },
          strategy: ctx.strategy,
          configHash: ctx.hash,
          original,
          parseCacheKey: isRoot ? cacheKey : null,
        }));
      }
      if (isRoot && isUpdate) report.docsUpdated++;
      else report.docsAdded++;
      report.blocksAdded += blocks.length;
      report.pagesAdded += doc.pageCount ?? 0;
      for (const el of doc.elements) {
        if (el.kind === 'table') report.tablesAdded++;
        else if (el.kind === 'image') report.imagesAdded++;
      }
    }
  }

  /** A cached parse is valid only while the parser that made it is at the same version. */
  private async cachedDocument(key: string): Promise<Document | undefined> {
    const doc = await this.store.cachedParse(key);
    if (!doc) return undefined;
    return getParser(doc.format)?.version === doc.parserVersion ? doc : undefined;
  }

  /**
   * Keeps the original: in the store when it holds originals (a server database), else copied to
   * files/<aa>/<hash> (written to a temp name, then renamed: never half a file).
   */
  private async keepOriginal(path: string, docId: string): Promise<string> {
    if (this.store.putOriginal) return this.store.putOriginal(docId, path);
    const rel = join('files', docId.slice(0, 2), docId);
    const target = join(this.dir, rel);
    const exists = await stat(target).then(() => true, () => false);
    if (!exists) {
      await mkdir(join(this.dir, 'files', docId.slice(0, 2)), { recursive: true }).catch((cause: Error) => {
        throw new GroundworkError('IO', `cannot create the library's files folder: ${cause.message}`, { file: this.dir, cause });
      });
      const tmp = `${target}.${process.pid}.tmp`;
      await copyFile(path, tmp);
      await rename(tmp, target);
    }
    return rel;
  }

  /** BM25 over the blocks, best first, each hit with a highlighted snippet of its block. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const candidates = await this.store.searchText(query, options.k ?? 10, options.filter);
    if (candidates.length === 0) return [];
    const highlighter = new Highlighter(query);
    return candidates.map(({ block, path, score }) => ({ score, docId: block.docId, path, block, snippet: highlighter.snippet(block.text) }));
  }

  documents(): Promise<StoredDocument[]> {
    return this.store.listDocuments();
  }

  /** A document by id, id prefix, or one of its paths. */
  async document(idOrPath: string): Promise<StoredDocument | undefined> {
    return (await this.store.getDocument(idOrPath)) ?? (await this.store.getDocument(resolve(idOrPath)));
  }

  blocks(docId: string): Promise<Block[]> {
    return this.store.blocksOf(docId);
  }

  /** Every block with its document's first path, document by document in block order, in pages. */
  allBlocks(): AsyncIterable<BlockWithPath> {
    return this.store.iterateBlocks();
  }

  /** Removes a document, its blocks, its search rows and its kept original. */
  async remove(idOrPath: string): Promise<StoredDocument | undefined> {
    const doc = await this.document(idOrPath);
    if (doc) {
      // The store removes an original it holds with the document; a copy in the folder goes here.
      await this.write(() => this.store.removeDocument(doc.id));
      if (doc.original && !doc.original.startsWith(STORE_ORIGINAL)) rmSync(resolve(this.dir, doc.original), { force: true });
    }
    return doc;
  }

  /**
   * The kept original of a document (id, id prefix or path) as a stream of its bytes: from the
   * store when it holds it, else from the library folder. NOT_FOUND when none was kept
   * (ingested with `copyFiles: false`) or the document is unknown.
   */
  async openOriginal(idOrPath: string): Promise<Readable> {
    const doc = await this.document(idOrPath);
    if (!doc) throw new GroundworkError('NOT_FOUND', 'no document with this id, id prefix or path', { file: idOrPath });
    if (!doc.original) throw new GroundworkError('NOT_FOUND', 'no original was kept for this document (ingested without copying)', { file: idOrPath });
    if (doc.original.startsWith(STORE_ORIGINAL)) {
      const stream = await this.store.openOriginal?.(doc.id);
      if (!stream) throw new GroundworkError('NOT_FOUND', `the store ${this.store.location} holds no original for this document`, { file: idOrPath });
      return stream;
    }
    const file = resolve(this.dir, doc.original);
    await stat(file).catch((cause: Error) => {
      throw new GroundworkError('NOT_FOUND', `the kept original is missing: ${cause.message}`, { file, cause });
    });
    return createReadStream(file);
  }

  async stats(): Promise<StoreStats & { dir: string; location: string; strategy: string; tokenizer: string }> {
    const [settings, stats] = await Promise.all([this.settings(), this.store.stats()]);
    return { dir: this.dir, location: this.store.location, ...settings, ...stats };
  }

  /** Closes the store once the writes already started are done. */
  async close(): Promise<void> {
    await this.writes?.run(async () => undefined);
    await this.store.close();
  }
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

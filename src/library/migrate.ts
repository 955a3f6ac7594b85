import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GroundworkError } from '../errors.js';
import { isLibraryStore, openStore } from '../store/registry.js';
import type { DocumentDump, LibraryStore, StoreSpec, StoreStats, VectorQuantization } from '../store/types.js';

export interface MigrateOptions {
  /**
   * Documents written at once (each in its own transaction) when the target takes concurrent
   * writers. Default 1: one at a time keeps the source's storage order, so blocks of equal score
   * come back in the same order from both stores (both break ties by rowid). More is faster (about
   * 1.2x at 4 on two cores) but equal-score ties may then come back in another order.
   */
  concurrency?: number;
  /** After each document, and each page of vectors: documents, blocks and vector links copied so far of the totals. */
  onProgress?: (progress: MigrateProgress) => void;
}

export interface MigrateProgress {
  documents: number;
  documentsTotal: number;
  blocks: number;
  blocksTotal: number;
  /** Blocks linked to a vector so far, of every model's linked blocks. */
  vectorBlocks: number;
  vectorBlocksTotal: number;
}

/** One model's vectors as copied (`MigrateReport.vectors`). */
export interface MigratedVectors {
  model: string;
  dimensions: number;
  quantization: VectorQuantization;
  /** Distinct vectors copied (identical texts share one). */
  vectors: number;
  /** Blocks linked to them. */
  blocks: number;
}

export interface MigrateReport {
  documents: number;
  blocks: number;
  paths: number;
  parseCacheEntries: number;
  settings: number;
  /** Every vector model slot copied, with its quantization setting. */
  vectors: MigratedVectors[];
  /** Originals copied into the target store. */
  originals: number;
  /** Originals the source names but whose file is gone (the document is copied without one). */
  originalsMissing: string[];
  /** Where the library was copied to (no credentials). */
  location: string;
  source: StoreStats;
  target: StoreStats;
  durationMs: number;
}

/**
 * Copies the SQLite library in folder `fromDir` (library.sqlite and its files/) into `to` (a store
 * spec, e.g. `{ kind: 'postgres', url }`, or an open store, which is closed at the end): every
 * setting, then every document with its paths, blocks, parse cache and kept original, each
 * document in one transaction of the target (several at once where it takes concurrent writers),
 * then every vector model's vectors and block links (a page per transaction) and its
 * quantization. Re-running it copies again and replaces what is there. At the end the target must
 * hold every copied document with the same blocks and paths, and every model's vectors linked to
 * as many blocks with the same quantization, else IO with what differs.
 */
export async function migrateLibrary(fromDir: string, to: StoreSpec | LibraryStore, options: MigrateOptions = {}): Promise<MigrateReport> {
  const started = performance.now();
  const dir = resolve(fromDir);
  const file = join(dir, 'library.sqlite');
  if (!existsSync(file)) throw new GroundworkError('NOT_FOUND', `no library here (no library.sqlite) to migrate from`, { file: dir });
  const source = await openStore({ kind: 'sqlite', file });
  let target: LibraryStore | undefined;
  try {
    target = isLibraryStore(to) ? to : await openStore(to);
    if (!source.dumpDocuments || !source.listSettings) throw new GroundworkError('UNSUPPORTED', `the store ${source.location} cannot be migrated from`);
    if (!target.importDocument) throw new GroundworkError('UNSUPPORTED', `the store ${target.location} cannot be migrated to (no importDocument)`);
    const sourceStats = await source.stats();
    const sourceVectors = (await source.vectorStats()).filter((m) => m.blocks > 0 || m.vectors > 0);
    if (sourceVectors.length > 0 && !source.dumpVectors) throw new GroundworkError('UNSUPPORTED', `the store ${source.location} cannot give its vectors to be migrated`);
    const report: MigrateReport = {
      documents: 0, blocks: 0, paths: 0, parseCacheEntries: 0, settings: 0, vectors: [], originals: 0, originalsMissing: [],
      location: target.location, source: sourceStats, target: sourceStats, durationMs: 0,
    };
    const vectorBlocksTotal = sourceVectors.reduce((n, m) => n + m.blocks, 0);
    let vectorBlocks = 0;
    const progress = () => options.onProgress?.({ documents: report.documents, documentsTotal: sourceStats.documents, blocks: report.blocks, blocksTotal: sourceStats.blocks, vectorBlocks, vectorBlocksTotal });
    const settings = await source.listSettings();
    // The analyzer version belongs to the target's own index, which it builds itself.
    for (const [key, value] of Object.entries(settings)) {
      if (key.startsWith('index.')) continue;
      await target.setSetting(key, value);
      report.settings++;
    }

    const into = target;
    const copy = async (dump: DocumentDump) => {
      let original = dump.document.original;
      if (original !== null && into.putOriginal) {
        const path = resolve(dir, original);
        if (existsSync(path)) {
          original = await into.putOriginal(dump.document.id, path);
          report.originals++;
        } else {
          report.originalsMissing.push(path);
          original = null;
        }
      }
      await into.importDocument!({ ...dump, document: { ...dump.document, original } });
      report.documents++;
      report.blocks += dump.blocks.length;
      report.paths += dump.paths.length;
      report.parseCacheEntries += dump.parseCache.length;
      progress();
    };
    const limit = into.capabilities.concurrentWriters ? Math.max(1, options.concurrency ?? 1) : 1;
    const inFlight = new Set<Promise<void>>();
    const expected = new Map<string, { blocks: number; paths: string[] }>();
    for await (const dump of source.dumpDocuments()) {
      expected.set(dump.document.id, { blocks: dump.blocks.length, paths: dump.paths.map((p) => p.path) });
      const job: Promise<void> = copy(dump).finally(() => inFlight.delete(job));
      inFlight.add(job);
      if (inFlight.size >= limit) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);

    // Vectors: each model's links in pages (one transaction each), then its quantization, so a
    // quantized index is built once over all of them.
    for (const model of sourceVectors) {
      const space = { model: model.model, dimensions: model.dimensions };
      const copied: MigratedVectors = { model: model.model, dimensions: model.dimensions, quantization: model.quantization, vectors: 0, blocks: 0 };
      for await (const page of source.dumpVectors!(space)) {
        await into.putVectors(space, page);
        copied.vectors += page.filter((e) => e.vector).length;
        copied.blocks += page.length;
        vectorBlocks += page.length;
        progress();
      }
      await into.setQuantization(space, model.quantization);
      report.vectors.push(copied);
    }

    // The check: every copied document is there with its blocks and paths.
    const stored = new Map((await target.listDocuments()).map((d) => [d.id, d]));
    const wrong: string[] = [];
    for (const [id, want] of expected) {
      const got = stored.get(id);
      if (!got) wrong.push(`${id.slice(0, 12)} is missing`);
      else if (got.blocks !== want.blocks) wrong.push(`${id.slice(0, 12)} has ${got.blocks} blocks, not ${want.blocks}`);
      else if (want.paths.some((p) => !got.paths.includes(p))) wrong.push(`${id.slice(0, 12)} lacks a path`);
    }
    // Every model's vectors are linked to as many blocks as in the source, with its quantization.
    const targetVectors = new Map((await target.vectorStats()).map((m) => [m.model, m]));
    for (const copied of report.vectors) {
      const got = targetVectors.get(copied.model);
      const want = sourceVectors.find((m) => m.model === copied.model)!;
      if (!got) wrong.push(`the vectors of ${copied.model} are missing`);
      else if (got.blocks !== want.blocks || copied.blocks !== want.blocks) wrong.push(`${copied.model} has vectors for ${got.blocks} blocks, not ${want.blocks}`);
      else if (got.vectors < copied.vectors) wrong.push(`${copied.model} has ${got.vectors} vectors, not ${copied.vectors}`);
      else if (got.quantization !== want.quantization) wrong.push(`${copied.model} is quantized ${got.quantization}, not ${want.quantization}`);
    }
    report.target = await target.stats();
    if (wrong.length > 0 || report.documents !== sourceStats.documents || report.blocks !== sourceStats.blocks) {
      throw new GroundworkError(
        'IO',
        `the migration's check failed: copied ${report.documents} of ${sourceStats.documents} documents, ${report.blocks} of ${sourceStats.blocks} blocks; ${wrong.slice(0, 5).join('; ')}`,
        { file: target.location },
      );
    }
    report.durationMs = Math.round(performance.now() - started);
    return report;
  } finally {
    await source.close();
    await target?.close();
  }
}

import { opendir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { getChunker } from '../chunkers/registry.js';
import { finding, FRESH_UNREFERENCED_MS, type CheckFinding, type CheckReport, type CheckRepair, type CheckScope, type ResolvedCheckOptions } from '../store/check.js';
import type { LibraryStore, StoredDocument } from '../store/types.js';
import { getTokenizer } from '../tokens/index.js';
import type { TokenizerName } from '../tokens/types.js';
import { commitOriginal, copyVerified, hashFile, hashStream, isOriginalName, originalPath, processAlive, STORE_ORIGINAL, tempCopyOf, type StagedOriginal } from './originals.js';

/** A part of a check report (src/store/check.ts `mergeReports` makes the whole). */
type Part = Omit<CheckReport, 'ok' | 'repair' | 'full'>;

/** A temporary copy older than this is stale whatever its process id says (ids are reused). */
const STALE_TEMP_MS = 24 * 3600 * 1000;
/** A file no document keeps, younger than this, is left by repair (src/store/check.ts). */
export { FRESH_UNREFERENCED_MS };

interface Damaged {
  doc: StoredDocument;
  problem: 'missing' | 'size' | 'hash';
}

interface FilesState {
  checked: CheckScope[];
  found: CheckFinding[];
  damaged: Damaged[];
  /** Files under their final name that no document keeps: absolute path, last change. */
  unreferenced: { path: string; mtimeMs: number }[];
  /** Temporary copies of processes no longer running: absolute path and the hash in the name. */
  staleTemps: { path: string; hash: string }[];
}

/**
 * The kept originals (the Library's own files): every document's original present under its
 * final name, its size the document's, its sha256 its name (every file read in full); copies no
 * document keeps and temporary copies of dead processes are leftovers. With `repair`: a missing or
 * damaged original is restored from a temporary copy with the right bytes or from one of the
 * document's paths whose file still has them, else the document's `original` is cleared (it stays
 * searchable; the copy is gone); leftovers are deleted.
 */
export async function checkFiles(dir: string, store: LibraryStore, options: ResolvedCheckOptions): Promise<Part> {
  const started = performance.now();
  const first = await inspectFiles(dir, store);
  let repairs: CheckRepair[] = [];
  let remaining = first.found;
  if (options.repair && first.found.some((f) => f.repairable)) {
    repairs = await repairFiles(dir, store, first);
    remaining = (await inspectFiles(dir, store)).found;
  }
  return { checked: first.checked, found: first.found, repairs, remaining, durationMs: Math.round(performance.now() - started) };
}

async function inspectFiles(dir: string, store: LibraryStore): Promise<FilesState> {
  const docs = await store.listDocuments();
  const kept = docs.filter((d) => d.original !== null);
  const { finals, temps } = await listFiles(join(dir, 'files'));
  const now = Date.now();
  const live = (t: ListedTemp) => processAlive(t.pid) && now - t.mtimeMs < STALE_TEMP_MS;
  const staleTemps = temps.filter((t) => !live(t)).map((t) => ({ path: t.path, hash: t.hash }));

  const damaged: Damaged[] = [];
  let bytes = 0;
  for (const doc of kept) {
    if (doc.original!.startsWith(STORE_ORIGINAL)) {
      // Kept by the store itself (a server database): read back through it, not from files/.
      const held = await storeOriginal(store, doc.id);
      if (!held) damaged.push({ doc, problem: 'missing' });
      else if (held.bytes !== doc.bytes) damaged.push({ doc, problem: 'size' });
      else if (held.hash !== doc.id) damaged.push({ doc, problem: 'hash' });
      if (held) bytes += held.bytes;
      continue;
    }
    // Relative to the library folder (files/<aa>/<hash>), or absolute (a folder the user named).
    const path = resolve(dir, doc.original!);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) {
      // Never in flight: an ingest puts the copy in place before it commits the document.
      damaged.push({ doc, problem: 'missing' });
      continue;
    }
    if (info.size !== doc.bytes) {
      damaged.push({ doc, problem: 'size' });
      continue;
    }
    const { hash } = await hashFile(path);
    bytes += info.size;
    if (hash !== doc.id) damaged.push({ doc, problem: 'hash' });
  }
  const keptNames = new Set(kept.filter((d) => !d.original!.startsWith(STORE_ORIGINAL)).map((d) => d.id));
  const unreferenced = finals.filter((f) => !keptNames.has(f.hash)).map((f) => ({ path: f.path, mtimeMs: f.mtimeMs }));

  const checked: CheckScope[] = [
    { check: 'original-missing', what: "every document's kept original is where it says (files/, the store)", scope: 'full', items: kept.length },
    { check: 'original-size', what: "each original's size is its document's", scope: 'full', items: kept.length },
    { check: 'original-hash', what: `each original's sha256 is its name (${Math.round(bytes / 1024)} KiB read)`, scope: 'full', items: kept.length },
    { check: 'original-unreferenced', what: 'every file under files/ is some document\'s original', scope: 'full', items: finals.length },
    { check: 'temp-files', what: 'temporary copies belong to running processes', scope: 'full', items: temps.length },
  ];
  const found: CheckFinding[] = [];
  const describe = (d: Damaged) => `${d.doc.id.slice(0, 12)} (${d.doc.paths[0] ?? d.doc.title ?? d.doc.format})`;
  const missing = damaged.filter((d) => d.problem === 'missing');
  const size = damaged.filter((d) => d.problem === 'size');
  const hash = damaged.filter((d) => d.problem === 'hash');
  if (missing.length > 0) found.push(finding('original-missing', 'error', `${missing.length} document(s) refer to a kept original that is not there`, missing.length, missing.map(describe)));
  if (size.length > 0) found.push(finding('original-size', 'error', `${size.length} kept original(s) do not have their document's size (truncated?)`, size.length, size.map(describe)));
  if (hash.length > 0) found.push(finding('original-hash', 'error', `${hash.length} kept original(s) do not hash to their name (changed on disk)`, hash.length, hash.map(describe)));
  if (unreferenced.length > 0) found.push(finding('original-unreferenced', 'leftover', `${unreferenced.length} file(s) under files/ are no document's original`, unreferenced.length, unreferenced.map((f) => f.path.slice(dir.length + 1))));
  if (staleTemps.length > 0) found.push(finding('temp-files', 'leftover', `${staleTemps.length} temporary cop(ies) of processes no longer running`, staleTemps.length, staleTemps.map((t) => t.path.slice(dir.length + 1))));
  return { checked, found, damaged, unreferenced, staleTemps };
}

interface ListedTemp {
  path: string;
  hash: string;
  pid: number;
  mtimeMs: number;
}

/** The files of `files/<aa>/`: originals under their final names, and temporary copies. */
async function listFiles(root: string): Promise<{ finals: { path: string; hash: string; mtimeMs: number }[]; temps: ListedTemp[] }> {
  const finals: { path: string; hash: string; mtimeMs: number }[] = [];
  const temps: ListedTemp[] = [];
  const folders = await opendir(root).catch(() => undefined);
  if (!folders) return { finals, temps };
  for await (const folder of folders) {
    if (!folder.isDirectory()) continue;
    for await (const entry of await opendir(join(root, folder.name))) {
      if (!entry.isFile()) continue;
      const path = join(root, folder.name, entry.name);
      const temp = tempCopyOf(entry.name);
      if (!temp && !isOriginalName(entry.name)) continue;
      const info = await stat(path).catch(() => undefined);
      if (!info) continue;
      if (temp) temps.push({ path, ...temp, mtimeMs: info.mtimeMs });
      else finals.push({ path, hash: entry.name, mtimeMs: info.mtimeMs });
    }
  }
  return { finals, temps };
}

async function repairFiles(dir: string, store: LibraryStore, state: FilesState): Promise<CheckRepair[]> {
  const repairs: CheckRepair[] = [];
  const usedTemps = new Set<string>();
  let fromTemp = 0;
  let fromSource = 0;
  const cleared: string[] = [];
  for (const { doc, problem } of state.damaged) {
    if (doc.original!.startsWith(STORE_ORIGINAL)) {
      // Put back into the store from one of the document's files with these bytes (only when it
      // is missing: the store replaces nothing it holds), else cleared.
      let source: string | undefined;
      for (const path of problem === 'missing' && store.putOriginal ? doc.paths.filter((p) => !p.includes('#')) : []) {
        if ((await hashFile(path).catch(() => undefined))?.hash === doc.id) {
          source = path;
          break;
        }
      }
      if (source) {
        const original = await store.putOriginal!(doc.id, source);
        if (original !== doc.original) await store.setOriginal(doc.id, original);
        fromSource++;
      } else {
        await store.setOriginal(doc.id, null);
        cleared.push(`${doc.id.slice(0, 12)} (${doc.paths[0] ?? doc.format})`);
      }
      continue;
    }
    const rel = originalPath(doc.id);
    const target = join(dir, rel);
    let staged: StagedOriginal | null = null;
    // A copy a killed ingest left between its commit and its rename, if its bytes are right.
    for (const temp of state.staleTemps) {
      if (temp.hash === doc.id && !usedTemps.has(temp.path) && (await hashFile(temp.path).catch(() => undefined))?.hash === doc.id) {
        staged = { rel, target, tmp: temp.path };
        usedTemps.add(temp.path);
        fromTemp++;
        break;
      }
    }
    // Else one of the document's files, if it still has these bytes.
    for (const path of staged ? [] : doc.paths.filter((p) => !p.includes('#'))) {
      staged = await copyVerified(dir, path, doc.id);
      if (staged) {
        fromSource++;
        break;
      }
    }
    if (staged) {
      await commitOriginal(staged);
      if (doc.original !== rel) await store.setOriginal(doc.id, rel);
    } else {
      await rm(target, { force: true });
      await store.setOriginal(doc.id, null);
      cleared.push(`${doc.id.slice(0, 12)} (${doc.paths[0] ?? doc.format})`);
    }
  }
  const restored = fromTemp + fromSource;
  if (restored > 0) {
    repairs.push({ check: 'original-missing', action: `restored ${restored} kept original(s): ${fromSource} copied again from their files, ${fromTemp} from a temporary copy an interrupted ingest left`, count: restored });
  }
  if (cleared.length > 0) {
    repairs.push({ check: 'original-missing', action: `cleared the kept original of ${cleared.length} document(s) whose files no longer have those bytes (they stay searchable): ${cleared.slice(0, 5).join(', ')}`, count: cleared.length });
  }
  let removed = 0;
  let fresh = 0;
  const now = Date.now();
  for (const { path, mtimeMs } of state.unreferenced) {
    if (now - mtimeMs < FRESH_UNREFERENCED_MS) {
      fresh++;
      continue;
    }
    const hash = path.slice(path.lastIndexOf('/') + 1);
    // Looked up again just before: a document may keep it since.
    if ((await store.getDocument(hash))?.original) continue;
    await rm(path, { force: true });
    removed++;
  }
  if (removed > 0) repairs.push({ check: 'original-unreferenced', action: `deleted ${removed} file(s) under files/ that were no document's original`, count: removed });
  if (fresh > 0) {
    repairs.push({ check: 'original-unreferenced', action: `kept ${fresh} file(s) no document keeps, written in the last ${FRESH_UNREFERENCED_MS / 60_000} minutes (an ingest may be about to commit them; a later repair deletes them)`, count: 0 });
  }
  const temps = state.staleTemps.filter((t) => !usedTemps.has(t.path));
  for (const temp of temps) await rm(temp.path, { force: true });
  if (temps.length > 0) repairs.push({ check: 'temp-files', action: `deleted ${temps.length} temporary cop(ies) of processes no longer running`, count: temps.length });
  return repairs;
}

/**
 * The settings the Library reads: a default strategy and tokenizer it knows. Not repaired: a
 * strategy an application registers at run time is unknown to the CLI, and only its owner can say
 * what the setting should be (`groundwork ingest --strategy`, `Library.setSetting`).
 */
export async function checkSettings(store: LibraryStore, _options: ResolvedCheckOptions): Promise<Part> {
  const started = performance.now();
  const found: CheckFinding[] = [];
  const strategy = await store.getSetting('strategy');
  const tokenizer = await store.getSetting('tokenizer');
  const problems: string[] = [];
  if (strategy !== undefined) {
    try {
      getChunker(strategy);
    } catch (error) {
      problems.push(`strategy: ${(error as Error).message}`);
    }
  }
  if (tokenizer !== undefined) {
    try {
      getTokenizer(tokenizer as TokenizerName);
    } catch (error) {
      problems.push(`tokenizer: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) {
    found.push(finding('settings', 'error', "the library's default strategy or tokenizer is not one this Groundwork knows; set another with Library.setSetting", problems.length, problems, false));
  }
  return {
    checked: [{ check: 'settings', what: 'the default strategy and tokenizer are known', scope: 'full', items: 2 }],
    found,
    repairs: [],
    remaining: found,
    durationMs: Math.round(performance.now() - started),
  };
}

/** The sha256 and size of an original the store holds, read through it; undefined when it holds none. */
async function storeOriginal(store: LibraryStore, docId: string): Promise<{ hash: string; bytes: number } | undefined> {
  const stream = await store.openOriginal?.(docId);
  return stream ? hashStream(stream) : undefined;
}

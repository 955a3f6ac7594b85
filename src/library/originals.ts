import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GroundworkError } from '../errors.js';

/**
 * The kept originals under `files/`: `files/<first two hex>/<sha256>`, the name being the hash of
 * the bytes, so two processes keeping the same content write the same file.
 *
 * A copy is written to a temporary name in the same folder (`<sha256>.<pid>.<random>.tmp`: unique
 * per process and per copy), its hash checked while it is written and the file synced, then
 * renamed into place (atomic: two processes renaming the same content leave one whole file), and
 * only then is the document that keeps it committed. So a file under its final name is always
 * whole, and a document never refers to a copy that is not there: a process killed before its
 * rename leaves a temporary file naming its (dead) process, one killed between rename and commit a
 * file no document keeps, both leftovers `check --repair` deletes (the second only once it is
 * older than a write could wait for the lock: an ingest may be about to commit it). The next ingest
 * of the same bytes finds the file in place and keeps it.
 */

const HASH = /^[0-9a-f]{64}$/;
const TEMP = /^([0-9a-f]{64})\.(\d+)(?:\.[0-9a-f]+)?\.tmp$/;

/** The original's path relative to the library folder. */
export function originalPath(docId: string): string {
  return join('files', docId.slice(0, 2), docId);
}

export function isOriginalName(name: string): boolean {
  return HASH.test(name);
}

/** `{ hash, pid }` of a temporary copy's name, or undefined for any other name. */
export function tempCopyOf(name: string): { hash: string; pid: number } | undefined {
  const match = TEMP.exec(name);
  return match ? { hash: match[1]!, pid: Number(match[2]) } : undefined;
}

/** Whether a process with this id is running on this machine (a temporary copy's writer). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How a document's `original` names an original the store holds (see StoredDocument.original). */
export const STORE_ORIGINAL = 'store:';

/** sha256 (hex) and size of a file, streamed. */
export async function hashFile(path: string): Promise<{ hash: string; bytes: number }> {
  return hashStream(createReadStream(path));
}

/** The sha256 (hex) and length of a stream's bytes, read to its end. */
export async function hashStream(stream: AsyncIterable<unknown>): Promise<{ hash: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { hash: hash.digest('hex'), bytes };
}

/** A copy on its way into `files/`: `tmp` is null when the final file was there already. */
export interface StagedOriginal {
  /** Relative to the library folder, as the document records it. */
  rel: string;
  target: string;
  tmp: string | null;
}

/**
 * Copies `source` to a temporary file beside the original's final name, checking that its bytes
 * still hash to `docId` (IO when the file changed since it was hashed) and syncing it to disk.
 * Nothing is copied when the final file exists (written by an earlier ingest, or another process).
 */
export async function stageOriginal(dir: string, source: string, docId: string): Promise<StagedOriginal> {
  const rel = originalPath(docId);
  const target = join(dir, rel);
  if (await stat(target).then(() => true, () => false)) return { rel, target, tmp: null };
  let tmp: string;
  try {
    tmp = await copyToTemp(target, source, docId);
  } catch (cause) {
    throw new GroundworkError('IO', `cannot keep a copy of the original: ${(cause as Error).message}`, { file: source, cause });
  }
  if (tmp === '') throw new GroundworkError('IO', 'the file changed while it was being ingested (its bytes no longer match their hash); ingest it again', { file: source });
  return { rel, target, tmp };
}

/**
 * A fresh copy of `source` staged for `docId`'s original (repair: the final file is missing or
 * damaged), or null when `source` cannot be read or no longer has those bytes.
 */
export async function copyVerified(dir: string, source: string, docId: string): Promise<StagedOriginal | null> {
  const rel = originalPath(docId);
  const target = join(dir, rel);
  const tmp = await copyToTemp(target, source, docId).catch(() => '');
  return tmp === '' ? null : { rel, target, tmp };
}

/** Copies `source` to a new temporary name beside `target`; '' (nothing left behind) when its sha256 is not `docId`. */
async function copyToTemp(target: string, source: string, docId: string): Promise<string> {
  await mkdir(dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const hash = createHash('sha256');
  const out = await open(tmp, 'wx');
  try {
    for await (const chunk of createReadStream(source)) {
      hash.update(chunk as Buffer);
      await out.write(chunk as Buffer);
    }
    await out.sync();
  } catch (error) {
    await out.close();
    await rm(tmp, { force: true });
    throw error;
  }
  await out.close();
  if (hash.digest('hex') === docId) return tmp;
  await rm(tmp, { force: true });
  return '';
}

/** Moves a staged copy under its final name. */
export async function commitOriginal(staged: StagedOriginal): Promise<void> {
  if (staged.tmp) await rename(staged.tmp, staged.target);
}

/**
 * Keeps a copy of `source` (whose sha256 is `docId`) under its final name, before the document
 * that refers to it is committed; returns the path the document records (relative to `dir`).
 */
export async function keepOriginal(dir: string, source: string, docId: string): Promise<string> {
  const staged = await stageOriginal(dir, source, docId);
  try {
    await commitOriginal(staged);
  } catch (cause) {
    if (staged.tmp) await rm(staged.tmp, { force: true });
    throw new GroundworkError('IO', `cannot keep a copy of the original: ${(cause as Error).message}`, { file: source, cause });
  }
  return staged.rel;
}

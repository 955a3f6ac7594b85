import { existsSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isGroundworkError, type GroundworkError } from '../src/errors.js';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The shared corpus and eval sets sit beside the project (CI has them); tests that need them skip without. */
export const sharedDir = resolve(projectRoot, '..', 'shared');
export const corpusDir = join(sharedDir, 'corpus');
export const evalDir = join(sharedDir, 'eval');
export const hasShared = existsSync(corpusDir);
export const sharedSkipReason = `../shared/corpus not found next to the project (${corpusDir}): corpus tests skipped`;
if (!hasShared) console.warn(sharedSkipReason);

export function corpus(...parts: string[]): string {
  return join(corpusDir, ...parts);
}

/**
 * A ZIP of stored (uncompressed) entries, in the given order. With `truncate`, everything from the
 * central directory on is cut off (a download that stopped early).
 */
export function storedZip(entries: Record<string, string | Uint8Array>, { truncate = false } = {}): Uint8Array {
  const zip = zipSync(Object.fromEntries(Object.entries(entries).map(([name, data]) => [name, [typeof data === 'string' ? strToU8(data) : data, { level: 0 }]])));
  if (!truncate) return zip;
  // The end record's last fields: the central directory's size and offset.
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  return zip.subarray(0, view.getUint32(zip.length - 6, true));
}

/** The GroundworkError a promise rejects with; the test fails if it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<GroundworkError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  // No vitest here: bench/ and scripts/ import this module too.
  if (!isGroundworkError(error)) throw new Error(`expected a GroundworkError, got ${error === undefined ? 'no rejection' : String(error)}`);
  return error;
}

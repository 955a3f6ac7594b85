import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

// The server, fresh schemas (library + queue) and one-off queries are the store suites' (one fixture).
export { freshLibrarySchema, query, SKIP_MESSAGE, TEST_DATABASE_URL } from '../store/postgres-fixtures.js';

export const CORPUS = join(import.meta.dirname, '../../../shared/corpus');

/** Copies corpus files into a fresh folder (plus a damaged DOCX); returns the folder and the good files. */
export function corpusFolder(files: readonly string[], options: { broken?: boolean } = {}): { dir: string; good: string[]; broken: string | undefined } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-queue-'));
  const good = files.map((f) => {
    const to = join(dir, basename(f));
    copyFileSync(join(CORPUS, f), to);
    return to;
  });
  let broken: string | undefined;
  if (options.broken) {
    broken = join(dir, 'broken.docx');
    writeFileSync(broken, Buffer.from('PK\u0003\u0004 not really a zip archive'));
  }
  return { dir, good, broken };
}

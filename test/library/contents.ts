import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a library holds, for comparing two: documents (id, format, configuration, kept original),
 * paths, blocks by id with their text, and the index statistics (term_df, index_stats,
 * fts_lengths). Timestamps and file times are left out (two ingests never share them).
 */
export function libraryContents(dir: string): {
  documents: unknown[];
  paths: unknown[];
  blocks: unknown[];
  terms: unknown[];
  stats: unknown[];
  lengths: unknown[];
} {
  const db = new Database(join(dir, 'library.sqlite'), { readonly: true });
  try {
    return {
      documents: db.prepare('SELECT id, format, config_hash, original, bytes FROM documents ORDER BY id').all(),
      paths: db.prepare('SELECT path, doc_id FROM paths ORDER BY path').all(),
      blocks: db.prepare('SELECT id, doc_id, ordinal, kind, text, heading_path FROM blocks ORDER BY id').all(),
      terms: db.prepare('SELECT term, df FROM term_df ORDER BY term').all(),
      stats: db.prepare('SELECT key, value FROM index_stats ORDER BY key').all(),
      lengths: db.prepare('SELECT col, blocks, terms FROM fts_lengths ORDER BY col').all(),
    };
  } finally {
    db.close();
  }
}

/** Copies the primary files (no `.expected.*` ground truth) of corpus folders into `target/<folder>/`. */
export function copyCorpusFolders(corpusDir: string, folders: readonly string[], target: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const folder of folders) {
    const dest = join(target, folder);
    mkdirSync(dest, { recursive: true });
    for (const file of readdirSync(join(corpusDir, folder), { withFileTypes: true })) {
      if (file.isFile() && !file.name.includes('.expected.')) copyFileSync(join(corpusDir, folder, file.name), join(dest, file.name));
    }
    out[folder] = dest;
  }
  return out;
}

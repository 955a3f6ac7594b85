import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Document } from '../../src/document/types.js';
import { blockIndexText } from '../../src/search/analyze.js';
import { MIGRATIONS } from '../../src/store/sqlite/sqlite-schema.js';
import type { Block, DocumentWrite } from '../../src/store/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function libraryFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'groundwork-store-'));
  dirs.push(dir);
  return join(dir, 'library.sqlite');
}

export function documentWrite(name: string, texts: string[], options: { format?: string; configHash?: string } = {}): DocumentWrite {
  const document: Document = {
    id: `doc-${name}`,
    source: { name, bytes: texts.join('\n').length },
    format: (options.format ?? 'markdown') as Document['format'],
    mime: 'text/markdown',
    title: name,
    metadata: {},
    elements: [],
    warnings: [],
    canonical: texts.join('\n'),
  };
  const configHash = options.configHash ?? 'test';
  const blocks: Block[] = texts.map((text, ordinal) => ({
    id: `${name}-${configHash}-${ordinal}`,
    docId: document.id,
    ordinal,
    kind: 'text' as Block['kind'],
    text,
    headingPath: ordinal === 0 ? ['Intro'] : [],
    pageStart: ordinal + 1,
    pageEnd: ordinal + 1,
    bboxes: null,
    start: 0,
    end: text.length,
    chars: text.length,
    tokens: 0,
    table: null,
    speaker: null,
    time: null,
    strategy: 'structure',
    configHash,
  }));
  return { document, blocks, path: { path: `/docs/${name}.md`, docId: document.id, size: 1, mtimeMs: 0 }, strategy: 'structure', configHash, original: null, parseCacheKey: null };
}

/**
 * A library file as an older Groundwork left it: the first `version` migrations (all SQL), and one
 * document 'd' at '/d.md' whose blocks (rowids 1..n, ids b0..) are indexed in the one-column table
 * those versions had.
 */
export function legacyLibrary(file: string, version: number, texts: readonly string[]): void {
  const db = new Database(file);
  for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration as string);
  db.pragma(`user_version = ${version}`);
  db.prepare(
    `INSERT INTO documents(id, format, mime, bytes, metadata, warnings, strategy, config_hash, tables, images, added_at)
     VALUES ('d', 'markdown', 'text/markdown', 1, '{}', '[]', 'structure', 'x', 0, 0, '')`,
  ).run();
  db.prepare("INSERT INTO paths(path, doc_id, size, mtime_ms) VALUES ('/d.md', 'd', 1, 0)").run();
  texts.forEach((text, i) => {
    db.prepare(
      `INSERT INTO blocks(rowid, id, doc_id, ordinal, kind, text, heading_path, start, "end", chars, tokens, strategy, config_hash)
       VALUES (?, ?, 'd', ?, 'text', ?, '[]', 0, 0, 0, 0, 'structure', 'x')`,
    ).run(i + 1, `b${i}`, i, text);
    db.prepare('INSERT INTO blocks_fts(rowid, body) VALUES (?, ?)').run(i + 1, blockIndexText({ headingPath: [], text }));
  });
  db.close();
}

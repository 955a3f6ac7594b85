import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Document } from '../../src/document/types.js';
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

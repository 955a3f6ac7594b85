import { join } from 'node:path';
import { chunk, parse, type ChunkOptions } from '../../src/index.js';
import type { Document, Format } from '../../src/document/types.js';
import { chunksToBlocks } from '../../src/library/blocks.js';
import type { Block } from '../../src/store/types.js';
import { projectRoot } from '../helpers.js';

export const fixture = (name: string) => join(projectRoot, 'test', 'fixtures', 'retrieval', name);
export const PARK_REPORT = fixture('park-report-zh.md');

const parsed = new Map<string, Promise<Document>>();

/** A corpus or fixture file parsed once per test file. */
export function parsedDoc(path: string, format?: Format): Promise<Document> {
  const key = `${path}:${format ?? ''}`;
  let doc = parsed.get(key);
  if (!doc) parsed.set(key, (doc = parse(path, format ? { format } : {})));
  return doc;
}

/** Blocks as the library stores them. */
export function blocksOf(doc: Document, options: ChunkOptions = {}): Block[] {
  return chunksToBlocks(doc, chunk(doc, options), 'test').filter((b) => b.text.trim() !== '');
}

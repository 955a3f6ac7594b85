import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Library } from '../../src/library/library.js';
import { outlineFromBlocks, outlineNodes } from '../../src/retrieval/outline.js';
import { outlineJson } from '../../src/serve/routes/documents.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { json, startServer, type Running } from './helpers.js';

/** Corpus documents with headings of every kind: Markdown, Office, HTML, EPUB, PDFs (Chinese and English). */
const FILES = [
  corpus('md', 'wiki.md'),
  corpus('md', 'nested.md'),
  corpus('md', 'codeblock.md'),
  corpus('md', 'markdown.sample.zh.md'),
  corpus('docx', 'unit_test_headers_numbered.docx'),
  corpus('docx', 'calibre-demo.docx'),
  corpus('html', 'wiki_duck.html'),
  corpus('zh-generated', 'warehouse-manual-zh.epub'),
  corpus('zh-generated', 'warehouse-manual-zh.pdf'),
  corpus('pdf', 'normal_4pages.pdf'),
  corpus('pdf', 'redp5110_sampled.pdf'),
];

/**
 * `GET /v1/documents/{id}` builds the outline from `LibraryStore.outlineBlocks` (spans of every
 * block, only the texts that may hold a heading line) instead of every whole block: the outline must
 * be the one the whole blocks give, for every strategy (structure and sentence keep the canonical
 * heading lines in their texts; qwen does not, so its outline comes from the heading paths).
 */
describe.skipIf(!hasShared)(`the outline from outline blocks equals the outline from whole blocks (${hasShared ? 'corpus' : sharedSkipReason})`, () => {
  let s: Running;
  const others: Library[] = [];

  beforeAll(async () => {
    s = await startServer({ plugins: [] });
    const report = await s.library.addFiles(FILES, { workers: 1 });
    expect(report.rejected).toEqual([]);
    for (const strategy of ['sentence', 'qwen']) {
      const library = await Library.open(mkdtempSync(join(tmpdir(), `gw-outline-${strategy}-`)));
      others.push(library);
      const added = await library.addFiles(FILES, { workers: 1, strategy });
      expect(added.rejected).toEqual([]);
    }
  }, 300_000);
  afterAll(async () => {
    await s?.stop();
    for (const library of others) await library.close();
  });

  it('over HTTP (structure): the route\'s outline is the outline of the whole blocks, first request and cached', async () => {
    const docs = await s.library.documents();
    expect(docs).toHaveLength(FILES.length);
    let headings = 0;
    for (const doc of docs) {
      const expected = outlineFromBlocks(doc.id, await s.library.blocks(doc.id));
      headings += outlineNodes(expected).length;
      for (let round = 0; round < 2; round++) {
        const detail = await json(await fetch(`${s.url}/v1/documents/${doc.id}`));
        expect(detail.outline, `${doc.paths[0]} (request ${round + 1})`).toEqual(expected.roots.map(outlineJson));
      }
    }
    expect(headings).toBeGreaterThan(100);
  });

  it('in the library, for the structure, sentence and qwen strategies', async () => {
    for (const library of [s.library, ...others]) {
      let headings = 0;
      let leftOut = 0;
      for (const doc of await library.documents()) {
        const lean = await library.outlineBlocks(doc.id);
        const whole = await library.blocks(doc.id);
        leftOut += lean.filter((b) => b.text === null).length;
        const expected = outlineFromBlocks(doc.id, whole);
        expect(outlineFromBlocks(doc.id, lean), `${doc.paths[0]} (${doc.strategy})`).toEqual(expected);
        expect(await library.retrievalSources.fetcher.outline!(doc.id)).toEqual(expected);
        headings += outlineNodes(expected).length;
      }
      // qwen's large chunks carry fewer heading paths (its outline is theirs).
      expect(headings).toBeGreaterThan(5);
      // Most texts stay in the store (the point of the read).
      expect(leftOut).toBeGreaterThan(0);
    }
  });
});

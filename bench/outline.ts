/**
 * `GET /v1/documents/{id}`'s outline on large documents: built from `LibraryStore.outlineBlocks`
 * (every block's span and heading path, only the texts that hold `# `) against the whole blocks
 * (`library.blocks`, what the route read before), in this process on the same library in the same
 * run, and over HTTP against a real server on loopback (first request per document: nothing cached;
 * then the library's outline cache). Documents: a 300-page PDF (tracemonkey.pdf's pages by PDFium,
 * test/fixtures/long-pdf.ts) and a generated Markdown handbook with 5,000 headings
 * (test/fixtures/many-headings.ts), ingested once into a library in the temp folder.
 * Rounds: GW_BENCH_OUTLINE_ROUNDS (default 9), median. Run: npm run bench -- outline
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Library } from '../src/library/library.js';
import { outlineFromBlocks, outlineNodes } from '../src/retrieval/outline.js';
import { serve } from '../src/serve/index.js';
import { longPdf } from '../test/fixtures/long-pdf.js';
import { manyHeadingsMarkdown } from '../test/fixtures/many-headings.js';
import { printTable } from './inputs.js';

const ROUNDS = Number(process.env.GW_BENCH_OUTLINE_ROUNDS ?? 9);
const PAGES = 300;
const HEADINGS = 5000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await f();
  return [performance.now() - t0, value];
}

export async function main(): Promise<void> {
  const files = [await longPdf(PAGES), manyHeadingsMarkdown(HEADINGS)];
  const dir = join(tmpdir(), `groundwork-bench-outline-${PAGES}-${HEADINGS}`);
  const fresh = !existsSync(join(dir, 'ready'));
  if (fresh) rmSync(dir, { recursive: true, force: true });
  const library = await Library.open(dir);
  if (fresh) {
    const report = await library.addFiles(files, { workers: 1 });
    if (report.rejected.length > 0) throw new Error(`bench/outline: ingest rejected ${JSON.stringify(report.rejected)}`);
    mkdirSync(join(dir, 'ready'));
  }
  const server = await serve(library, { port: 0, host: '127.0.0.1', workers: 1, rateLimit: false });
  try {
    const rows: (string | number)[][] = [];
    for (const file of files) {
      const doc = (await library.document(file))!;
      const [httpCold] = await timed(async () => (await fetch(`${server.url}/v1/documents/${doc.id}`)).json());
      const whole: number[] = [];
      const lean: number[] = [];
      const http: number[] = [];
      let texts = 0;
      let headings = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const [tw, fromWhole] = await timed(async () => outlineFromBlocks(doc.id, await library.blocks(doc.id)));
        const [tl, fromLean] = await timed(async () => {
          const blocks = await library.outlineBlocks(doc.id);
          texts = blocks.filter((b) => b.text !== null).length;
          return outlineFromBlocks(doc.id, blocks);
        });
        if (JSON.stringify(fromWhole) !== JSON.stringify(fromLean)) throw new Error(`bench/outline: the outlines of ${file} differ`);
        headings = outlineNodes(fromLean).length;
        whole.push(tw);
        lean.push(tl);
        http.push((await timed(async () => (await fetch(`${server.url}/v1/documents/${doc.id}`)).json()))[0]);
      }
      rows.push([file.split('/').pop()!, doc.blocks, headings, texts, median(whole), median(lean), `${(median(whole) / median(lean)).toFixed(1)}x`, httpCold, median(http)]);
    }
    printTable(
      `outline of a document: ms, median of ${ROUNDS} rounds (load average ${loadavg()[0]!.toFixed(1)})`,
      ['document', 'blocks', 'headings', 'texts read', 'from whole blocks', 'from outline blocks', 'ratio', 'GET /v1/documents/{id}, first', 'GET, cached'],
      rows,
    );
  } finally {
    await server.close();
    await library.close();
  }
}

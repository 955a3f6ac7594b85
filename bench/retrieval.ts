/**
 * The retrieval benchmark: what the pipeline above the store costs (`retrieve` in src/retrieval/).
 *
 * A library of real documents (the CMRC 2018 and SQuAD dev corpora, the warehouse manual, the
 * tracemonkey paper and the park report fixture) is ingested once; then, per query kind, the latency
 * p50/p99 of the store's BM25 alone (`library.search`) and of `retrieve` on it:
 *   plain           the eval questions, no section reference (retrieve: + dedupe, merge, snippets)
 *   neighbors 2     the same with two neighbours on each side (fetches the documents' blocks)
 *   section, doc    a reference resolved in a named document (outline from its blocks, restricted search)
 *   section, all    a reference resolved over the best documents for the query (discover + outlines + boost)
 *
 * Environment: GW_BENCH_RETRIEVAL_QUERIES (questions per language, default 40).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Library } from '../src/library/library.js';
import { librarySources } from '../src/retrieval/library-source.js';
import { retrieve, type RetrievalSources } from '../src/retrieval/pipeline.js';
import type { RetrievalOptionsInput } from '../src/retrieval/options.js';
import { printTable } from './inputs.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = resolve(ROOT, '..', 'shared');
const QUERIES = Number(process.env.GW_BENCH_RETRIEVAL_QUERIES ?? 40);

function questions(dataset: string, n: number): string[] {
  return readFileSync(join(SHARED, 'eval', dataset, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, n)
    .map((l) => (JSON.parse(l) as { question: string }).question);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed(queries: readonly string[], run: (q: string) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (const q of queries.slice(0, 3)) await run(q); // warm: jieba's dictionary, statement caches
  const times: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await run(q);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

export async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'groundwork-bench-retrieval-'));
  try {
    const docs = join(dir, 'docs');
    for (const dataset of ['cmrc2018-dev', 'squad-v1.1-dev']) {
      mkdirSync(join(docs, dataset), { recursive: true });
      for (const f of readdirSync(join(SHARED, 'eval', dataset, 'corpus'))) copyFileSync(join(SHARED, 'eval', dataset, 'corpus', f), join(docs, dataset, f));
    }
    copyFileSync(join(SHARED, 'corpus', 'zh-generated', 'warehouse-manual-zh.docx'), join(docs, 'warehouse-manual-zh.docx'));
    copyFileSync(join(SHARED, 'corpus', 'pdf', 'tracemonkey.pdf'), join(docs, 'tracemonkey.pdf'));
    copyFileSync(join(ROOT, 'test', 'fixtures', 'retrieval', 'park-report-zh.md'), join(docs, 'park-report-zh.md'));
    const library = await Library.open(join(dir, 'library'));
    const report = await library.addFiles(docs, { copyFiles: false });
    const stats = await library.stats();
    console.log(`\n${stats.documents} documents, ${stats.blocks} blocks (ingested in ${(report.durationMs / 1000).toFixed(1)} s); ${QUERIES} questions per language`);
    const sources: RetrievalSources = librarySources(library);
    const paper = (await library.documents()).find((d) => d.format === 'pdf')!;
    const zh = questions('cmrc2018-dev', QUERIES);
    const en = questions('squad-v1.1-dev', QUERIES);
    const sectionQueries = ['第二章第二节提到的三项前提条件', '第四部分的资金来源', '第二章第二节的安装步骤', '（二）资金', 'the fourth part funding', '第三章的配置'];
    const paperQueries = ['Section 3.2 trace trees', 'chapter 6 implementation', '§ 6.4 preemption', 'the fifth section register allocation'];
    const rows: (string | number)[][] = [];
    const add = async (kind: string, queries: string[], options: RetrievalOptionsInput, storeToo: boolean) => {
      const store = storeToo ? await timed(queries, (q) => Promise.resolve(library.searchText(q, { k: 10, ...(options.filter && { filter: options.filter as never }) }))) : undefined;
      const pipeline = await timed(queries, (q) => retrieve(q, { k: 10, ...options }, sources));
      rows.push([kind, queries.length, store ? store.p50 : '-', store ? store.p99 : '-', pipeline.p50, pipeline.p99]);
    };
    await add('plain, Chinese', zh, {}, true);
    await add('plain, English', en, {}, true);
    await add('neighbors 2, Chinese', zh, { neighbors: 2 }, false);
    await add('section, named document', paperQueries, { filter: { docId: paper.id } }, false);
    await add('section, all documents', [...sectionQueries, ...paperQueries], {}, false);
    printTable('Retrieval latency (ms, k = 10)', ['queries', 'n', 'store BM25 p50', 'store p99', 'retrieve p50', 'retrieve p99'], rows);
    await library.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

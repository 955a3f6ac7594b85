/**
 * Child process of bench/library.ts: runs the fixed query set against the cached 1M-block library
 * with one engine and prints one JSON line (latencies in ms, build time, peak RSS). One engine per
 * process so each RSS is its own.
 *   node --import tsx bench/children/library-search.ts store|fts|minisearch CACHE_DIR QUERIES_JSON
 *
 * store       Library.search(q, { k: 10 }): what a user gets (blocks, snippets, paths)
 * fts         the same (pruned) MATCH expression and BM25 weights, top 10 rowids from blocks_fts alone (engine cost)
 * minisearch  MiniSearch 7.2 over the same blocks, fed the same analyzed terms (same analysis, other engine)
 */
import Database from 'better-sqlite3';
import MiniSearch from 'minisearch';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze, ftsQuery } from '../../src/search/analyze.js';
import { Library } from '../../src/library/library.js';
import { columnWeights, lengthStatsReader, rankFunction, TOP_ROWIDS_SQL } from '../../src/store/sqlite/sqlite-fts.js';
import { termStatsOf } from '../../src/store/sqlite/sqlite-search.js';

interface Query {
  lang: 'en' | 'zh';
  text: string;
}

const [engine, cacheDir, queriesFile] = process.argv.slice(2);
if (!engine || !cacheDir || !queriesFile) throw new Error('usage: library-search.ts store|fts|minisearch CACHE_DIR QUERIES_JSON');
const queries = JSON.parse(readFileSync(queriesFile, 'utf8')) as Query[];
const K = 10;

async function runQueries(search: (q: string) => number | Promise<number>): Promise<{ lang: string; ms: number; hits: number }[]> {
  for (const q of queries) await search(q.text); // warm-up: page cache, statement cache, JIT
  const out: { lang: string; ms: number; hits: number }[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const hits = await search(q.text);
    out.push({ lang: q.lang, ms: performance.now() - t0, hits });
  }
  return out;
}

let buildSeconds: number | null = null;
let timings: { lang: string; ms: number; hits: number }[];

if (engine === 'store') {
  const library = await Library.open(cacheDir);
  timings = await runQueries(async (q) => (await library.searchText(q, { k: K })).length);
  await library.close();
} else if (engine === 'fts') {
  const db = new Database(join(cacheDir, 'library.sqlite'), { readonly: true });
  const top = db.prepare(TOP_ROWIDS_SQL);
  const termStats = termStatsOf(db);
  const lengthStats = lengthStatsReader(db);
  timings = await runQueries((q) => {
    const match = ftsQuery(q, termStats);
    return match ? top.all({ match, rank: rankFunction(columnWeights(lengthStats())), n: K }).length : 0;
  });
  db.close();
} else if (engine === 'minisearch') {
  const limit = Number(process.env.GW_BENCH_MINISEARCH_BLOCKS ?? Infinity);
  const terms = new Database(join(cacheDir, 'terms.sqlite'), { readonly: true });
  const index = new MiniSearch<{ id: number; t: string }>({
    fields: ['t'],
    // The blocks' terms were produced by analyze(): split them back, keep them as they are.
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term || null,
    searchOptions: {
      tokenize: (text) => [...new Set(analyze(text))],
      processTerm: (term) => term,
      combineWith: 'OR',
    },
  });
  const t0 = performance.now();
  let n = 0;
  for (const row of terms.prepare('SELECT rowid AS id, terms AS t FROM terms ORDER BY rowid').iterate() as IterableIterator<{ id: number; t: string }>) {
    if (n++ >= limit) break;
    index.add(row);
  }
  buildSeconds = (performance.now() - t0) / 1000;
  terms.close();
  timings = await runQueries((q) => index.search(q).slice(0, K).length);
} else {
  throw new Error(`unknown engine ${engine}`);
}

process.stdout.write(`${JSON.stringify({ engine, buildSeconds, timings, peakRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);

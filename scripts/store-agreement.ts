/**
 * How far the Postgres store's BM25 ranking agrees with SQLite's on the shared eval sets: every
 * question of every set, the documents chunked the same way (default: structure) and indexed into
 * each store, the two top-ten lists compared (src/eval/agreement.ts). Prints one table row per set.
 * Run: node --import tsx scripts/store-agreement.ts [EVAL_DIR] [--strategy SPEC] [--limit N]
 * with GROUNDWORK_DATABASE_URL (or GROUNDWORK_TEST_DATABASE_URL) naming a server; a scratch schema
 * per set is created and dropped.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compareStores, type StoreAgreement } from '../src/eval/agreement.js';
import { parseStrategySpec } from '../src/eval/configs.js';
import { isDatasetDir, loadDataset, sampleQuestions } from '../src/eval/dataset.js';
import { openScratchPostgres } from '../src/store/postgres/postgres-scratch.js';
import { openStore } from '../src/store/registry.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { strategy: { type: 'string' }, limit: { type: 'string' } } });
const url = process.env.GROUNDWORK_DATABASE_URL ?? process.env.GROUNDWORK_TEST_DATABASE_URL;
if (!url) {
  console.error('store-agreement: set GROUNDWORK_DATABASE_URL (postgres://...) to a server to compare against');
  process.exit(2);
}
const root = resolve(import.meta.dirname, '..');
const evalDir = resolve(positionals[0] ?? join(root, '..', 'shared', 'eval'));
if (!existsSync(evalDir)) throw new Error(`no eval sets at ${evalDir}`);
const config = parseStrategySpec(values.strategy ?? 'structure');
const limit = values.limit === undefined ? undefined : Number(values.limit);

const sqlite = async () => {
  const folder = mkdtempSync(join(tmpdir(), 'gw-agreement-'));
  return { store: await openStore({ kind: 'sqlite', file: join(folder, 'library.sqlite') }), dispose: async () => rmSync(folder, { recursive: true, force: true }) };
};

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
console.log(`Postgres vs SQLite BM25, config ${config.config}, k=5, top 10 compared\n`);
console.log('| set | questions | top-10 overlap | same rank | identical lists | hit@5 SQLite | hit@5 Postgres | MRR SQLite | MRR Postgres | seconds |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const rows: StoreAgreement[] = [];
for (const name of readdirSync(evalDir).filter((n) => isDatasetDir(join(evalDir, n))).sort()) {
  const started = performance.now();
  const dataset = loadDataset(join(evalDir, name));
  const questions = sampleQuestions(dataset.questions, limit, 'store-agreement');
  const a = await compareStores(dataset, questions, config, { k: 5, budget: 1000 }, [sqlite, () => openScratchPostgres(url)]);
  rows.push(a);
  console.log(
    `| ${name} | ${a.questions} | ${pct(a.overlap)} | ${pct(a.sameRank)} | ${a.identicalLists} | ${a.hitAtK[0].toFixed(4)} | ${a.hitAtK[1].toFixed(4)} | ${a.mrr[0].toFixed(4)} | ${a.mrr[1].toFixed(4)} | ${((performance.now() - started) / 1000).toFixed(0)} |`,
  );
}
const worst = rows.reduce((w, r) => (r.overlap < w.overlap ? r : w), rows[0]!);
const maxDelta = Math.max(...rows.map((r) => Math.abs(r.hitAtK[0] - r.hitAtK[1])));
console.log(`\nlowest overlap ${pct(worst.overlap)} (${worst.dataset}); largest hit@5 difference ${maxDelta.toFixed(4)}`);
console.log(worst.overlap >= 0.95 && maxDelta <= 0.01 ? 'PASS: >= 95% of hits agree and hit@5 is within 0.01 on every set' : 'FAIL: the stores disagree beyond the target');

/**
 * Generates docs/results.md: every baseline on every dataset of ../shared/eval at k=5 and a
 * 1000-token budget, plus the check of the default strategy against the issue's two criteria.
 * A section per retriever: bm25 always; vector and hybrid when an embedder is configured by the
 * environment (GROUNDWORK_EMBEDDINGS_URL/MODEL, or GROUNDWORK_EMBEDDINGS_MODEL_PATH for a local
 * model), the same settings `groundwork ingest` takes. `--test-embedder` runs them against the
 * loopback test endpoint (test/embed/fixtures.ts: hash vectors) and says so: no quality claim is
 * made for a model this machine does not have.
 * Run: npm run results  (or: node --import tsx scripts/results.ts [EVAL_DIR] [OUT] [--test-embedder])
 */
import { cpus, totalmem } from 'node:os';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { formatResults } from '../src/cli/eval-command.js';
import { openEmbedder } from '../src/embed/config.js';
import { OpenAiEmbedder } from '../src/embed/openai.js';
import type { Embedder } from '../src/embed/types.js';
import { baselineConfigs } from '../src/eval/configs.js';
import { isDatasetDir, loadDataset } from '../src/eval/dataset.js';
import { evaluate, type ConfigRun } from '../src/eval/runner.js';
import { resolveStructureOptions } from '../src/chunkers/structure.js';
import type { SearchMode } from '../src/retrieval/options.js';

const K = 5;
const BUDGET = 1000;
const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const positional = args.filter((a) => !a.startsWith('--'));
const useTestEmbedder = args.includes('--test-embedder');
const evalDir = resolve(positional[0] ?? join(root, '..', 'shared', 'eval'));
const out = resolve(positional[1] ?? join(root, 'docs', 'results.md'));

/** The embedder for vector and hybrid, what the page says about it, and how to stop it. */
async function chooseEmbedder(): Promise<{ embedder: Embedder | undefined; note: string; testModel: boolean; stop: () => Promise<void> }> {
  if (useTestEmbedder) {
    const { spawnEmbeddingServer } = await import('../test/embed/fixture-process.js');
    const server = await spawnEmbeddingServer({ dimensions: 384 });
    const embedder = new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'test-hash-vectors', concurrency: 4 });
    return {
      embedder,
      testModel: true,
      note:
        'The vector and hybrid sections use the **test model**: the loopback test endpoint (test/embed/fixtures.ts), whose ' +
        '384-dimension vectors come from a hash of the text and carry no meaning. Those numbers show that the pipeline runs ' +
        'end to end (embedding, vector search, fusion); they say nothing about the quality of vector or hybrid retrieval.',
      stop: async () => {
        await embedder.close();
        await server.stop();
      },
    };
  }
  const opened = await openEmbedder({});
  if (!opened) {
    return {
      embedder: undefined,
      testModel: false,
      note:
        'bm25 only: no embedder is configured (GROUNDWORK_EMBEDDINGS_URL and GROUNDWORK_EMBEDDINGS_MODEL, or ' +
        'GROUNDWORK_EMBEDDINGS_MODEL_PATH for a local ONNX model), and this machine has no embedding model, so no vector ' +
        'or hybrid numbers are published. With one configured, `npm run results` adds a section for each.',
      stop: async () => undefined,
    };
  }
  const { embedder, settings } = opened;
  const test = settings.provider === 'onnx' && isTestModelFolder(String((settings as { path?: unknown }).path ?? ''));
  return {
    embedder,
    testModel: test,
    note: test
      ? `The vector and hybrid sections use the **test model** (the tiny ONNX embedding lookup the tests build, ${settings.provider}): ` +
        'a bag of a few dozen words. Those numbers show that the pipeline runs end to end; they say nothing about retrieval quality.'
      : `The vector and hybrid sections use the ${settings.provider} embedder \`${embedder.model}\` configured by the environment ` +
        '(GROUNDWORK_EMBEDDINGS_*), contextual text of each chunk as `groundwork embed` sends it.',
    stop: () => embedder.close(),
  };
}

/** The ONNX folder the tests write (test/embed/onnx-model.ts names its producer `groundwork-tests`). */
function isTestModelFolder(dir: string): boolean {
  try {
    return readFileSync(join(dir, 'onnx', 'model.onnx')).includes('groundwork-tests');
  } catch {
    return false;
  }
}

if (!existsSync(evalDir)) throw new Error(`no eval sets at ${evalDir}`);
const names = readdirSync(evalDir)
  .filter((n) => isDatasetDir(join(evalDir, n)))
  .sort();
const started = performance.now();
const chosen = await chooseEmbedder();
const retrievers: SearchMode[] = chosen.embedder ? ['bm25', 'vector', 'hybrid'] : ['bm25'];
/** Per dataset, the runs of each retriever (the bm25 ones are those the criteria are checked on). */
const reports: { name: string; docs: number; runs: ConfigRun[]; byRetriever: Map<SearchMode, ConfigRun[]>; multiSpan: boolean }[] = [];
let model: string | null = null;
try {
  for (const name of names) {
    const dataset = loadDataset(join(evalDir, name));
    const all = await evaluate(dataset, dataset.questions, baselineConfigs(), { k: K, budget: BUDGET, retrievers, ...(chosen.embedder && { embedder: chosen.embedder }) });
    const byRetriever = new Map(retrievers.map((r) => [r, all.filter((run) => run.retriever === r)]));
    model ??= all.find((r) => r.result.embedder)?.result.embedder ?? null;
    reports.push({ name, docs: dataset.documents.length, runs: byRetriever.get('bm25')!, byRetriever, multiSpan: dataset.questions.some((q) => q.spans.length > 1) });
    process.stderr.write(`${name}: ${all.map((r) => r.result.seconds.toFixed(1)).join(' + ')} s\n`);
  }
} finally {
  await chosen.stop();
}
const totalSeconds = (performance.now() - started) / 1000;

const f3 = (x: number) => x.toFixed(3);
const f4 = (x: number) => x.toFixed(4);

function criteria(): string[] {
  const lines: string[] = [];
  const chroma = reports.find((r) => r.name === 'chroma-general');
  if (chroma) {
    const s = chroma.runs[0]!.result;
    const c = chroma.runs.find((r) => r.label === 'Chroma recursive 200/0 tokens')!.result;
    const met = s.iou > c.iou && s.recall >= c.recall;
    lines.push(
      `- chroma-general, structure vs Chroma recursive 200/0 tokens at k=5: IoU ${f4(s.iou)} vs ${f4(c.iou)}, recall ${f3(s.recall)} vs ${f3(c.recall)}: ` +
        (met ? '**met**.' : `**not met** (IoU ${f4(s.iou - c.iou)}, recall ${f3(s.recall - c.recall)}).`),
    );
  }
  for (const { name, runs } of reports) {
    const s = runs[0]!.result;
    const best = runs.slice(1).reduce((a, b) => (b.result.hitAtBudget > a.result.hitAtBudget ? b : a));
    const met = s.hitAtBudget >= best.result.hitAtBudget;
    lines.push(
      `- ${name}, hit@1000t: structure ${f3(s.hitAtBudget)}, best baseline ${best.label} ${f3(best.result.hitAtBudget)}: ` +
        (met ? '**met**.' : `**not met**, short by ${f3(best.result.hitAtBudget - s.hitAtBudget)}.`),
    );
  }
  return lines;
}

const defaults = resolveStructureOptions({});
const cpu = cpus();
const doc = `# Retrieval results: chunking strategies side by side

Generated by \`npm run results\` (scripts/results.ts) on ${new Date().toISOString().slice(0, 10)}; do not edit by hand.
Every question of the ${names.length} ${names.length === 1 ? 'set' : 'sets'} in \`${relative(root, evalDir) || evalDir}\`, searched over all documents of its set with
\`library.search(question, { mode })\` (the library's retrieval pipeline: overlapping hits of one document come back
merged into one passage, which is what is scored); k = ${K}, budget ${BUDGET} cl100k tokens. Metrics as defined in
\`../shared/eval/README.md\` and [docs/eval.md](eval.md); hit@1000t is hit@budget: the evidence is fully inside the
chunks a 1000-token prompt takes in rank order.

\`structure (default)\` is the default strategy with its default options: chunkSize ${defaults.chunkSize}, targetSize
${defaults.targetSize}, chunkOverlap ${defaults.chunkOverlap}, minChunkSize ${defaults.minChunkSize}.

Retrievers: ${retrievers.join(', ')}${model ? ` (vectors: \`${model}\`)` : ''}. ${chosen.note}

Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}; the machine
was shared with other jobs, so the seconds are wall time under load. Whole run: ${totalSeconds.toFixed(0)} s
(${reports.reduce((n, r) => n + [...r.byRetriever.values()].reduce((m, runs) => m + runs.length, 0), 0)} configuration runs).

## The default against the issue's criteria (bm25)

${criteria().join('\n')}

${retrievers
  .map(
    (retriever) => `## ${retriever}
${retriever !== 'bm25' && chosen.testModel ? `\nWith the test model (see above): these numbers show the pipeline runs, not retrieval quality.\n` : ''}
${reports
  .map(
    ({ name, docs, byRetriever, multiSpan }) => `### ${name} (${retriever})

${byRetriever.get(retriever)![0]!.result.questions} questions, ${docs} documents.

${formatResults(byRetriever.get(retriever)!, multiSpan)}`,
  )
  .join('\n')}`,
  )
  .join('\n')}
## Reading the table

- bm25 is keyword retrieval: absolute values differ from Chroma's published (embedding) table; the protocol
  (questions, spans, k = 5, metrics) is the same. Vector and hybrid numbers are only as good as the model named above.
- A hit is one passage of the library's search: chunks of one document whose spans overlap (chunk overlap) are
  merged into one hit with the union span, as \`groundwork search\` returns them, so overlapping configurations are
  scored on what a user gets, not on their raw chunks.
- IoU and precision on the QA sets (answers of 5-20 characters) mostly measure chunk length; on chroma-general
  (sentence-length excerpts, several per question) they are informative.
- Bigger chunks win hit@5 for free; hit@1000t compares configurations at the same prompt size.
`;
writeFileSync(out, doc);
process.stderr.write(`wrote ${out} in ${totalSeconds.toFixed(0)} s\n`);

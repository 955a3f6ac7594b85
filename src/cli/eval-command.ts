import { baselineConfigs, parseStrategySpec, type EvalConfig } from '../eval/configs.js';
import { loadDataset, sampleQuestions, type EvalDataset } from '../eval/dataset.js';
import { evaluate, findMisses, NO_EMBEDDER_MESSAGE, type ConfigRun, type EvalProgress, type EvalResult, type Miss } from '../eval/runner.js';
import { openEmbedder } from '../embed/config.js';
import type { Embedder } from '../embed/types.js';
import { SEARCH_MODES, type SearchMode } from '../retrieval/options.js';
import { flag, integerValue, parseCommandArgs, stringValue, stringValues, UsageError } from './args.js';
import { count, DATABASE_URL_ENV, formatTable, HELP_FLAG_SPEC, truncateToWidth } from './common.js';
import { EMBED_FLAG_SPECS, EMBED_FLAGS_HELP, embedFlagsFrom } from './embed-options.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { formatDuration, terminalOf } from './progress.js';

export const EVAL_HELP = `Usage: groundwork eval DATASET_DIR... [options]

Measures what chunking does to retrieval. DATASET_DIR holds corpus/ (one document per file) and
questions.jsonl (question, doc, evidence spans as UTF-16 offsets), the layout of the shared eval
sets. Each configuration chunks every document, indexes the chunks in a throw-away library (the
library's own BM25 full-text index; for vector and hybrid it also embeds them with the configured
embedder) and searches every question over all documents with the library's search, once per
retriever (--retriever).

Reported per configuration and retriever: hit@k (evidence fully inside a retrieved hit: a chunk,
or overlapping chunks the search merged into one passage), partial hit@k (at least half of it),
hit_all@k (every span of a multi-span question), MRR@10, Chroma's recall, precision, precision_Ω
and IoU on character ranges, hit@budget and partial hit@budget (hits taken in rank order while
they fit --budget cl100k tokens, at least one), chunk count, mean and p90 chunk size in
characters and tokens, and seconds.

Built-in baselines are always shown: structure (default options), LangChain's defaults (recursive
1000/200 characters), Chroma's recursive token configurations 800/400, 400/200, 400/0 and 200/0
with its separators, llmware's chisel 600/300 and Qwen-Agent's 500-token chunker.

Options:
  -s, --strategy SPEC   another configuration, repeatable: name or name:key=value,...
                        e.g. recursive:chunkSize=800,chunkOverlap=400,unit=tokens
                        or structure:chunkSize=256 (keys as in 'groundwork chunk --opt')
  -r, --retriever R     bm25 (default), vector or hybrid: the library search mode, repeatable or a
                        list (--retriever bm25,hybrid); one row per configuration and retriever.
                        vector and hybrid need an embedder (below; the same settings as ingest)
  -k, --k N             chunks retrieved per question (default 5)
  --budget N            prompt budget in cl100k tokens for hit@budget (default 1000)
  --limit N             only N questions, sampled with --seed (default: all)
  --seed S              sampling seed (default: groundwork); same inputs, same numbers
  --misses              also list the questions no configuration found (not even half of a span
                        in the top k), with their search terms
  --postgres URL        build each throw-away library in a fresh schema of this PostgreSQL database
                        (dropped after; default $GROUNDWORK_DATABASE_URL, else SQLite in a temp folder)
  --json                a JSON array, one object per configuration, retriever and dataset: config,
                        retriever, k, questions, hitAtK, partialHitAtK, mrr, recall, precision,
                        precisionOmega, iou, budget, hitAtBudget, partialHitAtBudget, chunks,
                        meanChars, p90Chars, meanTokens, p90Tokens, seconds (plus dataset, embedder
                        and hitAllAtK)

${EMBED_FLAGS_HELP}

On a terminal, a progress line is drawn on stderr. Docs: docs/eval.md
Exit codes: 0 done, 1 a dataset cannot be read, 2 usage error.
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...EMBED_FLAG_SPECS,
  strategy: { type: 'string', short: 's', multiple: true },
  retriever: { type: 'string', short: 'r', multiple: true },
  k: { type: 'string', short: 'k' },
  budget: { type: 'string' },
  limit: { type: 'string' },
  seed: { type: 'string' },
  misses: { type: 'boolean' },
  json: { type: 'boolean' },
  postgres: { type: 'string' },
} as const;

export const DEFAULT_SEED = 'groundwork';

export async function evalCommand(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(EVAL_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length === 0) throw new UsageError('missing DATASET_DIR (a folder with corpus/ and questions.jsonl)');
    const k = integerValue(args, 'k', 1) ?? 5;
    const budget = integerValue(args, 'budget', 1) ?? 1000;
    const limit = integerValue(args, 'limit', 1);
    const seed = stringValue(args, 'seed') ?? DEFAULT_SEED;
    const configs = configsFrom(stringValues(args, 'strategy'));
    const datasets = args.positionals.map(loadDataset);
    const postgres = stringValue(args, 'postgres') ?? (process.env[DATABASE_URL_ENV]?.trim() || undefined);
    if (postgres !== undefined && postgres.trim() === '') throw new UsageError('--postgres needs a URL (postgres://user:password@host:port/database)');
    const scratchStore = postgres === undefined ? undefined : async () => (await import('../store/postgres/postgres-scratch.js')).openScratchPostgres(postgres);
    const retrievers = retrieversFrom(stringValues(args, 'retriever'));
    const embedFlags = embedFlagsFrom(args);

    const progress = progressFor(io);
    const reports: { dataset: EvalDataset; runs: ConfigRun[]; misses: Miss[] }[] = [];
    let embedder: Embedder | undefined;
    try {
      const vectors = retrievers.filter((r) => r !== 'bm25');
      if (vectors.length > 0) {
        // The settings ingest and embed take (flags > GROUNDWORK_EMBEDDINGS_*); a throw-away library has none stored.
        embedder = (await openEmbedder({ flags: embedFlags }))?.embedder;
        if (!embedder) throw new UsageError(`--retriever ${vectors.join(',')} ${NO_EMBEDDER_MESSAGE}`);
      }
      for (const dataset of datasets) {
        const questions = sampleQuestions(dataset.questions, limit, seed);
        const runs = await evaluate(dataset, questions, configs, {
          k, budget, retrievers, onProgress: (p) => progress?.(dataset.name, p), ...(scratchStore && { scratchStore }), ...(embedder && { embedder }),
        });
        reports.push({ dataset, runs, misses: flag(args, 'misses') ? findMisses(questions, runs) : [] });
      }
    } finally {
      if (progress) io.err(CLEAR_LINE);
      await embedder?.close();
    }

    if (flag(args, 'json')) {
      const rows = reports.flatMap(({ dataset, runs }) => runs.map((run) => ({ ...run.result, dataset: dataset.name })));
      io.out(`${JSON.stringify(rows, null, 2)}\n`);
      if (flag(args, 'misses')) io.err(reports.map(({ dataset, misses }) => formatMisses(dataset.name, misses)).join('\n'));
      return EXIT_OK;
    }
    const model = reports.flatMap((r) => r.runs).find((r) => r.result.embedder)?.result.embedder;
    for (const { dataset, runs, misses } of reports) {
      io.out(`${dataset.name}: ${count(runs[0]?.result.questions ?? 0, 'question')}, ${count(dataset.documents.length, 'document')}, k=${k}, budget ${budget} tokens${model ? `, vectors ${model}` : ''}\n\n`);
      io.out(formatResults(runs, dataset.questions.some((q) => q.spans.length > 1)));
      if (flag(args, 'misses')) io.out(`\n${formatMisses(dataset.name, misses)}`);
      io.out('\n');
    }
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'eval');
  }
}

/** `--retriever` values (repeated or comma-separated) in the order given, each once; default bm25. */
export function retrieversFrom(values: readonly string[]): SearchMode[] {
  const out: SearchMode[] = [];
  for (const name of values.flatMap((v) => v.split(',')).map((v) => v.trim())) {
    if (!(SEARCH_MODES as readonly string[]).includes(name)) throw new UsageError(`--retriever: unknown retriever '${name}' (retrievers: ${SEARCH_MODES.join(', ')})`);
    if (!out.includes(name as SearchMode)) out.push(name as SearchMode);
  }
  return out.length > 0 ? out : ['bm25'];
}

/** Baselines first, then the user's configurations (a repeat of a baseline is not run twice). */
export function configsFrom(specs: readonly string[]): EvalConfig[] {
  const configs = baselineConfigs();
  for (const spec of specs) {
    const config = parseStrategySpec(spec);
    if (!configs.some((c) => c.config === config.config)) configs.push(config);
  }
  return configs;
}

const CLEAR_LINE = '\r\x1b[K';

/** A throttled progress line on stderr when it is a terminal; undefined otherwise (pipes, tests). */
function progressFor(io: CliIO): ((dataset: string, p: EvalProgress) => void) | undefined {
  const terminal = terminalOf(io);
  if (!terminal?.errIsTTY) return undefined;
  const started = performance.now();
  let lastDraw = -Infinity;
  return (dataset, p) => {
    const now = performance.now();
    if (now - lastDraw < 100 && p.done < p.total) return;
    lastDraw = now;
    const fraction = p.total > 0 ? p.done / p.total : 0;
    const filled = Math.round(fraction * 20);
    const elapsed = (now - started) / 1000;
    const eta = fraction > 0 ? formatDuration((elapsed * (1 - fraction)) / fraction) : '--:--';
    const line = `[${'#'.repeat(filled)}${'-'.repeat(20 - filled)}] ${Math.floor(fraction * 100)}%  ETA ${eta}  ${dataset}: ${p.label}`;
    io.err(CLEAR_LINE + truncateToWidth(line, terminal.columns() - 1));
  };
}

const f3 = (x: number) => x.toFixed(3);
const f4 = (x: number) => x.toFixed(4);

/** One row per configuration and retriever: the scores, then the chunk sizes. */
export function formatResults(runs: readonly ConfigRun[], multiSpan: boolean): string {
  const first = runs[0]?.result;
  const k = first?.k ?? 5;
  const budget = first?.budget ?? 1000;
  const header = [
    'configuration',
    'retriever',
    `hit@${k}`,
    `partial@${k}`,
    ...(multiSpan ? [`hit_all@${k}`] : []),
    'MRR@10',
    'recall',
    'precision',
    'P_Ω',
    'IoU',
    `hit@${budget}t`,
    `partial@${budget}t`,
    'chunks',
    'mean tok',
    'p90 tok',
    'mean chars',
    's',
  ];
  const rows = runs.map(({ label, retriever, result: r }) => [
    label,
    retriever,
    f3(r.hitAtK),
    f3(r.partialHitAtK),
    ...(multiSpan ? [f3(r.hitAllAtK)] : []),
    f3(r.mrr),
    f3(r.recall),
    f4(r.precision),
    f4(r.precisionOmega),
    f4(r.iou),
    f3(r.hitAtBudget),
    f3(r.partialHitAtBudget),
    String(r.chunks),
    r.meanTokens.toFixed(0),
    String(r.p90Tokens),
    r.meanChars.toFixed(0),
    r.seconds.toFixed(1),
  ]);
  return formatTable(header, rows, header.map((_, i) => i).slice(2));
}

export function formatMisses(dataset: string, misses: readonly Miss[]): string {
  if (misses.length === 0) return `${dataset}: every question was found by some configuration.\n`;
  const lines = [`${dataset}: ${count(misses.length, 'question')} no configuration found (top hit of the first configuration in brackets):`];
  for (const { question: q, terms, topDoc } of misses) {
    lines.push(`- ${q.id} [${topDoc ?? 'no hit'}] ${JSON.stringify(q.question)}`);
    lines.push(`    evidence in ${q.doc}: ${JSON.stringify(clip(q.answer, 160))}`);
    lines.push(`    search terms: ${terms.join(' ') || '(none)'}`);
  }
  return `${lines.join('\n')}\n`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The JSON contract keys, in order (docs and tests refer to this list). */
export const RESULT_KEYS: readonly (keyof EvalResult)[] = [
  'config',
  'retriever',
  'k',
  'questions',
  'hitAtK',
  'partialHitAtK',
  'mrr',
  'recall',
  'precision',
  'precisionOmega',
  'iou',
  'budget',
  'hitAtBudget',
  'partialHitAtBudget',
  'chunks',
  'meanChars',
  'p90Chars',
  'meanTokens',
  'p90Tokens',
  'seconds',
];

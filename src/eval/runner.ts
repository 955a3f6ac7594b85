import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkText } from '../chunk.js';
import { getChunker, DEFAULT_STRATEGY } from '../chunkers/registry.js';
import type { Chunk } from '../chunkers/types.js';
import type { Document } from '../document/types.js';
import { chunksToBlocks, configHash, storableChunks } from '../library/blocks.js';
import { analyze } from '../search/analyze.js';
import { openStore } from '../store/registry.js';
import type { LibraryStore } from '../store/types.js';
import { getTokenizer } from '../tokens/index.js';
import type { TokenizerName } from '../tokens/types.js';
import type { EvalConfig } from './configs.js';
import type { EvalDataset, EvalQuestion } from './dataset.js';
import {
  allSpansHit,
  anyFullHit,
  anyPartialHit,
  chromaScores,
  mean,
  percentile,
  precisionOmega,
  reciprocalRank,
  takeWithinBudget,
  type Evidence,
  type RankedChunk,
} from './metrics.js';

/**
 * Runs a dataset's questions against a throw-away library per configuration: every document is
 * chunked with `chunkText` on its raw file text (so chunk spans are offsets into the file, like the
 * question spans), written through the library's store interface (same analysis, same index), and
 * every question is ranked over all documents with the store's BM25 (`rankText`: the ranking only).
 */

export interface EvalOptions {
  /** Chunks retrieved per question for the @k metrics (default 5). */
  k: number;
  /** Prompt budget in cl100k tokens for hitAtBudget (default 1000). */
  budget: number;
  onProgress?: (progress: EvalProgress) => void;
  /**
   * Where each configuration's throw-away library lives: an empty store and how to discard it
   * (default: SQLite in a temporary folder). `groundwork eval --postgres URL` passes a fresh schema.
   */
  scratchStore?: () => Promise<ScratchStore>;
}

/** An empty store for one evaluation, and how to delete it afterwards (it is closed first). */
export interface ScratchStore {
  store: LibraryStore;
  dispose(): Promise<void>;
}

export interface EvalProgress {
  label: string;
  /** Work done and total, in documents chunked plus questions searched, over all configurations. */
  done: number;
  total: number;
}

/** One configuration's scores: the `--json` contract keys, plus hit_all@k. */
export interface EvalResult {
  config: string;
  k: number;
  questions: number;
  hitAtK: number;
  partialHitAtK: number;
  /** Every span of a question inside the top k (differs from hitAtK on multi-span sets only). */
  hitAllAtK: number;
  mrr: number;
  recall: number;
  precision: number;
  precisionOmega: number;
  iou: number;
  budget: number;
  hitAtBudget: number;
  partialHitAtBudget: number;
  chunks: number;
  meanChars: number;
  p90Chars: number;
  meanTokens: number;
  p90Tokens: number;
  seconds: number;
}

/** Per-question outcome of one configuration, for `--misses`. */
export interface QuestionOutcome {
  partialAtK: boolean;
  /** Evidence fully inside the chunks a budget-sized prompt takes. */
  hitAtBudget: boolean;
  /** Document of the top-ranked chunk, if any. */
  topDoc: string | undefined;
  /** The first ten chunks ranked, each as `doc:start-end` (comparing two stores' rankings). */
  top: string[];
}

export interface ConfigRun {
  label: string;
  result: EvalResult;
  outcomes: QuestionOutcome[];
}

interface IndexedChunk extends RankedChunk {
  chars: number;
}

const MRR_CUTOFF = 10;
const CL100K: TokenizerName = 'cl100k_base';

export async function evaluate(dataset: EvalDataset, questions: readonly EvalQuestion[], configs: readonly EvalConfig[], options: EvalOptions): Promise<ConfigRun[]> {
  const total = configs.length * (dataset.documents.length + questions.length);
  let done = 0;
  const runs: ConfigRun[] = [];
  for (const config of configs) {
    const tick = (n: number) => {
      done += n;
      options.onProgress?.({ label: config.label, done, total });
    };
    runs.push(await evaluateConfig(dataset, questions, config, options, tick));
  }
  return runs;
}

async function evaluateConfig(
  dataset: EvalDataset,
  questions: readonly EvalQuestion[],
  config: EvalConfig,
  options: EvalOptions,
  tick: (n: number) => void,
): Promise<ConfigRun> {
  const started = performance.now();
  const counter = getTokenizer(CL100K);
  const strategy = config.options.strategy ?? DEFAULT_STRATEGY;
  const countsAreCl100k = ((config.options.tokenizer as TokenizerName | undefined) ?? getChunker(strategy).defaultTokenizer ?? CL100K) === CL100K;
  const hash = configHash({ strategy, options: config.options, tokenizer: String(config.options.tokenizer ?? '') });

  const scratch = await (options.scratchStore ?? sqliteScratchStore)();
  const { store } = scratch;
  try {
    // Chunks by document id, in ordinal order: a search hit names (docId, ordinal).
    const byDocId = new Map<string, IndexedChunk[]>();
    const byName = new Map<string, IndexedChunk[]>();
    const all: IndexedChunk[] = [];
    const scores = { hit: 0, partial: 0, hitAll: 0, mrr: 0, recall: 0, precision: 0, omega: 0, iou: 0, budgetHit: 0, budgetPartial: 0 };
    const outcomes: QuestionOutcome[] = [];
    try {
      for (const doc of dataset.documents) {
        const chunks = storableChunks(doc.text, chunkText(doc.text, config.options));
        const synthetic = syntheticDocument(doc.name, doc.text);
        await store.writeDocument({ document: synthetic, blocks: chunksToBlocks(synthetic, chunks, hash), path: null, strategy, configHash: hash, original: null, parseCacheKey: null });
        const indexed = chunks.map((c) => indexedChunk(doc.name, c, countsAreCl100k ? c.tokens : counter.count(c.text)));
        byDocId.set(synthetic.id, indexed);
        byName.set(doc.name, indexed);
        all.push(...indexed);
        tick(1);
      }

      for (const q of questions) {
        const evidence: Evidence = { doc: q.doc, spans: q.spans };
        const ranked = await retrieve(store, byDocId, q.question, options);
        const topK = ranked.slice(0, options.k);
        const partialAtK = anyPartialHit(topK, evidence);
        if (anyFullHit(topK, evidence)) scores.hit++;
        if (partialAtK) scores.partial++;
        if (allSpansHit(topK, evidence)) scores.hitAll++;
        scores.mrr += reciprocalRank(ranked, evidence, MRR_CUTOFF);
        const chroma = chromaScores(topK, evidence);
        scores.recall += chroma.recall;
        scores.precision += chroma.precision;
        scores.iou += chroma.iou;
        scores.omega += precisionOmega(byName.get(q.doc) ?? [], evidence);
        const taken = takeWithinBudget(ranked, options.budget);
        const hitAtBudget = anyFullHit(taken, evidence);
        if (hitAtBudget) scores.budgetHit++;
        if (anyPartialHit(taken, evidence)) scores.budgetPartial++;
        outcomes.push({ partialAtK, hitAtBudget, topDoc: ranked[0]?.doc, top: ranked.slice(0, MRR_CUTOFF).map((c) => `${c.doc}:${c.start}-${c.end}`) });
        tick(1);
      }
    } finally {
      await store.close();
    }

    const n = Math.max(1, questions.length);
    const chars = all.map((c) => c.chars);
    const tokens = all.map((c) => c.tokens);
    const result: EvalResult = {
      config: config.config,
      k: options.k,
      questions: questions.length,
      hitAtK: scores.hit / n,
      partialHitAtK: scores.partial / n,
      hitAllAtK: scores.hitAll / n,
      mrr: scores.mrr / n,
      recall: scores.recall / n,
      precision: scores.precision / n,
      precisionOmega: scores.omega / n,
      iou: scores.iou / n,
      budget: options.budget,
      hitAtBudget: scores.budgetHit / n,
      partialHitAtBudget: scores.budgetPartial / n,
      chunks: all.length,
      meanChars: mean(chars),
      p90Chars: percentile(chars, 90),
      meanTokens: mean(tokens),
      p90Tokens: percentile(tokens, 90),
      seconds: (performance.now() - started) / 1000,
    };
    return { label: config.label, result, outcomes };
  } finally {
    await scratch.dispose();
  }
}

/** The default scratch store: SQLite in a temporary folder, deleted after. */
async function sqliteScratchStore(): Promise<ScratchStore> {
  const dir = mkdtempSync(join(tmpdir(), 'groundwork-eval-'));
  try {
    const store = await openStore({ kind: 'sqlite', file: join(dir, 'library.sqlite') });
    return { store, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The ranked chunks for a question: at least max(k, 10) of them, and more while the ones fetched
 * fit the token budget (small chunks fill a prompt with many), so hitAtBudget sees what a prompt would.
 */
async function retrieve(store: LibraryStore, byDocId: ReadonlyMap<string, IndexedChunk[]>, query: string, options: EvalOptions): Promise<IndexedChunk[]> {
  let want = Math.max(options.k, MRR_CUTOFF);
  for (;;) {
    // The ranking only: cutting snippets or loading block text for every hit would cost more than the search.
    const hits = await store.rankText(query, want);
    const ranked = hits.map((h) => byDocId.get(h.docId)![h.ordinal]!);
    if (hits.length < want) return ranked;
    let used = 0;
    for (const c of ranked) used += c.tokens;
    if (used > options.budget) return ranked;
    want *= 4;
  }
}

/**
 * A chunk's source range: the span of the file text it covers, widened to `contextStart` when its
 * prefix repeats source text before the span (structure's overlap), which its text shows the model too.
 */
function indexedChunk(doc: string, chunk: Chunk, cl100kTokens: number): IndexedChunk {
  return { doc, start: chunk.contextStart ?? chunk.start, end: chunk.end, tokens: cl100kTokens, chars: chunk.chars };
}

/** The document header a store write needs; only the id and the text matter to the index. */
function syntheticDocument(name: string, text: string): Document {
  return {
    id: createHash('sha256').update(name).update('\u0000').update(text).digest('hex'),
    source: { name, bytes: Buffer.byteLength(text) },
    format: 'markdown',
    mime: 'text/markdown',
    title: name,
    metadata: {},
    elements: [],
    warnings: [],
    canonical: text,
  };
}

/** A question no configuration found (not even half of a span in its top k). */
export interface Miss {
  question: EvalQuestion;
  /** The question's search terms after analysis (stemmed English, jieba-segmented Chinese). */
  terms: string[];
  /** Where the first configuration's top hit came from. */
  topDoc: string | undefined;
}

export function findMisses(questions: readonly EvalQuestion[], runs: readonly ConfigRun[]): Miss[] {
  const misses: Miss[] = [];
  questions.forEach((question, i) => {
    if (runs.some((run) => run.outcomes[i]!.partialAtK)) return;
    misses.push({ question, terms: [...new Set(analyze(question.question))], topDoc: runs[0]?.outcomes[i]?.topDoc });
  });
  return misses;
}

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkText } from '../chunk.js';
import { getChunker, DEFAULT_STRATEGY } from '../chunkers/registry.js';
import type { Chunk } from '../chunkers/types.js';
import type { Document } from '../document/types.js';
import type { Embedder } from '../embed/types.js';
import { GroundworkError } from '../errors.js';
import { chunksToBlocks, configHash, storableChunks } from '../library/blocks.js';
import { Library } from '../library/library.js';
import { SEARCH_MODES, type SearchMode } from '../retrieval/options.js';
import type { RetrievedHit } from '../retrieval/pipeline.js';
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
 * question spans) and written through the library's store interface (same analysis, same index);
 * with a vector retriever asked for, the library then embeds its blocks with the given embedder
 * (`Library.useEmbedder` + `Library.embed`, the contextual text `groundwork embed` sends). Every
 * question is then searched over all documents with `library.search(question, { mode })` for each
 * retriever: the library's own pipeline (section references, fusion, merging of overlapping hits,
 * duplicates collapsed), so the numbers are what a user of the library gets.
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
  /** The retrievers compared (library search modes), each a row per configuration (default `['bm25']`). */
  retrievers?: readonly SearchMode[];
  /**
   * Embeds the chunks and the questions for `vector` and `hybrid` (required for them). The caller
   * owns it (it is not closed here); one embedder serves every configuration.
   */
  embedder?: Embedder;
}

/** What `vector` and `hybrid` need and the user can set: the error when it is missing. */
export const NO_EMBEDDER_MESSAGE =
  'needs an embedder: give --embed-url URL --embed-model NAME (or set GROUNDWORK_EMBEDDINGS_URL and GROUNDWORK_EMBEDDINGS_MODEL), ' +
  'or --embed-model-path DIR (GROUNDWORK_EMBEDDINGS_MODEL_PATH) for a local ONNX model';

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
  /** The library search mode that ranked the chunks: bm25, vector or hybrid. */
  retriever: SearchMode;
  /** The vectors' model (embedder id) for vector and hybrid; null for bm25. */
  embedder: string | null;
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
  /**
   * Wall time: chunking and indexing, embedding every chunk (vector and hybrid; once per
   * configuration, counted in each of them), and this retriever's searches.
   */
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
  retriever: SearchMode;
  result: EvalResult;
  outcomes: QuestionOutcome[];
}

interface IndexedChunk extends RankedChunk {
  chars: number;
}

const MRR_CUTOFF = 10;
/** Most hits one library search returns (the retrieval schema's bound on k). */
const MAX_HITS = 1000;
const CL100K: TokenizerName = 'cl100k_base';

/** The retrievers to run, in the order given, each once; INVALID_OPTIONS for an unknown one or a missing embedder. */
export function resolveRetrievers(retrievers: readonly string[] | undefined, embedder: Embedder | undefined): SearchMode[] {
  const out: SearchMode[] = [];
  for (const name of retrievers ?? ['bm25']) {
    if (!(SEARCH_MODES as readonly string[]).includes(name)) throw new GroundworkError('INVALID_OPTIONS', `unknown retriever '${name}' (retrievers: ${SEARCH_MODES.join(', ')})`);
    if (!out.includes(name as SearchMode)) out.push(name as SearchMode);
  }
  if (out.length === 0) throw new GroundworkError('INVALID_OPTIONS', `no retriever given (retrievers: ${SEARCH_MODES.join(', ')})`);
  const vectors = out.filter((r) => r !== 'bm25');
  if (vectors.length > 0 && !embedder) throw new GroundworkError('INVALID_OPTIONS', `retriever ${vectors.join(' and ')} ${NO_EMBEDDER_MESSAGE}`);
  return out;
}

/**
 * One run per configuration and retriever, configuration by configuration (each configuration's
 * library is built, and embedded when a retriever needs vectors, once for all its retrievers).
 */
export async function evaluate(dataset: EvalDataset, questions: readonly EvalQuestion[], configs: readonly EvalConfig[], input: EvalOptions): Promise<ConfigRun[]> {
  const retrievers = resolveRetrievers(input.retrievers, input.embedder);
  // Every configuration and vector retriever embeds the same questions: once each is enough.
  const options = input.embedder ? { ...input, embedder: memoizeQueries(input.embedder, questions.length) } : input;
  const total = configs.length * (dataset.documents.length + questions.length * retrievers.length);
  let done = 0;
  const runs: ConfigRun[] = [];
  for (const config of configs) {
    const tick = (n: number) => {
      done += n;
      options.onProgress?.({ label: config.label, done, total });
    };
    runs.push(...(await evaluateConfig(dataset, questions, config, retrievers, options, tick)));
  }
  return runs;
}

async function evaluateConfig(
  dataset: EvalDataset,
  questions: readonly EvalQuestion[],
  config: EvalConfig,
  retrievers: readonly SearchMode[],
  options: EvalOptions,
  tick: (n: number) => void,
): Promise<ConfigRun[]> {
  const started = performance.now();
  const counter = getTokenizer(CL100K);
  const strategy = config.options.strategy ?? DEFAULT_STRATEGY;
  const countsAreCl100k = ((config.options.tokenizer as TokenizerName | undefined) ?? getChunker(strategy).defaultTokenizer ?? CL100K) === CL100K;
  const hash = configHash({ strategy, options: config.options, tokenizer: String(config.options.tokenizer ?? '') });

  const scratch = await (options.scratchStore ?? sqliteScratchStore)();
  // The Library's folder (an SQLite store keeps originals there; none are written): a temporary one.
  const dir = mkdtempSync(join(tmpdir(), 'groundwork-eval-library-'));
  try {
    const { store } = scratch;
    let library: Library;
    try {
      library = await Library.open(dir, { store });
    } catch (error) {
      await store.close();
      throw error;
    }
    // Chunks by block id: a hit names its blocks.
    const byBlockId = new Map<string, IndexedChunk>();
    const byName = new Map<string, IndexedChunk[]>();
    const all: IndexedChunk[] = [];
    const runs: ConfigRun[] = [];
    try {
      for (const doc of dataset.documents) {
        const chunks = storableChunks(doc.text, chunkText(doc.text, config.options));
        const synthetic = syntheticDocument(doc.name, doc.text);
        const blocks = chunksToBlocks(synthetic, chunks, hash);
        await store.writeDocument({ document: synthetic, blocks, path: null, strategy, configHash: hash, original: null, parseCacheKey: null });
        const indexed = chunks.map((c) => indexedChunk(doc.name, c, countsAreCl100k ? c.tokens : counter.count(c.text)));
        blocks.forEach((b, i) => byBlockId.set(b.id, indexed[i]!));
        byName.set(doc.name, indexed);
        all.push(...indexed);
        tick(1);
      }
      const indexSeconds = (performance.now() - started) / 1000;
      let embedSeconds = 0;
      let model: string | null = null;
      if (retrievers.some((r) => r !== 'bm25')) {
        const t0 = performance.now();
        await library.useEmbedder({ embedder: options.embedder! });
        await library.embed();
        model = (await library.vectorStats()).model;
        embedSeconds = (performance.now() - t0) / 1000;
      }
      const chars = all.map((c) => c.chars);
      const tokens = all.map((c) => c.tokens);
      const sizes = { chunks: all.length, meanChars: mean(chars), p90Chars: percentile(chars, 90), meanTokens: mean(tokens), p90Tokens: percentile(tokens, 90) };
      for (const retriever of retrievers) {
        const t0 = performance.now();
        const { scores, outcomes } = await runQuestions(library, byBlockId, byName, questions, retriever, options, counter, tick);
        const n = Math.max(1, questions.length);
        const result: EvalResult = {
          config: config.config,
          retriever,
          embedder: retriever === 'bm25' ? null : model,
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
          ...sizes,
          seconds: indexSeconds + (retriever === 'bm25' ? 0 : embedSeconds) + (performance.now() - t0) / 1000,
        };
        runs.push({ label: config.label, retriever, result, outcomes });
      }
    } finally {
      await library.close();
    }
    return runs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await scratch.dispose();
  }
}

type Scores = { hit: number; partial: number; hitAll: number; mrr: number; recall: number; precision: number; omega: number; iou: number; budgetHit: number; budgetPartial: number };

/** Every question searched with one retriever, scored. */
async function runQuestions(
  library: Library,
  byBlockId: ReadonlyMap<string, IndexedChunk>,
  byName: ReadonlyMap<string, IndexedChunk[]>,
  questions: readonly EvalQuestion[],
  mode: SearchMode,
  options: EvalOptions,
  counter: ReturnType<typeof getTokenizer>,
  tick: (n: number) => void,
): Promise<{ scores: Scores; outcomes: QuestionOutcome[] }> {
  const scores: Scores = { hit: 0, partial: 0, hitAll: 0, mrr: 0, recall: 0, precision: 0, omega: 0, iou: 0, budgetHit: 0, budgetPartial: 0 };
  const outcomes: QuestionOutcome[] = [];
  for (const q of questions) {
    const evidence: Evidence = { doc: q.doc, spans: q.spans };
    const ranked = await retrieve(library, byBlockId, q.question, mode, options, counter);
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
  return { scores, outcomes };
}

/**
 * The embedder with its one-text calls (query embeddings: `embedQuery` sends one text) remembered,
 * up to `limit` of them, so each question is sent once per evaluation, not once per configuration
 * and retriever. Batches (the chunks) pass through. Everything else is the embedder's own.
 */
function memoizeQueries(embedder: Embedder, limit: number): Embedder {
  const seen = new Map<string, Promise<Float32Array[]>>();
  return new Proxy(embedder, {
    get(target, property) {
      if (property === 'embed') {
        return (texts: readonly string[], callOptions?: Parameters<Embedder['embed']>[1]) => {
          if (texts.length !== 1) return target.embed(texts, callOptions);
          const text = texts[0]!;
          let answer = seen.get(text);
          if (!answer) {
            answer = target.embed(texts, callOptions);
            // A failed call is not remembered: the next search asks again.
            answer.catch(() => seen.delete(text));
            if (seen.size < limit) seen.set(text, answer);
          }
          return answer.then((vectors) => vectors.map((v) => new Float32Array(v)));
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
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
 * The ranked passages for a question, from `library.search` in this mode: at least max(k, 10) of
 * them, and more while the ones fetched fit the token budget (small chunks fill a prompt with
 * many), so hitAtBudget sees what a prompt would (up to 1000 hits, the search's bound).
 */
async function retrieve(
  library: Library, byBlockId: ReadonlyMap<string, IndexedChunk>, query: string, mode: SearchMode, options: EvalOptions, counter: ReturnType<typeof getTokenizer>,
): Promise<IndexedChunk[]> {
  let want = Math.min(Math.max(options.k, MRR_CUTOFF), MAX_HITS);
  for (;;) {
    const { hits } = await library.search(query, { mode, k: want });
    const ranked = hits.map((h) => passageOf(h, byBlockId, counter));
    if (hits.length < want || want >= MAX_HITS) return ranked;
    let used = 0;
    for (const c of ranked) used += c.tokens;
    if (used > options.budget) return ranked;
    want = Math.min(want * 4, MAX_HITS);
  }
}

/**
 * A hit as a ranked range of the file: its chunk when it is one block; when the library merged
 * overlapping chunks into one passage, the union of their ranges, and the passage text's tokens.
 */
function passageOf(hit: RetrievedHit, byBlockId: ReadonlyMap<string, IndexedChunk>, counter: ReturnType<typeof getTokenizer>): IndexedChunk {
  const chunks = hit.blockIds.map((id) => byBlockId.get(id)).filter((c): c is IndexedChunk => c !== undefined);
  if (chunks.length === 0) throw new Error(`eval: a hit names blocks this evaluation did not write (${hit.blockIds.join(', ')})`);
  if (chunks.length === 1) return chunks[0]!;
  let start = Infinity;
  let end = -Infinity;
  for (const c of chunks) {
    start = Math.min(start, c.start);
    end = Math.max(end, c.end);
  }
  return { doc: chunks[0]!.doc, start, end, tokens: counter.count(hit.text), chars: hit.text.length };
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

/**
 * What is embedded, and how texts longer than the model takes are handled.
 *
 * A block is embedded as its contextual text, like Docling's `contextualize`: the heading path
 * (one heading per line) and the caption go before the block's text, so a paragraph under
 * "第三章 安装 > 3.2 前提条件" is found by what its section is about. See `contextualize`.
 *
 * A text longer than the model's input limit is never truncated. It is split into consecutive
 * windows at sentence boundaries (a sentence longer than a window is cut at a space, else between
 * grapheme clusters, else between code points: never inside a surrogate pair), each window repeating the heading/caption context, every window within the
 * limit by the embedder's own count; the windows are embedded and their vectors averaged, weighted
 * by tokens (and renormalised when the model's vectors have length 1), so every block still has
 * exactly one vector. The report counts the blocks split, their windows, and the blocks whose
 * context had to be left out of the windows (when it alone took half the limit).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { GroundworkError } from '../errors.js';
import { graphemeCeil, graphemeFloor } from '../text/graphemes.js';
import { splitSentences } from '../text/sentences.js';
import { parseSettings } from './issues.js';
import type { EmbedCallOptions, Embedder } from './types.js';
import { combineVectors } from './vectors.js';

/** What `contextualize` reads: a stored `Block` fits, and so does any `{ text, headingPath }`. */
export interface ContextualBlock {
  text: string;
  headingPath?: readonly string[] | null;
  /** A caption of the block (a figure's, a table's); `table.caption` is read when this is absent. */
  caption?: string | null;
  table?: { caption?: string | undefined } | null;
}

export const contextOptionsSchema = z.strictObject({
  headings: z.boolean().optional().describe('put the heading path before the text (default true)'),
  maxHeadings: z.int().min(1).max(32).optional().describe('keep only the innermost N headings of the path (default: all)'),
  caption: z.boolean().optional().describe("put the block's caption before the text (default true)"),
  separator: z.string().max(20).optional().describe('between the headings, the caption and the text (default a newline, as Docling)'),
  prefix: z.string().max(1000).optional().describe("put before everything: the embedder's documentPrefix, e.g. \"search_document: \""),
});

export type ContextOptions = z.infer<typeof contextOptionsSchema>;

/** A text ready to embed: `text === context + body`, and `hash` its key. */
export interface EmbeddingText {
  /** What is sent to the model. */
  text: string;
  /** Everything before the body: prefix, headings, caption, with their separators. */
  context: string;
  /** The part of `context` that is the caller's prefix (kept when the rest must go). */
  prefix: string;
  /** The block's own text. */
  body: string;
  /** `textHash(text)`: vectors are keyed by it (with the embedder's id). */
  hash: string;
}

/** sha256 (hex) of the exact text embedded: the text half of a vector's key. */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The block's contextual text. Defaults: every heading of the path, one per line, then the
 * caption, then the text, joined by newlines (Docling's HierarchicalChunker.contextualize):
 *
 *     第三章 履约
 *     3.2 前提条件
 *     履约须满足三个前提条件……
 *
 * Context the text already shows is not repeated: a text that opens with its heading path as a
 * breadcrumb (the structure chunker's `breadcrumb` option: `A > B\n\n`) gets no headings, a text
 * that opens with its own heading (`## 3.2 前提条件`) does not get that heading again, and a
 * caption the text contains is not added. Pure; validates `options` (INVALID_OPTIONS).
 */
export function contextualize(block: ContextualBlock, options: ContextOptions = {}): EmbeddingText {
  const { headings: withHeadings = true, maxHeadings, caption: withCaption = true, separator = '\n', prefix = '' } = parseSettings(contextOptionsSchema, options, 'context options');
  const body = block.text;
  const parts: string[] = [];
  if (withHeadings) parts.push(...headingsToAdd(body, block.headingPath ?? [], maxHeadings));
  if (withCaption) {
    const caption = (block.caption ?? block.table?.caption ?? '').trim();
    if (caption !== '' && !body.includes(caption)) parts.push(caption);
  }
  const context = prefix + parts.map((p) => p + separator).join('');
  const text = context + body;
  return { text, context, prefix, body, hash: textHash(text) };
}

/** The contextual text alone (see `contextualize`). */
export function contextualText(block: ContextualBlock, options: ContextOptions = {}): string {
  return contextualize(block, options).text;
}

function headingsToAdd(body: string, path: readonly string[], maxHeadings: number | undefined): string[] {
  let headings = path.map((h) => h.trim()).filter((h) => h !== '');
  if (headings.length === 0) return [];
  // A breadcrumb (the structure chunker drops outer levels when the whole path does not fit).
  for (let from = 0; from < headings.length; from++) {
    if (body.startsWith(`${headings.slice(from).join(' > ')}\n`)) return [];
  }
  const newline = body.indexOf('\n');
  const firstLine = /^\s*#{1,6}[ \t]+([^\n]*)/.exec(body)?.[1]?.trim() ?? (newline < 0 ? body : body.slice(0, newline)).trim();
  if (firstLine === headings[headings.length - 1]) headings = headings.slice(0, -1);
  return maxHeadings !== undefined ? headings.slice(-maxHeadings) : headings;
}

/** The windows one text is embedded as, and their tokens. */
export interface Windows {
  texts: string[];
  tokens: number[];
  /** The context was left out of the windows: it alone took half the limit or more. */
  contextDropped: boolean;
}

/** Longest piece a binary search considers, in characters per token of the limit. */
const MAX_CHARS_PER_TOKEN = 64;

/**
 * The windows of `item` for a model that takes `max` tokens as `count` counts them: `[text]` when
 * it fits; else consecutive pieces of the body, each with the context in front, covering the body
 * exactly in order, each within `max`. Costs a constant number of counts per window.
 */
export function embeddingWindows(item: EmbeddingText | string, max: number, count: (text: string) => number): Windows {
  const it = typeof item === 'string' ? { text: item, context: '', prefix: '', body: item } : item;
  const whole = count(it.text);
  if (whole <= max) return { texts: [it.text], tokens: [whole], contextDropped: false };
  // Tokens every input costs however short (BERT's [CLS] and [SEP]; 0 for BPE).
  const overhead = count('');
  let header = it.context;
  let contextDropped = false;
  if (count(header) - overhead >= (max - overhead) / 2) {
    header = count(it.prefix) - overhead < (max - overhead) / 2 ? it.prefix : '';
    contextDropped = header !== it.context;
  }
  const body = it.body;
  const fits = (from: number, to: number): number | undefined => {
    const n = count(header + body.slice(from, to));
    return n <= max ? n : undefined;
  };
  const headerTokens = count(header) - overhead;
  const sentences = splitSentences(body);
  const spans = sentences.length > 0 ? sentences : [{ start: 0, end: body.length }];
  const own = spans.map((s) => Math.max(0, count(body.slice(s.start, s.end)) - overhead));
  const texts: string[] = [];
  const tokens: number[] = [];
  const push = (from: number, to: number, n: number) => {
    texts.push(header + body.slice(from, to));
    tokens.push(n);
  };
  let i = 0;
  let pos = spans.length > 0 ? spans[0]!.start : 0;
  while (i < spans.length) {
    // The sentences that probably fit (token counts nearly add up), then checked exactly.
    // Mid-sentence (after a cut), the rest of sentence i is counted afresh.
    const first = pos === spans[i]!.start ? own[i]! : Math.max(0, count(body.slice(pos, spans[i]!.end)) - overhead);
    let j = i;
    let estimate = overhead + headerTokens;
    while (j < spans.length) {
      const t = j === i ? first : own[j]!;
      if (estimate + t > max) break;
      estimate += t;
      j++;
    }
    let placed = false;
    while (j > i) {
      const n = fits(pos, spans[j - 1]!.end);
      if (n !== undefined) {
        push(pos, spans[j - 1]!.end, n);
        i = j;
        pos = i < spans.length ? spans[i]!.start : body.length;
        placed = true;
        break;
      }
      j--;
    }
    if (placed) continue;
    // Sentence i (from pos) is longer than a window: cut it.
    const end = spans[i]!.end;
    const cut = longestFit(body, pos, end, max, fits);
    push(pos, cut.end, cut.tokens);
    pos = cut.end;
    if (pos >= end) i++;
  }
  return { texts, tokens, contextDropped };
}

/**
 * The longest body[from, end) within the limit: a binary search over grapheme boundaries (over
 * code points when not even one grapheme cluster fits), then back to a space when one is near.
 */
function longestFit(body: string, from: number, to: number, max: number, fits: (from: number, to: number) => number | undefined): { end: number; tokens: number } {
  const hi = Math.min(to, from + max * MAX_CHARS_PER_TOKEN);
  const best = searchFit(from, hi, fits, (i) => graphemeFloor(body, i), (i) => graphemeCeil(body, i)) ?? searchFit(from, hi, fits, (i) => codePointFloor(body, i), (i) => codePointFloor(body, i + 1));
  if (!best) {
    throw new GroundworkError('LIMIT_EXCEEDED', `embedding window: not even one character of the text fits beside its context within ${max} tokens`, {
      limit: { name: 'maxInputTokens', value: max, flag: '--embed-max-tokens' },
    });
  }
  if (best.end < to) {
    const floor = best.end - Math.floor((best.end - from) / 5);
    for (let k = best.end; k > floor && k > from; k--) {
      if (/\s/.test(body[k - 1]!)) {
        const n = fits(from, k);
        if (n !== undefined) return { end: k, tokens: n };
        break;
      }
    }
  }
  return best;
}

/** Largest cut in (from, hi] that `fits`, among the positions `floor`/`ceil` snap to. */
function searchFit(from: number, hi: number, fits: (from: number, to: number) => number | undefined, floor: (i: number) => number, ceil: (i: number) => number): { end: number; tokens: number } | undefined {
  let lo = from;
  let best: { end: number; tokens: number } | undefined;
  while (lo < hi) {
    const mid = lo + Math.ceil((hi - lo) / 2);
    let cut = floor(mid);
    if (cut <= lo) {
      cut = ceil(mid);
      if (cut > hi) break;
    }
    const n = fits(from, cut);
    if (n !== undefined) {
      best = { end: cut, tokens: n };
      lo = cut;
    } else {
      hi = cut - 1;
    }
  }
  return best;
}

/** `i`, or `i - 1` when `i` falls between the halves of a surrogate pair. */
function codePointFloor(text: string, i: number): number {
  if (i <= 0 || i >= text.length) return Math.max(0, Math.min(i, text.length));
  const c = text.charCodeAt(i);
  const before = text.charCodeAt(i - 1);
  return c >= 0xdc00 && c <= 0xdfff && before >= 0xd800 && before <= 0xdbff ? i - 1 : i;
}

export interface EmbedReport {
  /** Texts asked for. */
  items: number;
  /** Items whose text equalled an earlier one's: embedded once, the vector shared. */
  duplicates: number;
  /** Texts sent to the embedder: one per item that fits, one per window of a split one, each distinct text once. */
  inputs: number;
  /** Items longer than the model's input limit: embedded as several windows, vectors averaged. */
  split: number;
  /** Windows of the split items. */
  windows: number;
  /** Split items whose heading/caption context was left out of their windows (it took half the limit). */
  contextDropped: number;
  /** Tokens of the inputs sent, as the embedder counts them. */
  tokens: number;
  /** The first 100 split items: position in the list, tokens, windows. */
  splitItems: { index: number; tokens: number; windows: number }[];
}

export interface EmbedProgress {
  /** Inputs embedded so far, and in all. */
  done: number;
  total: number;
}

export interface EmbedDocumentsOptions extends EmbedCallOptions {
  /** Called after every slice of inputs (and once at the end). */
  onProgress?: (progress: EmbedProgress) => void;
  /** Inputs handed to `embed` at once (the embedder batches within); default 256. */
  sliceSize?: number;
}

const MAX_SPLIT_LISTED = 100;

/**
 * One vector per item, in order: contextual texts (`contextualize`) or plain strings. Identical
 * texts are embedded once; texts over the model's limit are split into windows and averaged (see
 * the file comment). The report says what was done; nothing is truncated.
 */
export async function embedDocuments(embedder: Embedder, items: readonly (EmbeddingText | string)[], options: EmbedDocumentsOptions = {}): Promise<{ vectors: Float32Array[]; report: EmbedReport }> {
  const report: EmbedReport = { items: items.length, duplicates: 0, inputs: 0, split: 0, windows: 0, contextDropped: 0, tokens: 0, splitItems: [] };
  const inputs: string[] = [];
  const inputIds = new Map<string, number>();
  const plans: { ids: number[]; weights: number[] }[] = [];
  const planByText = new Map<string, number>();
  const count = (t: string) => embedder.countTokens(t);
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    const text = typeof item === 'string' ? item : item.text;
    if (typeof text !== 'string' || text === '') throw new GroundworkError('INVALID_OPTIONS', `embedDocuments: item ${index} has no text`);
    const earlier = planByText.get(text);
    if (earlier !== undefined) {
      report.duplicates++;
      plans.push(plans[earlier]!);
      continue;
    }
    const windows = embeddingWindows(item, embedder.maxInputTokens, count);
    if (windows.texts.length > 1) {
      report.split++;
      report.windows += windows.texts.length;
      if (windows.contextDropped) report.contextDropped++;
      if (report.splitItems.length < MAX_SPLIT_LISTED) report.splitItems.push({ index, tokens: count(text), windows: windows.texts.length });
    }
    const ids = windows.texts.map((w, k) => {
      let id = inputIds.get(w);
      if (id === undefined) {
        id = inputs.length;
        inputs.push(w);
        inputIds.set(w, id);
        report.tokens += windows.tokens[k]!;
      }
      return id;
    });
    planByText.set(text, plans.length);
    plans.push({ ids, weights: windows.tokens });
  }
  report.inputs = inputs.length;

  const vectors = new Array<Float32Array>(inputs.length);
  const slice = Math.max(1, options.sliceSize ?? 256);
  const callOptions: EmbedCallOptions = options.signal ? { signal: options.signal } : {};
  for (let from = 0; from < inputs.length; from += slice) {
    const part = await embedder.embed(inputs.slice(from, from + slice), callOptions);
    if (part.length !== Math.min(slice, inputs.length - from)) throw new GroundworkError('EMBEDDER', `the ${embedder.provider} embedder answered ${part.length} vectors for ${Math.min(slice, inputs.length - from)} texts`);
    part.forEach((v, k) => (vectors[from + k] = v));
    options.onProgress?.({ done: Math.min(inputs.length, from + slice), total: inputs.length });
  }
  if (inputs.length === 0) options.onProgress?.({ done: 0, total: 0 });
  return { vectors: plans.map((p) => combineVectors(p.ids.map((id) => vectors[id]!), p.weights)), report };
}

/**
 * A query's vector: the embedder's `queryPrefix` before it; a query longer than the limit is
 * windowed and averaged like a document.
 */
export async function embedQuery(embedder: Embedder, query: string, options: EmbedCallOptions = {}): Promise<Float32Array> {
  if (typeof query !== 'string' || query.trim() === '') throw new GroundworkError('INVALID_OPTIONS', 'embedQuery: the query is empty');
  const prefix = embedder.queryPrefix ?? '';
  const item: EmbeddingText = { text: prefix + query, context: prefix, prefix, body: query, hash: '' };
  const { vectors } = await embedDocuments(embedder, [item], options);
  return vectors[0]!;
}

/**
 * The embedder's dimensions, asking it once (one short text) when they are not known yet, so a
 * store can create its vector table before the first batch.
 */
export async function ensureDimensions(embedder: Embedder, options: EmbedCallOptions = {}): Promise<number> {
  if (embedder.dimensions !== undefined) return embedder.dimensions;
  const [vector] = await embedder.embed(['dimensions'], options);
  return embedder.dimensions ?? vector!.length;
}

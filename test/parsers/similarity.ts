/**
 * Similarity measures for comparing a parse with ground truth (docling Markdown, unstructured
 * element lists...). Shared by the parser tests.
 *
 * - Text: token-level F1 over multisets of tokens after normalisation (NFKC, lower case, Markdown
 *   and HTML markup removed). A token is a run of letters/digits, or one CJK character (Chinese and
 *   Japanese have no spaces, so characters are the unit).
 * - Reading order: the same token F1 with matches counted as the longest common subsequence.
 * - Headings (or any sequence): F1 where the matched count is the longest common subsequence of the
 *   normalised strings, so both missing and out-of-order items cost.
 * - Tables: share of expected cells whose normalised text equals ours at the same row and column.
 */

import { expect } from 'vitest';

export interface Score {
  precision: number;
  recall: number;
  f1: number;
}

const MARKDOWN_LINK = /!?\[([^\]]*)\]\([^)]*\)/g;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;
const HTML_TAG = /<\/?[A-Za-z][^>]*>/g;
const TABLE_RULE = /^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$/gm;
const CJK_CHAR = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}';
const TOKEN = new RegExp(`[${CJK_CHAR}]|(?:(?![${CJK_CHAR}])[\\p{L}\\p{N}\\p{M}])+`, 'gu');

/** Plain text of Markdown (or already plain text): links/images to their text, tags and rules removed. */
export function stripMarkup(text: string): string {
  return text
    .replace(HTML_COMMENT, ' ')
    .replace(MARKDOWN_LINK, '$1')
    .replace(HTML_TAG, ' ')
    .replace(TABLE_RULE, ' ');
}

export function tokens(text: string): string[] {
  return stripMarkup(text).normalize('NFKC').toLowerCase().match(TOKEN) ?? [];
}

function counts(items: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const item of items) map.set(item, (map.get(item) ?? 0) + 1);
  return map;
}

function score(matched: number, ours: number, expected: number): Score {
  const precision = ours === 0 ? (expected === 0 ? 1 : 0) : matched / ours;
  const recall = expected === 0 ? (ours === 0 ? 1 : 0) : matched / expected;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/** Multiset token F1 of two texts. Precision: share of our tokens in the expected text; recall: the reverse. */
export function tokenF1(ours: string, expected: string): Score {
  const a = tokens(ours);
  const b = counts(tokens(expected));
  let matched = 0;
  for (const token of a) {
    const left = b.get(token) ?? 0;
    if (left > 0) {
      matched++;
      b.set(token, left - 1);
    }
  }
  return score(matched, a.length, tokens(expected).length);
}

/**
 * Token F1 where the matched count is the longest common subsequence of the two token sequences:
 * words out of reading order (columns read across, list markers apart from their items, a line's
 * pieces shuffled) cost here though the multiset `tokenF1` does not see them.
 */
export function orderF1(ours: string, expected: string): Score {
  const ids = new Map<string, number>();
  const intern = (list: string[]): Int32Array => Int32Array.from(list, (t) => ids.get(t) ?? (ids.set(t, ids.size), ids.size - 1));
  const a = intern(tokens(ours));
  const b = intern(tokens(expected));
  let prev = new Int32Array(b.length + 1);
  let row = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const token = a[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      row[j] = token === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    }
    [prev, row] = [row, prev];
  }
  return score(prev[b.length]!, a.length, b.length);
}

/** A heading or cell text reduced to its tokens joined by single spaces. */
export function normaliseLabel(text: string): string {
  return tokens(text).join(' ');
}

/** F1 of two sequences by their longest common subsequence after `normaliseLabel`. */
export function sequenceF1(ours: readonly string[], expected: readonly string[]): Score {
  const a = ours.map(normaliseLabel);
  const b = expected.map(normaliseLabel);
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      row[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    }
    prev = row;
  }
  return score(prev[b.length]!, a.length, b.length);
}

const FENCE = /^\s*(```|~~~)/;
const ATX_HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

/** ATX headings of a Markdown text, outside code fences. */
export function markdownHeadings(markdown: string): string[] {
  const headings: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    else if (!inFence) {
      const m = ATX_HEADING.exec(line);
      if (m) headings.push(m[2]!);
    }
  }
  return headings;
}

/** Pipe tables of a Markdown text as rows of cell texts (rule rows skipped). */
export function markdownTables(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of markdown.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('|')) {
      current = undefined;
      continue;
    }
    if (!current) {
      current = [];
      tables.push(current);
    }
    if (/^\|?[\s|:-]+$/.test(trimmed) && trimmed.includes('-')) continue;
    const inner = trimmed.replace(/^\|/, '').replace(/\|$/, '');
    current.push(inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|')));
  }
  return tables;
}

/** Share of expected cells whose normalised text equals ours at the same position (0 when shapes differ wholly). */
export function cellAgreement(ours: readonly (readonly string[])[], expected: readonly (readonly string[])[]): number {
  let total = 0;
  let equal = 0;
  expected.forEach((row, r) => {
    row.forEach((cell, c) => {
      total++;
      if (normaliseLabel(ours[r]?.[c] ?? '\u0000') === normaliseLabel(cell)) equal++;
    });
  });
  return total === 0 ? 1 : equal / total;
}

/**
 * The full match against docling's Markdown for a small page: heading-sequence F1 = 1, token F1 of
 * the canonical text >= `minTextF1`, and every expected table cell-equal to ours, in order.
 */
export function expectDoclingMatch(doc: { canonical: string; elements: readonly { kind: string; text: string }[] }, expectedMarkdown: string, minTextF1 = 0.95): void {
  const headings = doc.elements.filter((el) => el.kind === 'heading').map((el) => el.text);
  expect(sequenceF1(headings, markdownHeadings(expectedMarkdown)).f1).toBe(1);
  expect(tokenF1(doc.canonical, expectedMarkdown).f1).toBeGreaterThanOrEqual(minTextF1);
  const ours = markdownTables(doc.canonical);
  const theirs = markdownTables(expectedMarkdown);
  expect(ours.length).toBe(theirs.length);
  theirs.forEach((table, i) => expect(cellAgreement(ours[i]!, table)).toBe(1));
}

import { analyze } from './analyze.js';

const WORD = /[\p{L}\p{N}\p{M}]+(?:['’]\p{L}+)?/gu;
const HAN = /\p{Script=Han}/u;
const ASCII_LETTERS = /^[a-z]+$/;

/** Analysed forms of words met in texts, shared by every query (a word's analysis does not depend on it). */
const wordTerms = new Map<string, string[]>();
const MAX_CACHED_WORDS = 50_000;

function analyzedWord(word: string): string[] {
  let terms = wordTerms.get(word);
  if (terms === undefined) {
    if (wordTerms.size >= MAX_CACHED_WORDS) wordTerms.clear();
    wordTerms.set(word, (terms = analyze(word)));
  }
  return terms;
}

/**
 * Cuts highlighted snippets for one query: the query is analyzed once, and each distinct word of
 * the texts is analyzed at most once (stemming every word dominated search time). A text is read
 * only as far as the snippet reaches: up to its first match, then to the window's end.
 * Matching mirrors the index analysis: Latin words match when their analyzed form is a query term
 * (so "running" highlights for "run"); Chinese terms match as substrings.
 */
export class Highlighter {
  private readonly terms: Set<string>;
  private readonly hanTerms: string[];
  private readonly isMatch = new Map<string, boolean>();
  /** First letters of the terms: stemming only rewrites endings, so other ASCII words cannot match. */
  private readonly initials: Set<string>;

  constructor(query: string) {
    this.terms = new Set(analyze(query));
    this.hanTerms = [...this.terms].filter((t) => HAN.test(t));
    this.initials = new Set([...this.terms].map((t) => t[0]!));
  }

  /** Whether a (non-Han) word of a text is a match: all of its analysed terms are query terms. */
  private matches(word: string): boolean {
    const key = word.toLowerCase();
    let hit = this.isMatch.get(key);
    if (hit === undefined) {
      if (ASCII_LETTERS.test(key) && !this.initials.has(key[0]!)) hit = false;
      else {
        const analyzed = analyzedWord(word);
        hit = analyzed.length > 0 && analyzed.every((t) => this.terms.has(t));
      }
      this.isMatch.set(key, hit);
    }
    return hit;
  }

  /** A short excerpt of `text` around the first match, every match wrapped in « ». */
  snippet(text: string, width = 240): string {
    if (this.terms.size === 0) return clip(text, 0, width);
    // The first match: the earliest Chinese term, or the first matching word before it.
    let first = -1;
    for (const term of this.hanTerms) {
      const i = text.indexOf(term);
      if (i !== -1 && (first === -1 || i < first)) first = i;
    }
    const words = new RegExp(WORD.source, 'gu');
    let m = words.exec(text);
    for (; m !== null && (first === -1 || m.index < first); m = words.exec(text)) {
      if (!HAN.test(m[0]) && this.matches(m[0])) {
        first = m.index;
        break;
      }
    }
    if (first === -1) return clip(text, 0, width);
    const from = Math.max(0, first - Math.floor(width / 3));
    const to = Math.min(text.length, from + width);
    // Every match that starts before the window's end: none starts before `first` (past `from`),
    // and `m` is the first word not yet looked at (or the first match).
    const ranges: [number, number][] = [];
    for (const term of this.hanTerms) {
      for (let i = text.indexOf(term, first); i !== -1 && i < to; i = text.indexOf(term, i + term.length)) ranges.push([i, i + term.length]);
    }
    for (; m !== null && m.index < to; m = words.exec(text)) {
      if (!HAN.test(m[0]) && this.matches(m[0])) ranges.push([m.index, m.index + m[0].length]);
    }
    const merged = mergeRanges(ranges);
    let out = from > 0 ? '…' : '';
    let cursor = from;
    for (const [s, e] of merged) {
      if (e <= from || s >= to) continue;
      const a = Math.max(s, from);
      const b = Math.min(e, to);
      out += text.slice(cursor, a) + '«' + text.slice(a, b) + '»';
      cursor = b;
    }
    out += text.slice(cursor, to) + (to < text.length ? '…' : '');
    return out.replace(/\s+/g, ' ');
  }
}

/** A short excerpt of `text` around the first matched query term, every match wrapped in « ». */
export function snippet(text: string, query: string, width = 240): string {
  return new Highlighter(query).snippet(text, width);
}

function mergeRanges(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

function clip(text: string, from: number, width: number): string {
  const body = text.slice(from, from + width).replace(/\s+/g, ' ');
  return from + width < text.length ? `${body}…` : body;
}

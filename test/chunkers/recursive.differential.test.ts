import { mulberry32 } from '../fuzz/prng.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { describe, expect, test } from 'vitest';
import { isGroundworkError } from '../../src/errors.js';
import { recursiveSplit, resolveRecursiveOptions, type RecursiveSpan } from '../../src/chunkers/recursive.js';
import { RECURSIVE_LANGUAGES, separatorsForLanguage, type RecursiveLanguage } from '../../src/chunkers/recursive-languages.js';
import { getTokenizer } from '../../src/tokens/index.js';
import { corpusDir, evalDir, hasShared, sharedSkipReason } from '../helpers.js';

/**
 * Differential test against LangChain.js RecursiveCharacterTextSplitter 1.0.2: seeded random
 * configurations and inputs; our texts must equal LangChain's exactly, and we must throw
 * INVALID_OPTIONS exactly where LangChain crashes. Every span must also point at its text.
 */

const prng = mulberry32;

type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

const FIXTURES: readonly string[] = [
  'The quick brown fox jumps over the lazy dog. It was not amused.\n\nA second paragraph follows here, with some more words to split.\nAnd a second line.\n\n\n\nAfter a run of blank lines.',
  '第一章 总则\n\n第一条 为了规范文本切分，制定本办法。本办法适用于所有文档。\n第二条 切分应当保持语义完整，不得随意截断句子。\n\n第二章 细则\n\n第三条　全角空格、标点符号：逗号，句号。问号？感叹号！',
  '🙂🙂🙂 emoji 👍🏽 and 𠮷野家 and e\u0301 accents 🇫🇷🇩🇪\n\n😀😃😄😁😆😅😂🤣 long run of emoji without spaces 🙂🙂🙂🙂🙂🙂',
  '   leading spaces\t\ttabs\u00a0nbsp\u3000ideographic\u2028line sep\u2029para sep\ufeffbom   \n \n\t\n   trailing   ',
  'line one\r\nline two\r\n\r\nline four after CRLF blank\r\n   indented\r\n',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbb cccccccccccccccccccccccccccccc',
  'a.b.c..d...e....f.$&.(?=.\\n.[x].|y|.{z}.^w$.*+?',
  '# Title\n\nIntro text.\n\n## Section one\n\nSome text.\n\n```js\nconst x = 1;\n```\n\n### Sub section\n\n- item one\n- item two\n\n***\n\nAfter a break.\n\n---\n\n#### Deep\n\n___\n\nEnd.',
  '<html><head><title>T</title><style>p{}</style></head><body><div><h1>Heading</h1><p>Para one with <span>span</span> text.</p><br><ul><li>one</li><li>two</li></ul><table><tr><th>h</th><td>c</td></tr></table></div><footer>f</footer></body></html>',
  '\\documentclass{article}\n\\begin{document}\n\\chapter{One}\nText $x^2$ and $$y$$.\n\\section{Two}\n\\begin{itemize}\n\\item a\n\\end{itemize}\n\\subsection{Three}\n\\begin{verbatim}\ncode\n\\end{verbatim}\n\\end{document}',
  'Title\n===\n\nSection\n---\n\n.. note:: something\n\nText\n***\nMore text.',
  '',
  ' ',
  '\n\n\n',
  'x',
];

/** Code-ish text for a preset: its own separators (so every kind occurs), words, indentation, blank lines. */
function presetText(rng: Rng, language: RecursiveLanguage): string {
  const separators = separatorsForLanguage(language).filter((s) => s !== '');
  const words = ['foo', 'bar(x)', '{', '}', 'return', 'x = 1;', '  nested', '\tindented', '中文', '🙂', '// note', '#', '<p>', 'end'];
  let out = '';
  const parts = int(rng, 1, 120);
  for (let i = 0; i < parts; i++) {
    out += rng() < 0.35 ? pick(rng, separators) : pick(rng, words);
    if (rng() < 0.5) out += ' ';
    if (rng() < 0.1) out += '\n';
  }
  return out;
}

const ATOMS = ['a', 'bb', 'word', ' ', '  ', '\n', '\n\n', '\n\n\n', '\r\n', '\t', '.', '。', '，', '中文字', '🙂', '👍🏽', '\u3000', '\u00a0', '$&', '(?=', '\\n', '[', '|', 'ab', 'ba', '\ud83d'];

function atomText(rng: Rng): string {
  let out = '';
  const parts = int(rng, 0, 80);
  for (let i = 0; i < parts; i++) out += pick(rng, ATOMS);
  return out;
}

function loadCorpus(): string[] {
  if (!hasShared) return [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files: string[] = [];
  if (existsSync(evalDir)) {
    for (const dataset of readdirSync(evalDir).sort()) {
      const dir = join(evalDir, dataset, 'corpus');
      if (!existsSync(dir)) continue;
      // A few files per dataset keep memory and load time small.
      for (const name of readdirSync(dir).sort().slice(0, 3)) files.push(join(dir, name));
    }
  }
  for (const sub of ['txt', 'md', 'html']) {
    const dir = join(corpusDir, sub);
    if (existsSync(dir)) for (const name of readdirSync(dir).sort()) if (!name.endsWith('.json')) files.push(join(dir, name));
  }
  const texts: string[] = [];
  for (const file of files) {
    try {
      texts.push(decoder.decode(readFileSync(file)));
    } catch {
      // Not UTF-8 (the legacy-encoding samples): their decoded twins are in the list already.
    }
  }
  return texts;
}

/** A window of real text, cut at a random code unit (so it may start or end inside a surrogate pair). */
function corpusWindow(rng: Rng, texts: readonly string[]): string {
  const text = pick(rng, texts);
  const length = int(rng, 0, Math.min(text.length, rng() < 0.8 ? 1500 : 6000));
  const start = int(rng, 0, text.length - length);
  return text.slice(start, start + length);
}

const SEPARATOR_POOL = ['\n\n', '\n', ' ', '', '.', '. ', ' the ', '\n#', '🙂', '。', '，', '$&', '(?=', '\\n', '[', '|', 'xyz-absent', '\r\n', '\t', '  ', 'a', 'aa'];

function randomSeparators(rng: Rng, text: string): string[] | undefined {
  const roll = rng();
  if (roll < 0.3) return undefined;
  if (roll < 0.35) return [];
  const list: string[] = [];
  const count = int(rng, 1, 6);
  for (let i = 0; i < count; i++) {
    if (rng() < 0.25 && text.length > 2) {
      // A multi-char substring of the text itself, so it surely occurs.
      const at = int(rng, 0, text.length - 2);
      list.push(text.slice(at, at + int(rng, 1, 3)));
    } else list.push(pick(rng, SEPARATOR_POOL));
  }
  if (rng() < 0.5) list.push('');
  return list;
}

function randomSizes(rng: Rng): { chunkSize: number; chunkOverlap: number } {
  const roll = rng();
  const chunkSize = roll < 0.3 ? int(rng, 1, 8) : roll < 0.7 ? int(rng, 9, 120) : roll < 0.97 ? int(rng, 121, 1500) : int(rng, 2, 40) + 0.5;
  const kind = rng();
  const max = Math.ceil(chunkSize) - 1;
  const chunkOverlap = kind < 0.25 ? 0 : kind < 0.4 ? max : int(rng, 0, Math.max(0, max));
  return { chunkSize, chunkOverlap };
}

interface Case {
  text: string;
  options: Record<string, unknown>;
}

function randomCase(rng: Rng, corpusTexts: readonly string[]): Case {
  const source = rng();
  let language: RecursiveLanguage | undefined;
  let text: string;
  if (source < 0.15) {
    language = pick(rng, RECURSIVE_LANGUAGES);
    text = rng() < 0.3 ? pick(rng, FIXTURES) + presetText(rng, language) : presetText(rng, language);
    if (corpusTexts.length > 0 && rng() < 0.3) text = corpusWindow(rng, corpusTexts);
  } else if (source < 0.4) text = pick(rng, FIXTURES);
  else if (source < 0.65) text = atomText(rng);
  else text = corpusTexts.length > 0 ? corpusWindow(rng, corpusTexts) : pick(rng, FIXTURES) + atomText(rng);
  const options: Record<string, unknown> = { ...randomSizes(rng) };
  const keep = rng();
  if (keep < 0.45) options.keepSeparator = false;
  else if (keep < 0.75) options.keepSeparator = true;
  if (language) options.language = language;
  else {
    const separators = randomSeparators(rng, text);
    if (separators !== undefined) options.separators = separators;
  }
  return { text, options };
}

function langchainSplitter(options: Record<string, unknown>, lengthFunction?: (text: string) => number) {
  const { language, lengthUnit: _unit, ...fields } = options;
  const all = { ...fields, ...(lengthFunction && { lengthFunction }) };
  return language
    ? RecursiveCharacterTextSplitter.fromLanguage(language as RecursiveLanguage, all)
    : new RecursiveCharacterTextSplitter(all);
}

type Outcome = { texts: string[] } | { error: unknown };

async function runLangchain(text: string, options: Record<string, unknown>, lengthFunction?: (t: string) => number): Promise<Outcome> {
  try {
    return { texts: await langchainSplitter(options, lengthFunction).splitText(text) };
  } catch (error) {
    return { error };
  }
}

function runOurs(text: string, options: Record<string, unknown>): { spans: RecursiveSpan[] } | { error: unknown } {
  try {
    return { spans: recursiveSplit(text, resolveRecursiveOptions(options), getTokenizer('cl100k_base')) };
  } catch (error) {
    return { error };
  }
}

/** Offsets: keepSeparator true gives exact slices; false gives spans whose ends match (runs of separators may be collapsed inside). */
function spanProblem(text: string, spans: readonly RecursiveSpan[], keep: boolean): string | undefined {
  let previousStart = 0;
  for (const span of spans) {
    if (span.start < previousStart || span.end <= span.start || span.end > text.length) return `bad span ${span.start}-${span.end}`;
    previousStart = span.start;
    const slice = text.slice(span.start, span.end);
    if (slice === span.text) continue;
    if (keep) return `slice ${JSON.stringify(slice)} != ${JSON.stringify(span.text)}`;
    if (slice[0] !== span.text[0] || slice.at(-1) !== span.text.at(-1) || slice.length < span.text.length) {
      return `span ${span.start}-${span.end} does not cover ${JSON.stringify(span.text)}`;
    }
  }
  return undefined;
}

interface Mismatch {
  caseNo: number;
  text: string;
  options: Record<string, unknown>;
  problem: string;
}

function compare(caseNo: number, { text, options }: Case, expected: Outcome, ours: ReturnType<typeof runOurs>): Mismatch | undefined {
  const report = (problem: string): Mismatch => ({ caseNo, text: text.slice(0, 300), options, problem });
  if ('error' in expected) {
    if ('error' in ours && isGroundworkError(ours.error) && ours.error.code === 'INVALID_OPTIONS') return undefined;
    return report(`LangChain threw ${String(expected.error)}; we did not throw INVALID_OPTIONS`);
  }
  if ('error' in ours) return report(`we threw ${String(ours.error)}`);
  const texts = ours.spans.map((s) => s.text);
  if (JSON.stringify(texts) !== JSON.stringify(expected.texts)) {
    return report(`texts differ:\n ours ${JSON.stringify(texts).slice(0, 600)}\n lc   ${JSON.stringify(expected.texts).slice(0, 600)}`);
  }
  const keep = options.keepSeparator !== false;
  const problem = spanProblem(text, ours.spans, keep);
  return problem ? report(problem) : undefined;
}

/** What the cases exercised, so a generator that drifts into trivial cases fails the test. */
interface Coverage {
  referenceErrors: number;
  multiChunk: number;
  /** keepSeparator false windows that are not slices of the source. */
  joinedChunks: number;
  loneSurrogates: number;
}

async function runCases(
  cases: readonly Case[],
  lengthFunction?: (t: string) => number,
): Promise<{ mismatches: Mismatch[]; coverage: Coverage }> {
  const mismatches: Mismatch[] = [];
  const coverage: Coverage = { referenceErrors: 0, multiChunk: 0, joinedChunks: 0, loneSurrogates: 0 };
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const expected = await runLangchain(c.text, c.options, lengthFunction);
    const ours = runOurs(c.text, c.options);
    const mismatch = compare(i, c, expected, ours);
    if (mismatch) mismatches.push(mismatch);
    if ('error' in expected) coverage.referenceErrors++;
    else if (expected.texts.length > 1) coverage.multiChunk++;
    if ('spans' in ours) {
      if (ours.spans.some((s) => c.text.slice(s.start, s.end) !== s.text)) coverage.joinedChunks++;
      if (ours.spans.some((s) => /[\ud800-\udbff]$|^[\udc00-\udfff]/.test(s.text))) coverage.loneSurrogates++;
    }
  }
  return { mismatches, coverage };
}

const corpusTexts = loadCorpus();

describe('recursive vs LangChain RecursiveCharacterTextSplitter 1.0.2', () => {
  test('10,000 seeded random cases in chars mode give identical texts, or both throw', async () => {
    const rng = prng(20240611);
    const cases = Array.from({ length: 10_000 }, () => randomCase(rng, corpusTexts));
    const { mismatches, coverage } = await runCases(cases);
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(coverage.referenceErrors).toBeGreaterThan(100);
    expect(coverage.multiChunk).toBeGreaterThan(4000);
    expect(coverage.joinedChunks).toBeGreaterThan(100);
    expect(coverage.loneSurrogates).toBeGreaterThan(20);
  });

  test('absurd but accepted configurations: negative overlap, chunkSize 0, NaN, Infinity', async () => {
    const rng = prng(7);
    const cases: Case[] = [];
    for (let i = 0; i < 400; i++) {
      const text = rng() < 0.5 ? pick(rng, FIXTURES) : atomText(rng);
      const chunkSize = pick(rng, [0, -3, Number.NaN, Number.POSITIVE_INFINITY, int(rng, 1, 60)]);
      const chunkOverlap = pick(rng, [-1, -5, Number.NaN, 0, Number.NEGATIVE_INFINITY]);
      if (chunkOverlap >= chunkSize) continue;
      const options: Record<string, unknown> = { chunkSize, chunkOverlap, keepSeparator: rng() < 0.5 };
      if (rng() < 0.5) options.separators = randomSeparators(rng, text);
      cases.push({ text, options });
    }
    expect(cases.length).toBeGreaterThan(250);
    const { mismatches, coverage } = await runCases(cases);
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(coverage.referenceErrors).toBeGreaterThan(20);
    expect(coverage.multiChunk).toBeGreaterThan(50);
  });

  test("300 seeded cases with lengthUnit 'tokens' (cl100k_base counts as LangChain's lengthFunction)", async () => {
    const tokenizer = getTokenizer('cl100k_base');
    const rng = prng(99);
    const cases = Array.from({ length: 300 }, () => {
      const c = randomCase(rng, corpusTexts);
      const chunkSize = int(rng, 1, 300);
      const chunkOverlap = rng() < 0.3 ? 0 : int(rng, 0, chunkSize - 1);
      return { text: c.text.slice(0, 2000), options: { ...c.options, chunkSize, chunkOverlap, lengthUnit: 'tokens' } };
    });
    const { mismatches, coverage } = await runCases(cases, (t) => tokenizer.count(t));
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(coverage.multiChunk).toBeGreaterThan(80);
  });
});

describe.skipIf(!hasShared)('recursive vs LangChain on whole corpus documents', () => {
  test('every UTF-8 corpus text, default options and two small sizes', async () => {
    expect(corpusTexts.length, sharedSkipReason).toBeGreaterThan(10);
    const cases: Case[] = [];
    for (const text of corpusTexts) {
      cases.push({ text, options: {} });
      cases.push({ text, options: { chunkSize: 300, chunkOverlap: 50 } });
      cases.push({ text, options: { chunkSize: 120, chunkOverlap: 30, keepSeparator: false } });
    }
    const { mismatches, coverage } = await runCases(cases);
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(coverage.multiChunk).toBeGreaterThan(corpusTexts.length);
  });
});

import { readFileSync } from 'node:fs';
import { RecursiveCharacterTextSplitter, SupportedTextSplitterLanguages } from '@langchain/textsplitters';
import { describe, expect, test } from 'vitest';
import { buildDocument } from '../../src/document/build.js';
import { GroundworkError } from '../../src/errors.js';
import { isJsWhitespace, recursiveChunker, type RecursiveOptions } from '../../src/chunkers/recursive.js';
import { DEFAULT_SEPARATORS, RECURSIVE_LANGUAGES, separatorsForLanguage } from '../../src/chunkers/recursive-languages.js';
import { getTokenizer } from '../../src/tokens/index.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

const tokenizer = getTokenizer('cl100k_base');

function options(input: Record<string, unknown> = {}): RecursiveOptions {
  return recursiveChunker.resolveOptions(input);
}

function texts(text: string, input: Record<string, unknown> = {}): string[] {
  return recursiveChunker.chunkText(text, options(input), tokenizer).map((c) => c.text);
}

function invalid(fn: () => unknown): GroundworkError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GroundworkError);
    expect((error as GroundworkError).code).toBe('INVALID_OPTIONS');
    return error as GroundworkError;
  }
  throw new Error('expected an INVALID_OPTIONS GroundworkError');
}

describe('recursive options', () => {
  test("defaults are LangChain's", () => {
    expect(options()).toEqual({
      chunkSize: 1000,
      chunkOverlap: 200,
      separators: ['\n\n', '\n', ' ', ''],
      keepSeparator: true,
      lengthUnit: 'chars',
    });
  });

  test('chunkOverlap >= chunkSize throws, equality and the default overlap included', () => {
    expect(invalid(() => options({ chunkSize: 10, chunkOverlap: 10 })).message).toMatch(/chunkOverlap \(10\) must be smaller than chunkSize \(10\)/);
    expect(invalid(() => options({ chunkSize: 100 })).message).toMatch(/default chunkOverlap is 200/);
    expect(options({ chunkSize: 10, chunkOverlap: 9 }).chunkOverlap).toBe(9);
  });

  test('an empty separator list is kept; null means the default', () => {
    expect(options({ separators: [] }).separators).toEqual([]);
    expect(options({ separators: null }).separators).toEqual(DEFAULT_SEPARATORS);
  });

  test("keepSeparator: 'start' and 'end' act as true, as in LangChain.js", () => {
    expect(options({ keepSeparator: 'start' }).keepSeparator).toBe(true);
    expect(options({ keepSeparator: 'end' }).keepSeparator).toBe(true);
    expect(texts('x.y.z', { separators: ['.'], chunkSize: 3, chunkOverlap: 0, keepSeparator: 'end' })).toEqual(['x.y', '.z']);
  });

  test('bad values are INVALID_OPTIONS with the option named', () => {
    expect(invalid(() => options({ chunkSize: '500' })).message).toMatch(/chunkSize must be a number/);
    expect(invalid(() => options({ separators: '\n' })).message).toMatch(/separators must be an array of strings/);
    expect(invalid(() => options({ separators: ['\n', 3] })).message).toMatch(/separators/);
    expect(invalid(() => options({ keepSeparator: 'yes' })).message).toMatch(/keepSeparator/);
    expect(invalid(() => options({ lengthUnit: 'words' })).message).toMatch(/lengthUnit/);
    expect(invalid(() => options({ language: 'cobol' })).message).toMatch(/unknown language 'cobol'; supported: cpp, go/);
    expect(invalid(() => options({ language: 'python', separators: ['\n'] })).message).toMatch(/either language .* or separators/);
    expect(invalid(() => options({ chunk_size: 10 })).message).toMatch(/unknown option 'chunk_size'/);
  });

  test("language presets are LangChain's fromLanguage lists, entry for entry", () => {
    expect([...RECURSIVE_LANGUAGES]).toEqual([...SupportedTextSplitterLanguages]);
    for (const language of RECURSIVE_LANGUAGES) {
      expect([...separatorsForLanguage(language)], language).toEqual(RecursiveCharacterTextSplitter.getSeparatorsForLanguage(language));
      expect(options({ language }).separators).toEqual(separatorsForLanguage(language));
    }
    // A preset only sets separators: keepSeparator keeps its own default.
    expect(options({ language: 'markdown' }).keepSeparator).toBe(true);
  });
});

describe("recursive reproduces LangChain's quirks (specs/langchain-recursive.md)", () => {
  test('no separator occurs and none is "": the oversize text comes out untrimmed', () => {
    expect(texts('   aaaaaaaaaaaa   ', { chunkSize: 8, chunkOverlap: 0, separators: ['\n'] })).toEqual(['   aaaaaaaaaaaa   ']);
  });

  test('the "" level cuts surrogate pairs', () => {
    expect(texts('🙂🙂🙂', { chunkSize: 3, chunkOverlap: 0 })).toEqual(['🙂\ud83d', '\ude42🙂']);
  });

  test('a piece of exactly chunkSize is re-split', () => {
    expect(texts('hello world', { chunkSize: 5, chunkOverlap: 2 })).toEqual(['hello', 'worl', 'rld']);
  });

  test('size 1: nothing is "good", so each code unit is emitted raw, spaces included', () => {
    expect(texts('a b', { chunkSize: 1, chunkOverlap: 0 })).toEqual(['a', ' ', 'b']);
  });

  test('overlap never crosses a flush around an oversize piece', () => {
    expect(texts('aa bb cc xxxxxxxxxxxx dd ee', { chunkSize: 8, chunkOverlap: 4 })).toEqual([
      'aa bb cc',
      'xxxxxxx',
      'xxxxxxxx',
      'xxxxx',
      'dd ee',
    ]);
  });

  test('overlap is whole pieces; joiners do not count against it when keepSeparator is false', () => {
    const input = 'aa bb cc dd ee ff';
    expect(texts(input, { chunkSize: 8, chunkOverlap: 4, keepSeparator: false })).toEqual(['aa bb cc', 'bb cc dd', 'cc dd ee', 'dd ee ff']);
    expect(texts(input, { chunkSize: 8, chunkOverlap: 4 })).toEqual(['aa bb cc', 'cc dd', 'dd ee', 'ee ff']);
  });

  test("trimming is String.prototype.trim's: U+3000, NBSP and the BOM go too", () => {
    expect(texts('\u3000abc\u00A0\uFEFF')).toEqual(['abc']);
    expect(texts(' \n\t\u3000 ')).toEqual([]);
    expect(texts('')).toEqual([]);
  });

  test('isJsWhitespace agrees with String.prototype.trim on every UTF-16 code unit', () => {
    const disagreements: number[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (isJsWhitespace(code) !== (String.fromCharCode(code).trim() === '')) disagreements.push(code);
    }
    expect(disagreements).toEqual([]);
  });

  test('"\\r\\n": the "\\r" stays inside a chunk and is trimmed only at its edges', () => {
    expect(texts('one\r\ntwo\r\nthree\r\nfour', { chunkSize: 10, chunkOverlap: 0 })).toEqual(['one\r\ntwo', 'three', 'four']);
  });

  test('separators exhausted with keepSeparator true: the piece falls to code units', () => {
    expect(texts('aaaaaa b', { separators: [' '], chunkSize: 4, chunkOverlap: 0 })).toEqual(['aaaa', 'aa', 'b']);
    expect(texts('abcdef', { separators: [], chunkSize: 4, chunkOverlap: 1 })).toEqual(['abcd', 'def']);
  });

  test('where LangChain crashes with a TypeError we throw INVALID_OPTIONS', () => {
    // Separators exhausted with keepSeparator false: LangChain reads the length of an undefined joiner.
    const exhausted = options({ separators: [' '], chunkSize: 4, chunkOverlap: 0, keepSeparator: false });
    expect(invalid(() => recursiveChunker.chunkText('aaaaaa b', exhausted, tokenizer)).message).toMatch(/end separators with ""/);
    // A negative overlap crashes once a second chunk is needed, and works when one chunk suffices.
    const negative = options({ chunkSize: 5, chunkOverlap: -1 });
    expect(invalid(() => recursiveChunker.chunkText('aa bb cc dd', negative, tokenizer)).message).toMatch(/must not be negative/);
    expect(recursiveChunker.chunkText('aa bb', negative, tokenizer).map((c) => c.text)).toEqual(['aa bb']);
  });

  test('chunkSize 0 (with a negative overlap) or NaN: every code unit comes out raw', () => {
    expect(texts('a b', { chunkSize: 0, chunkOverlap: -1 })).toEqual(['a', ' ', 'b']);
    expect(texts('a b', { chunkSize: Number.NaN })).toEqual(['a', ' ', 'b']);
  });
});

describe('recursive chunks', () => {
  const sample =
    '# Title\n\nFirst paragraph, with some words in it.\n\n## Part two\n\n第二部分的内容，包含中文标点。还有一句。🙂 emoji\n\n' +
    '   indented line\n\tand a tab\n\nThe end.';

  test("every chunk's span slices to its text (keepSeparator true)", () => {
    for (const chunkSize of [1, 2, 5, 17, 40, 1000]) {
      const chunkOverlap = Math.floor(chunkSize / 3);
      const chunks = recursiveChunker.chunkText(sample, options({ chunkSize, chunkOverlap }), tokenizer);
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) expect(sample.slice(chunk.start, chunk.end), `size ${chunkSize}`).toBe(chunk.text);
    }
  });

  test('a span is located by splitting, not by searching: repeated text gets its own position', () => {
    const input = 'abc abc abc abc';
    const chunks = recursiveChunker.chunkText(input, options({ chunkSize: 4, chunkOverlap: 0 }), tokenizer);
    expect(chunks.map((c) => [c.text, c.start, c.end])).toEqual([
      ['abc', 0, 3],
      ['abc', 4, 7],
      ['abc', 8, 11],
      ['abc', 12, 15],
    ]);
  });

  test('keepSeparator false: a window over a run of separators is not a slice; its span covers its source', () => {
    const input = 'a  b\n\n\n\nc';
    const [chunk] = recursiveChunker.chunkText(input, options({ separators: ['\n\n', ' '], chunkSize: 100, chunkOverlap: 0, keepSeparator: false }), tokenizer);
    expect(chunk!.text).toBe('a  b\n\nc');
    expect([chunk!.start, chunk!.end]).toEqual([0, input.length]);
  });

  test('chunk fields: index, chars, exact tokens, kind, strategy, empty heading path', () => {
    const chunks = recursiveChunker.chunkText(sample, options({ chunkSize: 40, chunkOverlap: 10 }), tokenizer);
    chunks.forEach((chunk, index) => {
      expect(chunk).toMatchObject({ index, chars: chunk.text.length, kind: 'text', strategy: 'recursive', headingPath: [] });
      expect(chunk.tokens).toBe(tokenizer.count(chunk.text));
    });
  });

  test("lengthUnit 'tokens' equals LangChain with the token count as lengthFunction", async () => {
    const input = `${sample}\n\n${'token budgets are measured with cl100k_base here. '.repeat(20)}`;
    const ours = texts(input, { chunkSize: 20, chunkOverlap: 5, lengthUnit: 'tokens' });
    const reference = await new RecursiveCharacterTextSplitter({ chunkSize: 20, chunkOverlap: 5, lengthFunction: (t) => tokenizer.count(t) }).splitText(input);
    expect(ours).toEqual(reference);
    expect(ours.length).toBeGreaterThan(10);
  });

  test('chunkDocument: heading path of the first element overlapped, pages of all, offsets into canonical', () => {
    const doc = buildDocument(
      {
        format: 'pdf',
        mime: 'application/pdf',
        elements: [
          { kind: 'heading', level: 1, text: 'Guide', page: 1 },
          { kind: 'paragraph', text: 'Intro words here.', page: 1 },
          { kind: 'page-furniture', text: 'Page 1 of 2', page: 1 },
          { kind: 'heading', level: 2, text: 'Install', page: 2 },
          { kind: 'paragraph', text: 'Run the installer and wait for it to finish.', page: 2, pageEnd: 3 },
        ],
      },
      { id: 'x', bytes: 0 },
    );
    const chunks = recursiveChunker.chunkDocument(doc, options({ chunkSize: 30, chunkOverlap: 0 }), tokenizer);
    expect(chunks.map((c) => [c.text, c.headingPath, c.pageStart, c.pageEnd])).toEqual([
      ['# Guide\n\nIntro words here.', ['Guide'], 1, 1],
      ['## Install', ['Guide', 'Install'], 2, 2],
      ['Run the installer and wait', ['Guide', 'Install'], 2, 3],
      ['for it to finish.', ['Guide', 'Install'], 2, 3],
    ]);
    for (const chunk of chunks) expect(doc.canonical.slice(chunk.start, chunk.end)).toBe(chunk.text);
  });
});

describe.skipIf(!hasShared)('recursive on corpus files', () => {
  test('markdown preset on a real Markdown file: identical to LangChain, spans exact', async () => {
    const path = corpus('md', 'wiki.md');
    const text = readFileSync(path, 'utf8');
    expect(text.length, sharedSkipReason).toBeGreaterThan(1000);
    const chunks = recursiveChunker.chunkText(text, options({ language: 'markdown', chunkSize: 400, chunkOverlap: 40 }), tokenizer);
    const reference = await RecursiveCharacterTextSplitter.fromLanguage('markdown', { chunkSize: 400, chunkOverlap: 40 }).splitText(text);
    expect(chunks.map((c) => c.text)).toEqual(reference);
    for (const chunk of chunks) expect(text.slice(chunk.start, chunk.end)).toBe(chunk.text);
  });
});

import { describe, expect, test } from 'vitest';
import { chunk, chunkText } from '../src/chunk.js';
import { getChunker, registerChunker } from '../src/chunkers/registry.js';
import type { ChunkerDefinition } from '../src/chunkers/types.js';
import { DEFAULT_CHUNK_LIMITS, DEFAULT_PARSE_LIMITS } from '../src/limits.js';
import { parse } from '../src/parse.js';
import { boundNesting } from '../src/parsers/html-dom.js';
import { getParser, registerParser } from '../src/parsers/registry.js';
import type { ParseOptions, ParserDefinition } from '../src/parsers/types.js';
import { corpus, failure, hasShared } from './helpers.js';
import {
  deepDocxTables, deepEpub, deepHtml, deepJsonArray, deepJsonLines, deepJsonObject, deepMarkdownList, deepMarkdownQuotes,
  deepMultipartEml, deepOdtSections, deepRtf, wideCsv,
} from './pathological.js';

const NESTING = { name: 'maxNesting', value: 256, flag: '--max-nesting' };

/** Each file is valid, and deeper than any real one: it must be LIMIT_EXCEEDED naming maxNesting, never CORRUPT. */
const DEEP: { name: string; bytes: () => Uint8Array; what: RegExp }[] = [
  { name: 'deep-array.json', bytes: () => deepJsonArray(200_000), what: /JSON arrays and objects/ },
  { name: 'deep-object.json', bytes: () => deepJsonObject(200_000), what: /JSON arrays and objects/ },
  { name: 'deep-line.jsonl', bytes: () => deepJsonLines(50_000), what: /JSON arrays and objects/ },
  { name: 'deep-quotes.md', bytes: () => deepMarkdownQuotes(20_000), what: /Markdown block quotes and lists/ },
  { name: 'deep-list.md', bytes: () => deepMarkdownList(2_000), what: /Markdown block quotes and lists/ },
  { name: 'deep.rtf', bytes: () => deepRtf(200_000), what: /RTF groups/ },
  { name: 'deep-multipart.eml', bytes: () => deepMultipartEml(1_000), what: /MIME parts/ },
  { name: 'deep-tables.docx', bytes: () => deepDocxTables(5_000), what: /XML elements/ },
  { name: 'deep-sections.odt', bytes: () => deepOdtSections(5_000), what: /XML elements/ },
];

describe('limits: nesting deeper than maxNesting is LIMIT_EXCEEDED, naming the limit and its flag', () => {
  test.each(DEEP)('$name', async ({ name, bytes, what }) => {
    const error = await failure(parse(bytes(), { name }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.limit).toEqual(NESTING);
    expect(error.message).toMatch(what);
    expect(error.message).toMatch(/--max-nesting/);
    expect(error.file).toBe(name);
  });

  test('sane nesting parses, and a raised maxNesting lets a deeper file through', async () => {
    expect((await parse(deepJsonArray(100), { name: 'a.json' })).canonical).toContain('1');
    expect((await parse(deepMarkdownQuotes(200), { name: 'q.md' })).canonical).toContain('deep');
    expect((await parse(deepDocxTables(20), { name: 't.docx' })).canonical).toContain('deep');
    expect((await parse(deepRtf(300), { name: 'r.rtf', maxNesting: 400 })).canonical).toContain('deep');
    await expect(parse(deepRtf(300), { name: 'r.rtf', maxNesting: 200 })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { name: 'maxNesting', value: 200 } });
  });

  test('validity comes first: deep but broken JSON is CORRUPT, not LIMIT_EXCEEDED', async () => {
    const truncated = deepJsonArray(100_000).subarray(0, 150_000);
    expect((await failure(parse(truncated, { name: 'cut.json' }))).code).toBe('CORRUPT');
  });

  test('a parser that runs out of stack is LIMIT_EXCEEDED (maxNesting), never CORRUPT', async () => {
    // JSON deeper than the renderer's recursion can go once the depth check is lifted.
    const error = await failure(parse(deepJsonObject(200_000), { name: 'deep.json', maxNesting: 10_000_000 }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.limit?.name).toBe('maxNesting');
    expect(error.message).toMatch(/ran out of stack/);
  });

  test('HTML nested deeper than maxNesting is flattened with a warning, its text kept', async () => {
    const doc = await parse(deepHtml(200_000), { name: 'deep.html' });
    expect(doc.canonical).toContain('Before the nest.');
    expect(doc.canonical).toContain('deep text');
    expect(doc.canonical).toContain('After the nest.');
    expect(doc.warnings.join(' ')).toMatch(/nested more than 256 levels deep were flattened/);
    const epub = await parse(deepEpub(100_000), { name: 'deep.epub' });
    expect(epub.canonical).toContain('deep chapter text');
  });

  test('boundNesting: HTML within the limit is returned as it is; tags in scripts, comments and attribute values do not count', () => {
    const page = '<div title="a > b"><!-- <div><div> --><script>if (a < b) document.write("<div><div>")</script><p>one<p>two<ul><li>x<li>y</ul></div>';
    expect(boundNesting(page, 2)).toEqual({ html: page, flattened: 0 });
    const deep = '<b><i><u>text</u></i></b>';
    expect(boundNesting(deep, 2)).toEqual({ html: '<b><i>text</i></b>', flattened: 1 });
    // An end tag closes up to its element, as the tree builder does: the unclosed <span> does not deepen what follows.
    expect(boundNesting('<div><span>a</div><div><em>b</em></div>', 2).flattened).toBe(0);
  });

  test('maxNesting must be a positive integer (INVALID_OPTIONS)', async () => {
    const error = await failure(parse(deepJsonArray(2), { name: 'a.json', maxNesting: 0 } as ParseOptions));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toMatch(/maxNesting/);
  });
});

describe('limits: size', () => {
  test('a table row wider than maxTableColumns is LIMIT_EXCEEDED before the document is rendered', async () => {
    const error = await failure(parse(wideCsv(20_000, 3), { name: 'wide.csv' }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.limit).toEqual({ name: 'maxTableColumns', value: DEFAULT_PARSE_LIMITS.maxTableColumns, flag: '--max-table-columns' });
    expect(error.message).toMatch(/20000 columns/);
    const doc = await parse(wideCsv(20_000, 3), { name: 'wide.csv', maxTableColumns: 20_000 });
    expect(doc.elements.find((el) => el.kind === 'table')?.table?.rows[0]).toHaveLength(20_000);
  });

  test('TOO_LARGE carries the maxBytes limit and its flag', async () => {
    const error = await failure(parse(new Uint8Array(2000).fill(97), { name: 'a.txt', maxBytes: 1000 }));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.limit).toEqual({ name: 'maxBytes', value: 1000, flag: '--max-bytes' });
  });

  test.skipIf(!hasShared)('ZIP limits name the limit: many_entries_archive.docx (10,006 entries)', async () => {
    const error = await failure(parse(corpus('adversarial', 'many_entries_archive.docx')));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.limit).toEqual({ name: 'maxEntries', value: 10_000 });
  });

  test('a parser that cannot allocate (a string over V8\'s maximum length) is LIMIT_EXCEEDED, not CORRUPT', async () => {
    const original = (await getParser('vtt'))!;
    const hungry: ParserDefinition = {
      ...original,
      parse() {
        let text = 'x'.repeat(1 << 20);
        for (;;) text += text;
      },
    };
    registerParser(hungry);
    try {
      const error = await failure(parse(new TextEncoder().encode('WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n'), { name: 'a.vtt' }));
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(error.limit?.name).toBe('maxStringLength');
    } finally {
      registerParser(original);
    }
  });
});

describe('limits: chunk output (maxExpansion)', () => {
  // A strategy whose prefix repeats the whole text into every chunk: the header-into-every-piece
  // failure, made by a real registered chunker.
  const repeater: ChunkerDefinition = {
    name: 'repeat-prefix',
    description: 'every chunk carries the whole text as its prefix',
    resolveOptions: () => ({}),
    chunkDocument: (doc) => repeat(doc.canonical),
    chunkText: (text) => repeat(text),
  };
  function repeat(text: string) {
    const step = 100;
    return Array.from({ length: Math.ceil(text.length / step) }, (_, i) => {
      const body = text.slice(i * step, (i + 1) * step);
      return { index: i, text: text + body, prefix: text, start: i * step, end: i * step + body.length, chars: text.length + body.length, tokens: 1, headingPath: [], kind: 'text' as const, strategy: 'repeat-prefix' };
    });
  }

  test('chunks holding more than maxExpansion times their text are LIMIT_EXCEEDED naming the limit', () => {
    registerChunker(repeater);
    const text = 'word '.repeat(2000);
    let error: unknown;
    try {
      chunkText(text, { strategy: 'repeat-prefix' });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { name: 'maxExpansion', value: DEFAULT_CHUNK_LIMITS.maxExpansion, flag: '--max-expansion' } });
    // 100 chunks each repeating the text: 101 times the text; allowed when the limit says so.
    expect(chunkText(text, { strategy: 'repeat-prefix', maxExpansion: 200 })).toHaveLength(100);
  });

  test('declared overlap is always allowed: a 90% overlap is not an expansion', () => {
    const text = 'The tide turns twice a day at the harbour mouth. '.repeat(400);
    const chunks = chunkText(text, { strategy: 'recursive', chunkSize: 100, chunkOverlap: 90, maxExpansion: 2 });
    expect(chunks.length).toBeGreaterThan(100);
  });

  test('the built-in strategies stay within the default on a real document', async () => {
    const doc = await parse(new TextEncoder().encode(`# Tides\n\n## Tables\n\n${'| a | b | c |\n| --- | --- | --- |\n'}${'| 1 | 2 | 3 |\n'.repeat(500)}`), { name: 't.md' });
    for (const strategy of ['structure', 'recursive', 'sentence', 'token', 'chisel', 'qwen']) {
      expect(chunk(doc, { strategy }).length, strategy).toBeGreaterThan(0);
    }
    expect(getChunker('structure')).toBeDefined();
  });
});

import { describe, expect, test } from 'vitest';
import type { DocumentDraft, Format } from '../../src/document/types.js';
import { parse } from '../../src/parse.js';
import { PARSER_CATALOG } from '../../src/parsers/catalog.js';
import { getParser, isParserLoaded, parserVersion, registerParser, supportedFormats } from '../../src/parsers/registry.js';
import type { LazyParser, ParserDefinition } from '../../src/parsers/types.js';
import { failure } from '../helpers.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const builtIn = (name: string): LazyParser => PARSER_CATALOG.find((entry) => entry.name === name)!;

/** A VTT parser that says what it read, to tell it from the built-in one. */
function echoParser(version: string): ParserDefinition {
  return {
    formats: ['vtt'],
    version,
    textual: true,
    parse: (input): DocumentDraft => ({ format: 'vtt', mime: 'text/vtt', elements: [{ kind: 'paragraph', text: `user parser: ${input.text!.length} chars` }], warnings: [] }),
  };
}

const VTT = 'WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n';

// One test file is one fresh module graph (vitest isolates files), so the registry starts as a
// process starts: nothing of any parser loaded. The tests run in order and build on that.
describe('the parser registry loads a parser on first use', () => {
  test('at start every format is known, with its version, and no parser is loaded', () => {
    expect(supportedFormats()).toEqual(PARSER_CATALOG.flatMap((entry) => entry.formats));
    for (const entry of PARSER_CATALOG) {
      for (const format of entry.formats) {
        expect(parserVersion(format)).toBe(entry.version);
        expect(isParserLoaded(format)).toBe(false);
      }
    }
  });

  test('parsing a text file loads the text parser and no other', async () => {
    const doc = await parse(bytes('Plain words.\n'), { name: 'a.txt' });
    expect(doc.format).toBe('text');
    expect(doc.parserVersion).toBe(parserVersion('text'));
    const loaded = supportedFormats().filter(isParserLoaded);
    expect(loaded).toEqual(['text']);
  });

  test('a format both parsers of an entry handle is loaded once for both (csv and tsv)', async () => {
    expect(isParserLoaded('tsv')).toBe(false);
    await parse(bytes('a,b\n1,2\n'), { name: 'a.csv' });
    expect(isParserLoaded('csv')).toBe(true);
    expect(isParserLoaded('tsv')).toBe(true);
    expect(isParserLoaded('pdf')).toBe(false);
  });

  test('a format no parser handles is UNSUPPORTED, and loads nothing', async () => {
    const before = supportedFormats().filter(isParserLoaded);
    const error = await failure(parse(new Uint8Array([0, 1, 2, 3, 250, 251, 252, 0, 0, 0, 7, 8, 9]), { name: 'blob.bin' }));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toContain("format 'unknown'");
    expect(await getParser('unknown' as Format)).toBeUndefined();
    expect(supportedFormats().filter(isParserLoaded)).toEqual(before);
  });

  test('a user-registered parser replaces the built-in one for its formats, and the built-in one comes back', async () => {
    registerParser(echoParser('user-1'));
    try {
      expect(isParserLoaded('vtt')).toBe(true);
      expect(parserVersion('vtt')).toBe('user-1');
      const doc = await parse(bytes(VTT), { name: 'a.vtt' });
      expect(doc.canonical).toBe(`user parser: ${VTT.length} chars`);
      expect(doc.parserVersion).toBe('user-1');
    } finally {
      registerParser(builtIn('vtt'));
    }
    expect(isParserLoaded('vtt')).toBe(false);
    const doc = await parse(bytes(VTT), { name: 'a.vtt' });
    expect(doc.elements.map((el) => el.kind)).toEqual(['turn']);
    expect(doc.parserVersion).toBe(builtIn('vtt').version);
  });

  test('a user-registered lazy parser is loaded by its first file only, once for files parsed at the same time', async () => {
    let loads = 0;
    registerParser({
      name: 'echo',
      formats: ['vtt'],
      version: 'user-2',
      load: async () => {
        loads++;
        return echoParser('user-2');
      },
    });
    try {
      expect(loads).toBe(0);
      expect(parserVersion('vtt')).toBe('user-2');
      const docs = await Promise.all([parse(bytes(VTT), { name: 'a.vtt' }), parse(bytes(VTT), { name: 'b.vtt' })]);
      expect(docs.map((d) => d.parserVersion)).toEqual(['user-2', 'user-2']);
      await parse(bytes(VTT), { name: 'c.vtt' });
      expect(loads).toBe(1);
    } finally {
      registerParser(builtIn('vtt'));
    }
  });

  test('a parser whose code cannot be loaded is UNSUPPORTED naming why, and is tried again next time', async () => {
    let loads = 0;
    registerParser({
      name: 'broken',
      formats: ['vtt'],
      version: '1',
      load: async () => {
        loads++;
        if (loads === 1) throw new Error("Cannot find package 'some-optional-dependency'");
        return echoParser('1');
      },
    });
    try {
      const error = await failure(parse(bytes(VTT), { name: 'a.vtt' }));
      expect(error.code).toBe('UNSUPPORTED');
      expect(error.message).toMatch(/the vtt parser could not be loaded: Cannot find package 'some-optional-dependency'/);
      expect(error.file).toBe('a.vtt');
      expect((await parse(bytes(VTT), { name: 'a.vtt' })).parserVersion).toBe('1');
      expect(loads).toBe(2);
    } finally {
      registerParser(builtIn('vtt'));
    }
  });

  test('a loaded parser that is not what its entry says is refused (its version is the parse-cache key)', async () => {
    registerParser({ name: 'drifted', formats: ['vtt'], version: '1', load: async () => echoParser('2') });
    try {
      const error = await failure(parse(bytes(VTT), { name: 'a.vtt' }));
      expect(error.code).toBe('UNSUPPORTED');
      expect(error.message).toContain("parser 'drifted' loaded version 2 for vtt, but its registry entry says version 1 for vtt");
    } finally {
      registerParser(builtIn('vtt'));
    }
  });
});

describe('the parser catalog', () => {
  // The catalog is what every process knows without loading a parser: it must say what the parsers say.
  test.each(PARSER_CATALOG.map((entry) => [entry.name, entry] as const))('%s: its entry has its module\'s formats and version', async (_name, entry) => {
    const definition = await entry.load();
    expect({ formats: [...entry.formats], version: entry.version }).toEqual({ formats: [...definition.formats], version: definition.version });
  });

  test('each format has one entry', () => {
    const formats = PARSER_CATALOG.flatMap((entry) => entry.formats);
    expect(new Set(formats).size).toBe(formats.length);
    expect(new Set(PARSER_CATALOG.map((entry) => entry.name)).size).toBe(PARSER_CATALOG.length);
  });
});

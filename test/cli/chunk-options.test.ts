import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { buildChunkOptions, parseOpt } from '../../src/cli/chunk-options.js';

const base = { opts: [] as string[] };

describe('buildChunkOptions: generic flags onto each strategy', () => {
  test('--chunk-size names each strategy\'s own size option', () => {
    const expected: Record<string, string> = {
      structure: 'chunkSize',
      recursive: 'chunkSize',
      sentence: 'chunkSize',
      token: 'chunkSize',
      chisel: 'maxCharSize',
      qwen: 'parserPageSize',
    };
    for (const [strategy, option] of Object.entries(expected)) {
      expect(buildChunkOptions({ ...base, strategy, chunkSize: 300 }), strategy).toEqual({ strategy, [option]: 300 });
    }
  });

  test('--chunk-overlap maps where strategies overlap and is refused, with the reason, where they do not', () => {
    for (const strategy of ['structure', 'recursive', 'sentence', 'token']) {
      expect(buildChunkOptions({ ...base, strategy, chunkOverlap: 20 })).toEqual({ strategy, chunkOverlap: 20 });
    }
    expect(() => buildChunkOptions({ ...base, strategy: 'chisel', chunkOverlap: 20 })).toThrow(/lookBackCharRange/);
    expect(() => buildChunkOptions({ ...base, strategy: 'qwen', chunkOverlap: 20 })).toThrow(/150 characters/);
    expect(() => buildChunkOptions({ ...base, strategy: 'qwen', chunkOverlap: 20 })).toThrow(UsageError);
  });

  test('--unit becomes lengthUnit for recursive and sentence; single-unit strategies accept their unit and refuse the other', () => {
    expect(buildChunkOptions({ ...base, strategy: 'recursive', unit: 'tokens' })).toEqual({ strategy: 'recursive', lengthUnit: 'tokens' });
    expect(buildChunkOptions({ ...base, strategy: 'sentence', unit: 'chars' })).toEqual({ strategy: 'sentence', lengthUnit: 'chars' });
    expect(() => buildChunkOptions({ ...base, strategy: 'token', unit: 'chars' })).toThrow(/token sizes chunks in tokens/);
    expect(buildChunkOptions({ ...base, strategy: 'chisel', unit: 'chars' })).toEqual({ strategy: 'chisel' });
    expect(() => buildChunkOptions({ ...base, strategy: 'chisel', unit: 'tokens' })).toThrow(/characters/);
    expect(() => buildChunkOptions({ ...base, strategy: 'qwen', unit: 'chars' })).toThrow(/tokens/);
    expect(() => buildChunkOptions({ ...base, strategy: 'recursive', unit: 'words' })).toThrow(/--unit must be one of tokens, chars/);
  });

  test('a strategy the CLI does not know gets the plain option names', () => {
    expect(buildChunkOptions({ ...base, strategy: 'mine', chunkSize: 10, chunkOverlap: 2, unit: 'chars' })).toEqual({
      strategy: 'mine',
      chunkSize: 10,
      chunkOverlap: 2,
      lengthUnit: 'chars',
    });
  });

  test('--tokenizer is checked against the known vocabularies', () => {
    expect(buildChunkOptions({ ...base, strategy: 'token', tokenizer: 'o200k_base' })).toEqual({ strategy: 'token', tokenizer: 'o200k_base' });
    expect(() => buildChunkOptions({ ...base, strategy: 'token', tokenizer: 'gpt2' })).toThrow(/cl100k_base, o200k_base, qwen/);
  });

  test('--opt passes strategy options through and refuses to set one option twice', () => {
    expect(buildChunkOptions({ strategy: 'chisel', opts: ['look-back-char-range=120'] })).toEqual({ strategy: 'chisel', lookBackCharRange: 120 });
    expect(() => buildChunkOptions({ strategy: 'chisel', chunkSize: 10, opts: ['maxCharSize=20'] })).toThrow(/given twice \(--chunk-size and --opt maxCharSize\)/);
    expect(() => buildChunkOptions({ strategy: 'chisel', opts: ['strategy=recursive'] })).toThrow(/use --strategy/);
  });
});

describe('parseOpt', () => {
  test('values are JSON when they parse as JSON, else strings', () => {
    expect(parseOpt('chunkSize=12')).toEqual({ key: 'chunkSize', value: 12 });
    expect(parseOpt('keepSeparator=false')).toEqual({ key: 'keepSeparator', value: false });
    expect(parseOpt('separators=["\\n\\n"," "]')).toEqual({ key: 'separators', value: ['\n\n', ' '] });
    expect(parseOpt('language=python')).toEqual({ key: 'language', value: 'python' });
    expect(parseOpt('breadcrumb-separator= > ')).toEqual({ key: 'breadcrumbSeparator', value: ' > ' });
    expect(parseOpt('empty=')).toEqual({ key: 'empty', value: '' });
  });

  test('malformed pairs are usage errors', () => {
    expect(() => parseOpt('chunkSize')).toThrow(UsageError);
    expect(() => parseOpt('=3')).toThrow(UsageError);
    expect(() => parseOpt('a.b=3')).toThrow(/not an option name/);
  });
});

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { detect } from '../../src/detect/detect.js';
import type { DocumentDraft } from '../../src/document/types.js';
import { isGroundworkError } from '../../src/errors.js';
import { jsonParser, MAX_INDENT_DEPTH, render } from '../../src/parsers/json.js';
import type { ParseOptions } from '../../src/parsers/types.js';
import { corpus, hasShared } from '../helpers.js';

const parse = (text: string, name: string, options: ParseOptions = {}): DocumentDraft => jsonParser.parse({ bytes: new Uint8Array(), text, name }, options) as DocumentDraft;

function corruptMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isGroundworkError(error) && error.code === 'CORRUPT') return error.message;
    throw error;
  }
  throw new Error('expected CORRUPT');
}

describe('json parser (inline)', () => {
  test('array of records, default key text, one paragraph per record; missing key skipped with a warning', () => {
    const draft = parse('[{"text":"alpha","id":1},{"id":2},{"text":"beta"}]', 'a.json');
    expect(draft.elements.map((e) => e.text)).toEqual(['alpha', 'beta']);
    expect(draft.warnings).toEqual(["skipped 1 of 3 records that have none of the keys ['text'] (option jsonKeys)"]);
    expect(draft.format).toBe('json');
  });
  test('jsonKeys: several keys each on a line, dotted paths, non-string values rendered', () => {
    const draft = parse('[{"title":"T","body":"B","meta":{"tags":["x","y"],"n":3}}]', 'a.json', { jsonKeys: ['title', 'body', 'meta.n', 'meta'] });
    expect(draft.elements[0]!.text).toBe('T\nB\n3\ntags:\n  - x\n  - y\nn: 3');
  });
  test('a top-level object holding one array of records uses that array', () => {
    expect(parse('{"version":1,"data":[{"text":"a"},{"text":"b"}]}', 'a.json').elements.map((e) => e.text)).toEqual(['a', 'b']);
  });
  test('no record has the keys: each record rendered whole, with a warning', () => {
    const draft = parse('{"name":"cfg","nested":{"k":"v","list":[1,{"a":"b"}]},"empty":[]}', 'a.json');
    expect(draft.elements.map((e) => e.text)).toEqual(['name: cfg\nnested:\n  k: v\n  list:\n    - 1\n    - a: b\nempty: []']);
    expect(draft.warnings?.[0]).toMatch(/no record has any of the keys/);
  });
  test('jsonl: one record per line, blank lines skipped, offsets are the lines', () => {
    const text = '{"text":"one"}\n\n  {"text":"two"}  \n';
    const draft = parse(text, 'a.jsonl');
    expect(draft.format).toBe('jsonl');
    expect(draft.elements.map((e) => [e.text, text.slice(e.sourceStart, e.sourceEnd)])).toEqual([
      ['one', '{"text":"one"}'],
      ['two', '{"text":"two"}'],
    ]);
  });
  test('invalid JSON is CORRUPT with line and column', () => {
    expect(corruptMessage(() => parse('{\n  "a": 1,\n  "b" 2\n}', 'a.json'))).toMatch(/invalid JSON at line 3, column 7/);
    expect(corruptMessage(() => parse('{"text":"ok"}\n{"text": nope}\n', 'a.jsonl'))).toMatch(/invalid JSON Lines at line 2\b/);
    expect(corruptMessage(() => parse('[1, 2', 'a.json'))).toMatch(/invalid JSON at line 1/);
  });
  test('invalid jsonKeys is INVALID_OPTIONS', () => {
    expect(() => parse('[]', 'a.json', { jsonKeys: [] })).toThrow(/jsonKeys/);
  });
  test('render keeps multi-line strings readable', () => {
    expect(render({ a: 'x\ny' })).toBe('a: x\n  y');
  });
});

describe.skipIf(!hasShared)('json parser on corpus/json', () => {
  const load = (file: string, options: ParseOptions = {}): DocumentDraft => {
    const detection = detect(readFileSync(corpus('json', file)), { name: file });
    return jsonParser.parse({ bytes: new Uint8Array(), text: detection.text!, name: file }, options) as DocumentDraft;
  };
  test('arbitrary-records.json and .ndjson give the same records', () => {
    const json = load('arbitrary-records.json', { jsonKeys: ['name', 'sku'] });
    const ndjson = load('arbitrary-records.ndjson', { jsonKeys: ['name', 'sku'] });
    expect(json.elements.map((e) => e.text)).toEqual(['Garden Trowel\nGRD-8842', 'Watering Can\nGRD-1290', 'Pruning Shears\nGRD-3317']);
    expect(ndjson.elements.map((e) => e.text)).toEqual(json.elements.map((e) => e.text));
  });
  test('arbitrary-records.json with the default keys renders each record whole', () => {
    const draft = load('arbitrary-records.json');
    expect(draft.elements[0]!.text).toBe('sku: GRD-8842\nname: Garden Trowel\nprice: 12.5\nin_stock: true');
  });
  test('headhunter_zh.json (nested config) renders readably, Chinese prompt text kept', () => {
    const draft = load('headhunter_zh.json');
    expect(draft.elements.length).toBeGreaterThanOrEqual(1);
    expect(draft.elements.map((e) => e.text).join('\n')).toContain('您好！我是AGI方向的猎头');
  });
  test('xquad.zh.json: one record per article; jsonKeys reaches titles', () => {
    const draft = load('xquad.zh.json', { jsonKeys: ['title'] });
    const whole = load('xquad.zh.json');
    expect(draft.warnings).toBeUndefined();
    expect(draft.elements.length).toBeGreaterThan(10);
    expect(whole.elements.length).toBe(draft.elements.length);
    expect(whole.elements[0]!.text).toContain('context: 黑豹队的防守只丢了 308分');
    expect(whole.elements[0]!.text.endsWith(`\ntitle: ${draft.elements[0]!.text}`)).toBe(true);
  });
});

/** The rendering before its indentation was capped, for the differential test below. */
function referenceRender(value: unknown): string {
  const lines: string[] = [];
  const scalarText = (v: unknown): string => (v === null ? 'null' : typeof v === 'string' ? v : String(v));
  const isScalarValue = (v: unknown): boolean => v === null || typeof v !== 'object' || (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0);
  const text = (v: unknown): string => (typeof v === 'object' && v !== null ? (Array.isArray(v) ? '[]' : '{}') : scalarText(v));
  const into = (v: unknown, depth: number, out: string[]): void => {
    const pad = '  '.repeat(depth);
    if (isScalarValue(v)) {
      for (const line of text(v).split('\n')) out.push(pad + line);
      return;
    }
    if (Array.isArray(v)) {
      for (const item of v) {
        if (isScalarValue(item)) out.push(`${pad}- ${text(item).replace(/\n/g, `\n${pad}  `)}`);
        else {
          const nested: string[] = [];
          into(item, depth + 1, nested);
          nested[0] = `${pad}- ${nested[0]!.slice(pad.length + 2)}`;
          out.push(...nested);
        }
      }
      return;
    }
    for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
      if (isScalarValue(item)) out.push(`${pad}${key}: ${text(item).replace(/\n/g, `\n${pad}  `)}`);
      else {
        out.push(`${pad}${key}:`);
        into(item, depth + 1, out);
      }
    }
  };
  into(value, 0, lines);
  return lines.join('\n');
}

describe('json: render on deep values', () => {
  test('renders as before wherever nesting stays within MAX_INDENT_DEPTH (fast-check)', () => {
    const leaf = fc.oneof(fc.constantFrom('a', 'two words', 'x\ny', '', '- dash'), fc.integer(), fc.boolean(), fc.constant(null));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('k', 'name', 'a b'), tie('node'), { maxKeys: 3 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(render(v)).toBe(referenceRender(v));
      }),
      { seed: 20261201, numRuns: 300 },
    );
  });

  test('a value nested 1,500 deep renders in text proportional to its size', () => {
    let deep: unknown = 'leaf';
    for (let d = 0; d < 1500; d++) deep = d % 2 === 0 ? { a: deep } : [deep, 1];
    const text = render(deep);
    expect(text.split('\n').length).toBe(1500);
    // Before the cap every line carried its depth's indentation: about 2.3 million characters.
    expect(text.length).toBeLessThan(1500 * (2 * MAX_INDENT_DEPTH + 8));
  });
});

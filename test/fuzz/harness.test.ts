/**
 * The fuzz harness's own pieces: a PRNG that replays, mutators that do what their recipe says, and
 * the classification of outcomes into findings (what the bounded run fails on).
 */
import { unzipSync, strToU8, zipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import type { Case } from './cases.js';
import { classify, loadReproducer, normalise, saveReproducer } from './findings.js';
import { mutateZipEntry, truncate, wrongMagic } from './mutate.js';
import { Prng } from './prng.js';
import type { RunResult } from './pool.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const parseCase = (bytes = strToU8('x')): Case => ({ index: 3, target: 'parse:docx', origin: 'corpus/docx/a.docx', steps: ['flip 1 bit(s) at 0'], task: { kind: 'parse', name: 'a.docx', bytes, strategy: 'structure', ocr: 'off' } });
const run = (outcome: RunResult['outcome'], ms = 5): RunResult => ({ outcome, ms });

describe('fuzz harness', () => {
  test('a case generator replays from (seed, index)', () => {
    const a = Prng.forCase(7, 12);
    const b = Prng.forCase(7, 12);
    const c = Prng.forCase(7, 13);
    const xs = Array.from({ length: 8 }, () => a.u32());
    expect(Array.from({ length: 8 }, () => b.u32())).toEqual(xs);
    expect(Array.from({ length: 8 }, () => c.u32())).not.toEqual(xs);
    const r = new Prng(1);
    for (let i = 0; i < 1000; i++) {
      const v = r.range(3, 9);
      expect(v >= 3 && v <= 9).toBe(true);
    }
  });

  test('truncation keeps sixteenths; wrong magic overwrites or prepends the signature', () => {
    const bytes = new Uint8Array(160).fill(7);
    expect(truncate(bytes, 5).bytes.length).toBe(50);
    const magic = strToU8('%PDF-');
    const m = wrongMagic(bytes, magic, 'pdf', new Prng(3));
    expect(Array.from(m.bytes.subarray(0, 5))).toEqual(Array.from(magic));
    expect([160, 165]).toContain(m.bytes.length);
  });

  test('a mutated ZIP entry is re-zipped into a readable ZIP, mimetype first', () => {
    const zip = zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }], 'content.xml': strToU8('<a><b>text</b></a>'), 'styles.xml': strToU8('<s/>') });
    for (let seed = 0; seed < 20; seed++) {
      const m = mutateZipEntry(zip, new Prng(seed))!;
      expect(m.steps.join(' ')).toMatch(/zip/);
      const names = Object.keys(unzipSync(m.bytes));
      expect(names[0]).toBe('mimetype');
    }
    expect(mutateZipEntry(strToU8('not a zip'), new Prng(1))).toBeUndefined();
  });

  test('outcomes are classified: crashes, hangs, wrong codes are findings; typed rejections are not', () => {
    const c = parseCase();
    expect(classify(c, run({ status: 'rejected', stage: 'parse', code: 'CORRUPT', message: 'a.docx: damaged', hasFile: true }), 1000)).toBeUndefined();
    expect(classify(c, run({ status: 'thrown', stage: 'parse', error: { name: 'TypeError', message: 'x is undefined' } }), 1000)?.kind).toBe('crash');
    expect(classify(c, run({ status: 'timeout', limitMs: 100 }), 1000)?.kind).toBe('hang');
    expect(classify(c, run({ status: 'memory', detail: 'heap' }), 1000)?.kind).toBe('memory');
    expect(classify(c, run({ status: 'rejected', stage: 'parse', code: 'IO', message: 'a.docx: io', hasFile: true }), 1000)?.kind).toBe('wrong-code');
    expect(classify(c, run({ status: 'rejected', stage: 'parse', code: 'CORRUPT', message: 'damaged', hasFile: false }), 1000)?.kind).toBe('wrong-code');
    const overflow = run({ status: 'rejected', stage: 'parse', code: 'CORRUPT', message: 'a.docx: damaged', hasFile: true, cause: { name: 'RangeError', message: 'Maximum call stack size exceeded' } });
    expect(classify(c, overflow, 1000)?.kind).toBe('wrong-code');
    const internal = run({ status: 'rejected', stage: 'parse', code: 'CORRUPT', message: 'a.docx: damaged', hasFile: true, cause: { name: 'TypeError', message: "Cannot read properties of undefined (reading 'x')" } });
    expect(classify(c, internal, 1000)?.kind).toBe('internal');
    expect(classify(c, run({ status: 'ok', summary: 'docx', violations: ['chunk 1: tokens 3, counted 4'] }), 1000)?.kind).toBe('invariant');
    expect(classify(c, run({ status: 'ok', summary: 'docx', violations: [] }, 2000), 1000)?.kind).toBe('slow');
    expect(normalise("a.docx: entry 'word/x.xml' at 1234 is bad")).toBe('entry Q at N is bad');
  });

  test('a reproducer holds the bytes and replays into the same case', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-fuzz-'));
    try {
      const c = parseCase(Uint8Array.from([0x50, 0x4b, 1, 2, 3]));
      const r = run({ status: 'thrown', stage: 'parse', error: { name: 'TypeError', message: 'boom' } });
      const path = saveReproducer(dir, 42, c, r, classify(c, r, 1000)!);
      const { repro, case: back } = loadReproducer(path);
      expect(repro.seed).toBe(42);
      expect(repro.replay).toMatch(/^npm run fuzz -- --replay /);
      expect(back.task).toEqual(c.task);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

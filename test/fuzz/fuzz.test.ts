/**
 * The bounded fuzz run of `npm test`: a fixed seed, a few hundred inputs that take turns over every
 * parser format and every chunker (mutated corpus files, noise behind each signature, generated
 * pathological strings), each in a watched worker thread (time and heap ceilings). It fails on any
 * hard finding: a crash (anything but a GroundworkError), a hang, a blow-up, a broken invariant or
 * a wrong error code. The same harness runs for minutes with `npm run fuzz` (test/fuzz/main.ts).
 * Small seed files and short texts keep it under a minute on a quiet two-core machine.
 */
import { describe, expect, test } from 'vitest';
import { Schedule } from './cases.js';
import { runFuzz } from './run.js';
import { hasShared } from '../helpers.js';

const SEED = 20261202;
const PER_TARGET = 8;

const schedule = { seed: SEED, maxSeedBytes: 64 * 1024, maxChars: 6000, ocr: 'off' } as const;

describe('fuzz (bounded, fixed seed)', () => {
  test('the schedule covers every parser format and every chunker', () => {
    const ids = new Schedule(schedule).targets.map((t) => t.id);
    // Generated seeds (seeds.ts) exist everywhere; the corpus brings the binary formats.
    for (const id of ['parse:odt', 'parse:ods', 'parse:odp', 'parse:html', 'parse:markdown', 'parse:csv', 'parse:json', 'parse:jsonl', 'parse:eml', 'parse:rtf', 'parse:vtt', 'parse:text', 'chunk:structure', 'chunk:sentence', 'chunk:token', 'chunk:recursive-chars', 'chunk:recursive-tokens', 'chunk:chisel', 'chunk:qwen']) {
      expect(ids).toContain(id);
    }
    if (hasShared) for (const id of ['parse:pdf', 'parse:docx', 'parse:xlsx', 'parse:pptx', 'parse:epub', 'parse:zip', 'parse:image', 'parse:encrypted', 'parse:transcribe']) expect(ids).toContain(id);
  });

  test('the same seed gives the same inputs', () => {
    const a = new Schedule(schedule);
    const b = new Schedule(schedule);
    for (const i of [0, 1, 7, 40, 123]) {
      const x = a.case(i);
      const y = b.case(i);
      expect(y.steps).toEqual(x.steps);
      expect(y.task).toEqual(x.task);
    }
  });

  test(`${PER_TARGET} inputs per target: no crash, hang, blow-up, broken invariant or wrong code`, async () => {
    const targets = new Schedule(schedule).targets.length;
    const report = await runFuzz({ ...schedule, cases: targets * PER_TARGET, workers: 2, timeoutMs: 60_000, heapMb: 768, rssMb: 2560, slowMs: Infinity });
    expect(report.cases).toBe(targets * PER_TARGET);
    for (const [id, t] of report.targets) expect(t.cases, id).toBe(PER_TARGET);
    const hard = report.findings.filter((f) => f.hard).map((f) => `${f.kind} ${f.target} (seed ${SEED}, case ${f.index}: npm run fuzz -- --seed ${SEED} --case ${f.index} --max-seed-bytes 65536 --max-chars 6000 --ocr off): ${f.summary}`);
    expect(hard).toEqual([]);
    // Not a pretend run: inputs were parsed and chunked, and damaged ones rejected with codes.
    const ok = [...report.targets.values()].reduce((n, t) => n + t.ok, 0);
    const rejected = [...report.targets.values()].reduce((n, t) => n + Object.values(t.rejected).reduce((a, b) => a + b, 0), 0);
    expect(ok).toBeGreaterThan(targets * 2);
    expect(rejected).toBeGreaterThan(targets);
  }, 600_000);
});

/**
 * The soak's pieces that can be checked quickly (the soak itself is `npm run soak`: minutes):
 * the generated files are a pure function of the seed, mixed as documented, and the process-tree
 * sampler sees a child process and its memory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { generateFiles, processTree, rssTable, type RssSample } from '../../bench/soak.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-soak-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('soak', () => {
  test('the files are a pure function of the seed: copies, unique variants and mutations', () => {
    const a = generateFiles(join(dir, 'a'), 110, 5, 64 * 1024);
    const b = generateFiles(join(dir, 'b'), 110, 5, 64 * 1024);
    expect(a.paths).toHaveLength(110);
    expect(a.kinds).toEqual(b.kinds);
    expect((a.kinds.copy ?? 0) + (a.kinds.variant ?? 0) + (a.kinds.mutated ?? 0)).toBe(110);
    expect(a.kinds.mutated).toBeGreaterThan(5);
    for (const i of [0, 1, 57, 109]) expect(readFileSync(b.paths[i]!)).toEqual(readFileSync(a.paths[i]!));
    expect(new Set(a.paths.map((p) => p.split('/').at(-2))).size).toBe(2); // folders of 100
  });

  test('the sampler finds a child in the process tree; the table keeps at most its rows', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(processTree(process.pid)).toContain(child.pid);
    } finally {
      child.kill('SIGKILL');
    }
    const samples: RssSample[] = Array.from({ length: 95 }, (_, i) => ({ t: i, phase: i < 50 ? 'A: first run' : 'A: second run', mb: i === 70 ? 300 : 100, processes: 1 }));
    const rows = rssTable(samples, 10);
    expect(rows.length).toBeLessThanOrEqual(10);
    expect(rows.some((r) => r[2] === '300' && r[1] === 'A: second run')).toBe(true);
  });
});

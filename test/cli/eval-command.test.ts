import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { RESULT_KEYS } from '../../src/cli/eval-command.js';
import { run } from '../../src/cli/run.js';
import { evalDir, hasShared } from '../helpers.js';

/** `groundwork eval` and `groundwork tune` in-process, through the same `run` main.ts calls. */

async function runInProcess(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-eval-cli-'));
  temps.push(dir);
  return dir;
}

describe('eval and tune: usage', () => {
  test('help, missing dataset, bad flags, a folder that is not a dataset', async () => {
    expect((await runInProcess(['eval', '--help'])).stdout).toContain('hitAtBudget');
    expect((await runInProcess(['eval'])).code).toBe(2);
    const bad = await runInProcess(['eval', tempDir(), '--strategy', 'structure:unit=chars']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('does not apply');
    expect((await runInProcess(['eval', tempDir(), '--k', '0'])).code).toBe(2);
    const notDataset = await runInProcess(['eval', tempDir()]);
    expect(notDataset.code).toBe(1);
    expect(notDataset.stderr).toContain('not an evaluation dataset');
  });

  test('tune on a plain folder: unit lengths and a recommendation from them alone', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'guide.md'), '# Guide\n\nFirst paragraph of the guide.\n\n## Setup\n\nInstall it.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n');
    writeFileSync(join(dir, 'notes.txt'), 'Plain notes.\n\nA second paragraph.\n');
    const { code, stdout } = await runInProcess(['tune', dir]);
    expect(code).toBe(0);
    expect(stdout).toContain('2 documents');
    expect(stdout).toMatch(/\| sections\s+\|\s+2 \|/);
    expect(stdout).toMatch(/\| tables\s+\|\s+1 \|/);
    expect(stdout).toContain('No questions here');
    expect(stdout).toContain('Recommended chunkSize: 128 (no questions, so from unit lengths alone');
    const json = JSON.parse((await runInProcess(['tune', dir, '--json'])).stdout);
    expect(json.recommendation).toMatchObject({ chunkSize: 128, fromUnitsOnly: true });
    expect(json.grid).toEqual([]);
  });
});

const xquad = join(evalDir, 'xquad-en');

describe.skipIf(!hasShared || !existsSync(xquad))('eval on a slice of xquad-en', () => {
  test('--json: one object per configuration with the contract keys; --misses; same seed, same numbers', async () => {
    const args = ['eval', xquad, '--limit', '40', '--seed', 's1', '--json', '--strategy', 'structure:chunkSize=256'];
    const first = await runInProcess(args);
    expect(first.code).toBe(0);
    const rows = JSON.parse(first.stdout) as Record<string, unknown>[];
    expect(rows.length).toBe(9);
    for (const row of rows) {
      for (const key of RESULT_KEYS) expect(row).toHaveProperty(key);
      expect(row.questions).toBe(40);
      expect(row.k).toBe(5);
      expect(row.budget).toBe(1000);
    }
    expect(rows.at(-1)!.config).toBe('structure:chunkSize=256');
    const again = JSON.parse((await runInProcess(args)).stdout) as Record<string, unknown>[];
    expect(again.map((r) => ({ ...r, seconds: 0 }))).toEqual(rows.map((r) => ({ ...r, seconds: 0 })));

    const table = await runInProcess(['eval', xquad, '--limit', '20', '--k', '3', '--budget', '500', '--misses']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('xquad-en: 20 questions, 12 documents, k=3, budget 500 tokens');
    expect(table.stdout).toContain('| Chroma recursive 200/0 tokens');
    expect(table.stdout).toMatch(/hit@3 .*MRR@10 .*IoU .*hit@500t/);
    expect(table.stdout).toMatch(/xquad-en: (every question was found|\d+ questions? no configuration found)/);
  });
});

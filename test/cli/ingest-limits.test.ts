import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/run.js';
import { corpus, hasShared } from '../helpers.js';
import { runCli } from './cli.js';

/** The ingest limit flags (--file-timeout, --file-memory, --max-nesting...) and what the report says when one is hit. */

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cli-limits-'));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function runInProcess(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

const NOTE = '# Harbour note\n\nThe tide turns twice a day at the harbour mouth.\n';

describe('groundwork ingest: limit flags', () => {
  test('--help lists the per-file limits with their defaults', async () => {
    const { code, stdout } = await runInProcess(['ingest', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/--file-timeout DURATION\n +wall time .*\(default: 120s\)/s);
    expect(stdout).toMatch(/--file-memory SIZE +memory .*\(default: 512MB\)/s);
    expect(stdout).toContain('--max-nesting N');
    expect(stdout).toContain('--max-expansion N');
  });

  test('bad limit values are usage errors (exit 2) that say what a value looks like', async () => {
    const lib = join(tempDir(), 'lib');
    const cases: [string[], RegExp][] = [
      [['--file-timeout', 'soon'], /--file-timeout must be a duration/],
      [['--file-timeout', '0'], /--file-timeout must be a duration/],
      [['--file-memory', 'lots'], /--file-memory must be a size in MB/],
      [['--max-nesting', '0'], /--max-nesting/],
    ];
    for (const [flags, message] of cases) {
      const result = await runInProcess(['ingest', '.', '--library', lib, ...flags]);
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr, flags.join(' ')).toMatch(message);
    }
  });

  test('--max-nesting: a file nested deeper is rejected with the limit in the JSON report; the other file lands', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-note.md'), NOTE);
    writeFileSync(join(dir, 'b-deep.json'), `${'['.repeat(40)}1${']'.repeat(40)}`);
    const result = await runCli(['ingest', dir, '--library', join(dir, '.lib'), '--workers', '1', '--max-nesting', '16', '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { docsAdded: number; aborted: boolean; rejected: { path: string; code: string; reason: string; limit?: unknown }[] };
    expect(report.docsAdded).toBe(1);
    expect(report.aborted).toBe(false);
    expect(report.rejected).toEqual([
      { path: join(dir, 'b-deep.json'), code: 'LIMIT_EXCEEDED', reason: expect.stringMatching(/b-deep\.json.*maxNesting 16; raise it with --max-nesting/), limit: { name: 'maxNesting', value: 16, flag: '--max-nesting' } },
    ]);
  });

  test.skipIf(!hasShared)('--file-timeout: a slow file is TIMEOUT, the table says which limit and how to raise it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-note.md'), NOTE);
    // OCR of a scanned page takes seconds: far past 2 s.
    copyFileSync(corpus('pdf-scanned', 'loremipsum-flat.pdf'), join(dir, 'b-scan.pdf'));
    const result = await runCli(['ingest', dir, '--library', join(dir, '.lib'), '--workers', '1', '--file-timeout', '2s']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/documents added +\| +1 \|/);
    expect(result.stdout).toContain('b-scan.pdf [TIMEOUT]: parsing and chunking took longer than 2 s (fileTimeoutMs 2000; raise it with --file-timeout)');
    expect(result.stdout).toContain('-> the file is over a limit (fileTimeoutMs 2000): if you trust it, raise the limit with --file-timeout; otherwise --exclude it');
  });
});

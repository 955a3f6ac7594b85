import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { corpus, hasShared, projectRoot, sharedSkipReason } from '../helpers.js';
import { runCli, SAMPLES } from './cli.js';

/** The CLI as a user runs it: a real child process, real files, real exit codes. */

const CHUNK_FIELDS = ['index', 'text', 'start', 'end', 'chars', 'tokens', 'headingPath', 'kind', 'strategy'];
const HANDBOOK = join(SAMPLES, 'tool-library-handbook.md');

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('groundwork (spawned)', () => {
  test('--help exits 0 and lists the commands; --version prints package.json version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: groundwork <command>/);
    for (const command of ['demo', 'parse', 'chunk']) expect(help.stdout).toContain(`  ${command} `);

    const version = await runCli(['--version']);
    const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
  });

  test('a command\'s --help exits 0 (every command: test/cli/run.test.ts)', async () => {
    const result = await runCli(['chunk', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: groundwork chunk');
  });

  test('parse --json prints the Document with elements whose spans index the canonical text', async () => {
    const result = await runCli(['parse', HANDBOOK, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as {
      format: string;
      metadata: unknown;
      warnings: unknown[];
      elements: { kind: string; text: string; level?: number; start: number; end: number }[];
      canonical: string;
    };
    expect(doc.format).toBe('markdown');
    expect(doc.metadata).toBeTypeOf('object');
    expect(Array.isArray(doc.warnings)).toBe(true);
    expect(doc.elements[0]).toMatchObject({ kind: 'heading', level: 1, text: 'Maple Street Tool Library: Volunteer Handbook' });
    const kinds = new Set(doc.elements.map((e) => e.kind));
    for (const kind of ['heading', 'paragraph', 'list-item', 'table', 'code', 'quote']) expect(kinds).toContain(kind);
    for (const el of doc.elements) expect(doc.canonical.slice(el.start, el.end).length).toBe(el.end - el.start);
    expect(doc.canonical.slice(doc.elements[0]!.start, doc.elements[0]!.end)).toBe('# Maple Street Tool Library: Volunteer Handbook');
  });

  test('parse without a flag prints the canonical text', async () => {
    const result = await runCli(['parse', HANDBOOK]);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('# Maple Street Tool Library: Volunteer Handbook\n\n')).toBe(true);
    expect(result.stdout).toMatch(/^\| Category \| Examples \| Loan period \| Deposit \|$/m);
  });

  test('chunk --jsonl prints one chunk per line with the Chunk fields', async () => {
    const result = await runCli(['chunk', HANDBOOK, '--jsonl', '--chunk-size', '120']);
    expect(result.code).toBe(0);
    const chunks = jsonLines(result.stdout);
    expect(chunks.length).toBeGreaterThan(2);
    chunks.forEach((c, i) => {
      for (const field of CHUNK_FIELDS) expect(c, field).toHaveProperty(field);
      expect(c.index).toBe(i);
      expect(c.strategy).toBe('structure');
      expect(c.tokens as number).toBeLessThanOrEqual(120);
    });
    expect(chunks.some((c) => (c.headingPath as string[]).includes('Lending rules'))).toBe(true);
  });

  test('chunk - reads bytes from stdin and detects their encoding (GBK sample)', async () => {
    const bytes = readFileSync(join(SAMPLES, 'residents-agreement-gbk.txt'));
    const result = await runCli(['chunk', '-', '--jsonl', '--strategy', 'recursive', '--chunk-size', '200', '--chunk-overlap', '20'], bytes);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const text = jsonLines(result.stdout)
      .map((c) => c.text as string)
      .join('');
    expect(text).toContain('第一条 本公约适用于阳光花园小区全体业主及物业使用人。');
    expect(text).not.toContain('\uFFFD');
  });

  test('an unknown flag is a usage error: exit 2, the flag named on stderr', async () => {
    const result = await runCli(['chunk', HANDBOOK, '--bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--bogus'");
    expect(result.stdout).toBe('');
  });

  test('a flag that makes no sense for the strategy is a usage error that says why', async () => {
    const result = await runCli(['chunk', HANDBOOK, '--strategy', 'chisel', '--chunk-overlap', '50']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--chunk-overlap does not apply');
    expect(result.stderr).toContain('lookBackCharRange');
  });

  test('an unknown strategy is INVALID_OPTIONS with exit 2', async () => {
    const result = await runCli(['chunk', HANDBOOK, '--strategy', 'semantic-magic']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown chunking strategy 'semantic-magic'.*\[INVALID_OPTIONS\]/);
  });

  test('a missing file: exit 1, its path and IO on stderr', async () => {
    const missing = join(projectRoot, 'samples', 'no-such-file.md');
    const result = await runCli(['parse', missing]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`groundwork: ${missing}: cannot read: no such file [IO]\n`);
  });

  test('an empty file: exit 1 with EMPTY', async () => {
    const empty = join(mkdtempSync(join(tmpdir(), 'groundwork-cli-')), 'empty.txt');
    writeFileSync(empty, '');
    const result = await runCli(['chunk', empty]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(empty);
    expect(result.stderr).toContain('[EMPTY]');
  });

  test('demo parses and chunks every bundled sample', async () => {
    const result = await runCli(['demo']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const samples = readdirNames(SAMPLES);
    for (const file of samples) expect(result.stdout).toMatch(new RegExp(`^\\| ${file.replace(/\./g, '\\.')} `, 'm'));
    expect(result.stdout).toContain(`${samples.length} of ${samples.length} files parsed and chunked.`);
  });
});

function readdirNames(dir: string): string[] {
  return readdirSync(dir).filter((f) => !f.startsWith('.'));
}

describe.skipIf(!hasShared)('groundwork on the shared corpus (spawned)', () => {
  if (!hasShared) console.warn(sharedSkipReason);

  test('chunk --jsonl on a Chinese Markdown file and a legacy-encoded text file', async () => {
    for (const file of [corpus('md', 'markdown.sample.zh.md'), corpus('txt', 'sunzi-bingfa-simplified-gbk.txt')]) {
      const result = await runCli(['chunk', file, '--jsonl']);
      expect(result.code, file).toBe(0);
      const chunks = jsonLines(result.stdout);
      expect(chunks.length, file).toBeGreaterThan(0);
      for (const c of chunks) for (const field of CHUNK_FIELDS) expect(c, `${file} ${field}`).toHaveProperty(field);
      expect(chunks.map((c) => c.text).join(''), file).not.toContain('\uFFFD');
    }
  });

  test('parse --json on HTML keeps the title and drops boilerplate', async () => {
    const result = await runCli(['parse', corpus('html', 'wiki_duck.html'), '--json']);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { format: string; title?: string; elements: { kind: string }[] };
    expect(doc.format).toBe('html');
    expect(doc.title).toMatch(/duck/i);
    expect(doc.elements.some((e) => e.kind === 'heading')).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { describe, expect, test } from 'vitest';
import type { Chunk } from '../../src/chunkers/types.js';
import { run } from '../../src/cli/run.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { SAMPLES } from './cli.js';

/** The commands in-process, through the same `run` main.ts calls, for option handling in detail. */

async function runInProcess(args: string[], stdin: Uint8Array = new Uint8Array()) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    readStdin: async () => stdin,
  });
  return { code, stdout, stderr };
}

function chunksOf(stdout: string): Chunk[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Chunk);
}

const sample = (name: string) => join(SAMPLES, name);

describe('run: commands and options', () => {
  test('no command, an unknown command, help topics', async () => {
    expect((await runInProcess([])).code).toBe(2);
    const unknown = await runInProcess(['ingets']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'ingets'");
    expect((await runInProcess(['--nope'])).stderr).toContain("unknown option '--nope'");
    const help = await runInProcess(['help', 'chunk']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--chunk-overlap');
    for (const name of ['structure', 'recursive', 'chisel', 'qwen', 'sentence', 'token']) expect(help.stdout).toContain(`  ${name} `);
    expect((await runInProcess(['help', 'nope'])).code).toBe(2);
    for (const command of ['parse', 'chunk', 'demo']) {
      const result = await runInProcess([command, '--help']);
      expect(result.code, command).toBe(0);
      expect(result.stdout, command).toContain(`Usage: groundwork ${command}`);
    }
  });

  test('a missing file fails every command with exit 1, naming the file', async () => {
    for (const args of [['parse', 'no-such.md'], ['chunk', 'no-such.md'], ['chunk', 'no-such.md', '--raw'], ['demo', 'no-such-dir']]) {
      const result = await runInProcess(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(/^groundwork: no-such(\.md|-dir): .*\[IO\]\n$/);
    }
  });

  test('usage errors: conflicting outputs, bad numbers, bad format, two files', async () => {
    const handbook = sample('tool-library-handbook.md');
    const cases: [string[], RegExp][] = [
      [['chunk', handbook, '--json', '--jsonl'], /--json and --jsonl cannot be used together/],
      [['parse', handbook, '--json', '--md'], /--json and --md cannot be used together/],
      [['chunk', handbook, '--chunk-size', '0'], /--chunk-size must be an integer >= 1, got '0'/],
      [['chunk', handbook, '--chunk-size', '12k'], /--chunk-size must be an integer/],
      [['parse', handbook, '--format', 'docx-ish'], /--format must be one of/],
      [['parse', handbook, handbook], /expected one FILE, got 2/],
      [['parse'], /missing FILE/],
      [['chunk', handbook, '--chunk-size'], /argument missing/],
    ];
    for (const [args, message] of cases) {
      const result = await runInProcess(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr, args.join(' ')).toContain('--help');
    }
  });

  test('an option the strategy itself rejects exits 2 with INVALID_OPTIONS before reading input', async () => {
    const result = await runInProcess(['chunk', 'does-not-exist.md', '--strategy', 'chisel', '--opt', 'maxCharSise=10']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/maxCharSise.*\[INVALID_OPTIONS\]/);
  });

  test('chisel --chunk-size sets maxCharSize: no chunk is longer, in code points', async () => {
    // llmware merges pieces shorter than lookBackCharRange (default 300) into one: keep it below the size.
    const args = ['--strategy', 'chisel', '--chunk-size', '150', '--opt', 'lookBackCharRange=40', '--jsonl'];
    const result = await runInProcess(['chunk', sample('heater-manual-zh.md'), ...args]);
    expect(result.code).toBe(0);
    const chunks = chunksOf(result.stdout);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.strategy).toBe('chisel');
      expect(Array.from(c.text).length).toBeLessThanOrEqual(150);
    }
  });

  test('--raw --strategy recursive gives exactly what LangChain gives for the same file and options', async () => {
    const file = sample('tool-library-handbook.md');
    const text = readFileSync(file, 'utf8');
    const configs = [
      { args: ['--chunk-size', '300', '--chunk-overlap', '40'], langchain: { chunkSize: 300, chunkOverlap: 40 } },
      {
        args: ['--chunk-size', '120', '--chunk-overlap', '0', '--opt', 'keepSeparator=false', '--opt', 'separators=["\\n\\n","\\n"," ",""]'],
        langchain: { chunkSize: 120, chunkOverlap: 0, keepSeparator: false, separators: ['\n\n', '\n', ' ', ''] },
      },
    ];
    for (const { args, langchain } of configs) {
      const result = await runInProcess(['chunk', file, '--raw', '--strategy', 'recursive', '--jsonl', ...args]);
      expect(result.code, args.join(' ')).toBe(0);
      const expected = await new RecursiveCharacterTextSplitter(langchain).splitText(text);
      expect(chunksOf(result.stdout).map((c) => c.text)).toEqual(expected);
    }
  });

  test('stdin with --format forces the parser', async () => {
    const csv = new TextEncoder().encode('name,qty\r\nhammer,3\r\n"clamp, large",2\r\n');
    const result = await runInProcess(['parse', '-', '--format', 'csv', '--json'], csv);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { format: string; source: { name: string }; elements: { kind: string; table?: { rows: { text: string }[][] } }[] };
    expect(doc.format).toBe('csv');
    expect(doc.source.name).toBe('<stdin>');
    const table = doc.elements.find((e) => e.kind === 'table')!.table!;
    expect(table.rows.map((row) => row.map((cell) => cell.text))).toEqual([
      ['name', 'qty'],
      ['hammer', '3'],
      ['clamp, large', '2'],
    ]);
  });

  test('--json-keys picks the JSONL fields that become text', async () => {
    const file = sample('faq.jsonl');
    const plain = await runInProcess(['parse', file]);
    const withQuestions = await runInProcess(['parse', file, '--json-keys', 'question,text']);
    expect(plain.code).toBe(0);
    expect(withQuestions.code).toBe(0);
    expect(plain.stdout).not.toContain('How do I become a member?');
    expect(withQuestions.stdout).toContain('How do I become a member?');
    expect(withQuestions.stdout).toContain('借用工具需要押金吗？');
  });

  test('HTML: main content by default, boilerplate kept with --keep-boilerplate', async () => {
    const file = sample('river-sensor-notes.html');
    const main = await runInProcess(['parse', file]);
    const all = await runInProcess(['parse', file, '--keep-boilerplate']);
    expect(main.code).toBe(0);
    expect(main.stdout).toContain('| Mill pool | 12.8 | 15.2 | 17.6 |');
    expect(main.stdout).not.toContain('We use cookies');
    expect(all.stdout).toContain('We use cookies');
  });

  test('the readable listing shows each chunk with its metadata and ends with a summary', async () => {
    const result = await runInProcess(['chunk', sample('tool-library-handbook.md'), '--chunk-size', '200']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^--- #0 \| \d+ tokens \| \d+ chars \| text \| \[0, \d+\)$/m);
    expect(result.stdout).toMatch(/^   Maple Street Tool Library: Volunteer Handbook > Lending rules/m);
    expect(result.stdout).toMatch(/\n\d+ chunks, \d+ tokens in all, largest \d+ \(cl100k_base, strategy structure\)\n$/);
  });
});

describe.skipIf(!hasShared)('run on the shared corpus', () => {
  if (!hasShared) console.warn(sharedSkipReason);

  test('--raw decodes legacy encodings exactly like the ground truth before chunking', async () => {
    const file = corpus('txt', 'sunzi-bingfa-simplified-gbk.txt');
    const expectedText = readFileSync(`${file}.expected.txt`, 'utf8');
    const result = await runInProcess(['chunk', file, '--raw', '--strategy', 'recursive', '--chunk-size', '400', '--chunk-overlap', '0', '--jsonl']);
    expect(result.code).toBe(0);
    const expected = await new RecursiveCharacterTextSplitter({ chunkSize: 400, chunkOverlap: 0 }).splitText(expectedText);
    expect(chunksOf(result.stdout).map((c) => c.text)).toEqual(expected);
  });
});

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/run.js';
import { corpusDir, hasShared, sharedSkipReason } from '../helpers.js';
import { runCli } from './cli.js';

/** The library commands as a user runs them: a real child process, a real SQLite file in a temp folder. */

const REPORT_FIELDS = ['docsAdded', 'docsSkipped', 'docsUpdated', 'blocksAdded', 'pagesAdded', 'tablesAdded', 'imagesAdded', 'parsed', 'rejected', 'durationMs'];
const BLOCK_FIELDS = ['id', 'docId', 'ordinal', 'kind', 'text', 'headingPath', 'pageStart', 'pageEnd', 'bboxes', 'start', 'end', 'chars', 'tokens', 'table', 'speaker', 'time', 'strategy', 'configHash'];

const temps: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Four documents (one stored under two names), an empty file, a hidden folder. */
function writeFolder(): string {
  const dir = tempDir('gw-cli-docs-');
  mkdirSync(join(dir, 'notes'));
  mkdirSync(join(dir, '.hidden'));
  writeFileSync(
    join(dir, 'guide.md'),
    '# Installation guide\n\n## Prerequisites\n\nYou need Node.js 20 and a C compiler for the native module.\n\n' +
      '## Steps\n\n1. Clone the repository.\n2. Run the installer.\n\n| tool | version |\n| --- | --- |\n| node | 20 |\n| npm | 11 |\n',
  );
  writeFileSync(
    join(dir, 'manual-zh.md'),
    '# 设备采购合同\n\n## 第三章 交付\n\n### 3.1 验收\n\n设备到货后十日内完成验收，验收合格后支付尾款。\n\n### 3.2 违约责任\n\n任何一方违约，应当赔偿对方的全部损失。\n',
  );
  const meeting = 'Meeting notes.\n\nThe budget for the quarterly review was approved by the board.\n\nNext meeting: Monday.\n';
  writeFileSync(join(dir, 'notes', 'meeting.txt'), meeting);
  writeFileSync(join(dir, 'notes', 'copy-of-meeting.txt'), meeting);
  writeFileSync(join(dir, 'data.csv'), 'city,population\nShanghai,24870895\nBeijing,21893095\n');
  writeFileSync(join(dir, 'empty.txt'), '');
  writeFileSync(join(dir, '.hidden', 'secret.txt'), 'must not be ingested');
  return dir;
}

function jsonLines(text: string): Record<string, any>[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

async function runInProcess(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

describe('groundwork ingest, search, ls, show, stats, export, rm (spawned)', () => {
  let docs: string;
  let lib: string;
  let first: { code: number | null; stdout: string; stderr: string };
  // --library right after the command: anything after a `--` is the query.
  const cli = (command: string, ...args: string[]) => runCli([command, '--library', lib, ...args]);
  /** The same command through `run` in this process: for the many small cases, without a spawn each. */
  const local = (command: string, ...args: string[]) => runInProcess([command, '--library', lib, ...args]);

  beforeAll(async () => {
    docs = writeFolder();
    lib = join(tempDir('gw-cli-lib-'), 'library');
    first = await cli('ingest', docs, '--json', '--workers', '0');
  });

  test('ingest --json prints the report with the issue\'s field names and the right counts', () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout) as Record<string, any>;
    expect(Object.keys(report)).toEqual(expect.arrayContaining(REPORT_FIELDS));
    expect(report).toMatchObject({ docsAdded: 4, docsSkipped: 1, docsUpdated: 0, pagesAdded: 0, tablesAdded: 2, imagesAdded: 0, parsed: 4 });
    expect(report.blocksAdded).toBeGreaterThanOrEqual(4);
    expect(report.durationMs).toBeTypeOf('number');
    expect(report.rejected).toEqual([{ path: join(docs, 'empty.txt'), code: 'EMPTY', reason: expect.stringContaining('empty') }]);
    expect(existsSync(join(lib, 'library.sqlite'))).toBe(true);
  });

  test('a second ingest reports everything unchanged, as a table, with the rejected file and a hint', async () => {
    const again = await cli('ingest', docs, '--workers', '0');
    expect(again.code).toBe(0);
    // No progress line when stderr is not a terminal.
    expect(again.stderr).toBe('');
    expect(again.stdout).toMatch(/^\| documents added +\| +0 \|$/m);
    expect(again.stdout).toMatch(/^\| documents unchanged +\| +5 \|$/m);
    expect(again.stdout).toMatch(/^\| files parsed +\| +0 \|$/m);
    expect(again.stdout).toContain('1 file rejected:');
    expect(again.stdout).toMatch(/empty\.txt \[EMPTY\]: .*\n +-> nothing to index/);
  });

  test('search --json: hits with score, path, docId and the block with its fields (English)', async () => {
    const result = await cli('search', 'quarterly budget approved', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const hits = JSON.parse(result.stdout) as Record<string, any>[];
    expect(hits.length).toBeGreaterThan(0);
    const top = hits[0]!;
    expect(top.score).toBeGreaterThan(0);
    expect(top.docId).toMatch(/^[0-9a-f]{64}$/);
    expect([join(docs, 'notes', 'meeting.txt'), join(docs, 'notes', 'copy-of-meeting.txt')]).toContain(top.path);
    for (const field of BLOCK_FIELDS) expect(top.block, field).toHaveProperty(field);
    expect(top.block.docId).toBe(top.docId);
    expect(top.block.text).toContain('quarterly review');
    expect(top.block.strategy).toBe('structure');
  });

  test('search --json finds a 2-character Chinese word with its heading path', async () => {
    const result = await cli('search', '验收', '--json', '-k', '3');
    expect(result.code).toBe(0);
    const hits = JSON.parse(result.stdout) as Record<string, any>[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits[0]!.path).toBe(join(docs, 'manual-zh.md'));
    expect(hits[0]!.block.headingPath).toEqual(['设备采购合同', '第三章 交付', '3.1 验收']);
    expect(hits[0]!.snippet).toContain('«验收»');
  });

  test('readable search: rank, score, path, heading path joined with >, marks kept off a terminal', async () => {
    const result = await local('search', '验收');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1\. +\d+\.\d\d +\S*manual-zh\.md/m);
    expect(result.stdout).toContain('   设备采购合同 > 第三章 交付 > 3.1 验收\n');
    expect(result.stdout).toContain('«验收»');
    expect(result.stdout).not.toContain('\x1b[');
  });

  test('hostile queries exit 0 with a JSON array (two spawned, the rest in-process)', async () => {
    // A query that starts with - follows -- (else it reads as an option, a usage error that says so).
    const spawned = await Promise.all([['"unbalanced AND'], ['--', "-o'brien U.S. 😀"]].map((q) => cli('search', '--json', ...q)));
    for (const result of spawned) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(Array.isArray(JSON.parse(result.stdout))).toBe(true);
    }
    const hostile = ['"', 'AND', 'OR OR', 'NOT', '-', '-budget', 'U.S.', "o'brien", '😀', '*', 'NEAR(a b)', '^', ':', 'col:budget', '(((', '\u0000', '验收"', "'; DROP TABLE blocks; --"];
    for (const q of hostile) {
      const result = await local('search', '--json', '--', q);
      expect(result.code, q).toBe(0);
      expect(result.stderr, q).toBe('');
      expect(Array.isArray(JSON.parse(result.stdout)), q).toBe(true);
    }
    expect(JSON.parse((await local('search', '--json', '--', '-budget')).stdout).length).toBeGreaterThan(0);
    const dash = await local('search', '-budget');
    expect(dash.code).toBe(2);
    expect(dash.stderr).toContain("put -- before the query");
  });

  test('search filters: --format, --path (relative globs match at any depth), --pages, --doc', async () => {
    const csv = await local('search', 'Shanghai', '--format', 'csv', '--json');
    const notes = await local('search', 'budget', '--path', 'notes/*.txt', '--json');
    const markdownOnly = await local('search', 'budget', '--path', '*.md', '--json');
    const pages = await local('search', 'budget', '--pages', '2-3', '--json');
    expect(JSON.parse(csv.stdout)).toHaveLength(1);
    expect(JSON.parse(notes.stdout).length).toBeGreaterThan(0);
    expect(JSON.parse(markdownOnly.stdout)).toEqual([]);
    expect(JSON.parse(pages.stdout)).toEqual([]); // text files have no pages

    const guide = await local('search', 'installer node', '--doc', join(docs, 'guide.md'), '--json');
    const hits = JSON.parse(guide.stdout) as { path: string }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.path === join(docs, 'guide.md'))).toBe(true);
  });

  test('ls --json lists every document with path and paths (the duplicate under both names)', async () => {
    const result = await cli('ls', '--json');
    expect(result.code).toBe(0);
    const list = JSON.parse(result.stdout) as Record<string, any>[];
    expect(list).toHaveLength(4);
    for (const doc of list) {
      for (const field of ['id', 'path', 'paths', 'format', 'title', 'pages', 'blocks', 'bytes', 'addedAt']) expect(doc, field).toHaveProperty(field);
      expect(doc.path).toBe(doc.paths[0]);
    }
    const meeting = list.find((d) => d.paths.length === 2)!;
    expect(meeting.paths).toEqual([join(docs, 'notes', 'copy-of-meeting.txt'), join(docs, 'notes', 'meeting.txt')]);
    expect(list.map((d) => d.format).sort()).toEqual(['csv', 'markdown', 'markdown', 'text']);

    const table = await local('ls');
    expect(table.stdout).toMatch(/^\| id +\| format +\| pages \| blocks \|/m);
    expect(table.stdout).toContain('设备采购合同');
    expect(table.stdout).toContain('4 documents');
  });

  test('show DOC by path or id prefix, with --blocks; stats --json', async () => {
    const byPath = await cli('show', join(docs, 'manual-zh.md'), '--json', '--blocks');
    expect(byPath.code).toBe(0);
    const doc = JSON.parse(byPath.stdout) as Record<string, any>;
    expect(doc.title).toBe('设备采购合同');
    expect(doc.blocks).toHaveLength(new Set(doc.blocks.map((b: { id: string }) => b.id)).size);
    expect(doc.blocks.length).toBeGreaterThan(0);
    expect(doc.blocks.map((b: { ordinal: number }) => b.ordinal)).toEqual(doc.blocks.map((_: unknown, i: number) => i));

    const byPrefix = await local('show', (doc.id as string).slice(0, 10));
    expect(byPrefix.code).toBe(0);
    expect(byPrefix.stdout).toMatch(new RegExp(`^id +${doc.id}$`, 'm'));
    expect(byPrefix.stdout).toMatch(/^title +设备采购合同$/m);

    const stats = JSON.parse((await local('stats', '--json')).stdout) as Record<string, any>;
    expect(stats).toMatchObject({ documents: 4, paths: 5, byFormat: { csv: 1, markdown: 2, text: 1 }, strategy: 'structure' });
    expect(stats.blocks).toBeGreaterThanOrEqual(4);
  });

  test('export: JSONL blocks, LangChain Documents, LlamaIndex TextNodes, and --output FILE', async () => {
    const stats = JSON.parse((await local('stats', '--json')).stdout) as { blocks: number };
    const [jsonl, langchain, llamaindex] = await Promise.all(['jsonl', 'langchain', 'llamaindex'].map((format) => cli('export', '--format', format)));
    const blocks = jsonLines(jsonl.stdout);
    expect(blocks).toHaveLength(stats.blocks);
    for (const field of BLOCK_FIELDS) expect(blocks[0], field).toHaveProperty(field);
    expect(blocks[0]).toHaveProperty('path');

    const documents = jsonLines(langchain.stdout);
    expect(documents).toHaveLength(stats.blocks);
    for (const d of documents) {
      expect(d.pageContent).toBeTypeOf('string');
      expect(d.metadata).toMatchObject({ source: expect.any(String), docId: expect.any(String), headingPath: expect.any(Array) });
    }

    const nodes = jsonLines(llamaindex.stdout);
    expect(nodes).toHaveLength(stats.blocks);
    for (const n of nodes) {
      expect(n.class_name).toBe('TextNode');
      expect(n.id_).toBeTypeOf('string');
      expect(n.text).toBeTypeOf('string');
      expect(n.metadata).toBeTypeOf('object');
    }
    expect(nodes.map((n) => n.text)).toEqual(documents.map((d) => d.pageContent));

    const file = join(tempDir('gw-cli-export-'), 'blocks.jsonl');
    const toFile = await local('export', '--format', 'langchain', '--output', file);
    expect(toFile.code).toBe(0);
    expect(toFile.stdout).toContain(`Exported ${stats.blocks} blocks (langchain) to ${file}`);
    expect(jsonLines(readFileSync(file, 'utf8'))).toEqual(documents);
  });

  test('rm DOC removes the document and its search hits; removing it again fails with exit 1', async () => {
    const removed = await cli('rm', join(docs, 'guide.md'), '--json');
    expect(removed.code).toBe(0);
    expect((JSON.parse(removed.stdout) as { title: string }).title).toBe('Installation guide');
    expect(JSON.parse((await local('search', 'installer', '--json')).stdout)).toEqual([]);
    expect(JSON.parse((await local('ls', '--json')).stdout)).toHaveLength(3);
    const again = await local('rm', join(docs, 'guide.md'));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/guide\.md: no document with this id, id prefix or path .*\[IO\]\n$/);
  });
});

describe('ingest exit codes (spawned)', () => {
  test('a PATH that does not exist: exit 1 before anything is written', async () => {
    const lib = join(tempDir('gw-cli-lib-'), 'library');
    const missing = join(tmpdir(), 'groundwork-no-such-folder');
    const result = await runCli(['ingest', missing, '--library', lib]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`groundwork: ${missing}: no such file or folder; nothing was ingested [IO]\n`);
    expect(existsSync(lib)).toBe(false);
  });

  test('files found but none stored: exit 1 with the report', async () => {
    const dir = tempDir('gw-cli-empty-');
    writeFileSync(join(dir, 'a.txt'), '');
    const result = await runCli(['ingest', dir, '--library', join(dir, '.lib'), '--workers', '0']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('a.txt [EMPTY]');
  });
});

describe('library commands in-process: help and usage errors', () => {
  test('every library command has --help', async () => {
    for (const command of ['ingest', 'search', 'ls', 'show', 'rm', 'stats', 'export']) {
      const result = await runInProcess([command, '--help']);
      expect(result.code, command).toBe(0);
      expect(result.stdout, command).toContain(`Usage: groundwork ${command}`);
      expect(result.stdout, command).toContain('--library DIR');
    }
  });

  test('usage errors exit 2 and say what is wrong', async () => {
    const lib = join(tempDir('gw-cli-usage-'), 'lib');
    const cases: [string[], RegExp][] = [
      [['ingest'], /missing PATH/],
      [['ingest', '.', '--max-file-size', '10 parsecs'], /--max-file-size must be a size/],
      [['ingest', '.', '--strategy', 'chisel', '--chunk-overlap', '5'], /--chunk-overlap does not apply/],
      [['ingest', '.', '--workers', '-1'], /option '--workers' argument is ambiguous|--workers must be an integer/],
      [['search'], /missing QUERY/],
      [['search', 'x', '--pages', '5-2'], /first page comes after the last/],
      [['search', 'x', '--pages', 'one'], /--pages must be A-B/],
      [['search', 'x', '--format', 'docz'], /--format must be among/],
      [['export', '--format', 'csv'], /--format must be one of jsonl, langchain, llamaindex/],
      [['show'], /missing DOC/],
    ];
    for (const [args, message] of cases) {
      const result = await runInProcess([...args, '--library', lib]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    expect(existsSync(lib)).toBe(false);
  });

  test('reading commands on a folder with no library: exit 1, nothing created', async () => {
    const lib = join(tempDir('gw-cli-none-'), 'lib');
    for (const args of [['search', 'x'], ['ls'], ['stats'], ['export'], ['show', 'abc'], ['rm', 'abc']]) {
      const result = await runInProcess([...args, '--library', lib]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(/no library here .*\[IO\]\n$/);
    }
    expect(existsSync(lib)).toBe(false);
  });
});

describe.skipIf(!hasShared)('groundwork ingest on the shared corpus (spawned)', () => {
  if (!hasShared) console.warn(sharedSkipReason);

  test('every file lands or is rejected with a code; nothing crashes', { timeout: 180_000 }, async () => {
    const lib = join(tempDir('gw-cli-corpus-'), 'library');
    const result = await runCli(['ingest', corpusDir, '--library', lib, '--workers', '2', '--json', '--no-copy']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { docsAdded: number; rejected: { path: string; code: string; reason: string }[] };
    // Archive entries and attachments are documents of their own at `<file>#<entry>`; every file
    // itself is stored or rejected.
    const listed = await runCli(['ls', '--json', '--library', lib]);
    const stored = new Set((JSON.parse(listed.stdout) as { paths: string[] }[]).flatMap((d) => d.paths));
    const rejected = new Set(report.rejected.map((r) => r.path));
    const lost = (listFiles(corpusDir)).filter((file) => !stored.has(file) && !rejected.has(file));
    expect(lost).toEqual([]);
    expect(report.docsAdded).toBeGreaterThan(50);
    for (const r of report.rejected) {
      // TIMEOUT: a file past --file-timeout (120 s) on a heavily loaded machine is a truthful answer; CRASHED is not allowed.
      expect(['ENCRYPTED', 'CORRUPT', 'EMPTY', 'UNSUPPORTED', 'TOO_LARGE', 'LIMIT_EXCEEDED', 'TIMEOUT', 'IO'], r.path).toContain(r.code);
      expect(r.reason.length, r.path).toBeGreaterThan(0);
    }
    const codeOf = (name: string) => report.rejected.find((r) => r.path.endsWith(name))?.code;
    expect(codeOf('adversarial/empty.txt')).toBe('EMPTY');
    expect(codeOf('adversarial/testWORD_protected_passtika.docx')).toBe('ENCRYPTED');
  });
});

/** Regular, non-hidden files under `dir`, as the ingest walk finds them. */
function listFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) files.push(...listFiles(join(dir, entry.name)));
    else if (entry.isFile()) files.push(join(dir, entry.name));
  }
  return files;
}

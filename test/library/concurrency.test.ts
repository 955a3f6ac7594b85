// Many processes on one library: real `groundwork ingest` processes on overlapping corpus folders
// and a process searching meanwhile end with exactly the library one sequential ingest makes, and
// a reader holding a snapshot sees it unchanged while a writer goes on.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { IngestReport } from '../../src/library/library.js';
import { Library } from '../../src/library/library.js';
import { CLI_ENTRY } from '../cli/cli.js';
import { corpus, corpusDir, hasShared, projectRoot } from '../helpers.js';
import { copyCorpusFolders, libraryContents } from './contents.js';

const root = mkdtempSync(join(tmpdir(), 'gw-concurrency-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  code: number | null;
  report: IngestReport | undefined;
  stderr: string;
}

/** `groundwork ingest PATHS --library DIR --json --workers 1` in its own process. */
function ingest(library: string, paths: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_ENTRY, 'ingest', ...paths, '--library', library, '--json', '--workers', '1'], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      let report: IngestReport | undefined;
      try {
        report = JSON.parse(out) as IngestReport;
      } catch {
        report = undefined;
      }
      resolve({ code, report, stderr: err });
    });
  });
}

/** A process searching `library` in a loop; `stop()` ends it and returns what it counted. */
function searcher(library: string, queries: string[]): { stop: () => Promise<{ searches: number; hits: number; errors: string[]; errorCount: number }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'test/library/search-child.ts'), library, ...queries], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const closed = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return {
    stop: async () => {
      child.stdin.end();
      expect(await closed).toBe(0);
      return JSON.parse(out.trim());
    },
  };
}

const rejectedSet = (runs: Run[]) => new Set(runs.flatMap((r) => r.report!.rejected.map((f) => `${f.path} ${f.code}`)));

describe.skipIf(!hasShared)('many writers and a reader on one library', () => {
  test('three ingests of overlapping folders started at once, and a searcher: no lock failure, the sequential library', { timeout: 600_000 }, async () => {
    const folders = copyCorpusFolders(corpusDir, ['md', 'rtf', 'csv', 'eml', 'zh-generated'], join(root, 'corpus'));
    // The same bytes under two names, each offered by a different process only.
    for (const [dir, name] of [['dup-a', 'first.md'], ['dup-b', 'second.md']] as const) {
      mkdirSync(join(root, 'corpus', dir));
      copyFileSync(corpus('md', 'wiki.md'), join(root, 'corpus', dir, name));
    }
    const dupA = join(root, 'corpus', 'dup-a');
    const dupB = join(root, 'corpus', 'dup-b');
    const sets = [
      [folders.md!, folders.rtf!, folders['zh-generated']!, dupA],
      [folders.rtf!, folders.csv!, folders.eml!, dupB],
      [folders.md!, folders.eml!, folders.csv!, folders['zh-generated']!],
    ];
    const everything = [...new Set(sets.flat())];

    const sequentialLib = join(root, 'sequential');
    const sequential = await ingest(sequentialLib, everything);
    expect(sequential.code).toBe(0);
    expect(sequential.report!.docsAdded).toBeGreaterThan(20);

    // Nothing exists yet: the four processes create the library at once (one creates the schema,
    // the others wait for it).
    const concurrentLib = join(root, 'concurrent');
    const search = searcher(concurrentLib, ['table report', '合同 付款', 'mail attachment']);
    const runs = await Promise.all(sets.map((paths) => ingest(concurrentLib, paths)));
    const searched = await search.stop();

    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.report, run.stderr).toBeDefined();
      for (const f of run.report!.rejected) expect(f.reason).not.toMatch(/locked|SQLITE_BUSY|lock/i);
    }
    // What is rejected is what one ingest alone rejects (damaged files), never more.
    expect(rejectedSet(runs)).toEqual(rejectedSet([sequential]));
    expect(searched.errors).toEqual([]);
    expect(searched.searches).toBeGreaterThan(0);

    // Documents, paths, blocks by id and text, term_df, index_stats and fts_lengths: equal.
    expect(libraryContents(concurrentLib)).toEqual(libraryContents(sequentialLib));
    // Each document was added by exactly one process; the others found it stored (skipped).
    expect(runs.reduce((s, r) => s + r.report!.docsAdded, 0)).toBe(sequential.report!.docsAdded);
    expect(runs.reduce((s, r) => s + r.report!.docsUpdated, 0)).toBe(0);
    const library = await Library.open(concurrentLib);
    const report = await library.check({ full: true });
    expect(report.found).toEqual([]);
    expect(report.ok).toBe(true);
    await library.close();
  });

  test('a reader holding a snapshot sees the library as it was while another process writes; writes do not wait for it', { timeout: 300_000 }, async () => {
    const dir = join(root, 'snapshot');
    const text = join(root, 'snapshot-src');
    mkdirSync(text);
    // One long text in 16-token windows: far more blocks than the iterator reads in one page.
    const words = 'river harbour lantern meadow granite orchard'.split(' ');
    writeFileSync(join(text, 'long.txt'), Array.from({ length: 24_000 }, (_, i) => words[i % words.length]! + (i % 11 === 10 ? '.' : '')).join(' '));
    const library = await Library.open(dir);
    await library.addFiles(text, { strategy: 'token', chunkOptions: { chunkSize: 16 }, workers: 0 });
    const before = await library.stats();
    expect(before.blocks).toBeGreaterThan(1000);

    const iterator = library.allBlocks()[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);

    // Another process writes 40 documents while the snapshot is open, and finishes.
    const more = join(root, 'snapshot-more');
    mkdirSync(more);
    for (let i = 0; i < 40; i++) writeFileSync(join(more, `note-${i}.md`), `# Note ${i}\n\nThe zeppelin schedule number ${i} changed on Tuesday.\n`);
    const writer = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'test/library/ingest-child.ts'), dir, more], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(writer.code).toBe(0);
    expect(JSON.parse(writer.out.split('\n').find((l) => l.startsWith('report'))!.slice(7)).docsAdded).toBe(40);

    // New reads see the writes...
    expect((await library.searchText('zeppelin schedule', { k: 50 })).length).toBe(40);
    expect((await library.stats()).documents).toBe(before.documents + 40);
    // ...the open iteration goes on in its snapshot: exactly the blocks that were there.
    let count = 1;
    const docs = new Set([first.value!.docId]);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      count++;
      docs.add(next.value.docId);
    }
    expect(count).toBe(before.blocks);
    expect(docs.size).toBe(1);
    expect((await library.check()).ok).toBe(true);
    await library.close();
  });
});

import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGroundworkError } from '../../src/errors.js';
import { Library } from '../../src/library/library.js';
import { SearchPool, type Searcher } from '../../src/library/search-pool.js';
import { retrievalResultJson } from '../../src/retrieval/wire.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const CORPUS = resolve(ROOT, '..', 'shared', 'corpus');
const FILES = ['md/wiki.md', 'md/nested.md', 'md/markdown.sample.zh.md'];
const QUERIES = ['IBM research facilities', 'nested list item', '体检套餐 心电图', 'Armonk New York company', 'zzzznotaword'];

let root: string;
let library: Library;
let pool: Searcher;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gw-search-pool-'));
  const docs = join(root, 'docs');
  mkdirSync(docs);
  for (const file of FILES) copyFileSync(join(CORPUS, file), join(docs, file.replace('/', '-')));
  library = await Library.open(join(root, 'lib'));
  await library.addFiles(docs, { workers: 0 });
  pool = await SearchPool.for(library, 2);
}, 120_000);

afterAll(async () => {
  await pool?.close();
  await library?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('SearchPool', () => {
  it('answers on worker threads exactly as library.search does in process', async () => {
    expect(pool.size).toBe(2);
    // Not an agreement on nothing: most questions find something.
    const found = await Promise.all(QUERIES.map(async (q) => (await library.search(q, { k: 5 })).hits.length));
    expect(found.filter((n) => n > 0).length).toBeGreaterThanOrEqual(3);
    for (const query of QUERIES) {
      for (const options of [{ k: 5 }, { k: 3, neighbors: 1, explain: true }, { k: 5, filter: { format: 'markdown' as const } }]) {
        const [here, there] = await Promise.all([library.search(query, options), pool.search(query, options)]);
        expect(there).toEqual(here);
      }
    }
    // Many at once: every answer is its own query's.
    const answers = await Promise.all(QUERIES.flatMap((q) => [pool.search(q, { k: 5 }), library.search(q, { k: 5 })]));
    for (let i = 0; i < answers.length; i += 2) expect(answers[i]).toEqual(answers[i + 1]);
  });

  it('searchJson is the JSON text of retrievalResultJson(library.search), serialised in the worker; errors are the same', async () => {
    for (const query of QUERIES) {
      for (const options of [{ k: 5 }, { k: 3, neighbors: 1, explain: true }]) {
        const [here, there] = await Promise.all([library.search(query, options), pool.searchJson(query, options)]);
        expect(typeof there).toBe('string');
        expect(there).toBe(JSON.stringify(retrievalResultJson(here)));
      }
    }
    const failure = await pool.searchJson('x', { k: 0 }).catch((e: unknown) => e);
    expect(isGroundworkError(failure) && failure.code).toBe('INVALID_OPTIONS');
  });

  it('sees what the library writes on its next search, and its errors are the library\'s', async () => {
    const word = 'quillbramblewick';
    expect((await pool.search(word)).hits).toEqual([]);
    const extra = join(root, 'extra');
    mkdirSync(extra, { recursive: true });
    writeFileSync(join(extra, 'new.md'), `# New\n\nThe ${word} arrived today.\n`);
    await library.addFiles(extra, { workers: 0 });
    const found = await pool.search(word);
    expect(found.hits.map((h) => h.path)).toEqual([join(extra, 'new.md')]);
    expect(found).toEqual(await library.search(word));
    await library.remove(join(extra, 'new.md'));
    expect((await pool.search(word)).hits).toEqual([]);

    const inProcess = await library.search('x', { k: 0 }).catch((e: unknown) => e);
    const pooled = await pool.search('x', { k: 0 }).catch((e: unknown) => e);
    expect(isGroundworkError(pooled)).toBe(true);
    expect(isGroundworkError(inProcess)).toBe(true);
    expect({ code: (pooled as Error & { code: string }).code, message: (pooled as Error).message }).toEqual({ code: (inProcess as Error & { code: string }).code, message: (inProcess as Error).message });
  });

  it('searches in process for size 0 and for a store that cannot be opened elsewhere', async () => {
    expect((await SearchPool.for(library, 0)).size).toBe(0);
    const memory = await Library.open(join(root, 'memory'), { store: new SqliteStore(':memory:') });
    try {
      const searcher = await SearchPool.for(memory, 2);
      expect(searcher.size).toBe(0);
      expect((await searcher.search('anything')).hits).toEqual([]);
      await searcher.close();
    } finally {
      await memory.close();
    }
  });

  it('leaves no threads behind once closed: the process exits by itself', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'search-pool-child.ts'), join(root, 'lib'), ...QUERIES], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(err).toBe('');
    expect(code).toBe(0);
    const expected = await Promise.all(QUERIES.map(async (q) => (await library.search(q, { k: 5 })).hits.length));
    expect(JSON.parse(out)).toEqual({ size: 2, hits: expected });
  }, 60_000);
});

describe('Library.open({ memoryIndex })', () => {
  it('an in-process library ranks from postings in memory once warm, with the same results', async () => {
    const warm = await Library.open(join(root, 'lib'), { memoryIndex: true });
    try {
      expect(await warm.warmSearch()).toBe(true);
      expect(await library.warmSearch()).toBe(false);
      for (const query of QUERIES) expect(await warm.search(query, { k: 5 }), query).toEqual(await library.search(query, { k: 5 }));
    } finally {
      await warm.close();
    }
  });
});

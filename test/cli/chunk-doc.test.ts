import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunk } from '../../src/chunk.js';
import { storableChunks } from '../../src/library/blocks.js';
import { Library } from '../../src/library/library.js';
import { parse } from '../../src/parse.js';
import { runCli, SAMPLES } from './cli.js';

const FILE = join(SAMPLES, 'heater-manual-zh.md');

describe('groundwork chunk --doc: a stored document chunked again, nothing stored', () => {
  let dir: string;
  let id: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-chunk-doc-'));
    const library = await Library.open(dir);
    await library.addFiles([FILE], { workers: 0 });
    id = (await library.document(FILE))!.id;
    await library.close();
  });

  it('with the library\'s strategy by default gives the stored blocks, and another strategy as chunk() does', async () => {
    const library = await Library.open(dir);
    const blocks = await library.blocks(id);
    const before = await library.stats();
    await library.close();
    const same = await runCli(['chunk', '--doc', id.slice(0, 12), '--library', dir, '--jsonl']);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    const lines = same.stdout.trim().split('\n').map((l) => JSON.parse(l) as { start: number; end: number; text: string });
    expect(lines.map((c) => [c.start, c.end, c.text])).toEqual(blocks.map((b) => [b.start, b.end, b.text]));

    const other = await runCli(['chunk', '--doc', FILE, '--library', dir, '--strategy', 'chisel', '--chunk-size', '120', '--json']);
    expect(other.code).toBe(0);
    const doc = await parse(FILE);
    const direct = storableChunks(doc.canonical, chunk(doc, { strategy: 'chisel', maxCharSize: 120, tokenizer: 'cl100k_base' }));
    expect((JSON.parse(other.stdout) as { text: string }[]).map((c) => c.text)).toEqual(direct.map((c) => c.text));
    const after = await Library.open(dir);
    expect(await after.stats()).toEqual(before);
    await after.close();
  }, 60_000);

  it('is a usage error with a FILE or --raw, and an error naming the document when it is not there', async () => {
    expect((await runCli(['chunk', FILE, '--doc', id, '--library', dir])).code).toBe(2);
    expect((await runCli(['chunk', '--doc', id, '--raw', '--library', dir])).code).toBe(2);
    const missing = await runCli(['chunk', '--doc', 'ffffffffffff', '--library', dir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ffffffffffff');
    expect(missing.stderr).toContain('[NOT_FOUND]');
  }, 60_000);
});

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { resolveCheckOptions } from '../../src/store/check.js';
import { openStore } from '../../src/store/registry.js';
import type { StoreSpec } from '../../src/store/types.js';
import { contractWrite } from './contract.js';
import { libraryFile } from './fixtures.js';
import { freshSchema, TEST_DATABASE_URL } from './postgres-fixtures.js';

/**
 * A process killed (SIGKILL) in the middle of a streamed write (`beginDocument`, blocks added, no
 * commit) leaves nothing of the document, and other writers were never held up by it.
 */

const root = join(import.meta.dirname, '../..');
const stores: { name: string; spec: () => StoreSpec }[] = [{ name: 'sqlite', spec: () => ({ kind: 'sqlite', file: libraryFile() }) }];
if (TEST_DATABASE_URL) stores.push({ name: 'postgres', spec: () => ({ kind: 'postgres', url: TEST_DATABASE_URL, schema: freshSchema() }) });

describe.each(stores)('a streamed write killed mid-way ($name)', ({ spec: makeSpec }) => {
  test('kill -9 after its blocks were added: nothing of it, check clean, other writes went on meanwhile', { timeout: 60_000 }, async () => {
    const spec = makeSpec();
    const store = await openStore(spec);
    try {
      await store.writeDocument(contractWrite('keep', ['a sturdy bridge over the river']));
      const before = await store.stats();
      const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/store/stream-child.ts'), JSON.stringify(spec)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (data: Buffer) => {
          out += data.toString();
          if (out.includes('staged\n')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`the child exited (${code}) before staging: ${out}`)));
      });
      // While the other process holds its staged blocks (or its open transaction), this one writes.
      await store.writeDocument(contractWrite('meanwhile', ['written while another process streamed']));
      expect(await store.documentInfo('doc-big')).toBeUndefined();
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      const after = await openStore(spec);
      try {
        expect(await after.documentInfo('doc-big')).toBeUndefined();
        expect(await after.blocksOf('doc-big')).toEqual([]);
        expect(await after.searchText('heron', 5)).toEqual([]);
        expect((await after.stats()).documents).toBe(before.documents + 1);
        expect((await after.stats()).blocks).toBe(before.blocks + 1);
        const report = await after.check(resolveCheckOptions({ full: true }));
        expect(report.found).toEqual([]);
        // The same document streamed again by a live process commits.
        const { blocks, indexTexts: _i, ...head } = contractWrite('big', ['the heron stays']);
        const writer = await after.beginDocument(head);
        await writer.addBlocks(blocks);
        expect((await writer.commit()).written).toBe(true);
        expect((await after.searchText('heron', 5)).map((c) => c.block.docId)).toEqual(['doc-big']);
      } finally {
        await after.close();
      }
    } finally {
      await store.close();
    }
  });
});

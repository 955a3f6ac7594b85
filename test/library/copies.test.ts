import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Library } from '../../src/library/library.js';
import { makeFolder } from './fixtures.js';

/** `Library.addCopies` (bytes elsewhere, stored as their own path) and `keepIngestPools` (one parsing pool across ingests). */

const cleanup: string[] = [];
afterEach(() => {
  for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(dir);
  return dir;
}

/** The pids of this process's node children (the ingest workers; not ps itself), from ps. */
function childPids(): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when there are none.
  }
  return out.split('\n').map((l) => l.trim().split(/\s+/)).filter(([, comm]) => comm === 'node').map(([pid]) => Number(pid)).sort((a, b) => a - b);
}

const MAIL = [
  'From: Ana <ana@example.com>',
  'To: Bo <bo@example.com>',
  'Subject: Quarterly figures',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="XYZ"',
  '',
  '--XYZ',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Please find the figures attached.',
  '--XYZ',
  'Content-Type: text/csv; name="figures.csv"',
  'Content-Disposition: attachment; filename="figures.csv"',
  '',
  'region,revenue',
  'north,1200',
  '--XYZ--',
  '',
].join('\r\n');

describe('Library.addCopies', () => {
  test('a copy is stored as the file it is: the same document, blocks and paths as ingesting that file', async () => {
    const dir = makeFolder();
    cleanup.push(dir);
    writeFileSync(join(dir, 'figures.eml'), MAIL);
    const direct = await Library.open(join(temp('gw-copies-a-'), 'lib'));
    const viaCopies = await Library.open(join(temp('gw-copies-b-'), 'lib'));
    try {
      const names = ['guide.md', 'manual-zh.md', 'data.csv', 'figures.eml', 'empty.txt'];
      const stash = temp('gw-copies-stash-');
      const copies = names.map((name, i) => {
        // Another name and folder: only `path` may decide how it is parsed and named.
        const from = join(stash, `upload-${i}.bin`);
        copyFileSync(join(dir, name), from);
        return { path: join(dir, name), from, mtimeMs: 1_700_000_000_000 + i };
      });
      const a = await direct.addFiles(names.map((n) => join(dir, n)), { workers: 1 });
      const b = await viaCopies.addCopies(copies, { workers: 1 });
      const counts = (r: typeof a) => ({ added: r.docsAdded, blocks: r.blocksAdded, tables: r.tablesAdded, rejected: r.rejected.map((x) => [x.path, x.code]) });
      expect(counts(b)).toEqual(counts(a));
      // The empty copy is rejected under its own path, not the stash's.
      expect(b.rejected).toEqual([expect.objectContaining({ path: join(dir, 'empty.txt'), code: 'EMPTY' })]);
      expect(b.rejected[0]!.reason).not.toContain(stash);

      const docsA = await direct.documents();
      const docsB = await viaCopies.documents();
      // By id: documents() lists by added_at (ms), then id, and two small files may commit in the same
      // millisecond in one library and not in the other.
      const shape = (docs: typeof docsA) => docs.map((d) => ({ id: d.id, format: d.format, title: d.title, paths: d.paths, blocks: d.blocks })).sort((x, y) => x.id.localeCompare(y.id));
      expect(shape(docsB)).toEqual(shape(docsA));
      // The attachment is at <the mail's path>#<name>, as from the file itself.
      expect(docsB.flatMap((d) => d.paths)).toContain(`${join(dir, 'figures.eml')}#figures.csv`);
      for (const doc of docsA) {
        const [x, y] = await Promise.all([direct.document(doc.id), viaCopies.document(doc.id)]);
        expect(y?.blocks).toEqual(x?.blocks);
      }
      // The original kept is the copy's bytes (the same content).
      const original = docsB.find((d) => d.paths.includes(join(dir, 'guide.md')))!;
      const chunks: Buffer[] = [];
      for await (const c of await viaCopies.openOriginal(original.id)) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).toString()).toContain('# Installation guide');
    } finally {
      await direct.close();
      await viaCopies.close();
    }
  }, 60_000);

  test('a copy that is gone is rejected with IO under its path', async () => {
    const lib = await Library.open(join(temp('gw-copies-c-'), 'lib'));
    try {
      const report = await lib.addCopies([{ path: '/nowhere/report.md', from: join(temp('gw-copies-gone-'), 'missing.bin') }], { workers: 0 });
      expect(report.rejected).toEqual([expect.objectContaining({ path: '/nowhere/report.md', code: 'IO' })]);
      expect(report.docsAdded).toBe(0);
    } finally {
      await lib.close();
    }
  });
});

describe('Library.open({ keepIngestPools })', () => {
  test('one pool of parsing processes serves every ingest until close; without it each ingest has its own', async () => {
    const dir = temp('gw-pools-');
    const files = Array.from({ length: 3 }, (_, i) => {
      const sub = join(dir, `batch${i}`);
      mkdirSync(sub);
      writeFileSync(join(sub, `note${i}.md`), `# Note ${i}\n\nThe tide turns ${i + 2} times.\n`);
      return sub;
    });
    const before = childPids();
    const kept = await Library.open(join(dir, 'lib-kept'), { keepIngestPools: true });
    const seen: number[][] = [];
    try {
      for (const sub of files) {
        expect((await kept.addFiles(sub, { workers: 1 })).docsAdded).toBe(1);
        seen.push(childPids().filter((p) => !before.includes(p)));
      }
      expect(seen[0]).toHaveLength(1);
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[2]).toEqual(seen[0]);
      // Other limits are another pool.
      writeFileSync(join(files[0]!, 'later.md'), '# Later\n\nA note ingested under other limits.\n');
      expect((await kept.addFiles(files[0]!, { workers: 1, fileTimeoutMs: 90_000 })).docsAdded).toBe(1);
      expect(childPids().filter((p) => !before.includes(p))).toHaveLength(2);
    } finally {
      await kept.close();
    }
    expect(childPids().filter((p) => !before.includes(p))).toEqual([]);

    const fresh = await Library.open(join(dir, 'lib-fresh'));
    try {
      expect((await fresh.addFiles(files[0]!, { workers: 1 })).docsAdded).toBe(2);
      expect(childPids().filter((p) => !before.includes(p))).toEqual([]);
    } finally {
      await fresh.close();
    }
  }, 60_000);
});

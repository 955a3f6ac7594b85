import { dirname } from 'node:path';
import { describe, expect, test } from 'vitest';
import { displayWidth } from '../../src/cli/common.js';
import { formatDuration, indexRebuildReporter, ProgressLine, renderProgress } from '../../src/cli/progress.js';
import { run } from '../../src/cli/run.js';
import type { IngestProgress } from '../../src/library/library.js';
import { legacyLibrary, libraryFile } from '../store/fixtures.js';

const MIB = 1024 * 1024;

function progress(over: Partial<IngestProgress> = {}): IngestProgress {
  return { filesDone: 3, filesTotal: 12, bytesDone: 6 * MIB, bytesTotal: 24 * MIB, path: '/data/reports/annual-report-2024.pdf', ...over };
}

describe('renderProgress', () => {
  test('files, MB, rate, ETA and the current file name', () => {
    // 6 MiB in 2 s = 3 MB/s; 18 MiB left = 6 s.
    const line = renderProgress(progress(), 2000, 120);
    expect(line).toBe('[#####---------------] 3/12 files  6.00/24.0 MB  3.00 MB/s  ETA 0:06  annual-report-2024.pdf');
  });

  test('never wider than the terminal minus one column; long and CJK names are cut with …', () => {
    for (const columns of [40, 60, 80, 100]) {
      for (const path of ['/a/' + 'very-long-file-name-'.repeat(8) + '.md', '/a/设备采购合同与验收记录的扫描件第二版最终稿.pdf']) {
        const line = renderProgress(progress({ path }), 1500, columns);
        expect(displayWidth(line), `${columns} ${path}`).toBeLessThanOrEqual(columns - 1);
      }
    }
    expect(renderProgress(progress({ path: '/a/设备采购合同与验收记录的扫描件第二版最终稿.pdf' }), 1500, 80)).toMatch(/设备.*…$/);
  });

  test('no ETA before any byte is done; an empty batch is not a division by zero', () => {
    expect(renderProgress(progress({ filesDone: 0, bytesDone: 0, path: '' }), 0, 80)).toContain('ETA --:--');
    const empty = renderProgress({ filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0, path: '' }, 10, 80);
    expect(empty).toMatch(/^\[-{20}\] 0\/0 files {2}0\.00\/0\.00 MB {2}0\.00 MB\/s {2}ETA --:--$/);
  });

  test('formatDuration', () => {
    expect(formatDuration(0)).toBe('0:00');
    expect(formatDuration(75)).toBe('1:15');
    expect(formatDuration(3725)).toBe('1:02:05');
  });
});

describe('ProgressLine', () => {
  test('redraws at most every 100 ms, always draws the last file, and erases itself', () => {
    const writes: string[] = [];
    let now = 0;
    const line = new ProgressLine((t) => writes.push(t), () => 80, () => now);
    for (let i = 1; i <= 10; i++) {
      now = i * 30; // a file every 30 ms
      line.update(progress({ filesDone: i, filesTotal: 10 }));
    }
    // Drawn at 30, 150, 270 (>= 100 ms apart), and at 300 because it is the last file.
    expect(writes).toHaveLength(4);
    for (const w of writes) expect(w.startsWith('\r\x1b[K[')).toBe(true);
    expect(writes.at(-1)).toContain('10/10 files');
    line.finish();
    expect(writes.at(-1)).toBe('\r\x1b[K');
  });

  test('finish writes nothing when nothing was drawn', () => {
    const writes: string[] = [];
    new ProgressLine((t) => writes.push(t), () => 80, () => 0).finish();
    expect(writes).toEqual([]);
  });
});

describe('indexRebuildReporter', () => {
  test('off a terminal: a notice when the re-indexing starts and one when it ends, nothing between', () => {
    let err = '';
    let clock = 0;
    const report = indexRebuildReporter({ out: () => undefined, err: (t) => void (err += t), readStdin: async () => new Uint8Array() }, () => clock);
    report(0, 1_000_000);
    clock = 5_000;
    report(500_000, 1_000_000);
    clock = 75_000;
    report(1_000_000, 1_000_000);
    expect(err).toBe("groundwork: upgrading this library's search index (1,000,000 blocks, once)\ngroundwork: search index upgraded (1,000,000 blocks in 1:15)\n");
  });

  test('search on a library an older Groundwork wrote tells the user it upgrades the index, then finds', async () => {
    const file = libraryFile();
    legacyLibrary(file, 2, ['alpha beta', 'beta gamma', 'beta']);
    let out = '';
    let err = '';
    const code = await run(['search', 'gamma', '--library', dirname(file)], { out: (t) => void (out += t), err: (t) => void (err += t), readStdin: async () => new Uint8Array() });
    expect(code).toBe(0);
    expect(err).toContain("upgrading this library's search index (3 blocks, once)");
    expect(out).toContain('gamma');
  });
});

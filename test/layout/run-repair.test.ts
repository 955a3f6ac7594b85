import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { FILE_SPACE, MONO, SPACE_BEFORE, type PageChars } from '../../src/layout/chars.js';
import { buildLines } from '../../src/layout/lines.js';
import { attachListMarkers, mergeInterleavedRuns } from '../../src/layout/run-repair.js';
import { buildRuns } from '../../src/layout/runs.js';
import { corpus, hasShared } from '../helpers.js';
import { parseCorpusPdf } from '../pdf/quality.js';

interface Glyph {
  text: string;
  x: number;
  /** Advance per character (points). */
  width: number;
  y?: number;
  flags?: number;
}

/** Characters in content order from pieces of text set at a fixed advance (12 pt type). */
function pageChars(pieces: readonly Glyph[]): PageChars {
  const glyphs: { code: number; x0: number; x1: number; y0: number; flags: number }[] = [];
  for (const piece of pieces) {
    let x = piece.x;
    let first = true;
    for (const ch of piece.text) {
      if (ch === ' ') {
        x += piece.width;
        first = true;
        continue;
      }
      glyphs.push({ code: ch.codePointAt(0)!, x0: x, x1: x + piece.width, y0: piece.y ?? 100, flags: (first && piece.flags) || (piece.flags ?? 0) & MONO });
      x += piece.width;
      first = false;
    }
  }
  const n = glyphs.length;
  return {
    count: n,
    code: Uint32Array.from(glyphs, (g) => g.code),
    x0: Float32Array.from(glyphs, (g) => g.x0),
    x1: Float32Array.from(glyphs, (g) => g.x1),
    y0: Float32Array.from(glyphs, (g) => g.y0),
    y1: Float32Array.from(glyphs, (g) => g.y0 + 14),
    size: new Float32Array(n).fill(12),
    font: new Int32Array(n),
    flags: Uint8Array.from(glyphs, (g) => g.flags),
    dir: new Uint8Array(n),
  };
}

function repaired(chars: PageChars): string[] {
  const consumed = new Uint8Array(chars.count);
  return attachListMarkers(mergeInterleavedRuns(buildRuns(chars, consumed), chars, consumed)).map((run) => run.text);
}

describe('mergeInterleavedRuns', () => {
  test('quote marks drawn after the text around them go back between its characters', () => {
    // LibreOffice: 带有 then both quotes (another font), then 注意 and 字样 at the positions between.
    const chars = pageChars([
      { text: '带有', x: 100, width: 12 },
      { text: '“', x: 124, width: 6 },
      { text: '”', x: 154, width: 6 },
      { text: '注意', x: 130, width: 12 },
      { text: '字样', x: 160, width: 12 },
    ]);
    const runs = buildRuns(chars);
    // Before the repair the quote's gap reads as a word space.
    expect(runs.map((r) => r.text)).toEqual(['带有“', '”', '注意 字样']);
    const merged = mergeInterleavedRuns(runs, chars, new Uint8Array(chars.count));
    expect(buildLines(merged, merged.map((_, i) => i), 0).map((l) => l.text)).toEqual(['带有“注意”字样']);
  });

  test('text drawn twice over itself (faux bold) is not interleaved', () => {
    const chars = pageChars([
      { text: 'Bold', x: 100, width: 6 },
      { text: 'Bold', x: 100.4, width: 6 },
    ]);
    expect(repaired(chars)).toEqual(['Bold', 'Bold']);
  });
});

describe('attachListMarkers', () => {
  test('a bullet and a number set a tab away from their text open it', () => {
    const chars = pageChars([
      { text: '•', x: 100, width: 5 },
      { text: '核心服务', x: 125, width: 12 },
      { text: '1.', x: 100, width: 6, y: 130 },
      { text: 'Check the package', x: 125, width: 6, y: 130 },
    ]);
    expect(repaired(chars)).toEqual(['• 核心服务', '1. Check the package']);
  });

  test('a dash inside a table row stays a cell of its own', () => {
    const chars = pageChars([
      { text: 'Revenue', x: 100, width: 6 },
      { text: '-', x: 200, width: 5 },
      { text: '12.5', x: 240, width: 6 },
    ]);
    expect(repaired(chars)).toEqual(['Revenue', '-', '12.5']);
  });
});

describe('spaces between CJK characters', () => {
  test('a wide gap in a run set tight elsewhere is a word space; letter-spaced and justified text get none', () => {
    const heading = pageChars([
      { text: '第一章', x: 100, width: 12 },
      { text: '概述', x: 140, width: 12 },
    ]);
    expect(buildRuns(heading).map((r) => r.text)).toEqual(['第一章 概述']);
    const spaced = pageChars([
      { text: '目', x: 100, width: 12 },
      { text: '录', x: 124, width: 12 },
    ]);
    expect(buildRuns(spaced).map((r) => r.text)).toEqual(['目录']);
    const justified = pageChars([...'系统由若干服务构成'].map((ch, i) => ({ text: ch, x: 100 + i * 15, width: 12 })));
    expect(buildRuns(justified).map((r) => r.text)).toEqual(['系统由若干服务构成']);
  });
});

describe('monospace runs', () => {
  test('spaces typed before a comment keep a line of code whole; spaced columns of a form stay apart', () => {
    const code = pageChars([
      { text: 'port: 5432', x: 100, width: 6.6, flags: MONO },
      { text: '# 端口', x: 100 + 6.6 * 20, width: 6.6, flags: MONO | SPACE_BEFORE | FILE_SPACE },
    ]);
    expect(buildRuns(code).map((r) => r.text)).toEqual(['port: 5432          # 端口']);
    const form = pageChars([
      { text: 'WARDEN,', x: 100, width: 7.2, flags: MONO },
      { text: ':', x: 100 + 7.2 * 20, width: 7.2, flags: MONO | SPACE_BEFORE | FILE_SPACE },
    ]);
    expect(buildRuns(form).map((r) => r.text)).toEqual(['WARDEN,', ':']);
  });
});

describe.skipIf(!hasShared)('warehouse-manual-zh.pdf (LibreOffice, Chinese)', () => {
  test('quotes, numbers broken across lines, list markers, a first row with tab stops and code with Chinese comments read as written', async () => {
    const doc = await parseCorpusPdf(corpus('zh-generated/warehouse-manual-zh.pdf'));
    const text = doc.canonical;
    expect(text).toContain('带有“注意”字样的段落');
    expect(text).toContain('调度端口 9100、消息队列端口');
    expect(text).toContain('其中，pool_size 不宜设置得过大，一般取数据库最大连接数的一半；charge_threshold 取值越高');
    expect(text).toContain('文档编号：WMS-OPS-2025-07 版本：V2.3 适用范围：仓储管理服务、AGV 调度服务及边缘网关');
    const items = doc.elements.filter((e) => e.kind === 'list-item').map((e) => e.text);
    expect(items).toContain('核心服务');
    expect(items).toContain('校验安装包：将安装包上传到管理节点的临时目录，核对其校验值与发布说明中的记录一致，防止文件在传输过程中损坏。');
    const cells = doc.elements.filter((e) => e.kind === 'table').flatMap((e) => e.table!.rows.flat().map((c) => c.text));
    expect(cells).toContain('16 核 CPU，64 GB 内存，2 TB 固态硬盘（RAID 10）');
    const code = doc.elements.find((e) => e.kind === 'code');
    const fenced = /```yaml\n([\s\S]*?)\n```/.exec(readFileSync(`${corpus('zh-generated/warehouse-manual-zh.pdf')}.expected.md`, 'utf8'))![1];
    expect(code?.text).toBe(fenced);
  });
});

describe.skipIf(!hasShared)('poem.pdf (Chinese at double spacing)', () => {
  test('each numbered poem is one paragraph across its lines', async () => {
    const doc = await parseCorpusPdf(corpus('pdf/poem.pdf'));
    const texts = doc.elements.map((e) => e.text);
    expect(texts).toContain('2、寒色孤村幕，悲风四野闻。溪深难受雪，山冻不流云。鸥鹭飞难辨，沙汀望莫分。野桥梅几树，并是白纷纷。—— 洪升《雪望》');
    expect(texts.filter((t) => /^\d+、/.test(t)).length).toBeGreaterThanOrEqual(5);
    expect(texts).not.toContain('《雪》');
  });
});

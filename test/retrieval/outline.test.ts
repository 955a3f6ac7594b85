import { describe, expect, it } from 'vitest';
import { outlineFromBlocks, outlineFromDocument, outlineNodes, type OutlineNode } from '../../src/retrieval/outline.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { blocksOf, PARK_REPORT, parsedDoc } from './helpers.js';

describe('outline from heading elements', () => {
  it('builds the tree of the park report with numbering, positions and spans', async () => {
    const doc = await parsedDoc(PARK_REPORT);
    const outline = outlineFromDocument(doc);
    expect(outline.docId).toBe(doc.id);
    expect(outline.roots).toHaveLength(1);
    const parts = outline.roots[0]!.children;
    expect(parts.map((p) => p.title)).toEqual([
      '一、项目概况', '二、建设内容与规模', '三、技术方案', '四、投资估算与资金筹措', '五、效益分析与结论', '附件一 主要设备清单', '附件二 投资估算明细表',
    ]);
    expect(parts.map((p) => p.numbering?.style)).toEqual(['cn-enum', 'cn-enum', 'cn-enum', 'cn-enum', 'cn-enum', 'appendix', 'appendix']);
    expect(parts.map((p) => p.position)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const part2 = parts[1]!;
    expect(part2.children.map((c) => [c.numbering?.style, c.numbering?.values[0], c.position])).toEqual([['cn-paren', 1, 1], ['cn-paren', 2, 2], ['cn-paren', 3, 3]]);
    expect(part2.children[1]!.path).toEqual(['滨江智慧园区建设项目可行性研究报告', '二、建设内容与规模', '（二）建设规模']);
    // A section's span runs from its heading to the next heading of its level or above.
    const section = part2.children[1]!;
    const text = doc.canonical.slice(section.start, section.end);
    expect(text.startsWith('### （二）建设规模')).toBe(true);
    expect(text).toContain('三项前提条件');
    expect(text).not.toContain('（三）建设进度');
    expect(part2.end).toBe(parts[2]!.start);
    expect(outline.roots[0]!.end).toBe(doc.canonical.length);
  });

  it.skipIf(!hasShared)('keeps the levels of the warehouse manual in five formats and the flat slides of the sixth', async () => {
    for (const format of ['docx', 'pdf', 'odt', 'epub', 'html']) {
      const outline = outlineFromDocument(await parsedDoc(corpus('zh-generated', `warehouse-manual-zh.${format}`)));
      const chapters = outline.roots[0]!.children;
      expect(chapters.map((c) => c.numbering?.values[0]), format).toEqual([1, 2, 3, 4]);
      expect(chapters[1]!.children.map((c) => c.numbering?.values), format).toEqual([[2, 1], [2, 2], [2, 3]]);
    }
    const slides = outlineFromDocument(await parsedDoc(corpus('zh-generated', 'warehouse-manual-zh.pptx')));
    expect(slides.roots.map((n) => n.numbering?.label ?? n.title)).toEqual(['智能仓储系统安装与运维手册', '第一章', '第二章', '2.1', '2.2', '2.3', '第三章', '第四章']);
  }, 60_000);
});

describe('outline from stored blocks', () => {
  it.skipIf(!hasShared)('is the outline of the heading elements, even where the chunker packed small sections together', async () => {
    for (const [path, size] of [[PARK_REPORT, 200], [PARK_REPORT, 2000], [corpus('zh-generated', 'warehouse-manual-zh.docx'), 512], [corpus('pdf', 'tracemonkey.pdf'), 200], [corpus('html', 'wiki_duck.html'), 512]] as const) {
      const doc = await parsedDoc(path);
      const blocks = blocksOf(doc, { chunkSize: size });
      const strip = (nodes: OutlineNode[]): unknown[] => nodes.map((n) => [n.path, n.start, n.bodyStart, n.numbering?.label, strip(n.children)]);
      const fromBlocks = outlineFromBlocks(doc.id, blocks);
      expect(strip(fromBlocks.roots), `${path} @${size}`).toEqual(strip(outlineFromDocument(doc).roots));
      // Each section's blocks are those that overlap its text.
      for (const node of outlineNodes(fromBlocks)) {
        const overlapping = blocks.filter((b) => b.start < node.end! && b.end > node.bodyStart!).map((b) => b.ordinal);
        if (overlapping.length === 0) continue;
        expect([node.firstOrdinal, node.lastOrdinal]).toEqual([overlapping[0], overlapping[overlapping.length - 1]]);
      }
    }
    // Packed: at 2000 tokens the report's 23 sections are in 5 blocks, and the outline still has them all.
    const packed = blocksOf(await parsedDoc(PARK_REPORT), { chunkSize: 2000 });
    expect(packed.length).toBeLessThan(10);
    expect(outlineNodes(outlineFromBlocks('x', packed)).length).toBe(23);
  }, 120_000);

  it.skipIf(!hasShared)('skips heading-like lines inside code fences (a YAML comment in the warehouse manual)', async () => {
    const doc = await parsedDoc(corpus('zh-generated', 'warehouse-manual-zh.html'));
    expect(doc.canonical).toContain('\n# warehouse.yaml');
    const titles = outlineNodes(outlineFromBlocks(doc.id, blocksOf(doc))).map((n) => n.title);
    expect(titles).not.toContain('warehouse.yaml —— 智能仓储系统主配置');
  }, 60_000);

  it('without canonical text in the blocks (qwen), uses heading paths: one that comes back after another is two nodes', () => {
    const block = (ordinal: number, headingPath: string[]) => ({ ordinal, headingPath, start: ordinal * 10, end: ordinal * 10 + 5, pageStart: null, text: '[page: 1]', strategy: 'qwen' });
    const outline = outlineFromBlocks('d', [block(0, ['Notes']), block(1, ['Data']), block(2, ['Notes'])]);
    expect(outline.roots.map((n) => [n.title, n.position, n.firstOrdinal, n.lastOrdinal])).toEqual([['Notes', 1, 0, 0], ['Data', 2, 1, 1], ['Notes', 3, 2, 2]]);
  });
});

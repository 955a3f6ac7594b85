import { describe, expect, it } from 'vitest';
import { outlineFromBlocks, outlineFromDocument, outlineNodes } from '../../src/retrieval/outline.js';
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
  it.skipIf(!hasShared)('gives the paths of the heading elements, with spans and ordinals of the blocks', async () => {
    for (const path of [PARK_REPORT, corpus('zh-generated', 'warehouse-manual-zh.docx'), corpus('pdf', 'tracemonkey.pdf'), corpus('html', 'wiki_duck.html')]) {
      const doc = await parsedDoc(path);
      const blocks = blocksOf(doc, { chunkSize: 200 });
      const fromDoc = new Set(outlineNodes(outlineFromDocument(doc)).map((n) => JSON.stringify(n.path)));
      const fromBlocks = outlineNodes(outlineFromBlocks(doc.id, blocks));
      expect(fromBlocks.length, path).toBeGreaterThan(3);
      for (const node of fromBlocks) {
        expect(fromDoc.has(JSON.stringify(node.path)), `${path}: ${node.path.join(' > ')}`).toBe(true);
        const inside = blocks.filter((b) => b.ordinal >= node.firstOrdinal! && b.ordinal <= node.lastOrdinal!);
        expect(inside.every((b) => b.start >= node.start! && b.end <= node.end!)).toBe(true);
        expect(node.path).toHaveLength(node.level);
        expect(node.path[node.path.length - 1]).toBe(node.title);
      }
      // Every block's heading path is a node.
      const nodePaths = new Set(fromBlocks.map((n) => JSON.stringify(n.path)));
      for (const b of blocks) if (b.headingPath.length > 0) expect(nodePaths.has(JSON.stringify(b.headingPath))).toBe(true);
    }
  }, 120_000);

  it('makes two nodes of a heading path that comes back after another', () => {
    const block = (ordinal: number, headingPath: string[]) => ({ ordinal, headingPath, start: ordinal * 10, end: ordinal * 10 + 5, pageStart: null });
    const outline = outlineFromBlocks('d', [block(0, ['Notes']), block(1, ['Data']), block(2, ['Notes'])]);
    expect(outline.roots.map((n) => [n.title, n.position, n.firstOrdinal, n.lastOrdinal])).toEqual([['Notes', 1, 0, 0], ['Data', 2, 1, 1], ['Notes', 3, 2, 2]]);
  });
});

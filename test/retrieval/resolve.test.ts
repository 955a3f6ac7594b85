import { describe, expect, it } from 'vitest';
import type { Format } from '../../src/document/types.js';
import { outlineFromBlocks, outlineFromDocument, type Outline } from '../../src/retrieval/outline.js';
import { findSectionReferences } from '../../src/retrieval/references.js';
import { resolveReference, resolveSelector, type ResolvedSection } from '../../src/retrieval/resolve.js';
import { corpus, hasShared } from '../helpers.js';
import { blocksOf, PARK_REPORT, parsedDoc } from './helpers.js';

async function outlineOf(path: string, format?: Format): Promise<Outline> {
  return outlineFromDocument(await parsedDoc(path, format));
}

/** The last heading of each section a query's (only) reference resolves to. */
function resolve(query: string, outlines: Outline[]): ResolvedSection[] {
  const { references } = findSectionReferences(query);
  expect(references, query).toHaveLength(1);
  return resolveReference(references[0]!, outlines);
}
const titles = (sections: ResolvedSection[]) => sections.map((s) => s.title);

describe('resolving references: a report numbered 一、二、三 with sections （一）（二）（三）', () => {
  it('第二章第二节 is part 二, section （二）, not its third section', async () => {
    const outline = await outlineOf(PARK_REPORT);
    const [section, ...more] = resolve('第二章第二节提到的三项前提条件', [outline]);
    expect(more).toEqual([]);
    expect(section!.headingPath).toEqual(['滨江智慧园区建设项目可行性研究报告', '二、建设内容与规模', '（二）建设规模']);
    expect(section!.how).toEqual(['numbering-other', 'numbering-other']);
    expect(section!.label).toBe('（二）');
  });

  it.each([
    ['the fourth part', '四、投资估算与资金筹措'],
    ['第四部分的资金来源', '四、投资估算与资金筹措'],
    ['第二部分', '二、建设内容与规模'],
    ['Part II', '二、建设内容与规模'],
    ['chapter 5 section 3', '（三）结论'],
    ['section 2 of chapter 3', '（二）数据标准'],
    ['3.2节', '（二）数据标准'],
    ['附件二', '附件二 投资估算明细表'],
    ['Appendix A', '附件一 主要设备清单'],
  ])('%s -> %s', async (query, title) => {
    expect(titles(resolve(query, [await outlineOf(PARK_REPORT)]))).toEqual([title]);
  });

  it('（二） alone is ambiguous: every part has one', async () => {
    const sections = resolve('（二）', [await outlineOf(PARK_REPORT)]);
    expect(titles(sections)).toEqual(['（二）建设目标', '（二）建设规模', '（二）数据标准', '（二）资金来源', '（二）社会效益']);
    expect(sections.every((s) => s.how[0] === 'numbering')).toBe(true);
  });

  it('finds nothing for a part the report does not have', async () => {
    expect(resolve('第九章', [await outlineOf(PARK_REPORT)])).toEqual([]);
    expect(resolve('附件三', [await outlineOf(PARK_REPORT)])).toEqual([]);
  });

  it('resolves the same against the outline built from stored blocks', async () => {
    const doc = await parsedDoc(PARK_REPORT);
    const fromBlocks = outlineFromBlocks(doc.id, blocksOf(doc, { chunkSize: 100 }));
    for (const query of ['第二章第二节', 'the fourth part', '（二）', '附件二', '3.2节']) {
      expect(resolve(query, [fromBlocks]).map((s) => s.headingPath), query).toEqual(resolve(query, [await outlineOf(PARK_REPORT)]).map((s) => s.headingPath));
    }
  });
});

describe.skipIf(!hasShared)('resolving references on corpus documents', () => {
  const manual = (format: string) => corpus('zh-generated', `warehouse-manual-zh.${format}`);

  it.each(['docx', 'pdf', 'odt', 'epub', 'html'])('the warehouse manual (%s): chapters 第X章 with sections 2.1 2.2 2.3', async (format) => {
    const outline = await outlineOf(manual(format));
    expect(titles(resolve('第二章第二节提到的步骤', [outline]))).toEqual(['2.2 安装步骤']);
    expect(titles(resolve('第三章', [outline]))).toEqual(['第三章 配置']);
    expect(titles(resolve('chapter 4', [outline]))).toEqual(['第四章 故障排查']);
    expect(titles(resolve('2.3节', [outline]))).toEqual(['2.3 安装后检查']);
    expect(titles(resolve('Section 2.1', [outline]))).toEqual(['2.1 硬件与环境准备']);
    expect(titles(resolve('the first chapter', [outline]))).toEqual(['第一章 概述']);
    expect(resolve('第三章', [outline])[0]!.how).toEqual(['numbering']);
  }, 60_000);

  it('the warehouse manual as slides (levels flattened): 第二章第二节 is the slide 2.2', async () => {
    const outline = await outlineOf(manual('pptx'));
    const [section] = resolve('第二章第二节', [outline]);
    expect(section!.headingPath).toEqual(['2.2 安装步骤']);
    expect(section!.how).toEqual(['numbering-other', 'numbering-other']);
  }, 60_000);

  it('a Chinese guide with chapters 第一章 … 第二十四章 (Markdown inside a .txt)', async () => {
    const outline = await outlineOf(corpus('txt', 'chatgpt-prompt-guide_zh.txt'), 'markdown');
    expect(titles(resolve('第二十一章讲的情感分析', [outline]))).toEqual(['第二十一章：情感分析提示']);
    expect(titles(resolve('第十一章', [outline]))).toEqual(['第十一章：多项选择提示']);
    expect(titles(resolve('the fifth chapter', [outline]))).toEqual(['第五章：零、一和少样本提示']);
    expect(titles(resolve('第 24 章', [outline]))).toEqual(['第二十四章：文本生成提示']);
  }, 60_000);

  it('an English paper with numbered sections (tracemonkey)', async () => {
    const outline = await outlineOf(corpus('pdf', 'tracemonkey.pdf'));
    expect(titles(resolve('Section 3.2', [outline]))).toEqual(['3.2 Trace Trees']);
    expect(titles(resolve('§ 6.4 preemption', [outline]))).toEqual(['6.4 Preemption']);
    expect(titles(resolve('chapter 4', [outline]))).toEqual(['4. Nested Trace Tree Formation']);
    expect(titles(resolve('the fourth part', [outline]))).toEqual(['4. Nested Trace Tree Formation']);
    expect(titles(resolve('section 2 of chapter 5', [outline]))).toEqual(['5.2 Register Allocation']);
    expect(titles(resolve('Section 10', [outline]))).toEqual(['10. Future Work']);
  }, 60_000);

  it('Word headings numbered 1, 1.1, 1.2.1 and an IBM Redbook with Chapter 1', async () => {
    const word = await outlineOf(corpus('docx', 'unit_test_headers_numbered.docx'));
    expect(resolve('Section 1.2', [word]).map((s) => s.headingPath)).toEqual([['1. Section 1', '1.2. Section 1.2']]);
    expect(titles(resolve('chapter 1 section 2', [word]))).toEqual(['1.2. Section 1.2']);
    const redbook = await outlineOf(corpus('pdf', 'redp5110_sampled.pdf'));
    expect(titles(resolve('Chapter 1', [redbook]))).toEqual(['Chapter 1. Securing and protecting IBM DB2 data']);
    expect(titles(resolve('section 1.2', [redbook]))).toEqual(['1.2 Current state of IBM i security']);
  }, 60_000);

  it('headings without numbers: by position among siblings (wiki_duck)', async () => {
    const duck = await outlineOf(corpus('html', 'wiki_duck.html'));
    const [behaviour] = resolve('the fifth section', [duck]);
    expect(behaviour!.title).toBe('Behaviour');
    expect(behaviour!.how).toEqual(['position']);
    expect(titles(resolve('chapter 5 section 2', [duck]))).toEqual(['Breeding']);
    expect(titles(resolve('第六部分', [duck]))).toEqual(['Relationship with humans']);
  }, 60_000);

  it('over several documents: every document\'s best match, best numbered first; positions only when nothing is numbered', async () => {
    const duck = await outlineOf(corpus('html', 'wiki_duck.html'));
    const outlines = [await outlineOf(PARK_REPORT), await outlineOf(manual('docx')), await outlineOf(corpus('pdf', 'tracemonkey.pdf')), duck];
    // 第三章 is written so only in the manual; the report's 三、 and the paper's 3. follow; the duck's third heading (by position) is dropped.
    const third = resolve('第三章', outlines);
    expect(titles(third)).toEqual(['第三章 配置', '三、技术方案', '3. Trace Trees']);
    expect(third.map((s) => s.how[0])).toEqual(['numbering', 'numbering-other', 'numbering-other']);
    expect(titles(resolve('the fourth part', outlines))).toEqual(['四、投资估算与资金筹措', '第四章 故障排查', '4. Nested Trace Tree Formation']);
    // Section 3.2 exists as 3.2 only in the paper; the report's 三、 > （二） stands for it by structure.
    expect(titles(resolve('Section 3.2', outlines))).toEqual(['3.2 Trace Trees', '（二）数据标准']);
    // Where no document is numbered, positions count.
    expect(titles(resolve('the third part', [duck, await outlineOf(corpus('md', 'wiki.md'))]))).toEqual(['Morphology']);
  }, 60_000);
});

describe('selectors (--section)', () => {
  it('names a section by numbering, by heading texts joined by >, or by a reference', async () => {
    const outline = await outlineOf(PARK_REPORT);
    const path = (selector: string) => resolveSelector(selector, [outline]).map((s) => s.headingPath.slice(1).join(' > '));
    expect(path('二、建设内容 > （二）')).toEqual(['二、建设内容与规模 > （二）建设规模']);
    expect(path('二、建设内容与规模 > 建设规模')).toEqual(['二、建设内容与规模 > （二）建设规模']);
    expect(path('第二章第二节')).toEqual(['二、建设内容与规模 > （二）建设规模']);
    expect(path('3.2')).toEqual(['三、技术方案 > （二）数据标准']);
    expect(path('四')).toEqual(['四、投资估算与资金筹措']);
    expect(path('附件二')).toEqual(['附件二 投资估算明细表']);
    expect(path('投资估算')).toEqual(['四、投资估算与资金筹措 > （一）投资估算']);
    expect(path('（二）')).toHaveLength(5);
    expect(path('九、不存在')).toEqual([]);
  });

  it.skipIf(!hasShared)('matches numbering prefixes at a boundary only', async () => {
    const outline = await outlineOf(corpus('pdf', 'tracemonkey.pdf'));
    expect(resolveSelector('3.2', [outline]).map((s) => s.title)).toEqual(['3.2 Trace Trees']);
    expect(resolveSelector('6', [outline]).map((s) => s.title)).toEqual(['6. Implementation']);
    expect(resolveSelector('Trace Trees > Blacklisting', [outline]).map((s) => s.title)).toEqual(['3.3 Blacklisting']);
  }, 60_000);
});

import { describe, expect, it } from 'vitest';
import { parseHeadingNumbering } from '../../src/retrieval/numbering.js';
import { findSectionReferences, parseReference, REFERENCE_GRAMMAR } from '../../src/retrieval/references.js';

/** [query, reference text, steps as role:values, keywords left]. */
const CASES: [string, string, string[], string][] = [
  ['第三章第二节提到的三个前提条件', '第三章第二节', ['chapter:3', 'section:2'], '提到的三个前提条件'],
  ['第3章的内容', '第3章', ['chapter:3'], '的内容'],
  ['第二部分讲了什么', '第二部分', ['part:2'], '讲了什么'],
  ['（二）资金来源', '（二）', ['paren:2'], '资金来源'],
  ['(三) 网络安全', '(三)', ['paren:3'], '网络安全'],
  ['3.2节的要求', '3.2节', ['numbered:3.2'], '的要求'],
  ['第3.2节的要求', '第3.2节', ['numbered:3.2'], '的要求'],
  ['附件二中的费用', '附件二', ['appendix:2'], '中的费用'],
  ['附录A', '附录A', ['appendix:1'], ''],
  ['第四部分', '第四部分', ['part:4'], ''],
  ['第二十一章的第三节', '第二十一章的第三节', ['chapter:21', 'section:3'], ''],
  ['第二部分第三章', '第二部分第三章', ['part:2', 'chapter:3'], ''],
  ['第五条规定', '第五条', ['article:5'], '规定'],
  ['Section 3.2 trace trees', 'Section 3.2', ['numbered:3.2'], 'trace trees'],
  ['what chapter 4 says', 'chapter 4', ['chapter:4'], 'what says'],
  ['Chapter IV', 'Chapter IV', ['chapter:4'], ''],
  ['§ 4.1 definitions', '§ 4.1', ['numbered:4.1'], 'definitions'],
  ['§4.1', '§4.1', ['numbered:4.1'], ''],
  ['Part II results', 'Part II', ['part:2'], 'results'],
  ['Appendix B', 'Appendix B', ['appendix:2'], ''],
  ['the fourth part', 'the fourth part', ['part:4'], ''],
  ['in the 2nd chapter', 'the 2nd chapter', ['chapter:2'], 'in'],
  ['the three preconditions in chapter 3 section 2', 'chapter 3 section 2', ['chapter:3', 'numbered:2'], 'the three preconditions in'],
  ['section 2 of chapter 3', 'section 2 of chapter 3', ['chapter:3', 'numbered:2'], ''],
  ['Article 12 of the contract', 'Article 12', ['article:12'], 'of the contract'],
  ['clause 4.2', 'clause 4.2', ['clause:4.2'], ''],
  ['见chapter 2', 'chapter 2', ['chapter:2'], '见'],
];

function steps(text: string): string[] {
  return findSectionReferences(text).references.flatMap((r) => r.steps.map((s) => `${s.role}:${s.values.join('.')}`));
}

describe('section reference grammar', () => {
  it.each(CASES)('%s', (query, text, expected, keywords) => {
    const scan = findSectionReferences(query);
    expect(scan.references.map((r) => r.text)).toEqual([text]);
    expect(steps(query)).toEqual(expected);
    expect(scan.keywords).toBe(keywords);
    const ref = scan.references[0]!;
    expect(query.slice(ref.start, ref.end)).toBe(text);
  });

  it('finds several references, and does not chain two of the same level', () => {
    const scan = findSectionReferences('比较第二章和第三章');
    expect(scan.references.map((r) => r.text)).toEqual(['第二章', '第三章']);
    expect(scan.keywords).toBe('比较 和');
    expect(findSectionReferences('第二章第三章').references).toHaveLength(2);
  });

  it('leaves ordinary text alone', () => {
    for (const q of ['part of the deal', 'python 3.2 release', '增长3.2%', '三个前提条件', 'chapters and verses', 'a part a', 'I am here', 'section headings', '第三个问题']) {
      expect(findSectionReferences(q).references, q).toEqual([]);
      expect(findSectionReferences(q).keywords).toBe(q);
    }
  });

  it('reads a one-letter part both as a Roman numeral and as a letter', () => {
    expect(findSectionReferences('Part C').references[0]!.steps[0]).toEqual({ role: 'part', values: [100], letterValue: 3 });
  });

  it('parses a whole string as one reference (for --section)', () => {
    expect(parseReference(' 第三章第二节 ')?.steps.map((s) => s.values[0])).toEqual([3, 2]);
    expect(parseReference('第三章 前提')).toBeUndefined();
  });

  it('has an example for every rule, and each example is found by it', () => {
    for (const rule of REFERENCE_GRAMMAR) {
      for (const example of rule.examples) {
        const [reference] = findSectionReferences(example).references;
        expect(reference?.text, `${rule.name}: ${example}`).toBe(example);
        expect([...example.matchAll(rule.pattern)].length, `${rule.name}: ${example}`).toBe(1);
      }
    }
  });
});

describe('heading numbering', () => {
  const cases: [string, string | undefined, number[]?, string?][] = [
    ['一、项目概况', 'cn-enum', [1], '一'],
    ['二十、结语', 'cn-enum', [20]],
    ['（二）建设内容', 'cn-paren', [2], '（二）'],
    ['(三) 网络', 'cn-paren', [3]],
    ['㈡ 其他', 'cn-paren', [2]],
    ['（1）范围', 'paren', [1]],
    ['3.2 Trace Trees', 'dotted', [3, 2], '3.2'],
    ['2.1硬件与环境准备', 'dotted', [2, 1]],
    ['1.2. Section 1.2', 'dotted', [1, 2], '1.2'],
    ['4. Nested Trace Tree Formation', 'dotted', [4], '4'],
    ['1 Introduction', 'dotted', [1]],
    ['3、实施步骤', 'dotted', [3]],
    ['第三章 配置', 'chapter', [3], '第三章'],
    ['第十一章：多项选择提示', 'chapter', [11]],
    ['第二节 安装位置', 'section', [2]],
    ['第二部分 技术方案', 'part', [2]],
    ['第五条 付款', 'article', [5]],
    ['Chapter 1. Securing and protecting IBM DB2 data', 'chapter', [1], 'Chapter 1'],
    ['CHAPTER IV', 'chapter', [4]],
    ['Part II Methods', 'part', [2], 'Part II'],
    ['Section 3.2 Scope', 'dotted', [3, 2]],
    ['附件二 投资估算明细表', 'appendix', [2], '附件二'],
    ['附录A 术语', 'appendix', [1]],
    ['附件', 'appendix', []],
    ['Appendix B: Proofs', 'appendix', [2], 'Appendix B'],
    ['Appendix', 'appendix', []],
    ['II. Related work', 'roman', [2]],
    ['A. Background', 'letter', [1]],
    ['① 说明', 'circled', [1]],
    ['2020年度报告', undefined],
    ['2020 Annual Report', undefined],
    ['Abstract', undefined],
    ['I Am A Header', undefined],
    ['1910s–1950s', undefined],
    ['一般规定', undefined],
    ['U.S. Policy', undefined],
    ['Appendixes', undefined],
  ];
  it.each(cases)('%s', (text, style, values, label) => {
    const numbering = parseHeadingNumbering(text);
    expect(numbering?.style).toBe(style);
    if (values) expect(numbering?.values).toEqual(values);
    if (label) expect(numbering?.label).toBe(label);
  });

  it('keeps the letter reading of a one-letter Roman numeral', () => {
    expect(parseHeadingNumbering('C. Results')).toMatchObject({ style: 'roman', values: [100], letterValue: 3 });
    expect(parseHeadingNumbering('Part D')).toMatchObject({ style: 'part', values: [500], letterValue: 4 });
  });
});

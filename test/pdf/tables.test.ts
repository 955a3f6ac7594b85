import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { DocumentDraft } from '../../src/document/types.js';
import { pdfParser } from '../../src/parsers/pdf.js';
import { corpus, hasShared } from '../helpers.js';
import { markdownTables } from '../parsers/similarity.js';
import { minimalPdfPages, type PageSpec, type Segment, type TextItem } from './fixtures.js';

const COLUMNS = [72, 200, 330];

/** Rows of cell texts (one line each) set from `top` (PDF y, baseline of the first row) down by `pitch`. */
function rowItems(rows: string[][], top: number, pitch = 16): TextItem[] {
  return rows.flatMap((row, r) => row.map((text, c) => ({ text, size: 10, x: COLUMNS[c]!, y: top - r * pitch })).filter((item) => item.text !== ''));
}

function rule(y: number): Segment {
  return [66, y, 440, y];
}

async function parse(spec: PageSpec): Promise<DocumentDraft> {
  return pdfParser.parse({ bytes: minimalPdfPages([spec]), name: 't.pdf' }, {});
}

function tablesOf(draft: DocumentDraft): string[][][] {
  return draft.elements.filter((e) => e.kind === 'table').map((e) => e.table!.rows.map((row) => row.map((cell) => cell.text)));
}

function bodyText(draft: DocumentDraft): string {
  return draft.elements
    .filter((e) => e.kind !== 'table')
    .map((e) => e.text)
    .join(' ');
}

const PROSE = 'The measurements below were taken over three weeks of normal operation.';
const AFTER = 'All figures are rounded to the nearest whole unit for readability here.';

describe('tables ruled with horizontal lines only', () => {
  test('booktabs: top rule, header rule, bottom rule', async () => {
    const items: TextItem[] = [
      { text: PROSE, size: 10, x: 72, y: 720 },
      ...rowItems([['Region', 'Orders', 'Returns']], 690),
      ...rowItems([['North', '120', '4']], 668),
      ...rowItems([['South', 'about 95', '2']], 652),
      { text: '(estimated)', size: 10, x: 200, y: 641 }, // wrapped line of the cell above
      ...rowItems([['East', '130', '7']], 625),
      { text: AFTER, size: 10, x: 72, y: 580 },
    ];
    const draft = await parse({ items, lines: [rule(703), rule(682), rule(615)] });
    expect(tablesOf(draft)).toEqual([
      [
        ['Region', 'Orders', 'Returns'],
        ['North', '120', '4'],
        ['South', 'about 95 (estimated)', '2'],
        ['East', '130', '7'],
      ],
    ]);
    expect(draft.elements.find((e) => e.kind === 'table')!.table!.headerRows).toBe(1);
    expect(bodyText(draft)).toBe(`${PROSE} ${AFTER}`);
  });

  test('only a header rule: header above it, wrapped cells joined, prose after it left alone', async () => {
    const items: TextItem[] = [
      { text: PROSE, size: 10, x: 72, y: 720 },
      ...rowItems([['Node', 'Minimum', 'Count']], 700),
      ...rowItems([['Manager', '4 cores, 8 GB', '1']], 680),
      { text: 'memory', size: 10, x: 200, y: 668 }, // wrapped line of the cell above
      ...rowItems([['Scheduler', '2 cores', '1 or 2']], 650),
      { text: AFTER, size: 10, x: 72, y: 620 },
    ];
    const draft = await parse({ items, lines: [rule(694)] });
    expect(tablesOf(draft)).toEqual([
      [
        ['Node', 'Minimum', 'Count'],
        ['Manager', '4 cores, 8 GB memory', '1'],
        ['Scheduler', '2 cores', '1 or 2'],
      ],
    ]);
    expect(bodyText(draft)).toBe(`${PROSE} ${AFTER}`);
  });

  test('a row with an empty first cell at the row pitch stays a row of its own', async () => {
    const items: TextItem[] = [
      ...rowItems([['Model', 'Dataset', 'Score']], 700),
      ...rowItems([['Alpha', 'train', '90']], 680),
      { text: '(full)', size: 10, x: 200, y: 669 }, // wrapped line of the cell above
      ...rowItems([['', 'test', '85']], 653),
      ...rowItems([['Beta', 'train', '88']], 637),
    ];
    const draft = await parse({ items, lines: [rule(712), rule(694), rule(628)] });
    expect(tablesOf(draft)).toEqual([
      [
        ['Model', 'Dataset', 'Score'],
        ['Alpha', 'train (full)', '90'],
        ['', 'test', '85'],
        ['Beta', 'train', '88'],
      ],
    ]);
  });

  test('a lone rule under a heading makes no table, even over two aligned lines; nor does a footnote rule', async () => {
    const items: TextItem[] = [
      { text: 'Results', size: 14, x: 72, y: 720 },
      ...rowItems([['Author', 'Jane Doe'], ['Date', 'March 2020']], 696),
      { text: PROSE, size: 10, x: 72, y: 660 },
      { text: '1 See the appendix for the raw data and the scripts that produced it.', size: 8, x: 72, y: 90 },
      { text: '2 Figures for the South region exclude the two closed warehouses.', size: 8, x: 72, y: 80 },
    ];
    const draft = await parse({ items, lines: [[66, 712, 440, 712], [72, 100, 216, 100]] });
    expect(tablesOf(draft)).toEqual([]);
    expect(bodyText(draft)).toContain(PROSE);
  });

  test('page columns of prose under a masthead rule are not a table', async () => {
    const left = ['This section of the register contains notices', 'to the public of the proposed issuance of rules', 'and regulations. The purpose of these notices is', 'to give interested persons an opportunity to take'];
    const right = ['Comments may be sent by mail to the docket', 'office at the address given above, or by fax to', 'the number listed, or delivered by hand during', 'office hours on any working day of the week.'];
    const items: TextItem[] = [
      { text: 'Proposed Rules', size: 10, x: 72, y: 730 },
      { text: 'Federal Register', size: 10, x: 400, y: 730 },
      ...left.map((text, i) => ({ text, size: 9, x: 72, y: 700 - i * 11 })),
      ...right.map((text, i) => ({ text, size: 9, x: 320, y: 700 - i * 11 })),
    ];
    const draft = await parse({ items, lines: [[66, 724, 540, 724]] });
    expect(tablesOf(draft)).toEqual([]);
  });
});

describe.skipIf(!hasShared)('horizontally ruled tables in the corpus', () => {
  const file = corpus('zh-generated/warehouse-manual-zh.pdf');

  test('warehouse-manual-zh.pdf: both tables found, CJK cells without inserted spaces, not repeated in the body', async () => {
    const draft = await pdfParser.parse({ bytes: readFileSync(file), name: 'warehouse-manual-zh.pdf' }, {});
    const ours = tablesOf(draft);
    const expected = markdownTables(readFileSync(`${file}.expected.md`, 'utf8'));
    expect(ours).toHaveLength(2);
    expect(ours[1]).toEqual(expected[1]);
    expect(ours[0]![0]).toEqual(['节点角色', '最低配置', '推荐配置', '数量']);
    expect(ours[0]!.map((row) => row[0])).toEqual(expected[0]!.map((row) => row[0]));
    expect(ours[0]![5]![1]).toBe('四核 ARM 处理器，2 GB 内存，32 GB 存储');
    const body = bodyText(draft);
    expect(body).not.toContain('节点角色');
    expect(body).not.toContain('许可证失效');
  });
});

import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Document } from '../../src/document/types.js';
import { parse } from '../../src/parse.js';
import { registerParser } from '../../src/parsers/registry.js';
import { xlsxParser } from '../../src/parsers/xlsx.js';

beforeAll(() => registerParser(xlsxParser));

/**
 * Workbooks with charts (drawings anchored on worksheets, a chartsheet) and review comments
 * (threaded comments with persons, notes), laid out as Excel 365 writes them.
 */

const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const MS_REL = 'http://schemas.microsoft.com/office/2017/10/relationships';
const XDR = 'xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
const C = 'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';

function rels(list: [string, string, string][]): string {
  return `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${list.map(([id, type, target]) => `<Relationship Id="${id}" Type="${type.startsWith('http') ? type : `${REL}/${type}`}" Target="${target}"/>`).join('')}</Relationships>`;
}

interface SheetSpec {
  name: string;
  /** worksheet (default) or chartsheet */
  type?: 'worksheet' | 'chartsheet';
  xml: string;
  rels?: [string, string, string][];
}

function workbook(sheets: SheetSpec[], parts: Record<string, string> = {}, workbookRels: [string, string, string][] = []): Uint8Array {
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    '_rels/.rels': strToU8(rels([['rId1', 'officeDocument', 'xl/workbook.xml']])),
    'xl/workbook.xml': strToU8(`<workbook ${MAIN}><sheets>${sheets.map((s, i) => `<sheet name="${s.name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`),
    'xl/_rels/workbook.xml.rels': strToU8(
      rels([...sheets.map((s, i): [string, string, string] => [`rId${i + 1}`, s.type ?? 'worksheet', `${s.type === 'chartsheet' ? 'chartsheets' : 'worksheets'}/sheet${i + 1}.xml`]), ...workbookRels]),
    ),
  };
  sheets.forEach((s, i) => {
    const folder = s.type === 'chartsheet' ? 'chartsheets' : 'worksheets';
    files[`xl/${folder}/sheet${i + 1}.xml`] = strToU8(s.type === 'chartsheet' ? `<chartsheet ${MAIN}>${s.xml}</chartsheet>` : `<worksheet ${MAIN}>${s.xml}</worksheet>`);
    if (s.rels) files[`xl/${folder}/_rels/sheet${i + 1}.xml.rels`] = strToU8(rels(s.rels));
  });
  for (const [name, xml] of Object.entries(parts)) files[name] = strToU8(xml);
  return zipSync(files);
}

const cell = (ref: string, value: string | number): string => (typeof value === 'number' ? `<c r="${ref}"><v>${value}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${value}</t></is></c>`);
const row = (r: number, cells: [string, string | number][]): string => `<row r="${r}">${cells.map(([ref, v]) => cell(ref, v)).join('')}</row>`;

/** A 3x2 table at A1 (Month, Units) and a second table at A10 (Region, Sales). */
const DATA = `<sheetData>${row(1, [['A1', 'Month'], ['B1', 'Units']])}${row(2, [['A2', 'Jan'], ['B2', 3]])}${row(3, [['A3', 'Feb'], ['B3', 4]])}` +
  `${row(10, [['A10', 'Region'], ['B10', 'Sales']])}${row(11, [['A11', 'North'], ['B11', 10]])}</sheetData><drawing r:id="rIdD"/>`;

const lineChart = (title: string): string =>
  `<c:chartSpace ${C}><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>${title}</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:lineChart>` +
  `<c:ser><c:tx><c:strRef><c:f>Sheet1!$B$1</c:f><c:strCache><c:pt idx="0"><c:v>Units</c:v></c:pt></c:strCache></c:strRef></c:tx>` +
  `<c:cat><c:strRef><c:f>Sheet1!$A$2:$A$3</c:f><c:strCache><c:pt idx="0"><c:v>Jan</c:v></c:pt><c:pt idx="1"><c:v>Feb</c:v></c:pt></c:strCache></c:strRef></c:cat>` +
  `<c:val><c:numRef><c:f>Sheet1!$B$2:$B$3</c:f><c:numCache><c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>3</c:v></c:pt><c:pt idx="1"><c:v>4</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>` +
  `</c:lineChart></c:plotArea></c:chart></c:chartSpace>`;

const frame = (id: string): string =>
  `<xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="2" name="Chart 1"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr><xdr:xfrm/>` +
  `<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:r="${REL}" r:id="${id}"/></a:graphicData></a:graphic></xdr:graphicFrame>`;
const twoCell = (col: number, rowIndex: number, body: string): string =>
  `<xdr:twoCellAnchor><xdr:from><xdr:col>${col}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${rowIndex}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from><xdr:to><xdr:col>${col + 5}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${rowIndex + 10}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:to>${body}<xdr:clientData/></xdr:twoCellAnchor>`;

const kinds = (doc: Document): string[] => doc.elements.map((e) => (e.kind === 'caption' || e.kind === 'heading' ? `${e.kind}:${e.text}` : e.kind === 'table' ? `table:${e.table!.rows[0]![0]!.text || e.table!.rows[0]![1]!.text}` : e.kind));

describe('XLSX charts', () => {
  test('charts anchored on a worksheet take their place among the tables by their top-left cell', async () => {
    // Chart 1 at D2 (row 1, col 3 zero-based): beside the first table, so after it; chart 2 inside a group at A20: after everything.
    const drawing = `<xdr:wsDr ${XDR}>${twoCell(3, 1, frame('rC1'))}${twoCell(0, 19, `<xdr:grpSp><xdr:nvGrpSpPr><xdr:cNvPr id="5" name="Group"/><xdr:cNvGrpSpPr/></xdr:nvGrpSpPr><xdr:grpSpPr/>${frame('rC2')}</xdr:grpSp>`)}</xdr:wsDr>`;
    const bytes = workbook([{ name: 'Sheet1', xml: DATA, rels: [['rIdD', 'drawing', '../drawings/drawing1.xml']] }], {
      'xl/drawings/drawing1.xml': drawing,
      'xl/drawings/_rels/drawing1.xml.rels': rels([['rC1', 'chart', '../charts/chart1.xml'], ['rC2', 'chart', '../charts/chart2.xml']]),
      'xl/charts/chart1.xml': lineChart('Units by month'),
      'xl/charts/chart2.xml': lineChart('Again'),
    });
    const doc = await parse(bytes, { name: 'charts.xlsx' });
    expect(kinds(doc)).toEqual(['heading:Sheet1', 'table:Month', 'caption:Line chart: Units by month', 'table:Units', 'table:Region', 'caption:Line chart: Again', 'table:Units']);
    const chart = doc.elements.find((e) => e.kind === 'table' && e.table!.caption)!;
    expect(chart.table!.rows.map((r) => r.map((c) => c.text))).toEqual([['', 'Units'], ['Jan', '3'], ['Feb', '4']]);
    expect(chart.sheet).toBe('Sheet1');
    expect(chart.page).toBe(1);
    expect(doc.canonical).toContain('Line chart: Units by month\n\n|  | Units |\n| --- | --- |\n| Jan | 3 |');
  });

  test('a chartsheet is a section holding its chart; a broken or missing chart part is a warning', async () => {
    const absolute = (id: string): string => `<xdr:absoluteAnchor><xdr:pos x="0" y="0"/><xdr:ext cx="8666666" cy="6293304"/>${frame(id)}<xdr:clientData/></xdr:absoluteAnchor>`;
    const bytes = workbook(
      [
        { name: 'Data', xml: `<sheetData>${row(1, [['A1', 'Month'], ['B1', 'Units']])}${row(2, [['A2', 'Jan'], ['B2', 3]])}</sheetData>` },
        { name: 'Chart1', type: 'chartsheet', xml: '<sheetPr/><sheetViews><sheetView workbookViewId="0"/></sheetViews><drawing r:id="rIdD"/>', rels: [['rIdD', 'drawing', '../drawings/drawing1.xml']] },
        { name: 'Broken', type: 'chartsheet', xml: '<drawing r:id="rIdD"/>', rels: [['rIdD', 'drawing', '../drawings/drawing2.xml']] },
      ],
      {
        'xl/drawings/drawing1.xml': `<xdr:wsDr ${XDR}>${absolute('rC1')}</xdr:wsDr>`,
        'xl/drawings/_rels/drawing1.xml.rels': rels([['rC1', 'chart', '../charts/chart1.xml']]),
        'xl/charts/chart1.xml': lineChart('On its own sheet'),
        'xl/drawings/drawing2.xml': `<xdr:wsDr ${XDR}>${absolute('rC1')}${absolute('rC2')}</xdr:wsDr>`,
        'xl/drawings/_rels/drawing2.xml.rels': rels([['rC1', 'chart', '../charts/chart2.xml'], ['rC2', 'chart', '../charts/missing.xml']]),
        'xl/charts/chart2.xml': '<c:chartSpace><c:chart>',
      },
    );
    const doc = await parse(bytes, { name: 'chartsheet.xlsx' });
    expect(kinds(doc)).toEqual(['heading:Data', 'table:Month', 'heading:Chart1', 'caption:Line chart: On its own sheet', 'table:Units', 'heading:Broken']);
    expect(doc.elements.filter((e) => e.sheet === 'Chart1').map((e) => e.page)).toEqual([2, 2, 2]);
    expect(doc.pageCount).toBe(3);
    expect(doc.warnings).toEqual([
      expect.stringMatching(/^sheet 'Broken': chart 'xl\/charts\/chart2.xml' could not be read/),
      "sheet 'Broken': a chart's part is missing from the package; skipped",
      "chartsheet 'Broken' has no chart that could be read",
    ]);
  });
});

const PERSONS = `<personList xmlns="http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments"><person displayName="Ann Lee" id="{P1}" userId="ann@example.com" providerId="AD"/><person displayName="Bo Chen" id="{P2}" userId="bo" providerId="None"/></personList>`;
const THREADED = `<ThreadedComments xmlns="http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments">` +
  `<threadedComment ref="B2" dT="2024-03-01T09:15:00.00" personId="{P1}" id="{T1}" done="1"><text>Is January right?</text></threadedComment>` +
  `<threadedComment ref="E5" dT="2024-03-01T10:00:00.00" personId="{P2}" id="{T2}"><text>Loose note beside the tables</text></threadedComment>` +
  `<threadedComment ref="B2" dT="2024-03-02T08:00:00.00" personId="{P2}" id="{T3}" parentId="{T1}"><text>Yes, checked.</text></threadedComment>` +
  `</ThreadedComments>`;
// Excel writes a note for every threaded comment (the copy old versions show) and real notes.
const NOTES = `<comments ${MAIN}><authors><author>tc={T1}</author><author>Carl</author></authors><commentList>` +
  `<comment ref="B2" authorId="0"><text><t>[Threaded comment]\n\nYour version of Excel allows you to read this threaded comment</t></text></comment>` +
  `<comment ref="A11" authorId="1"><text><r><rPr><b/></rPr><t>Carl:</t></r><r><t xml:space="preserve">\nNorth includes the islands.</t></r></text></comment>` +
  `</commentList></comments>`;

describe('XLSX comments', () => {
  const bytes = (): Uint8Array =>
    workbook(
      [{ name: 'Sheet1', xml: DATA.replace('<drawing r:id="rIdD"/>', ''), rels: [['rT', `${MS_REL}/threadedComment`, '../threadedComments/threadedComment1.xml'], ['rN', 'comments', '../comments1.xml']] }],
      { 'xl/threadedComments/threadedComment1.xml': THREADED, 'xl/comments1.xml': NOTES, 'xl/persons/person.xml': PERSONS },
      [['rP', `${MS_REL}/person`, 'persons/person.xml']],
    );

  test('threaded comments and notes follow the table holding their cell; replies follow their thread', async () => {
    const doc = await parse(bytes(), { name: 'comments.xlsx' });
    expect(kinds(doc)).toEqual(['heading:Sheet1', 'table:Month', 'comment', 'comment', 'comment', 'table:Region', 'comment']);
    const comments = doc.elements.filter((e) => e.kind === 'comment');
    expect(comments.map((e) => [e.text, e.comment])).toEqual([
      ['Is January right?', { author: 'Ann Lee', time: '2024-03-01T09:15:00.00', cell: 'B2', resolved: true }],
      ['Yes, checked.', { author: 'Bo Chen', time: '2024-03-02T08:00:00.00', cell: 'B2', reply: true }],
      // E5 is in no table: it sits by position, after the table above it and before the one below.
      ['Loose note beside the tables', { author: 'Bo Chen', time: '2024-03-01T10:00:00.00', cell: 'E5' }],
      ['North includes the islands.', { author: 'Carl', cell: 'A11' }],
    ]);
    expect(comments.every((e) => e.sheet === 'Sheet1' && e.page === 1)).toBe(true);
    expect(doc.canonical).toContain(
      '| Feb | 4 |\n\n[Comment by Ann Lee, 2024-03-01 09:15, on B2, resolved] Is January right?\n[Reply by Bo Chen, 2024-03-02 08:00] Yes, checked.\n\n[Comment by Bo Chen, 2024-03-01 10:00, on E5] Loose note beside the tables\n\n| Region | Sales |',
    );
    expect(doc.canonical).not.toContain('Your version of Excel');
  });

  test("comments: 'exclude' leaves them out", async () => {
    const doc = await parse(bytes(), { name: 'comments.xlsx', comments: 'exclude' });
    expect(doc.elements.some((e) => e.kind === 'comment')).toBe(false);
    expect(kinds(doc)).toEqual(['heading:Sheet1', 'table:Month', 'table:Region']);
  });
});

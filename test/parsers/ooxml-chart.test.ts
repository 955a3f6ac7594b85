import { describe, expect, test } from 'vitest';
import { chartElements, readChart } from '../../src/parsers/ooxml-chart.js';

/** Chart parts written the way Excel and PowerPoint write them (caches inside refs, rich titles). */
const C = 'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';

const strCache = (values: string[]): string => `<c:strCache><c:ptCount val="${values.length}"/>${values.map((v, i) => `<c:pt idx="${i}"><c:v>${v}</c:v></c:pt>`).join('')}</c:strCache>`;
const numCache = (values: (number | undefined)[], format = 'General'): string =>
  `<c:numCache><c:formatCode>${format}</c:formatCode><c:ptCount val="${values.length}"/>${values.map((v, i) => (v === undefined ? '' : `<c:pt idx="${i}"><c:v>${v}</c:v></c:pt>`)).join('')}</c:numCache>`;
const name = (n: string): string => `<c:tx><c:strRef><c:f>Sheet1!$B$1</c:f>${strCache([n])}</c:strRef></c:tx>`;
const cat = (values: string[]): string => `<c:cat><c:strRef><c:f>Sheet1!$A$2:$A$9</c:f>${strCache(values)}</c:strRef></c:cat>`;
const val = (values: (number | undefined)[], format?: string): string => `<c:val><c:numRef><c:f>Sheet1!$B$2:$B$9</c:f>${numCache(values, format)}</c:numRef></c:val>`;
const ser = (n: string, body: string): string => `<c:ser><c:idx val="0"/><c:order val="0"/>${name(n)}${body}</c:ser>`;
const title = (text: string): string => `<c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>${text}</a:t></a:r></a:p></c:rich></c:tx><c:overlay val="0"/></c:title>`;
const axisTitle = (text: string): string => `<c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>${text}</a:t></a:r></a:p></c:rich></c:tx></c:title>`;
const space = (plots: string, opts: { title?: string; axes?: string; head?: string } = {}): string =>
  `<?xml version="1.0" encoding="UTF-8"?><c:chartSpace ${C}>${opts.head ?? ''}<c:chart>${opts.title ? title(opts.title) : ''}<c:autoTitleDeleted val="${opts.title ? 0 : 1}"/><c:plotArea><c:layout/>${plots}${opts.axes ?? ''}</c:plotArea></c:chart></c:chartSpace>`;
const rows = (xml: string): string[][] => readChart(xml).table!.rows.map((r) => r.map((c) => c.text));

describe('chart parts as tables (ooxml-chart.ts)', () => {
  test('column chart: categories x series, the title in the caption', () => {
    const xml = space(`<c:barChart><c:barDir val="col"/><c:grouping val="clustered"/>${ser('North', cat(['Q1', 'Q2', 'Q3']) + val([10, 20, 30]))}${ser('South', cat(['Q1', 'Q2', 'Q3']) + val([5, 6, 7]))}</c:barChart>`, { title: 'Sales by quarter' });
    const chart = readChart(xml);
    expect(chart.caption).toBe('Column chart: Sales by quarter');
    expect(chart.title).toBe('Sales by quarter');
    expect(rows(xml)).toEqual([['', 'North', 'South'], ['Q1', '10', '5'], ['Q2', '20', '6'], ['Q3', '30', '7']]);
    expect(chart.table!.headerRows).toBe(1);
    expect(chart.table!.caption).toBe(chart.caption);
  });

  test("bar chart (barDir bar), and a missing point is an empty cell", () => {
    const xml = space(`<c:barChart><c:barDir val="bar"/>${ser('Count', cat(['a', 'b', 'c']) + val([1, undefined, 3]))}</c:barChart>`);
    expect(readChart(xml).caption).toBe('Bar chart: Count');
    expect(rows(xml)).toEqual([['', 'Count'], ['a', '1'], ['b', ''], ['c', '3']]);
  });

  test('line chart: the category axis title heads the first column and describes an untitled chart', () => {
    const axes = `<c:catAx><c:axId val="1"/><c:axPos val="b"/>${axisTitle('Month')}</c:catAx><c:valAx><c:axId val="2"/><c:axPos val="l"/>${axisTitle('Units')}</c:valAx>`;
    const xml = space(`<c:lineChart><c:grouping val="standard"/>${ser('Units', cat(['Jan', 'Feb']) + val([3, 4]))}</c:lineChart>`, { axes });
    expect(readChart(xml).caption).toBe('Line chart: Units by Month');
    expect(rows(xml)).toEqual([['Month', 'Units'], ['Jan', '3'], ['Feb', '4']]);
  });

  test('pie chart values are shown through their number format (percentages)', () => {
    const xml = space(`<c:pieChart><c:varyColors val="1"/>${ser('Share', cat(['Tea', 'Coffee']) + val([0.25, 0.75], '0%'))}</c:pieChart>`, { title: 'Drinks' });
    expect(readChart(xml).caption).toBe('Pie chart: Drinks');
    expect(rows(xml)).toEqual([['', 'Share'], ['Tea', '25%'], ['Coffee', '75%']]);
  });

  test('doughnut and area charts are named for their plot', () => {
    expect(readChart(space(`<c:doughnutChart>${ser('S', cat(['x']) + val([1]))}</c:doughnutChart>`)).type).toBe('Doughnut chart');
    const area = space(`<c:areaChart><c:grouping val="stacked"/>${ser('Rain', cat(['2020', '2021']) + val([800.5, 912]))}</c:areaChart>`, { title: 'Rainfall' });
    expect(readChart(area).caption).toBe('Area chart: Rainfall');
    expect(rows(area)).toEqual([['', 'Rain'], ['2020', '800.5'], ['2021', '912']]);
  });

  test('scatter chart with shared x values: one x column; the horizontal value axis names it', () => {
    const xy = (y: number[]): string => `<c:xVal><c:numRef><c:f>Sheet2!$A$2:$A$4</c:f>${numCache([1, 2, 3])}</c:numRef></c:xVal><c:yVal><c:numRef><c:f>Sheet2!$B$2:$B$4</c:f>${numCache(y)}</c:numRef></c:yVal>`;
    const axes = `<c:valAx><c:axId val="1"/><c:axPos val="b"/>${axisTitle('col-1')}</c:valAx><c:valAx><c:axId val="2"/><c:axPos val="l"/>${axisTitle('value')}</c:valAx>`;
    const xml = space(`<c:scatterChart><c:scatterStyle val="lineMarker"/>${ser('col-2', xy([2, 4, 6]))}${ser('col-3', xy([3, 6, 9]))}</c:scatterChart>`, { axes });
    expect(readChart(xml).caption).toBe('Scatter chart: col-2, col-3 by col-1');
    expect(rows(xml)).toEqual([['col-1', 'col-2', 'col-3'], ['1', '2', '3'], ['2', '4', '6'], ['3', '6', '9']]);
  });

  test('scatter series with different x values get a pair of columns each', () => {
    const xy = (x: number[], y: number[]): string => `<c:xVal><c:numRef>${numCache(x)}</c:numRef></c:xVal><c:yVal><c:numRef>${numCache(y)}</c:numRef></c:yVal>`;
    const xml = space(`<c:scatterChart>${ser('a', xy([1, 2], [10, 20]))}${ser('b', xy([5, 6, 7], [50, 60, 70]))}</c:scatterChart>`);
    expect(rows(xml)).toEqual([
      ['a (x)', 'a', 'b (x)', 'b'],
      ['1', '10', '5', '50'],
      ['2', '20', '6', '60'],
      ['', '', '7', '70'],
    ]);
  });

  test('bubble chart: sizes are columns of their own', () => {
    const body = `<c:xVal><c:numRef>${numCache([1, 2])}</c:numRef></c:xVal><c:yVal><c:numRef>${numCache([3, 4])}</c:numRef></c:yVal><c:bubbleSize><c:numRef>${numCache([30, 40])}</c:numRef></c:bubbleSize>`;
    const xml = space(`<c:bubbleChart>${ser('Deals', body)}</c:bubbleChart>`, { title: 'Pipeline' });
    expect(readChart(xml).caption).toBe('Bubble chart: Pipeline');
    expect(rows(xml)).toEqual([['', 'Deals', 'Deals (size)'], ['1', '3', '30'], ['2', '4', '40']]);
  });

  test('combo chart (column + line): both plot types named, each series tagged with its plot', () => {
    const categories = cat(['2022', '2023']);
    const xml = space(`<c:barChart><c:barDir val="col"/>${ser('Revenue', categories + val([100, 120]))}</c:barChart><c:lineChart>${ser('Margin', categories + val([0.1, 0.15], '0.0%'))}</c:lineChart>`, { title: 'Results' });
    const chart = readChart(xml);
    expect(chart.type).toBe('Column and line chart');
    expect(chart.caption).toBe('Column and line chart: Results');
    expect(rows(xml)).toEqual([['', 'Revenue (column)', 'Margin (line)'], ['2022', '100', '10.0%'], ['2023', '120', '15.0%']]);
  });

  test('multi-level categories: one column per level, outer groups repeated on every row', () => {
    const multi = `<c:cat><c:multiLvlStrRef><c:f>Sheet1!$A$2:$B$5</c:f><c:multiLvlStrCache><c:ptCount val="4"/>` +
      `<c:lvl><c:pt idx="0"><c:v>Jan</c:v></c:pt><c:pt idx="1"><c:v>Feb</c:v></c:pt><c:pt idx="2"><c:v>Jan</c:v></c:pt><c:pt idx="3"><c:v>Feb</c:v></c:pt></c:lvl>` +
      `<c:lvl><c:pt idx="0"><c:v>2023</c:v></c:pt><c:pt idx="2"><c:v>2024</c:v></c:pt></c:lvl></c:multiLvlStrCache></c:multiLvlStrRef></c:cat>`;
    const xml = space(`<c:barChart><c:barDir val="col"/>${ser('Sales', multi + val([1, 2, 3, 4]))}</c:barChart>`, { title: 'Monthly' });
    expect(rows(xml)).toEqual([['', '', 'Sales'], ['2023', 'Jan', '1'], ['2023', 'Feb', '2'], ['2024', 'Jan', '3'], ['2024', 'Feb', '4']]);
  });

  test('literal series (strLit/numLit), a literal name, dates through their format, the 1904 date system', () => {
    const body = `<c:tx><c:v>Visits</c:v></c:tx><c:cat><c:numLit><c:formatCode>yyyy-mm-dd</c:formatCode><c:ptCount val="1"/><c:pt idx="0"><c:v>0</c:v></c:pt></c:numLit></c:cat><c:val><c:numLit><c:formatCode>#,##0</c:formatCode><c:ptCount val="1"/><c:pt idx="0"><c:v>12345</c:v></c:pt></c:numLit></c:val>`;
    const xml = space(`<c:lineChart><c:ser>${body}</c:ser></c:lineChart>`, { head: '<c:date1904 val="1"/>' });
    expect(rows(xml)).toEqual([['', 'Visits'], ['1904-01-01', '12,345']]);
  });

  test("a title element without text shows the only series' name; no series gives no table", () => {
    const xml = `<c:chartSpace ${C}><c:chart><c:title><c:overlay val="0"/></c:title><c:plotArea><c:lineChart>${ser('Temperature', cat(['a']) + val([1]))}</c:lineChart></c:plotArea></c:chart></c:chartSpace>`;
    expect(readChart(xml).caption).toBe('Line chart: Temperature');
    const empty = readChart(space('<c:lineChart/>', { title: 'Nothing yet' }));
    expect(empty.table).toBeUndefined();
    expect(chartElements(empty)).toEqual([{ kind: 'caption', text: 'Line chart: Nothing yet' }]);
    expect(chartElements(readChart(space('<c:lineChart/>')))).toEqual([]);
  });

  test('chartElements: a caption, then the table', () => {
    const els = chartElements(readChart(space(`<c:lineChart>${ser('S', cat(['x', 'y']) + val([1, 2]))}</c:lineChart>`, { title: 'T' })));
    expect(els.map((e) => [e.kind, e.text])).toEqual([['caption', 'Line chart: T'], ['table', '\tS\nx\t1\ny\t2']]);
  });

  test('Office 2016 charts (cx:chartSpace): the series data by its id, the layout names the type', () => {
    const xml = `<cx:chartSpace xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">` +
      `<cx:chartData><cx:data id="0"><cx:strDim type="cat"><cx:f>Sheet1!$A$2:$A$4</cx:f><cx:lvl ptCount="3"><cx:pt idx="0">Start</cx:pt><cx:pt idx="1">Costs</cx:pt><cx:pt idx="2">End</cx:pt></cx:lvl></cx:strDim>` +
      `<cx:numDim type="val"><cx:f>Sheet1!$B$2:$B$4</cx:f><cx:lvl ptCount="3" formatCode="General"><cx:pt idx="0">100</cx:pt><cx:pt idx="1">-30</cx:pt><cx:pt idx="2">70</cx:pt></cx:lvl></cx:numDim></cx:data></cx:chartData>` +
      `<cx:chart><cx:title><cx:tx><cx:txData><cx:v>Cash flow</cx:v></cx:txData></cx:tx></cx:title><cx:plotArea><cx:plotAreaRegion>` +
      `<cx:series layoutId="waterfall"><cx:tx><cx:txData><cx:f>Sheet1!$B$1</cx:f><cx:v>Amount</cx:v></cx:txData></cx:tx><cx:dataId val="0"/></cx:series></cx:plotAreaRegion></cx:plotArea></cx:chart></cx:chartSpace>`;
    const chart = readChart(xml);
    expect(chart.caption).toBe('Waterfall chart: Cash flow');
    expect(rows(xml)).toEqual([['', 'Amount'], ['Start', '100'], ['Costs', '-30'], ['End', '70']]);
  });

  test('malformed XML throws (callers turn it into a warning)', () => {
    expect(() => readChart('<c:chartSpace><c:chart>')).toThrow();
  });
});

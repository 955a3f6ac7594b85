import type { ElementDraft, TableCell, TableData } from '../document/types.js';
import { formatGeneral, formatNumber } from './xlsx-format.js';
import { tableText } from './xlsx-tables.js';
import { child, children, deepText, parseXmlTree, type XmlNode } from './xml.js';

/**
 * A DrawingML chart part as a table of the values the application cached when it last saved,
 * shared by PPTX slides, XLSX drawings and chartsheets, and DOCX drawings. The cached values are what
 * the chart shows, so a question about its numbers can be answered from the text.
 *
 * - `c:chartSpace` (every classic chart): each plot of the plot area (`c:barChart`, `c:lineChart`,
 *   `c:pieChart`, `c:scatterChart`, `c:bubbleChart`, ...; a combo chart has several) gives its
 *   series (`c:ser`): the name (`c:tx`), the categories (`c:cat`, or the x values `c:xVal` of scatter
 *   and bubble charts), the values (`c:val` / `c:yVal`) and bubble sizes (`c:bubbleSize`), each from
 *   its cache (`c:strCache`, `c:numCache`, `c:multiLvlStrCache`) or literal (`c:strLit`, `c:numLit`).
 *   Numbers are shown through the cache's format code, as the chart shows them.
 * - `cx:chartSpace` (Office 2016 charts: waterfall, histogram, funnel, treemap, sunburst, box and
 *   whisker, map): the series name and its data (`cx:chartData`), by `cx:dataId`.
 *
 * The table: when every series has the same categories (or x values), one row per category, one
 * column per category level then one per series (and per series of bubble sizes); otherwise a pair
 * of columns per series, its x values and its y values. The caption says the chart's type and its
 * title, or, without a title, what is plotted: `Scatter chart: col-2, col-3 by col-1`.
 */

export interface ChartContent {
  /** What kind of chart: `Column chart`, `Column and line chart`. */
  type: string;
  title?: string;
  /** `Line chart: Sales by month`. */
  caption: string;
  table?: TableData;
}

type Points = Map<number, string>;

interface Series {
  name: string;
  /** The plot type the series is drawn as (`column`, `line`, ...). */
  plot: string;
  /** Category levels, innermost first (one level unless the categories are multi-level); x values for scatter and bubble. */
  x: Points[];
  y: Points;
  size?: Points;
}

/** Plot elements of the plot area and the names they get in captions. */
const PLOTS: Record<string, string> = {
  barChart: 'bar',
  bar3DChart: 'bar',
  lineChart: 'line',
  line3DChart: 'line',
  pieChart: 'pie',
  pie3DChart: 'pie',
  ofPieChart: 'pie',
  doughnutChart: 'doughnut',
  areaChart: 'area',
  area3DChart: 'area',
  scatterChart: 'scatter',
  bubbleChart: 'bubble',
  radarChart: 'radar',
  stockChart: 'stock',
  surfaceChart: 'surface',
  surface3DChart: 'surface',
};

/** Office 2016 chart layouts (`cx:series layoutId`). */
const CHARTEX_LAYOUTS: Record<string, string> = {
  clusteredColumn: 'histogram',
  paretoLine: 'pareto',
  waterfall: 'waterfall',
  funnel: 'funnel',
  treemap: 'treemap',
  sunburst: 'sunburst',
  boxWhisker: 'box and whisker',
  regionMap: 'map',
};

const XY_PLOTS = new Set(['scatter', 'bubble']);

/** Reads a chart part (`c:chartSpace` or `cx:chartSpace`); malformed XML throws. */
export function readChart(xml: string): ChartContent {
  const space = parseXmlTree(xml);
  return space.name === 'cx:chartSpace' ? readChartEx(space) : readClassicChart(space);
}

/** The chart as elements: a caption, then its table (whose `caption` is the same text). */
export function chartElements(chart: ChartContent): ElementDraft[] {
  if (!chart.table) return chart.title ? [{ kind: 'caption', text: chart.caption }] : [];
  return [
    { kind: 'caption', text: chart.caption },
    { kind: 'table', text: tableText(chart.table.rows), table: chart.table },
  ];
}

function readClassicChart(space: XmlNode): ChartContent {
  const chart = child(space, 'c:chart');
  const date1904 = child(space, 'c:date1904')?.attributes['val'] === '1';
  const plotArea = child(chart, 'c:plotArea');
  const series: Series[] = [];
  const plots: string[] = [];
  for (const plot of plotArea?.children ?? []) {
    const base = PLOTS[plot.name.slice(plot.name.indexOf(':') + 1)];
    if (!base || !plot.name.startsWith('c:')) continue;
    const name = base === 'bar' && child(plot, 'c:barDir')?.attributes['val'] !== 'bar' ? 'column' : base;
    if (!plots.includes(name)) plots.push(name);
    for (const ser of children(plot, 'c:ser')) {
      const entry: Series = {
        name: seriesName(child(ser, 'c:tx'), date1904),
        plot: name,
        x: categoryLevels(child(ser, 'c:cat') ?? child(ser, 'c:xVal'), date1904),
        y: points(child(ser, 'c:val') ?? child(ser, 'c:yVal'), date1904),
      };
      const size = child(ser, 'c:bubbleSize');
      if (size) entry.size = points(size, date1904);
      series.push(entry);
    }
  }
  const titleNode = child(chart, 'c:title');
  let title = titleNode ? titleText(titleNode, date1904) : '';
  // A title element without text shows the only series' name (the application's automatic title).
  if (titleNode && !title && series.length === 1 && child(chart, 'c:autoTitleDeleted')?.attributes['val'] !== '1') title = series[0]!.name;
  const xLabel = axisTitle(plotArea, XY_PLOTS.has(plots[0] ?? ''), date1904);
  return assemble(plots, series, title, xLabel);
}

function readChartEx(space: XmlNode): ChartContent {
  const data = new Map<string, XmlNode>();
  for (const d of children(child(space, 'cx:chartData'), 'cx:data')) data.set(d.attributes['id'] ?? '', d);
  const chart = child(space, 'cx:chart');
  const series: Series[] = [];
  const plots: string[] = [];
  for (const ser of children(child(child(chart, 'cx:plotArea'), 'cx:plotAreaRegion'), 'cx:series')) {
    const layout = ser.attributes['layoutId'] ?? '';
    // A Pareto chart's line is derived from its columns: no data of its own.
    if (layout === 'paretoLine') continue;
    const plot = CHARTEX_LAYOUTS[layout] ?? (layout || 'chart');
    if (!plots.includes(plot)) plots.push(plot);
    const d = data.get(child(ser, 'cx:dataId')?.attributes['val'] ?? '');
    const entry: Series = { name: chartExText(child(ser, 'cx:tx')), plot, x: [], y: new Map() };
    for (const dim of d?.children ?? []) {
      const levels = children(dim, 'cx:lvl').map((lvl) => levelPoints(lvl, false, dim.name === 'cx:numDim'));
      switch (dim.attributes['type']) {
        case 'cat':
          entry.x = levels;
          break;
        case 'x':
          entry.x = levels.slice(0, 1);
          break;
        case 'size':
          entry.size = levels[0] ?? new Map();
          break;
        case 'val':
        case 'y':
          entry.y = levels[0] ?? new Map();
          break;
        default:
          break;
      }
    }
    series.push(entry);
  }
  const title = chartExText(child(child(chart, 'cx:title'), 'cx:tx'));
  return assemble(plots, series, title, '');
}

function assemble(plots: readonly string[], series: readonly Series[], title: string, xLabel: string): ChartContent {
  const type = chartType(plots);
  const names = series.map((s, i) => s.name || `Series ${i + 1}`);
  const described = names.length > 0 ? `${names.join(', ')}${xLabel ? ` by ${xLabel}` : ''}` : '';
  const caption = title ? `${type}: ${title}` : described ? `${type}: ${described}` : type;
  const out: ChartContent = { type, caption };
  if (title) out.title = title;
  const table = seriesTable(series, names, xLabel, plots.length > 1);
  if (table) out.table = { ...table, caption };
  return out;
}

/** `Line chart`; a combo chart names its plot types: `Column and line chart`. */
function chartType(plots: readonly string[]): string {
  if (plots.length === 0) return 'Chart';
  const list = plots.length === 1 ? plots[0]! : `${plots.slice(0, -1).join(', ')} and ${plots[plots.length - 1]}`;
  return `${list.charAt(0).toUpperCase()}${list.slice(1)} chart`;
}

function seriesTable(series: readonly Series[], names: readonly string[], xLabel: string, combo: boolean): Omit<TableData, 'caption'> | undefined {
  if (series.length === 0) return undefined;
  const label = (s: Series, i: number): string => (combo ? `${names[i]} (${s.plot})` : names[i]!);
  const withX = series.filter((s) => s.x.some((level) => level.size > 0));
  const shared = withX.length === 0 || withX.every((s) => sameLevels(s.x, withX[0]!.x));
  const indices = rowIndices(series);
  if (indices.length === 0) return undefined;
  const rows: TableCell[][] = [];
  if (shared) {
    const levels = withX[0]?.x.filter((level) => level.size > 0) ?? [];
    const levelCount = Math.max(1, levels.length);
    const header: TableCell[] = [];
    for (let l = 0; l < levelCount; l++) header.push({ text: l === levelCount - 1 ? xLabel : '' });
    series.forEach((s, i) => {
      header.push({ text: label(s, i) });
      if (s.size) header.push({ text: `${label(s, i)} (size)` });
    });
    rows.push(header);
    // Outer levels name a group at its first category; every row repeats its group (reads on its own).
    const fill = levels.map((level) => filledDown(level, indices));
    indices.forEach((idx, r) => {
      const row: TableCell[] = [];
      if (levels.length === 0) row.push({ text: String(idx + 1) });
      for (let l = levels.length - 1; l >= 0; l--) row.push({ text: fill[l]![r]! });
      for (const s of series) {
        row.push({ text: s.y.get(idx) ?? '' });
        if (s.size) row.push({ text: s.size.get(idx) ?? '' });
      }
      rows.push(row);
    });
  } else {
    const header: TableCell[] = [];
    series.forEach((s, i) => {
      header.push({ text: `${label(s, i)} (x)` }, { text: label(s, i) });
      if (s.size) header.push({ text: `${label(s, i)} (size)` });
    });
    rows.push(header);
    for (const idx of indices) {
      const row: TableCell[] = [];
      for (const s of series) {
        row.push({ text: s.x[0]?.get(idx) ?? '' }, { text: s.y.get(idx) ?? '' });
        if (s.size) row.push({ text: s.size.get(idx) ?? '' });
      }
      rows.push(row);
    }
  }
  return { rows, headerRows: 1 };
}

/** Point indices present in any series, ascending (gaps in the cache are not rows). */
function rowIndices(series: readonly Series[]): number[] {
  const seen = new Set<number>();
  for (const s of series) {
    for (const idx of s.y.keys()) seen.add(idx);
    for (const idx of s.x[0]?.keys() ?? []) seen.add(idx);
    for (const idx of s.size?.keys() ?? []) seen.add(idx);
  }
  return [...seen].sort((a, b) => a - b);
}

/** Each row's label on one category level: the point at or before its index (outer levels mark group starts). */
function filledDown(level: Points, indices: readonly number[]): string[] {
  const starts = [...level.keys()].sort((a, b) => a - b);
  const out: string[] = [];
  let k = -1;
  for (const idx of indices) {
    while (k + 1 < starts.length && starts[k + 1]! <= idx) k++;
    out.push(k >= 0 ? level.get(starts[k]!)! : '');
  }
  return out;
}

function sameLevels(a: readonly Points[], b: readonly Points[]): boolean {
  const la = a.filter((l) => l.size > 0);
  const lb = b.filter((l) => l.size > 0);
  if (la.length !== lb.length) return false;
  return la.every((level, i) => {
    const other = lb[i]!;
    if (level.size !== other.size) return false;
    for (const [idx, v] of level) if (other.get(idx) !== v) return false;
    return true;
  });
}

/** A data source's category levels: a multi-level cache's levels (innermost first), else its one level. */
function categoryLevels(node: XmlNode | undefined, date1904: boolean): Points[] {
  if (!node) return [];
  const multi = find(node, 'c:multiLvlStrCache') ?? find(node, 'c:multiLvlStrLit');
  if (multi) return children(multi, 'c:lvl').map((lvl) => levelPoints(lvl, date1904, false));
  return [points(node, date1904)];
}

/** The points of a c:strRef/c:numRef/c:strLit/c:numLit source, by index, numbers formatted. */
function points(node: XmlNode | undefined, date1904: boolean): Points {
  const cache = node ? (find(node, 'c:numCache') ?? find(node, 'c:strCache') ?? find(node, 'c:numLit') ?? find(node, 'c:strLit')) : undefined;
  return cache ? levelPoints(cache, date1904, cache.name === 'c:numCache' || cache.name === 'c:numLit') : new Map();
}

/** `c:pt`/`cx:pt` children by `idx`; numeric ones go through their format code. */
function levelPoints(node: XmlNode, date1904: boolean, numeric: boolean): Points {
  const out: Points = new Map();
  const code = deepText(child(node, 'c:formatCode') ?? EMPTY).trim() || node.attributes['formatCode'] || 'General';
  for (const pt of node.children) {
    if (pt.name !== 'c:pt' && pt.name !== 'cx:pt') continue;
    const idx = Number.parseInt(pt.attributes['idx'] ?? '', 10);
    if (!Number.isFinite(idx) || idx < 0 || out.has(idx)) continue;
    const raw = (pt.name === 'c:pt' ? deepText(child(pt, 'c:v') ?? EMPTY) : deepText(pt)).trim();
    out.set(idx, numeric ? displayNumber(raw, pt.attributes['formatCode'] ?? code, date1904) : raw);
  }
  return out;
}

const EMPTY: XmlNode = { name: '#empty', attributes: {}, children: [], text: '' };

function displayNumber(raw: string, code: string, date1904: boolean): string {
  const n = Number(raw);
  if (raw === '' || !Number.isFinite(n)) return raw;
  try {
    return code === 'General' ? formatGeneral(n) : formatNumber(n, code, date1904);
  } catch {
    return formatGeneral(n);
  }
}

/** A series name: its cached or literal text (`c:tx` > `c:strRef` cache, or `c:v`). */
function seriesName(tx: XmlNode | undefined, date1904: boolean): string {
  if (!tx) return '';
  const cached = points(tx, date1904).get(0);
  if (cached !== undefined) return cached;
  const literal = child(tx, 'c:v');
  return literal ? deepText(literal).trim() : '';
}

/** A `c:title`'s text: its rich-text paragraphs, or the cached text of the cell it refers to. */
function titleText(title: XmlNode, date1904: boolean): string {
  const tx = child(title, 'c:tx');
  if (!tx) return '';
  const lines: string[] = [];
  for (const p of findAll(tx, 'a:p')) {
    const text = deepText(p).trim();
    if (text) lines.push(text);
  }
  return lines.length > 0 ? lines.join(' ') : (points(tx, date1904).get(0) ?? '');
}

/** The title of the axis the categories run along: the category (or date) axis; for scatter and bubble charts the horizontal value axis. */
function axisTitle(plotArea: XmlNode | undefined, xy: boolean, date1904: boolean): string {
  const axes = (plotArea?.children ?? []).filter((c) => c.name === 'c:catAx' || c.name === 'c:dateAx' || c.name === 'c:valAx');
  const axis = xy
    ? (axes.find((a) => a.name === 'c:valAx' && /^[bt]$/.test(child(a, 'c:axPos')?.attributes['val'] ?? '')) ?? axes.find((a) => a.name === 'c:valAx'))
    : axes.find((a) => a.name !== 'c:valAx');
  const title = axis ? child(axis, 'c:title') : undefined;
  return title ? titleText(title, date1904) : '';
}

/** Text of a `cx:tx` (its `cx:txData` value or rich-text paragraphs). */
function chartExText(tx: XmlNode | undefined): string {
  if (!tx) return '';
  const value = find(tx, 'cx:v');
  if (value) return deepText(value).trim();
  return findAll(tx, 'a:p').map((p) => deepText(p).trim()).filter(Boolean).join(' ');
}

/** The first descendant of that name (depth first), not looking into formulas or extensions. */
function find(node: XmlNode, name: string): XmlNode | undefined {
  for (const c of node.children) {
    if (c.name === name) return c;
    if (c.name === 'c:f' || c.name === 'c:extLst') continue;
    const found = find(c, name);
    if (found) return found;
  }
  return undefined;
}

function findAll(node: XmlNode, name: string, into: XmlNode[] = []): XmlNode[] {
  for (const c of node.children) {
    if (c.name === name) into.push(c);
    else findAll(c, name, into);
  }
  return into;
}

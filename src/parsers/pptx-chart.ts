import type { TableCell, TableData } from '../document/types.js';
import { child, children, deepText, parseXmlTree, type XmlNode } from './xml.js';

/**
 * A DrawingML chart part (`c:chartSpace`) as a table of the values the application cached when it
 * last saved: one row per category, one column per series, the chart title as caption. The cached
 * values are what the chart shows, so a question about its numbers can be answered from the text.
 */

export interface ChartTable {
  title?: string;
  table?: TableData;
}

/** Plot types whose series carry `c:cat`/`c:val` (or `c:xVal`/`c:yVal` for scatter and bubble). */
const PLOT_SUFFIX = 'Chart';

export function readChart(xml: string): ChartTable {
  const space = parseXmlTree(xml);
  const chart = child(space, 'c:chart');
  const out: ChartTable = {};
  const titleNode = child(child(chart, 'c:title'), 'c:tx');
  const title = titleNode ? paragraphsText(titleNode) : '';
  if (title) out.title = title;
  const plotArea = child(chart, 'c:plotArea');
  const series: { name: string; categories: Map<number, string>; values: Map<number, string> }[] = [];
  for (const plot of plotArea?.children ?? []) {
    if (!plot.name.endsWith(PLOT_SUFFIX)) continue;
    for (const ser of children(plot, 'c:ser')) {
      series.push({
        name: cachedPoints(child(ser, 'c:tx')).get(0) ?? '',
        categories: cachedPoints(child(ser, 'c:cat') ?? child(ser, 'c:xVal')),
        values: cachedPoints(child(ser, 'c:val') ?? child(ser, 'c:yVal')),
      });
    }
  }
  if (series.length === 0) return out;
  const categories = series.find((s) => s.categories.size > 0)?.categories ?? new Map<number, string>();
  let count = 0;
  for (const s of series) for (const idx of [...s.values.keys(), ...s.categories.keys()]) count = Math.max(count, idx + 1);
  if (count === 0) return out;
  const header: TableCell[] = [{ text: '' }, ...series.map((s, i) => ({ text: s.name || `Series ${i + 1}` }))];
  const rows: TableCell[][] = [header];
  for (let i = 0; i < count; i++) rows.push([{ text: categories.get(i) ?? String(i + 1) }, ...series.map((s) => ({ text: s.values.get(i) ?? '' }))]);
  out.table = { rows, headerRows: 1, ...(title && { caption: title }) };
  return out;
}

/** Points of a c:strRef/c:numRef/c:strLit/c:numLit/c:multiLvlStrRef cache, by index. */
function cachedPoints(node: XmlNode | undefined): Map<number, string> {
  const points = new Map<number, string>();
  if (!node) return points;
  const visit = (n: XmlNode): void => {
    if (n.name === 'c:pt') {
      const idx = Number.parseInt(n.attributes['idx'] ?? '', 10);
      const value = deepText(child(n, 'c:v') ?? n).trim();
      // Multi-level categories list the innermost level first; the first text for an index wins.
      if (Number.isFinite(idx) && !points.has(idx)) points.set(idx, value);
      return;
    }
    if (n.name === 'c:f' || n.name === 'c:extLst') return;
    for (const c of n.children) visit(c);
  };
  visit(node);
  return points;
}

function paragraphsText(node: XmlNode): string {
  const lines: string[] = [];
  const visit = (n: XmlNode): void => {
    if (n.name === 'a:p') {
      const text = deepText(n).trim();
      if (text) lines.push(text);
      return;
    }
    if (n.name === 'c:f') return;
    for (const c of n.children) visit(c);
  };
  visit(node);
  if (lines.length === 0) {
    // A title taken from a cell reference has only its cached string.
    const cached = cachedPoints(node).get(0);
    if (cached) lines.push(cached);
  }
  return lines.join(' ');
}

import type { ZipArchive } from '../archive/zip.js';
import { chartElements, readChart } from './ooxml-chart.js';
import { readRelationships, type Relationship } from './ooxml-package.js';
import type { AnchoredElements } from './xlsx-tables.js';
import { child, parseXmlTree, type XmlNode } from './xml.js';

/**
 * The charts of a worksheet or chartsheet: the sheet's drawing part (`xl/drawings/drawingN.xml`,
 * related to the sheet) holds anchors (`xdr:twoCellAnchor`, `xdr:oneCellAnchor`, `xdr:absoluteAnchor`);
 * each graphic frame in one (groups included) points through the drawing's relationships at a chart
 * part (`c:chart r:id`, or `cx:chart` for Office 2016 charts). Each chart becomes its caption and
 * table (ooxml-chart.ts), anchored at its top-left cell so the sheet layout places it among the
 * tables by position. An absolute anchor (a chartsheet's) has no cell: it comes after the cells.
 */

const DRAWING_TYPE = /\/relationships\/drawing$/;
const ANCHORS = new Set(['xdr:twoCellAnchor', 'xdr:oneCellAnchor', 'xdr:absoluteAnchor']);

/** Charts of the sheet whose relationships are `sheetRels`, anchored; unreadable charts are reported in `warnings`. */
export function sheetCharts(zip: ZipArchive, sheetRels: Map<string, Relationship>, sheetName: string, warnings: string[]): AnchoredElements[] {
  const out: AnchoredElements[] = [];
  for (const rel of sheetRels.values()) {
    if (rel.external || !DRAWING_TYPE.test(rel.type)) continue;
    const xml = zip.readTextIfPresent(rel.target);
    if (!xml) continue;
    let anchors: XmlNode[];
    try {
      anchors = parseXmlTree(xml).children.filter((c) => ANCHORS.has(c.name));
    } catch (error) {
      warnings.push(`sheet '${sheetName}': drawing '${rel.target}' could not be read (${(error as Error).message}); its charts are skipped`);
      continue;
    }
    const drawingRels = readRelationships(zip, rel.target);
    for (const anchor of anchors) {
      const from = child(anchor, 'xdr:from');
      const row = from ? cellIndex(child(from, 'xdr:row')) : Number.MAX_SAFE_INTEGER;
      const col = from ? cellIndex(child(from, 'xdr:col')) : Number.MAX_SAFE_INTEGER;
      for (const id of chartIds(anchor)) {
        const chartRel = drawingRels.get(id);
        const chartXml = chartRel && !chartRel.external ? zip.readTextIfPresent(chartRel.target) : undefined;
        if (!chartXml) {
          warnings.push(`sheet '${sheetName}': a chart's part is missing from the package; skipped`);
          continue;
        }
        try {
          const elements = chartElements(readChart(chartXml));
          if (elements.length > 0) out.push({ row, col, elements, attach: 'float' });
        } catch (error) {
          warnings.push(`sheet '${sheetName}': chart '${chartRel!.target}' could not be read (${(error as Error).message}); skipped`);
        }
      }
    }
  }
  return out;
}

/** 0-based `xdr:row`/`xdr:col` text -> 1-based index. */
function cellIndex(node: XmlNode | undefined): number {
  const n = Number.parseInt(node?.children.map((c) => c.text).join('') ?? '', 10);
  return Number.isFinite(n) && n >= 0 ? n + 1 : Number.MAX_SAFE_INTEGER;
}

/** Relationship ids of the charts in an anchor, in document order; `mc:Fallback` copies are skipped. */
function chartIds(node: XmlNode, into: string[] = []): string[] {
  for (const c of node.children) {
    if (c.name === 'mc:Fallback') continue;
    if ((c.name === 'c:chart' || c.name === 'cx:chart') && c.attributes['r:id']) into.push(c.attributes['r:id']);
    else chartIds(c, into);
  }
  return into;
}

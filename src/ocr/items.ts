import type { Line } from '../layout/lines.js';
import type { PageItem } from '../layout/page.js';
import type { PageRules } from '../layout/rules.js';
import { ocrBoxToSource } from './elements.js';
import { findOcrTables, placeTables } from './tables.js';
import { median } from './tsv.js';
import type { OcrBlock, OcrBox, OcrPage } from './types.js';

/**
 * OCR blocks and tables as page items in points; `scale` = 72 / dpi of the render. Lines keep the
 * upright frame the OCR read them in (structure follows the text); a rotated scan's element boxes
 * are mapped back onto the page. `rules`: lines found in the rendered page in the OCR's upright
 * frame (`findRasterRules`), for ruled tables; without them only aligned columns make tables.
 */
export function ocrToItems(ocr: OcrPage, pageIndex: number, scale: number, rules?: PageRules): PageItem[] {
  const toPage = (box: OcrBox): OcrBox => {
    const b = ocr.angle === 0 ? box : ocrBoxToSource(box, ocr);
    return { x0: b.x0 * scale, y0: b.y0 * scale, x1: b.x1 * scale, y1: b.y1 * scale };
  };
  const blocks = ocr.blocks.filter((b) => b.lines.some((l) => l.text.trim() !== ''));
  const { tables, used } = findOcrTables(blocks, ocrBodySize(blocks), rules);
  const items: PageItem[] = [];
  let region = 0;
  for (const item of placeTables(blocks, tables, used)) {
    if (item.type === 'table') {
      const { rows, headerRows, bbox } = item.table;
      items.push({ type: 'table', table: { ...toPage(bbox), rows, headerRows, boldHeader: false } });
      continue;
    }
    const ocrBlock = item.block;
    const lines: Line[] = ocrBlock.lines
      .filter((l) => l.text.trim() !== '')
      .map((l) => ({
        text: l.text.trim(),
        x0: l.bbox.x0 * scale,
        y0: l.bbox.y0 * scale,
        x1: l.bbox.x1 * scale,
        y1: l.bbox.y1 * scale,
        // Word height in pixels is roughly cap-to-descender: about the font size.
        size: Math.round(l.size * scale * 2) / 2,
        bold: false,
        italic: false,
        mono: false,
        rtl: false,
        font: -1,
        chars: l.text.length,
        region,
      }));
    if (lines.length === 0) continue;
    region++;
    items.push({ type: 'block', block: { lines, ...toPage(ocrBlock.bbox), page: pageIndex } });
  }
  return items;
}

/** The line height that carries the most words: the page's body text, for table tolerances. */
function ocrBodySize(blocks: readonly OcrBlock[]): number {
  const sizes = blocks.flatMap((b) => b.lines.flatMap((l) => l.words.map(() => Math.round(l.size))));
  return sizes.length === 0 ? 0 : median(sizes);
}

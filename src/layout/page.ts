import { composeAccents } from './accents.js';
import { buildBlocks, wrapSpacing, type Block } from './blocks.js';
import { buildLines, type Line } from './lines.js';
import { readingOrder, type Box } from './order.js';
import { orientChars, ROTATED, UNICODE_ERROR, type PageChars } from './chars.js';
import { turnRules, type PageRules } from './rules.js';
import { attachListMarkers, mergeInterleavedRuns } from './run-repair.js';
import { buildRuns, type Run } from './runs.js';
import { ruledToTable, type PageTable } from './table-cells.js';
import { findRuledTables } from './tables-ruled.js';
import { findUnruledTables } from './tables-unruled.js';

/**
 * One page of positioned text, from whatever source (the PDF text layer; OCR words or a layout
 * model's boxes turned into characters): what `analysePage` reads.
 */
export interface PositionedPage {
  /** 0-based page index. */
  index: number;
  /** Size of the page as displayed (points). */
  width: number;
  height: number;
  chars: PageChars;
  rules: PageRules;
  /** Number of images on the page (a page of images and no text is a scan). */
  images: number;
}

/** One page after layout analysis: blocks and tables in reading order. */
export interface PageLayout {
  index: number;
  /** Size of the frame the page was read in (the displayed page, turned when its text runs sideways). */
  width: number;
  height: number;
  items: PageItem[];
  /** Characters with a text layer (0 for a scan). */
  chars: number;
  /** Characters whose font has no usable Unicode map. */
  unmapped: number;
  images: number;
  /** Quarter turns from the displayed page to the frame the layout was read in (a sideways page: 1 or 3). */
  turns?: number;
  displayWidth?: number;
  displayHeight?: number;
  /** Characters left out because they run across the page's main direction (margin stamps, vertical labels). */
  crosswise?: number;
  /** Margin line numbers were removed from the page. */
  lineNumbers?: boolean;
}

export type PageItem = { type: 'block'; block: Block } | { type: 'table'; table: PageTable };

export function analysePage(content: PositionedPage): PageLayout {
  const { chars } = content;
  const frame = orientChars(chars, content.width, content.height);
  composeAccents(chars);
  const rules = turnRules(content.rules, frame.turns, content.width, content.height);
  const consumed = new Uint8Array(chars.count);
  const tables: PageTable[] = [];
  for (const ruled of findRuledTables(rules, chars)) {
    const table = ruledToTable(ruled, chars);
    if (!table) continue;
    for (const cell of ruled.cells) for (const i of cell.chars) consumed[i] = 1;
    tables.push(table);
  }
  let runs = attachListMarkers(mergeInterleavedRuns(buildRuns(chars, consumed), chars, consumed));
  const numbered = lineNumberRuns(runs);
  if (numbered.size > 0) runs = runs.filter((_, i) => !numbered.has(i));
  const bodySize = medianSize(runs);
  const unruled = findUnruledTables(runs, bodySize);
  if (unruled.tables.length > 0) {
    tables.push(...unruled.tables);
    runs = runs.filter((_, i) => !unruled.used[i]);
  }
  const items: Box[] = [...runs, ...tables];
  const groups = readingOrder(items, { minGutter: Math.max(5, 0.9 * bodySize), minBand: 0.5 });
  const sequence: (Line | PageTable)[] = [];
  groups.forEach((group, region) => {
    const runIds = group.filter((id) => id < runs.length);
    const lines = buildLines(runs, runIds, region);
    const regionTables = group.filter((id) => id >= runs.length).map((id) => tables[id - runs.length]!);
    // Tables sit between the region's lines by their top edge.
    let t = 0;
    regionTables.sort((a, b) => a.y0 - b.y0);
    for (const line of lines) {
      while (t < regionTables.length && regionTables[t]!.y0 <= line.y0) sequence.push(regionTables[t++]!);
      sequence.push(line);
    }
    while (t < regionTables.length) sequence.push(regionTables[t++]!);
  });
  const pageItems: PageItem[] = [];
  let pending: Line[] = [];
  const spacing = wrapSpacing(sequence.filter((entry): entry is Line => !('rows' in entry)));
  const flush = (): void => {
    for (const block of buildBlocks(pending, content.index, frame.height, spacing)) pageItems.push({ type: 'block', block });
    pending = [];
  };
  for (const entry of sequence) {
    if ('rows' in entry) {
      flush();
      pageItems.push({ type: 'table', table: entry });
    } else pending.push(entry);
  }
  flush();
  let unmapped = 0;
  let crosswise = 0;
  for (let i = 0; i < chars.count; i++) {
    if (chars.flags[i]! & UNICODE_ERROR) unmapped++;
    if (chars.flags[i]! & ROTATED && !consumed[i]) crosswise++;
  }
  return {
    index: content.index,
    width: frame.width,
    height: frame.height,
    turns: frame.turns,
    displayWidth: content.width,
    displayHeight: content.height,
    items: pageItems,
    chars: chars.count,
    unmapped,
    images: content.images,
    lineNumbers: numbered.size > 0,
    crosswise,
  };
}

const INTEGER = /^\d{1,4}$/;

/**
 * Line numbers in a margin (transcripts, legal pleadings, code listings): at least 5 integer-only
 * runs at the same left edge, increasing by one from top to bottom.
 */
function lineNumberRuns(runs: readonly Run[]): Set<number> {
  const byEdge = new Map<number, number[]>();
  runs.forEach((run, i) => {
    if (!INTEGER.test(run.text)) return;
    const key = Math.round(run.x1 / 3);
    const list = byEdge.get(key) ?? [];
    list.push(i);
    byEdge.set(key, list);
  });
  const out = new Set<number>();
  for (const ids of byEdge.values()) {
    if (ids.length < 5) continue;
    ids.sort((a, b) => runs[a]!.y0 - runs[b]!.y0);
    let steps = 0;
    for (let k = 1; k < ids.length; k++) if (Number(runs[ids[k]!]!.text) === Number(runs[ids[k - 1]!]!.text) + 1) steps++;
    if (steps >= 0.8 * (ids.length - 1)) for (const id of ids) out.add(id);
  }
  return out;
}

function medianSize(runs: readonly Run[]): number {
  if (runs.length === 0) return 10;
  const sizes = runs.map((r) => r.size).sort((a, b) => a - b);
  return sizes[sizes.length >> 1]!;
}


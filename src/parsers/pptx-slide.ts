import type { TableCell, TableData } from '../document/types.js';
import { SubtreeCapture } from './math/capture.js';
import { ommlParagraph, ommlToLatex } from './math/omml.js';
import { saxParse, type XmlAttributes } from './xml.js';

/**
 * Reads one PresentationML shape tree (a slide, a layout, a master or a notes slide) into shapes
 * with their positions, in one SAX pass: text bodies as paragraphs with their bullet properties,
 * tables with their spans, pictures with their alt text, charts and diagrams as relationship ids,
 * and groups with their child coordinate transform applied, so every position is in slide EMUs.
 * Equations (`a14:m`, OMML) become LaTeX in the paragraph's text: `$...$`, or `$$...$$` for a
 * display equation (`m:oMathPara`), which is also recorded as the paragraph's `formula`.
 */

export interface Paragraph {
  text: string;
  /** a:pPr lvl, 0-based. */
  level: number;
  /** 'inherit' when the paragraph sets no bullet of its own (the placeholder's list style decides). */
  bullet: 'none' | 'char' | 'auto' | 'inherit';
  /** a:buAutoNum startAt. */
  startAt?: number;
  /** a:buAutoNum type, e.g. arabicPeriod: a change of scheme restarts the numbering. */
  scheme?: string;
  /** LaTeX of the last display equation in the paragraph (a paragraph that is just `$$it$$` is a formula). */
  formula?: string;
}

export interface Placeholder {
  type: string;
  idx?: string;
}

export interface Shape {
  kind: 'text' | 'table' | 'picture' | 'chart' | 'diagram' | 'group';
  name: string;
  /** Top-left corner in slide EMUs, when the shape or its layout placeholder says. */
  x?: number;
  y?: number;
  /** Extent in slide EMUs (a:ext cx/cy, scaled by enclosing groups), when given with the position. */
  width?: number;
  height?: number;
  placeholder?: Placeholder;
  paragraphs: Paragraph[];
  table?: TableData;
  /** Picture alt text (cNvPr descr, else title). */
  alt?: string;
  /** Relationship id of a chart part, a diagram's data part or a picture's image (a:blip r:embed). */
  rel?: string;
  children: Shape[];
}

interface Transform {
  offX: number;
  offY: number;
  scaleX: number;
  scaleY: number;
  chOffX: number;
  chOffY: number;
}

const IDENTITY: Transform = { offX: 0, offY: 0, scaleX: 1, scaleY: 1, chOffX: 0, chOffY: 0 };

interface GridCell {
  text: string;
  rowSpan: number;
  colSpan: number;
  /** hMerge/vMerge continuation cell: covered by a span from the left or above. */
  covered: boolean;
}

interface TableState {
  headerRows: number;
  rows: GridCell[][];
  cell?: GridCell;
}

interface GroupFrame {
  shape: Shape;
  /** Transform from this group's child space into slide space. */
  transform: Transform;
  /** The group's own a:xfrm values, while its grpSpPr is being read. */
  xfrm: { off?: [number, number]; ext?: [number, number]; chOff?: [number, number]; chExt?: [number, number] };
}

const SHAPE_KIND: Record<string, Shape['kind'] | undefined> = {
  'p:sp': 'text',
  'p:pic': 'picture',
  'p:graphicFrame': 'text',
};

function int(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : fallback;
}

/** Reads the shape tree of a slide-like part. Malformed XML throws (the caller decides what that costs). */
export function readShapeTree(xml: string): Shape[] {
  const root: Shape = { kind: 'group', name: '', paragraphs: [], children: [] };
  const groups: GroupFrame[] = [{ shape: root, transform: IDENTITY, xfrm: {} }];
  let shape: Shape | undefined;
  let paragraph: Paragraph | undefined;
  let inText = false;
  let table: TableState | undefined;
  let cellParagraphs: string[] = [];
  /** Skipping mc:Fallback (its mc:Choice sibling was read): depth of nested elements to skip. */
  let skipDepth = 0;
  let choiceSeen = false;
  let inSpPr = false;
  /** The equation (a14:m) being read, as a tree for the OMML converter. */
  let math: SubtreeCapture | undefined;

  const finishMath = (): void => {
    const root = math!.root;
    math = undefined;
    if (!paragraph) return;
    for (const c of root.children) {
      if (c.name === 'm:oMathPara') {
        for (const latex of ommlParagraph(c)) {
          paragraph.text += `$$${latex}$$`;
          paragraph.formula = latex;
        }
      } else if (c.name === 'm:oMath') {
        const latex = ommlToLatex(c);
        if (latex) paragraph.text += `$${latex}$`;
      }
    }
  };

  const finishParagraph = (): void => {
    if (!paragraph) return;
    if (table?.cell) cellParagraphs.push(paragraph.text);
    else if (shape) shape.paragraphs.push(paragraph);
    paragraph = undefined;
  };

  saxParse(xml, {
    open(name: string, attrs: XmlAttributes, selfClosing: boolean) {
      if (skipDepth > 0) {
        // saxes reports a close for self-closing tags too, so every open counts.
        skipDepth++;
        return;
      }
      if (math) {
        math.open(name, attrs);
        return;
      }
      switch (name) {
        case 'a14:m':
          if (paragraph) math = new SubtreeCapture(name, attrs);
          return;
        case 'mc:AlternateContent':
          choiceSeen = false;
          return;
        case 'mc:Choice':
          choiceSeen = true;
          return;
        case 'mc:Fallback':
          if (choiceSeen && !selfClosing) skipDepth = 1;
          return;
        case 'p:grpSp': {
          const group: Shape = { kind: 'group', name: '', paragraphs: [], children: [] };
          groups[groups.length - 1]!.shape.children.push(group);
          groups.push({ shape: group, transform: groups[groups.length - 1]!.transform, xfrm: {} });
          return;
        }
        case 'p:sp':
        case 'p:pic':
        case 'p:graphicFrame':
          shape = { kind: SHAPE_KIND[name]!, name: '', paragraphs: [], children: [] };
          groups[groups.length - 1]!.shape.children.push(shape);
          return;
        case 'p:cNvPr': {
          const target = shape ?? groups[groups.length - 1]!.shape;
          target.name = attrs['name'] ?? '';
          const alt = (attrs['descr'] ?? '').trim() || (attrs['title'] ?? '').trim();
          if (alt) target.alt = alt;
          return;
        }
        case 'p:ph':
          if (shape) shape.placeholder = { type: attrs['type'] ?? 'obj', ...(attrs['idx'] !== undefined && { idx: attrs['idx'] }) };
          return;
        case 'p:spPr':
        case 'p:xfrm':
        case 'p:grpSpPr':
          inSpPr = true;
          return;
        case 'a:off':
        case 'a:ext':
        case 'a:chOff':
        case 'a:chExt': {
          const x = int(attrs['x'] ?? attrs['cx'], 0);
          const y = int(attrs['y'] ?? attrs['cy'], 0);
          if (shape) {
            const transform = groups[groups.length - 1]!.transform;
            if (name === 'a:off' && inSpPr && shape.x === undefined) [shape.x, shape.y] = applyTransform(transform, [x, y]);
            // An a:ext without cx is an extension-list entry, not a size.
            else if (name === 'a:ext' && inSpPr && attrs['cx'] !== undefined && shape.width === undefined) [shape.width, shape.height] = [x * transform.scaleX, y * transform.scaleY];
          } else if (inSpPr && groups.length > 1) {
            const frame = groups[groups.length - 1]!;
            const key = name === 'a:off' ? 'off' : name === 'a:ext' ? 'ext' : name === 'a:chOff' ? 'chOff' : 'chExt';
            frame.xfrm[key] ??= [x, y];
          }
          return;
        }
        case 'a:graphicData':
          if (shape && (attrs['uri']?.endsWith('/chart') || attrs['uri']?.endsWith('/chartex'))) shape.kind = 'chart';
          else if (shape && attrs['uri']?.endsWith('/diagram')) shape.kind = 'diagram';
          return;
        case 'c:chart':
        case 'cx:chart':
          if (shape) shape.rel = attrs['r:id'] ?? '';
          return;
        case 'a:blip':
          // Only a picture's own image: a:blip also fills text boxes and bullets.
          if (shape?.kind === 'picture' && attrs['r:embed']) shape.rel ??= attrs['r:embed'];
          return;
        case 'dgm:relIds':
          if (shape) shape.rel = attrs['r:dm'] ?? '';
          return;
        case 'a:tbl':
          if (shape) {
            shape.kind = 'table';
            table = { headerRows: 0, rows: [] };
          }
          return;
        case 'a:tblPr':
          if (table && (attrs['firstRow'] === '1' || attrs['firstRow'] === 'true')) table.headerRows = 1;
          return;
        case 'a:tr':
          table?.rows.push([]);
          return;
        case 'a:tc':
          if (table) {
            const merged = attrs['hMerge'] === '1' || attrs['vMerge'] === '1' || attrs['hMerge'] === 'true' || attrs['vMerge'] === 'true';
            table.cell = { text: '', rowSpan: Math.max(1, int(attrs['rowSpan'], 1)), colSpan: Math.max(1, int(attrs['gridSpan'], 1)), covered: merged };
            cellParagraphs = [];
          }
          return;
        case 'a:p':
          paragraph = { text: '', level: 0, bullet: 'inherit' };
          return;
        case 'a:pPr':
          if (paragraph) paragraph.level = Math.min(8, Math.max(0, int(attrs['lvl'], 0)));
          return;
        case 'a:buNone':
          if (paragraph) paragraph.bullet = 'none';
          return;
        case 'a:buChar':
        case 'a:buBlip':
          if (paragraph) paragraph.bullet = 'char';
          return;
        case 'a:buAutoNum':
          if (paragraph) {
            paragraph.bullet = 'auto';
            paragraph.scheme = attrs['type'] ?? 'arabicPeriod';
            if (attrs['startAt'] !== undefined) paragraph.startAt = int(attrs['startAt'], 1);
          }
          return;
        case 'a:t':
          inText = true;
          return;
        case 'a:br':
          if (paragraph) paragraph.text += '\n';
          return;
        default:
          return;
      }
    },
    close(name: string) {
      if (skipDepth > 0) {
        skipDepth--;
        return;
      }
      if (math) {
        if (math.close()) finishMath();
        return;
      }
      switch (name) {
        case 'a:t':
          inText = false;
          return;
        case 'a:p':
          finishParagraph();
          return;
        case 'a:tc':
          if (table?.cell) {
            table.cell.text = cellParagraphs.join('\n').trim();
            table.rows[table.rows.length - 1]?.push(table.cell);
            table.cell = undefined;
          }
          return;
        case 'a:tbl':
          if (shape && table) shape.table = buildTable(table);
          table = undefined;
          return;
        case 'p:spPr':
        case 'p:xfrm':
          inSpPr = false;
          return;
        case 'p:grpSpPr': {
          inSpPr = false;
          const frame = groups[groups.length - 1]!;
          if (groups.length > 1) frame.transform = groupTransform(frame, groups[groups.length - 2]!.transform);
          return;
        }
        case 'p:sp':
        case 'p:pic':
        case 'p:graphicFrame':
          shape = undefined;
          return;
        case 'p:grpSp':
          if (groups.length > 1) {
            const frame = groups.pop()!;
            const parent = groups[groups.length - 1]!.transform;
            // Its own offset and extent are in the parent's space; without them it covers its children.
            if (frame.xfrm.off) {
              [frame.shape.x, frame.shape.y] = applyTransform(parent, frame.xfrm.off);
              if (frame.xfrm.ext) [frame.shape.width, frame.shape.height] = [frame.xfrm.ext[0] * parent.scaleX, frame.xfrm.ext[1] * parent.scaleY];
            } else coverChildren(frame.shape);
          }
          return;
        default:
          return;
      }
    },
    text(text: string) {
      if (math) math.text(text);
      else if (inText && paragraph && skipDepth === 0) paragraph.text += text;
    },
  });
  return root.children;
}

/** Sets a group's box to the union of its positioned children's boxes. */
export function coverChildren(group: { x?: number; y?: number; width?: number; height?: number; children: readonly { x?: number; y?: number; width?: number; height?: number }[] }): void {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const c of group.children) {
    if (c.y === undefined) continue;
    const x = c.x ?? 0;
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, c.y);
    x1 = Math.max(x1, x + (c.width ?? 0));
    y1 = Math.max(y1, c.y + (c.height ?? 0));
  }
  if (y0 === Infinity) return;
  [group.x, group.y, group.width, group.height] = [x0, y0, x1 - x0, y1 - y0];
}

function applyTransform(t: Transform, [x, y]: [number, number]): [number, number] {
  return [t.offX + (x - t.chOffX) * t.scaleX, t.offY + (y - t.chOffY) * t.scaleY];
}

/** Child space -> slide space: the group's child extents map onto its own extents, composed with the parent's. */
function groupTransform(frame: GroupFrame, parent: Transform): Transform {
  const { off, ext, chOff, chExt } = frame.xfrm;
  if (!off) return parent;
  const [offX, offY] = applyTransform(parent, off);
  const scaleX = ext && chExt && chExt[0] > 0 ? (ext[0] / chExt[0]) * parent.scaleX : parent.scaleX;
  const scaleY = ext && chExt && chExt[1] > 0 ? (ext[1] / chExt[1]) * parent.scaleY : parent.scaleY;
  return { offX, offY, scaleX, scaleY, chOffX: chOff?.[0] ?? off[0], chOffY: chOff?.[1] ?? off[1] };
}

/**
 * DrawingML tables list every grid slot, spanned ones as hMerge/vMerge continuation cells. The
 * output follows the model the HTML parser uses: the top-left slot carries rowSpan/colSpan, slots
 * below it repeat its text (each row reads on its own), slots to its right are empty.
 */
function buildTable(state: TableState): TableData | undefined {
  const width = state.rows.reduce((w, row) => Math.max(w, row.length), 0);
  if (width === 0) return undefined;
  const owner: (GridCell | undefined)[][] = state.rows.map(() => new Array<GridCell | undefined>(width));
  const origin = new Map<GridCell, [number, number]>();
  state.rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      if (cell.covered || owner[r]![c]) return;
      origin.set(cell, [r, c]);
      for (let dr = 0; dr < cell.rowSpan && r + dr < state.rows.length; dr++) {
        for (let dc = 0; dc < cell.colSpan && c + dc < width; dc++) owner[r + dr]![c + dc] ??= cell;
      }
    });
  });
  const rows: TableCell[][] = owner.map((slots, r) =>
    slots.map((cell, c) => {
      if (!cell) return { text: '' };
      const [r0, c0] = origin.get(cell)!;
      if (r0 === r && c0 === c) {
        const rowSpan = Math.min(cell.rowSpan, state.rows.length - r);
        const colSpan = Math.min(cell.colSpan, width - c);
        return { text: cell.text, ...(rowSpan > 1 && { rowSpan }), ...(colSpan > 1 && { colSpan }) };
      }
      return { text: c === c0 ? cell.text : '' };
    }),
  );
  if (rows.every((row) => row.every((cell) => cell.text === ''))) return undefined;
  return { rows, headerRows: Math.min(state.headerRows, rows.length) };
}

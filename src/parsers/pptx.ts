import { ZipArchive } from '../archive/zip.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { readRelationships } from './ooxml-package.js';
import { readOfficeProperties } from './ooxml-properties.js';
import { chartElements as chartTableElements, readChart } from './ooxml-chart.js';
import { ocrEmbeddedImages, type EmbeddedImage } from './embedded-images.js';
import { readCommentAuthors, slideComments } from './pptx-comments.js';
import { readShapeTree, type Paragraph, type Shape } from './pptx-slide.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';
import { tableText } from './xlsx-tables.js';
import { child, children, deepText, parseXmlTree, type XmlNode } from './xml.js';

/**
 * PPTX: PresentationML read directly (ZipArchive + saxes). Choices, documented in
 * docs/formats/slides-sheets.md:
 * - slides in `p:sldIdLst` order (never by file name); each slide is one page, `page` = `slide` = its number;
 * - the title placeholder is the slide's heading: level 1 for a title slide (`ctrTitle`), else level 2;
 * - other shapes in reading order (`readingOrder`): bands top to bottom and, inside a band, columns
 *   left to right where a gutter runs through all its shapes; else rows, shapes whose tops lie
 *   within 3% of the slide height read left to right; a placeholder without its own position takes
 *   its layout's (or master's) position and extent; groups are read as a unit, their children in
 *   reading order inside;
 * - paragraphs with a bullet (`a:buChar`, or inherited in a body/content placeholder) are list
 *   items at their `lvl`; `a:buAutoNum` makes them ordered and numbered; `a:buNone` makes paragraphs;
 * - tables with spans, charts as a caption plus a table of their cached values, diagrams (SmartArt)
 *   as their node texts, pictures with alt text as image elements; with `ocr: 'on'` every picture's
 *   image is OCR'd into `ocrText` (pictures without alt text kept when OCR finds text), while 'auto'
 *   keeps alt text only: OCR costs seconds per picture;
 * - speaker notes as one paragraph `Notes: ...` after the slide's content, then the slide's comments
 *   (legacy and modern, threaded; pptx-comments.ts);
 * - footer, date and slide-number placeholders as page furniture.
 */

const MIME = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';
const SLIDE_HEIGHT_DEFAULT = 6_858_000;
const SLIDE_WIDTH_DEFAULT = 9_144_000;
/** Shapes whose tops differ by less than this share of the slide height are on one visual line. */
const SAME_LINE = 0.03;
/**
 * Narrowest gutter (share of the slide width) or band (of its height) that separates columns or
 * bands of shapes: the stock layouts leave about 1.2% between side-by-side placeholders.
 */
const MIN_GAP = 0.005;
const TITLE_TYPES = new Set(['title', 'ctrTitle']);
const FURNITURE_TYPES = new Set(['sldNum', 'ftr', 'dt', 'hdr', 'sldImg']);
/** Placeholders whose paragraphs are bulleted unless they say otherwise (the master's body style). */
const BULLETED_TYPES = new Set(['body', 'obj']);

interface SlideContext {
  zip: ZipArchive;
  slide: number;
  rels: Map<string, { type: string; target: string; external: boolean }>;
  warnings: string[];
  counters: { imagesWithoutAlt: number };
  /** Collected when pictures will be OCR'd. */
  images?: EmbeddedImage[];
}

export const pptxParser: ParserDefinition = {
  formats: ['pptx'],
  version: '3',
  textual: false,
  parse(input: ParseInput, options: ParseOptions = {}): DocumentDraft | Promise<DocumentDraft> {
    const file = input.name;
    const fileOption = file !== undefined ? { file } : {};
    const zip = ZipArchive.open(input.bytes, fileOption);
    const mainPart = findMainPart(zip);
    if (!mainPart) throw new GroundworkError('CORRUPT', 'is not a PowerPoint presentation: the package has no ppt/presentation.xml', fileOption);
    const presentation = parseXmlTree(zip.readText(mainPart));
    const slideSize = child(presentation, 'p:sldSz')?.attributes;
    const slideHeight = Number(slideSize?.['cy']) || SLIDE_HEIGHT_DEFAULT;
    const slideWidth = Number(slideSize?.['cx']) || SLIDE_WIDTH_DEFAULT;
    const scale: OrderScale = { sameLine: slideHeight * SAME_LINE, minGutter: slideWidth * MIN_GAP, minBand: slideHeight * MIN_GAP };
    const rels = readRelationships(zip, mainPart);
    const slideParts: string[] = [];
    const warnings: string[] = [];
    for (const id of children(child(presentation, 'p:sldIdLst'), 'p:sldId')) {
      const rel = rels.get(id.attributes['r:id'] ?? '');
      if (rel && !rel.external && zip.has(rel.target)) slideParts.push(rel.target);
      else warnings.push(`slide ${slideParts.length + 1} is listed but its part is missing; skipped`);
    }

    const elements: ElementDraft[] = [];
    const commentAuthors = readCommentAuthors(zip, rels);
    const layouts = new LayoutPositions(zip);
    const counters = { imagesWithoutAlt: 0 };
    const images: EmbeddedImage[] | undefined = options.ocr === 'on' ? [] : undefined;
    let firstHeading: string | undefined;
    slideParts.forEach((part, i) => {
      const slide = i + 1;
      const ctx: SlideContext = { zip, slide, rels: readRelationships(zip, part), warnings, counters, ...(images && { images }) };
      let xml: string;
      let shapes: Shape[];
      try {
        xml = zip.readText(part);
        shapes = readShapeTree(xml);
      } catch (error) {
        if (error instanceof GroundworkError && error.code === 'LIMIT_EXCEEDED') throw error;
        warnings.push(`slide ${slide} could not be read (${(error as Error).message}); skipped`);
        return;
      }
      if (HIDDEN_SLIDE.test(xml.slice(0, 2000))) warnings.push(`slide ${slide} is hidden in the presentation; its content is included`);
      const layoutPart = [...ctx.rels.values()].find((r) => r.type === REL + 'slideLayout')?.target;
      layouts.fill(shapes, layoutPart);
      const slideElements = slideContent(shapes, ctx, scale);
      slideElements.push(...notes(ctx), ...slideComments(zip, ctx.rels, commentAuthors, slide, warnings));
      for (const el of slideElements) {
        el.page = slide;
        el.slide = slide;
        if (firstHeading === undefined && el.kind === 'heading') firstHeading = el.text;
      }
      elements.push(...slideElements);
    });
    if (slideParts.length > 0 && elements.length === 0 && warnings.length === slideParts.length) {
      throw new GroundworkError('CORRUPT', `none of the ${slideParts.length} slides could be read`, fileOption);
    }

    const props = readOfficeProperties(zip);
    const title = props.title ?? firstHeading;
    const draft = (kept: ElementDraft[]): DocumentDraft => {
      if (counters.imagesWithoutAlt > 0) warnings.push(`${counters.imagesWithoutAlt} picture(s) without alt text were skipped (no text to keep)`);
      return {
        format: 'pptx',
        mime: MIME,
        ...(title !== undefined && { title }),
        ...(props.language !== undefined && { language: props.language }),
        pageCount: slideParts.length,
        metadata: { ...props.metadata, slides: slideParts.length },
        elements: kept,
        warnings,
      };
    };
    if (!images || images.length === 0) return draft(elements);
    return ocrEmbeddedImages(images, options, warnings).then(() => {
      // Pictures without alt text stay only when OCR found text in them.
      const kept = elements.filter((el) => el.kind !== 'image' || el.alt || el.ocrText);
      counters.imagesWithoutAlt += elements.length - kept.length;
      return draft(kept);
    });
  },
};

const HIDDEN_SLIDE = /<p:sld\b[^>]*\sshow="(?:0|false)"/;

function findMainPart(zip: ZipArchive): string | undefined {
  for (const rel of readRelationships(zip, '').values()) {
    if (rel.type.endsWith('/officeDocument') && !rel.external && zip.has(rel.target)) return rel.target;
  }
  return zip.has('ppt/presentation.xml') ? 'ppt/presentation.xml' : undefined;
}

/**
 * Positions of layout and master placeholders, for slide placeholders that inherit theirs:
 * matched by `idx` first, then by type, as PowerPoint does.
 */
class LayoutPositions {
  private readonly cache = new Map<string, Shape[]>();

  constructor(private readonly zip: ZipArchive) {}

  fill(shapes: readonly Shape[], layoutPart: string | undefined): void {
    const missing = shapes.filter((s) => s.y === undefined && s.placeholder);
    if (missing.length === 0 || !layoutPart) return;
    const layout = this.placeholders(layoutPart);
    const masterPart = [...readRelationships(this.zip, layoutPart).values()].find((r) => r.type === REL + 'slideMaster')?.target;
    const master = masterPart ? this.placeholders(masterPart) : [];
    for (const shape of missing) {
      const found = matchPlaceholder(shape, layout) ?? matchPlaceholder(shape, master);
      if (found) {
        shape.x = found.x!;
        shape.y = found.y!;
        if (found.width !== undefined) [shape.width, shape.height] = [found.width, found.height!];
      }
    }
  }

  private placeholders(part: string): Shape[] {
    let shapes = this.cache.get(part);
    if (!shapes) {
      try {
        shapes = readShapeTree(this.zip.readText(part)).filter((s) => s.placeholder && s.y !== undefined);
      } catch {
        shapes = [];
      }
      this.cache.set(part, shapes);
    }
    return shapes;
  }
}

function matchPlaceholder(shape: Shape, candidates: readonly Shape[]): Shape | undefined {
  const ph = shape.placeholder!;
  if (ph.idx !== undefined) {
    const byIdx = candidates.find((c) => c.placeholder!.idx === ph.idx);
    if (byIdx) return byIdx;
  }
  const type = ph.type === 'ctrTitle' ? 'title' : ph.type;
  return candidates.find((c) => c.placeholder!.type === ph.type) ?? candidates.find((c) => (c.placeholder!.type === 'ctrTitle' ? 'title' : c.placeholder!.type) === type);
}

/** The slide's elements: title(s) first, then every other shape in reading order. */
function slideContent(shapes: readonly Shape[], ctx: SlideContext, scale: OrderScale): ElementDraft[] {
  const out: ElementDraft[] = [];
  const titles = shapes.filter((s) => s.placeholder && TITLE_TYPES.has(s.placeholder.type));
  for (const title of titles) {
    const text = title.paragraphs.map((p) => p.text.trim()).filter(Boolean).join(' ');
    if (text) out.push({ kind: 'heading', level: title.placeholder!.type === 'ctrTitle' ? 1 : 2, text });
  }
  const rest = shapes.filter((s) => !titles.includes(s));
  for (const shape of contentOrder(rest, ctx, scale)) out.push(...shapeElements(shape, ctx, scale));
  return out;
}

/** A shape's place on the slide: top-left corner and extent, in the slide's unit (EMU, mm). */
export interface Placed {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
}

/** The distances, in the slide's unit, that reading order compares positions with. */
export interface OrderScale {
  /** Tops closer than this are on one visual line. */
  sameLine: number;
  /** Narrowest empty vertical strip that separates columns. */
  minGutter: number;
  /** Thinnest empty horizontal strip that separates bands. */
  minBand: number;
}

/**
 * Reading order of a slide's shapes, by cuts on whitespace (XY-cut on whole shapes): a region is
 * cut into bands at horizontal strips no shape crosses (top to bottom), a band into columns at
 * vertical gutters no shape crosses (left to right), and each piece again. A region no cut splits,
 * or whose columns only pair shapes level with each other (a row of shapes, a grid), is read in
 * rows: top to bottom, shapes whose tops lie within `sameLine` of a line's first read left to
 * right. Shapes without any position keep their z-order after the positioned ones.
 *
 * The PDF XY-cut (src/pdf/order.ts) is made for text lines: it never cuts what spans one line's
 * height, which a tall table beside a caption does.
 */
export function readingOrder<T extends Placed>(shapes: readonly T[], scale: OrderScale): T[] {
  const out: T[] = [];
  cutRegion(shapes.filter((s) => s.y !== undefined), scale, out, 0);
  for (const s of shapes) if (s.y === undefined) out.push(s);
  return out;
}

const left = (s: Placed): number => s.x ?? 0;
const right = (s: Placed): number => (s.x ?? 0) + Math.max(0, s.width ?? 0);
const top = (s: Placed): number => s.y!;
const bottom = (s: Placed): number => s.y! + Math.max(0, s.height ?? 0);

/** Cuts nested deeper than this are read in rows (a staircase of shapes peels one per cut). */
const MAX_CUT_DEPTH = 40;

function cutRegion<T extends Placed>(region: T[], scale: OrderScale, out: T[], depth: number): void {
  if (region.length <= 1 || depth > MAX_CUT_DEPTH) {
    out.push(...rows(region, scale.sameLine));
    return;
  }
  const bands = split(region, top, bottom, scale.minBand, scale.sameLine);
  if (bands.length > 1) {
    for (const band of bands) cutRegion(band, scale, out, depth + 1);
    return;
  }
  const columns = split(region, left, right, scale.minGutter);
  if (columns.length > 1 && !levelAcross(columns, scale.sameLine)) {
    for (const column of columns) cutRegion(column, scale, out, depth + 1);
    return;
  }
  out.push(...rows(region, scale.sameLine));
}

/**
 * Splits at every strip at least `minGap` wide that no shape crosses, in order along the axis.
 * A shape starting within `level` of the previous one stays with it (flat shapes on one line).
 */
function split<T extends Placed>(region: readonly T[], start: (s: Placed) => number, end: (s: Placed) => number, minGap: number, level = -1): T[][] {
  const sorted = [...region].sort((a, b) => start(a) - start(b));
  const pieces: T[][] = [];
  let current: T[] = [];
  let reach = -Infinity;
  for (const shape of sorted) {
    if (current.length > 0 && start(shape) - reach >= minGap && start(shape) - start(current[current.length - 1]!) > level) {
      pieces.push(current);
      current = [];
    }
    current.push(shape);
    reach = Math.max(reach, end(shape));
  }
  pieces.push(current);
  return pieces;
}

/** Every shape is level with one in another column: a row (or grid) of shapes, not columns. */
function levelAcross(columns: readonly Placed[][], sameLine: number): boolean {
  const tops = columns.flatMap((column, i) => column.map((shape) => ({ top: top(shape), column: i }))).sort((a, b) => a.top - b.top);
  const paired = new Uint8Array(tops.length);
  markNearestOther(tops, paired, sameLine, 0, 1);
  markNearestOther(tops, paired, sameLine, tops.length - 1, -1);
  return paired.every((p) => p === 1);
}

/**
 * One pass along sorted tops: marks each entry whose nearest predecessor (in the pass's direction)
 * from another column lies within `sameLine`. The nearest other-column entry is the last entry when
 * its column differs, else the last entry from a column other than the last one's.
 */
function markNearestOther(tops: readonly { top: number; column: number }[], paired: Uint8Array, sameLine: number, from: number, step: 1 | -1): void {
  let last: { top: number; column: number } | undefined;
  let beforeLast: number | undefined;
  for (let k = from; k >= 0 && k < tops.length; k += step) {
    const entry = tops[k]!;
    const other = last === undefined ? undefined : last.column !== entry.column ? last.top : beforeLast;
    if (other !== undefined && Math.abs(entry.top - other) <= sameLine) paired[k] = 1;
    if (last !== undefined && last.column !== entry.column) beforeLast = last.top;
    last = entry;
  }
}

/** Top to bottom; shapes whose tops lie within `sameLine` of a line's first shape read left to right. */
function rows<T extends Placed>(region: readonly T[], sameLine: number): T[] {
  const sorted = [...region].sort((a, b) => top(a) - top(b));
  const out: T[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i + 1;
    while (j < sorted.length && top(sorted[j]!) - top(sorted[i]!) <= sameLine) j++;
    out.push(...sorted.slice(i, j).sort((a, b) => left(a) - left(b)));
    i = j;
  }
  return out;
}

/**
 * Reading order of the shapes that show content; blank ones (empty text boxes, decoration,
 * pictures that will not be kept) follow, so a background rectangle does not hide the columns.
 * They still go through `shapeElements` for its counts.
 */
function contentOrder(shapes: readonly Shape[], ctx: SlideContext, scale: OrderScale): Shape[] {
  const blanks = shapes.filter((s) => blank(s, ctx));
  if (blanks.length === 0) return readingOrder(shapes, scale);
  const skipped = new Set(blanks);
  return [...readingOrder(shapes.filter((s) => !skipped.has(s)), scale), ...blanks];
}

function blank(shape: Shape, ctx: SlideContext): boolean {
  switch (shape.kind) {
    case 'group':
      return shape.children.every((c) => blank(c, ctx));
    case 'text':
      return shape.paragraphs.every((p) => !p.text.trim());
    case 'picture':
      return !shape.alt && !ctx.images;
    default:
      return false;
  }
}

function shapeElements(shape: Shape, ctx: SlideContext, scale: OrderScale): ElementDraft[] {
  switch (shape.kind) {
    case 'group':
      return contentOrder(shape.children, ctx, scale).flatMap((c) => shapeElements(c, ctx, scale));
    case 'table':
      return shape.table ? [{ kind: 'table', text: tableText(shape.table.rows), table: shape.table }] : [];
    case 'picture':
      return pictureElements(shape, ctx);
    case 'chart':
      return chartElements(shape, ctx);
    case 'diagram':
      return diagramElements(shape, ctx);
    default:
      return textElements(shape);
  }
}

function pictureElements(shape: Shape, ctx: SlideContext): ElementDraft[] {
  const rel = shape.rel ? ctx.rels.get(shape.rel) : undefined;
  const picture = ctx.images && rel && !rel.external ? rel.target : undefined;
  if (!shape.alt && !picture) {
    ctx.counters.imagesWithoutAlt++;
    return [];
  }
  const image: ElementDraft = { kind: 'image', text: '', alt: shape.alt ?? '' };
  if (picture) ctx.images!.push({ element: image, path: picture, read: () => (ctx.zip.has(picture) ? ctx.zip.read(picture) : undefined) });
  return [image];
}

function textElements(shape: Shape): ElementDraft[] {
  const type = shape.placeholder?.type;
  if (type && FURNITURE_TYPES.has(type)) {
    const text = shape.paragraphs.map((p) => p.text.trim()).filter(Boolean).join(' ');
    return text ? [{ kind: 'page-furniture', text }] : [];
  }
  return paragraphElements(shape.paragraphs, type !== undefined && BULLETED_TYPES.has(type));
}

/**
 * Paragraphs to paragraphs and list items. Auto-numbering counts per level: a shallower item
 * restarts the deeper levels, a paragraph without a bullet or a change of scheme restarts the level.
 */
export function paragraphElements(paragraphs: readonly Paragraph[], bulletedByDefault: boolean): ElementDraft[] {
  const out: ElementDraft[] = [];
  const counters: { scheme: string; next: number }[] = [];
  for (const p of paragraphs) {
    const text = p.text.trim();
    if (!text) continue;
    if (p.formula !== undefined && text === `$$${p.formula}$$`) {
      out.push({ kind: 'formula', text: p.formula });
      continue;
    }
    const bullet = p.bullet === 'inherit' ? (bulletedByDefault ? 'char' : 'none') : p.bullet;
    if (bullet === 'none') {
      counters.length = 0;
      out.push({ kind: 'paragraph', text });
      continue;
    }
    counters.length = Math.min(counters.length, p.level + 1);
    if (bullet === 'char') {
      counters[p.level] = { scheme: '', next: 1 };
      out.push({ kind: 'list-item', text, depth: p.level, ordered: false });
      continue;
    }
    const scheme = p.scheme ?? 'arabicPeriod';
    let counter = counters[p.level];
    if (!counter || counter.scheme !== scheme) counter = counters[p.level] = { scheme, next: p.startAt ?? 1 };
    out.push({ kind: 'list-item', text, depth: p.level, ordered: true, number: counter.next++ });
  }
  return out;
}

function chartElements(shape: Shape, ctx: SlideContext): ElementDraft[] {
  const part = shape.rel ? ctx.rels.get(shape.rel) : undefined;
  const xml = part && !part.external ? ctx.zip.readTextIfPresent(part.target) : undefined;
  if (!xml) return shape.alt ? [{ kind: 'image', text: '', alt: shape.alt }] : [];
  try {
    return chartTableElements(readChart(xml));
  } catch (error) {
    ctx.warnings.push(`slide ${ctx.slide}: chart '${part!.target}' could not be read (${(error as Error).message})`);
    return [];
  }
}

/** SmartArt: the text of each data-model node (not the connections between them), as list items. */
function diagramElements(shape: Shape, ctx: SlideContext): ElementDraft[] {
  const part = shape.rel ? ctx.rels.get(shape.rel) : undefined;
  const xml = part && !part.external ? ctx.zip.readTextIfPresent(part.target) : undefined;
  if (!xml) return [];
  try {
    const out: ElementDraft[] = [];
    const points = child(parseXmlTree(xml), 'dgm:ptLst');
    for (const pt of children(points, 'dgm:pt')) {
      const type = pt.attributes['type'] ?? 'node';
      if (type !== 'node') continue;
      for (const p of findAll(child(pt, 'dgm:t'), 'a:p')) {
        const text = deepText(p).trim();
        if (text) out.push({ kind: 'list-item', text, depth: 0, ordered: false });
      }
    }
    return out;
  } catch (error) {
    ctx.warnings.push(`slide ${ctx.slide}: diagram '${part!.target}' could not be read (${(error as Error).message})`);
    return [];
  }
}

function findAll(node: XmlNode | undefined, name: string, into: XmlNode[] = []): XmlNode[] {
  if (!node) return into;
  for (const c of node.children) {
    if (c.name === name) into.push(c);
    else findAll(c, name, into);
  }
  return into;
}

/** The slide's speaker notes: the notes slide's body placeholder, as one `Notes:` paragraph. */
function notes(ctx: SlideContext): ElementDraft[] {
  const part = [...ctx.rels.values()].find((r) => r.type === REL + 'notesSlide' && !r.external)?.target;
  const xml = part ? ctx.zip.readTextIfPresent(part) : undefined;
  if (!xml) return [];
  let shapes: Shape[];
  try {
    shapes = readShapeTree(xml);
  } catch (error) {
    ctx.warnings.push(`slide ${ctx.slide}: speaker notes could not be read (${(error as Error).message})`);
    return [];
  }
  const lines: string[] = [];
  const collect = (list: readonly Shape[]): void => {
    for (const s of list) {
      if (s.kind === 'group') collect(s.children);
      else if (s.placeholder?.type === 'body') for (const p of s.paragraphs) if (p.text.trim()) lines.push(p.text.trim());
    }
  };
  collect(shapes);
  return lines.length > 0 ? [{ kind: 'paragraph', text: `Notes: ${lines.join('\n')}` }] : [];
}

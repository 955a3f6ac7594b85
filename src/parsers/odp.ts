import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { dropUnreadPictures, ocrEmbeddedImages, shownImages, type EmbeddedImage } from './embedded-images.js';
import { OdfTableReader } from './odf-table.js';
import { odfFormula } from './math/odf.js';
import { openOdfPackage, readListStyles } from './odf-package.js';
import { odfPicture } from './odf-pictures.js';
import { ANNOTATION_ELEMENTS, annotationElement, OdfAnnotationReader, type OdfAnnotation } from './odf-review.js';
import { paragraphElements, readingOrder, type OrderScale } from './pptx.js';
import { coverChildren, type Paragraph } from './pptx-slide.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';
import { sheetElements } from './xlsx-tables.js';
import { saxParse, type XmlAttributes } from './xml.js';

/**
 * ODP: the same structure as PPTX (see pptx.ts): one page per `draw:page`, `page` = `slide` = its
 * number; the `presentation:class="title"` frame is the heading (level 1 on a title slide, one
 * with a subtitle; else level 2); other shapes in reading order by their boxes (`svg:x`, `svg:y`,
 * `svg:width`, `svg:height`; pptx.ts `readingOrder`: columns where a gutter runs through a band,
 * else rows); `text:list` nesting gives list depth and the list style says numbered or bulleted;
 * tables, images with `svg:title`/`svg:desc` alt text; speaker notes (`presentation:notes`) as one
 * `Notes:` paragraph after the slide, then the slide's annotations (`officeooo:annotation`,
 * `office:annotation`) as comments; footer, date and page-number frames as page furniture.
 * Pictures without alt text are counted in a warning; with `ocr: 'on'` every picture (`draw:image
 * xlink:href`, not an embedded object's replacement image) is OCR'd into `ocrText`, pictures without
 * alt text kept when OCR finds text, while 'auto' keeps alt text only (OCR costs seconds per
 * picture), as for PPTX. A formula object (MathML, math/odf.ts) is a `formula` element with its LaTeX.
 */

const MIME = 'application/vnd.oasis.opendocument.presentation';
/**
 * Reading order distances in mm: tops closer than 6 mm (3% of a 19 cm slide) are on one visual
 * line; gutters and bands of about 0.5% of a 25.4 x 19 cm slide separate columns and bands (as PPTX).
 */
const ORDER_SCALE_MM: OrderScale = { sameLine: 6, minGutter: 1.25, minBand: 1 };
const FURNITURE_CLASSES = new Set(['page-number', 'footer', 'date-time', 'header']);
/** Shapes whose pictures never reach the slide's elements: only their text is read, or nothing. */
const UNSHOWN_PICTURE_CLASSES = new Set([...FURNITURE_CLASSES, 'title', 'notes', 'ignored-in-notes']);
const SHAPES = new Set([
  'draw:frame', 'draw:custom-shape', 'draw:rect', 'draw:ellipse', 'draw:circle', 'draw:caption', 'draw:polygon',
  'draw:regular-polygon', 'draw:polyline', 'draw:path', 'draw:line', 'draw:connector', 'draw:measure',
]);

interface OdpShape {
  kind: 'text' | 'group';
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  cls?: string;
  paragraphs: Paragraph[];
  /** Tables and images, in the order met, after the shape's paragraphs. */
  extra: ElementDraft[];
  alt?: string;
  /** `draw:image` hrefs (alternative formats of one picture, best first). */
  pictures?: string[];
  /** The frame shows an embedded object (chart, formula): its draw:image is a rendering, not a picture. */
  object?: boolean;
  children: OdpShape[];
}

interface ListFrame {
  style?: string;
}

export const odpParser: ParserDefinition = {
  formats: ['odp'],
  version: '4',
  textual: false,
  parse(input: ParseInput, options: ParseOptions = {}): DocumentDraft | Promise<DocumentDraft> {
    const pkg = openOdfPackage(input.bytes, input.name, 'presentation');
    const numbered = readListStyles(automaticStyles(pkg.content), pkg.zip.readTextIfPresent('styles.xml'));
    const pictureHrefs = options.ocr === 'on' ? new Map<ElementDraft, string[]>() : undefined;
    const counters = { imagesWithoutAlt: 0 };
    const slides = readSlides(pkg.content, numbered, counters, pictureHrefs, (href) => odfFormula(pkg.zip, href));
    const elements: ElementDraft[] = [];
    const annotationNames = new Set<string>();
    let firstHeading: string | undefined;
    slides.forEach((slide, i) => {
      for (const el of slideElements(slide, annotationNames)) {
        el.page = i + 1;
        el.slide = i + 1;
        if (firstHeading === undefined && el.kind === 'heading') firstHeading = el.text;
        elements.push(el);
      }
    });
    const title = pkg.title ?? firstHeading;
    const warnings: string[] = [];
    const draft = (kept: ElementDraft[]): DocumentDraft => {
      if (counters.imagesWithoutAlt > 0) warnings.push(`${counters.imagesWithoutAlt} picture(s) without alt text were skipped (no text to keep)`);
      return {
        format: 'odp',
        mime: MIME,
        ...(title !== undefined && { title }),
        ...(pkg.language !== undefined && { language: pkg.language }),
        pageCount: slides.length,
        metadata: { ...pkg.metadata, slides: slides.length },
        elements: kept,
        warnings,
      };
    };
    if (!pictureHrefs || pictureHrefs.size === 0) return draft(elements);
    const pictures: EmbeddedImage[] = [];
    for (const [element, hrefs] of pictureHrefs) {
      const picture = odfPicture(pkg.zip, element, hrefs);
      if (picture) pictures.push(picture);
    }
    return ocrEmbeddedImages(shownImages(pictures, elements), options, warnings).then(() => {
      // Pictures without alt text stay only when OCR found text in them.
      const { kept, dropped } = dropUnreadPictures(elements);
      counters.imagesWithoutAlt += dropped;
      return draft(kept);
    });
  },
};

/** Only content.xml's automatic styles are parsed as a tree, not its body. */
function automaticStyles(content: string): string | undefined {
  const start = content.indexOf('<office:automatic-styles');
  const endTag = '</office:automatic-styles>';
  const end = content.indexOf(endTag, start);
  if (start < 0 || end < 0) return undefined;
  // The fragment needs the root's namespace declarations only for namespace-aware parsers; ours matches qualified names.
  return content.slice(start, end + endTag.length);
}

interface Slide {
  shapes: OdpShape[];
  notes: string[];
  comments: OdfAnnotation[];
}

/**
 * @param pictureHrefs Set when pictures will be OCR'd: each image element -> its picture's hrefs.
 *   Pictures without alt text then become image elements too, until OCR says whether they hold text.
 */
function readSlides(
  content: string,
  numbered: Map<string, Set<number>>,
  counters: { imagesWithoutAlt: number },
  pictureHrefs?: Map<ElementDraft, string[]>,
  formula?: (href: string | undefined) => string | undefined,
): Slide[] {
  const slides: Slide[] = [];
  let slide: Slide | undefined;
  let inNotes = 0;
  const shapes: OdpShape[] = [];
  const lists: ListFrame[] = [];
  let paragraph: Paragraph | undefined;
  let paragraphDepth = 0;
  let altTarget: 'title' | 'desc' | undefined;
  let altText = '';
  let table: OdfTableReader | undefined;
  let annotation: OdfAnnotationReader | undefined;
  let itemStart: number | undefined;

  const container = (): OdpShape[] | undefined => (shapes.length > 0 ? shapes[shapes.length - 1]!.children : slide?.shapes);

  saxParse(content, {
    open(name: string, attrs: XmlAttributes, selfClosing: boolean) {
      if (table) {
        table.open(name, attrs, selfClosing);
        return;
      }
      if (annotation) {
        annotation.open(name, attrs);
        return;
      }
      if (name === 'draw:page') {
        slide = { shapes: [], notes: [], comments: [] };
        return;
      }
      if (!slide) return;
      if (ANNOTATION_ELEMENTS.has(name) && inNotes === 0) {
        annotation = new OdfAnnotationReader(attrs);
        return;
      }
      if (name === 'presentation:notes') {
        inNotes++;
        return;
      }
      if (SHAPES.has(name) || name === 'draw:g') {
        const shape: OdpShape = { kind: name === 'draw:g' ? 'group' : 'text', paragraphs: [], extra: [], children: [] };
        const x = length(attrs['svg:x']);
        const y = length(attrs['svg:y']);
        const width = length(attrs['svg:width']);
        const height = length(attrs['svg:height']);
        if (x !== undefined) shape.x = x;
        if (y !== undefined) shape.y = y;
        if (width !== undefined) shape.width = width;
        if (height !== undefined) shape.height = height;
        const cls = attrs['presentation:class'];
        if (cls) shape.cls = cls;
        if (inNotes === 0) container()?.push(shape);
        else if (cls !== 'notes') shape.cls = 'ignored-in-notes';
        else shape.cls = 'notes';
        // A self-closing shape is closed by its closing tag, which saxes reports too.
        shapes.push(shape);
        return;
      }
      switch (name) {
        case 'table:table':
          if (shapes.length > 0 && !selfClosing) table = new OdfTableReader(attrs['table:name'] ?? '');
          return;
        case 'svg:title':
        case 'svg:desc':
          altTarget = name === 'svg:title' ? 'title' : 'desc';
          altText = '';
          return;
        case 'draw:image': {
          const shape = shapes[shapes.length - 1];
          if (shape) (shape.pictures ??= []).push(attrs['xlink:href'] ?? '');
          return;
        }
        case 'draw:object':
        case 'draw:object-ole': {
          const shape = shapes[shapes.length - 1];
          if (shape) {
            shape.object = true;
            const latex = name === 'draw:object' ? formula?.(attrs['xlink:href']) : undefined;
            if (latex) shape.extra.push({ kind: 'formula', text: latex });
          }
          return;
        }
        case 'text:list':
          lists.push(attrs['text:style-name'] ? { style: attrs['text:style-name'] } : {});
          return;
        case 'text:list-item':
          itemStart = attrs['text:start-value'] !== undefined ? Number(attrs['text:start-value']) : undefined;
          return;
        case 'text:p':
        case 'text:h':
          if (paragraph) {
            paragraphDepth++;
            return;
          }
          paragraph = { text: '', level: Math.max(0, lists.length - 1), bullet: lists.length > 0 ? bulletOf(lists, numbered) : 'none' };
          if (paragraph.bullet === 'auto' && itemStart !== undefined && Number.isFinite(itemStart)) paragraph.startAt = itemStart;
          itemStart = undefined;
          paragraphDepth = 0;
          if (selfClosing) closeParagraph();
          return;
        case 'text:s':
          if (paragraph) paragraph.text += ' '.repeat(Math.min(1000, Math.max(1, Number(attrs['text:c'] ?? 1) || 1)));
          return;
        case 'text:tab':
          if (paragraph) paragraph.text += '\t';
          return;
        case 'text:line-break':
          if (paragraph) paragraph.text += '\n';
          return;
        default:
          return;
      }
    },
    close(name: string) {
      if (annotation) {
        if (annotation.close(name)) {
          slide?.comments.push(annotation.annotation());
          annotation = undefined;
        }
        return;
      }
      if (table) {
        if (name === 'table:table' && table.atTop()) {
          const shape = shapes[shapes.length - 1];
          if (shape) shape.extra.push(...sheetElements(table.finish()).elements);
          table = undefined;
        } else table.close(name);
        return;
      }
      if (name === 'draw:page') {
        if (slide) slides.push(slide);
        slide = undefined;
        return;
      }
      if (name === 'presentation:notes') {
        inNotes--;
        return;
      }
      if (SHAPES.has(name) || name === 'draw:g') {
        closeShape();
        return;
      }
      switch (name) {
        case 'svg:title':
        case 'svg:desc': {
          const shape = shapes[shapes.length - 1];
          const text = altText.trim();
          // The description is the fuller text; a title only fills in when there is none.
          if (shape && text && (altTarget === 'desc' || !shape.alt)) shape.alt = text;
          altTarget = undefined;
          return;
        }
        case 'text:list':
          lists.pop();
          return;
        case 'text:p':
        case 'text:h':
          if (paragraphDepth > 0) paragraphDepth--;
          else closeParagraph();
          return;
        default:
          return;
      }
    },
    text(text: string) {
      if (annotation) annotation.text(text);
      else if (table) table.text(text);
      else if (altTarget) altText += text;
      else if (paragraph) paragraph.text += text;
    },
  });
  return slides;

  function closeParagraph(): void {
    const shape = shapes[shapes.length - 1];
    if (paragraph && shape) {
      if (shape.cls === 'notes') {
        if (paragraph.text.trim()) slide?.notes.push(paragraph.text.trim());
      } else shape.paragraphs.push(paragraph);
    }
    paragraph = undefined;
  }

  function closeShape(): void {
    const shape = shapes.pop();
    if (!shape) return;
    if (shape.paragraphs.length === 0 && shape.extra.length === 0) pictureElement(shape);
    // A group (draw:g) has no geometry of its own: it covers its children.
    if (shape.kind === 'group' && shape.y === undefined) coverChildren(shape);
  }

  /** A shape without text: an image element when it has alt text, or a picture OCR may read. */
  function pictureElement(shape: OdpShape): void {
    const picture = shape.pictures !== undefined && !shape.object;
    const shown = shape.cls === undefined || !UNSHOWN_PICTURE_CLASSES.has(shape.cls);
    const hrefs = picture && pictureHrefs && shown ? shape.pictures!.filter(Boolean) : [];
    if (!shape.alt && hrefs.length === 0) {
      if (picture && shown) counters.imagesWithoutAlt++;
      return;
    }
    const image: ElementDraft = { kind: 'image', text: '', alt: shape.alt ?? '' };
    if (hrefs.length > 0) pictureHrefs!.set(image, hrefs);
    shape.extra.push(image);
  }
}

/** Bulleted or numbered from the innermost list that names a style (nested lists inherit it). */
function bulletOf(lists: readonly ListFrame[], numbered: Map<string, Set<number>>): Paragraph['bullet'] {
  for (let i = lists.length - 1; i >= 0; i--) {
    const style = lists[i]!.style;
    if (style !== undefined) return numbered.get(style)?.has(lists.length) ? 'auto' : 'char';
  }
  return 'char';
}

function slideElements(slide: Slide, annotationNames: Set<string>): ElementDraft[] {
  const out: ElementDraft[] = [];
  const titles = slide.shapes.filter((s) => s.cls === 'title');
  const titleSlide = slide.shapes.some((s) => s.cls === 'subtitle');
  for (const title of titles) {
    const text = title.paragraphs.map((p) => p.text.trim()).filter(Boolean).join(' ');
    if (text) out.push({ kind: 'heading', level: titleSlide ? 1 : 2, text });
  }
  const emit = (shape: OdpShape): void => {
    if (shape.kind === 'group') {
      for (const child of contentOrder(shape.children)) emit(child);
      return;
    }
    if (shape.cls && FURNITURE_CLASSES.has(shape.cls)) {
      const text = shape.paragraphs.map((p) => p.text.trim()).filter(Boolean).join(' ');
      if (text) out.push({ kind: 'page-furniture', text });
      return;
    }
    out.push(...paragraphElements(shape.paragraphs, false), ...shape.extra);
  };
  for (const shape of contentOrder(slide.shapes.filter((s) => s.cls !== 'title'))) emit(shape);
  if (slide.notes.length > 0) out.push({ kind: 'paragraph', text: `Notes: ${slide.notes.join('\n')}` });
  for (const a of slide.comments) {
    const el = annotationElement(a, annotationNames);
    if (el) out.push(el);
  }
  return out;
}

/** Reading order of the shapes that show something; blank ones (decoration, unread pictures) cannot block a gutter. */
function contentOrder(shapes: readonly OdpShape[]): OdpShape[] {
  return readingOrder(shapes.filter((s) => !blank(s)), ORDER_SCALE_MM);
}

function blank(shape: OdpShape): boolean {
  if (shape.kind === 'group') return shape.children.every(blank);
  return shape.extra.length === 0 && shape.paragraphs.every((p) => !p.text.trim());
}

const UNIT_MM: Record<string, number> = { mm: 1, cm: 10, in: 25.4, pt: 25.4 / 72, pc: 25.4 / 6, px: 25.4 / 96 };
const LENGTH = /^(-?\d*\.?\d+)\s*(mm|cm|in|pt|pc|px)?$/;

/** An ODF length ("2.5cm", "72pt") in millimetres. */
function length(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const m = LENGTH.exec(value.trim());
  if (!m) return undefined;
  return Number(m[1]) * (UNIT_MM[m[2] ?? 'mm'] ?? 1);
}

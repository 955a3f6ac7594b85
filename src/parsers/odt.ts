import { ZipArchive } from '../archive/zip.js';
import type { DocumentDraft, ElementDraft, TableCell, TableData } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { joinTexts } from './docx-body.js';
import { formatNumber } from './docx-numbering.js';
import { isMonospaceFont } from './docx-styles.js';
import { dropUnreadPictures, ocrEmbeddedImages, shownImages, type EmbeddedImage } from './embedded-images.js';
import { odfFormula } from './math/odf.js';
import { odfPicture } from './odf-pictures.js';
import { ANNOTATION_ELEMENTS, annotationElement, OdfAnnotationReader, OdfTrackedChangesReader, type TrackedChange } from './odf-review.js';
import type { RevisionsMode } from './review-options.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';
import { children, deepText, parseXmlTree, saxParse, type XmlAttributes, type XmlNode } from './xml.js';

/**
 * ODT (OpenDocument text): `content.xml` streamed with saxes, styles from `styles.xml` and the
 * automatic styles, metadata from `meta.xml`, page headers/footers from the master pages (as page
 * furniture). Same output shape as DOCX: `text:h` outline levels are headings (a paragraph styled
 * Title is level 1, Subtitle level 2), `text:list` nesting gives list depth and the list style says
 * numbered or bulleted, tables keep their spans, frames give image alt text (svg:title/svg:desc),
 * notes become `footnote` elements and annotations `comment` elements (odf-review.ts) after the
 * paragraph citing them; tracked changes give the final text, or both sides marked with
 * `revisions: 'show'`. With `ocr: 'on'`
 * the frames' pictures (`draw:image xlink:href`, not an embedded object's replacement image) are
 * OCR'd into the image elements' `ocrText`, pictures without alt text kept when OCR finds text;
 * 'auto' keeps alt text only (OCR costs seconds per picture), as for DOCX. Formula objects (MathML
 * in `Object N/content.xml`, math/odf.ts) become LaTeX: a paragraph holding only the formula is a
 * `formula` element, else the formula is `$...$` in the paragraph's text.
 */

const MIME = 'application/vnd.oasis.opendocument.text';

interface OdtStyle {
  parent?: string;
  name: string;
  displayName: string;
  outlineLevel?: number;
  monospace?: boolean;
}

interface ListLevelStyle {
  ordered: boolean;
  format: string;
  start: number;
}

interface Paragraph {
  parts: string[];
  heading?: number;
  style?: string;
  after: ElementDraft[];
  /** LaTeX of the last formula object in the paragraph (a paragraph that is just `$it$` is a display formula). */
  formula?: string;
}

interface Cell {
  elements: ElementDraft[];
  colSpan: number;
  rowSpan: number;
  covered: boolean;
  repeat: number;
}

interface ListFrame {
  style?: string;
  /** Counters per level of this list (top-level lists share them when continuing). */
  counters: number[];
}

const SKIPPED = new Set(['office:binary-data', 'text:tracked-changes', 'text:deletion', 'office:forms', 'text:sequence-decls', 'text:variable-decls', 'table:table-columns', 'table:table-column', 'text:index-title-template', 'text:table-of-content-source', 'dc:creator', 'dc:date', 'meta:creator-initials']);
/** Repeated empty rows/columns fill LibreOffice tables to the page edge; cap what a repeat may expand to. */
const MAX_REPEAT = 64;

export const odtParser: ParserDefinition = {
  formats: ['odt'],
  version: '4',
  textual: false,
  parse(input: ParseInput, options: ParseOptions = {}): DocumentDraft | Promise<DocumentDraft> {
    const file = input.name;
    const zip = ZipArchive.open(input.bytes, file !== undefined ? { file } : {});
    if (!zip.has('content.xml')) {
      throw new GroundworkError('CORRUPT', 'is not an OpenDocument file: the package has no content.xml', file !== undefined ? { file } : {});
    }
    const stylesXml = zip.readTextIfPresent('styles.xml');
    const stylesRoot = stylesXml ? parseXmlTree(stylesXml) : undefined;
    const styles = new Map<string, OdtStyle>();
    const listStyles = new Map<string, ListLevelStyle[]>();
    if (stylesRoot) collectStyles(stylesRoot, styles, listStyles);
    const pictureHrefs = options.ocr === 'on' ? new Map<ElementDraft, string[]>() : undefined;
    const walker = new OdtWalker(styles, listStyles, options.revisions ?? 'final', pictureHrefs);
    walker.formula = (href) => odfFormula(zip, href);
    walker.walk(zip.readText('content.xml'));
    const furniture = stylesRoot ? masterPageFurniture(stylesRoot) : { headers: [], footers: [] };
    const { metadata, title, language, pageCount } = readMeta(zip);
    if (walker.hyperlinks.length > 0) metadata.hyperlinks = walker.hyperlinks;
    const docTitle = title ?? walker.elements.find((el) => el.kind === 'heading')?.text;
    const warnings: string[] = [];
    const draft = (body: ElementDraft[]): DocumentDraft => {
      if (walker.imagesWithoutAlt > 0) warnings.push(`${walker.imagesWithoutAlt} image(s) without alt text were skipped`);
      return {
        format: 'odt',
        mime: MIME,
        ...(docTitle && { title: docTitle }),
        ...(language && { language }),
        ...(pageCount && { pageCount }),
        metadata,
        elements: [...furniture.headers, ...body, ...furniture.footers],
        warnings,
      };
    };
    if (!pictureHrefs || pictureHrefs.size === 0) return draft(walker.elements);
    const pictures: EmbeddedImage[] = [];
    for (const [element, hrefs] of pictureHrefs) {
      const picture = odfPicture(zip, element, hrefs);
      if (picture) pictures.push(picture);
    }
    return ocrEmbeddedImages(shownImages(pictures, walker.elements), options, warnings).then(() => {
      // Pictures without alt text stay only when OCR found text in them.
      for (const element of pictureHrefs.keys()) if (!element.alt && !element.ocrText) walker.imagesWithoutAlt++;
      return draft(dropUnreadPictures(walker.elements).kept);
    });
  },
};

/** Named and automatic paragraph styles and list styles (content.xml's automatic styles are added by the walker). */
function collectStyles(root: XmlNode, styles: Map<string, OdtStyle>, listStyles: Map<string, ListLevelStyle[]>): void {
  const fonts = new Map<string, string>();
  const visit = (node: XmlNode): void => {
    for (const c of node.children) {
      if (c.name === 'style:font-face' && c.attributes['style:name']) fonts.set(c.attributes['style:name'], c.attributes['svg:font-family'] ?? c.attributes['style:name']);
      if (c.name === 'style:style') addStyle(c, styles, fonts);
      else if (c.name === 'text:list-style') addListStyle(c, listStyles);
      else if (c.name === 'office:styles' || c.name === 'office:automatic-styles' || c.name === 'office:font-face-decls') visit(c);
    }
  };
  visit(root);
}

function addStyle(node: XmlNode, styles: Map<string, OdtStyle>, fonts: Map<string, string>): void {
  const name = node.attributes['style:name'];
  if (!name) return;
  const style: OdtStyle = { name, displayName: node.attributes['style:display-name'] ?? name.replace(/_20_/g, ' ') };
  const parent = node.attributes['style:parent-style-name'];
  if (parent) style.parent = parent;
  const outline = Number.parseInt(node.attributes['style:default-outline-level'] ?? '', 10);
  if (Number.isFinite(outline) && outline > 0) style.outlineLevel = outline;
  for (const c of node.children) {
    if (c.name !== 'style:text-properties') continue;
    const font = c.attributes['style:font-name'] ?? c.attributes['fo:font-family'];
    if (font) style.monospace = isMonospaceFont(fonts.get(font) ?? font);
  }
  styles.set(name, style);
}

function addListStyle(node: XmlNode, listStyles: Map<string, ListLevelStyle[]>): void {
  const name = node.attributes['style:name'];
  if (!name) return;
  const levels: ListLevelStyle[] = [];
  for (const c of node.children) {
    const level = Number.parseInt(c.attributes['text:level'] ?? '', 10) - 1;
    if (!Number.isFinite(level) || level < 0 || level > 9) continue;
    const format = c.attributes['style:num-format'] ?? '';
    const start = Number.parseInt(c.attributes['text:start-value'] ?? '1', 10);
    levels[level] = { ordered: c.name === 'text:list-level-style-number' && format !== '', format, start: Number.isFinite(start) ? start : 1 };
  }
  listStyles.set(name, levels);
}

const ODF_FORMATS: Record<string, string> = { '1': 'decimal', a: 'lowerLetter', A: 'upperLetter', i: 'lowerRoman', I: 'upperRoman' };

class OdtWalker {
  readonly elements: ElementDraft[] = [];
  readonly hyperlinks: { text: string; url: string }[] = [];
  imagesWithoutAlt = 0;
  private readonly sinks: ElementDraft[][] = [this.elements];
  private readonly paragraphs: Paragraph[] = [];
  private readonly lists: ListFrame[] = [];
  private readonly tables: { rows: Cell[][]; headerRows: number; inHeader: boolean }[] = [];
  private readonly deferred: ElementDraft[] = [];
  private readonly autoFonts = new Map<string, string>();
  private skipDepth = 0;
  private inCitation = false;
  private citation = '';
  private readonly notes: { elements: ElementDraft[] }[] = [];
  /** The annotation being read, and the names of those read (replies name their parent). */
  private annotation: OdfAnnotationReader | undefined;
  private readonly annotationNames = new Set<string>();
  /** Annotation ranges open at this point: name -> the text covered so far and the comment to anchor. */
  private readonly ranges = new Map<string, { text: string; element: ElementDraft | undefined }>();
  /** Tracked changes, read when revisions are shown: the reader while inside them, then the regions by id. */
  private changesReader: OdfTrackedChangesReader | undefined;
  private changes = new Map<string, TrackedChange>();
  /** Insertions open at this point (change ids), and the `{+` mark in the current paragraph's parts. */
  private readonly insertions = new Set<string>();
  private insertionMark: { parts: string[]; at: number } | undefined;
  /** `hrefs`: the frame's pictures (alternative formats, best first); `object`: it shows an embedded object. */
  private frame: { alt: string; title: string; desc: string; image: boolean; hrefs: string[]; object: boolean; formula?: string } | undefined;
  /** Reads an embedded object's formula as LaTeX (undefined when the object is not a formula). */
  formula: ((href: string | undefined) => string | undefined) | undefined;
  /** Inside a frame's svg:title or svg:desc, whose text is the image's alt text. */
  private altField: 'title' | 'desc' | undefined;
  private link: { url: string; start: number } | undefined;
  /** Counters of the last top-level list, for lists that continue it. */
  private lastListCounters: number[] | undefined;
  private elementsSinceList = 0;
  private styleNode: XmlNode | undefined;
  private styleStack: XmlNode[] = [];

  /**
   * @param pictureHrefs Set when pictures will be OCR'd: each image element -> its frame's picture
   *   hrefs. Frames without alt text then become image elements too, until OCR says whether they hold text.
   */
  constructor(
    private readonly styles: Map<string, OdtStyle>,
    private readonly listStyles: Map<string, ListLevelStyle[]>,
    private readonly revisions: RevisionsMode,
    private readonly pictureHrefs?: Map<ElementDraft, string[]>,
  ) {}

  walk(xml: string): void {
    saxParse(xml, { open: (n, a) => this.open(n, a), close: (n) => this.close(n), text: (t) => this.text(t) });
  }

  private get sink(): ElementDraft[] {
    return this.sinks[this.sinks.length - 1]!;
  }

  private get paragraph(): Paragraph | undefined {
    return this.paragraphs[this.paragraphs.length - 1];
  }

  private append(text: string): void {
    const p = this.paragraph;
    if (!p) return;
    p.parts.push(text);
    if (this.ranges.size > 0) this.extendRanges(text);
  }

  private extendRanges(text: string): void {
    for (const range of this.ranges.values()) if (range.text.length < MAX_RANGE_TEXT) range.text += text;
  }

  private open(name: string, a: XmlAttributes): void {
    if (this.skipDepth > 0) {
      this.skipDepth++;
      return;
    }
    if (this.annotation) {
      this.annotation.open(name, a);
      return;
    }
    if (this.changesReader) {
      this.changesReader.open(name, a);
      return;
    }
    if (name === 'text:tracked-changes' && this.revisions === 'show') {
      this.changesReader = new OdfTrackedChangesReader();
      return;
    }
    if (SKIPPED.has(name)) {
      this.skipDepth++;
      return;
    }
    if (ANNOTATION_ELEMENTS.has(name)) {
      this.annotation = new OdfAnnotationReader(a);
      return;
    }
    // Automatic styles (and font faces) in content.xml are collected as a small tree, then registered.
    if (this.styleNode || name === 'style:style' || name === 'text:list-style' || name === 'style:font-face') {
      const node: XmlNode = { name, attributes: a, children: [], text: '' };
      if (this.styleNode) this.styleStack[this.styleStack.length - 1]!.children.push(node);
      else this.styleNode = node;
      this.styleStack.push(node);
      return;
    }
    switch (name) {
      case 'text:h':
      case 'text:p': {
        const p: Paragraph = { parts: [], after: [] };
        if (a['text:style-name']) p.style = a['text:style-name'];
        if (name === 'text:h') p.heading = Math.min(6, Math.max(1, Number.parseInt(a['text:outline-level'] ?? '1', 10) || 1));
        this.paragraphs.push(p);
        // An insertion running on from the paragraph before.
        if (this.insertions.size > 0 && !this.insertionMark) this.openInsertionMark(p);
        return;
      }
      case 'office:annotation-end': {
        const range = this.ranges.get(a['office:name'] ?? '');
        if (!range) return;
        this.ranges.delete(a['office:name']!);
        const anchor = range.text.replace(/\s+/g, ' ').trim().slice(0, MAX_ANCHOR);
        if (anchor && range.element?.comment && !range.element.comment.reply) range.element.comment.anchor = anchor;
        return;
      }
      case 'text:change-start':
      case 'text:change-end':
      case 'text:change':
        this.trackedChange(name, a['text:change-id'] ?? '');
        return;
      case 'text:s':
        this.append(' '.repeat(Math.min(100, Math.max(1, Number.parseInt(a['text:c'] ?? '1', 10) || 1))));
        return;
      case 'text:tab':
        this.append('\t');
        return;
      case 'text:line-break':
        this.append('\n');
        return;
      case 'text:a':
        // In-document anchors (#_Toc...) are navigation, not links worth keeping.
        if (a['xlink:href'] && !a['xlink:href'].startsWith('#')) this.link = { url: a['xlink:href'], start: this.paragraph?.parts.join('').length ?? 0 };
        return;
      case 'text:note-citation':
        this.inCitation = true;
        this.citation = '';
        return;
      case 'text:note-body':
        this.notes.push({ elements: [] });
        this.sinks.push(this.notes[this.notes.length - 1]!.elements);
        return;
      case 'draw:frame':
        this.frame = { alt: (a['svg:title'] ?? '').trim(), title: '', desc: '', image: false, hrefs: [], object: false };
        return;
      case 'svg:title':
      case 'svg:desc':
        if (this.frame && this.paragraphs.length > 0) this.altField = name === 'svg:title' ? 'title' : 'desc';
        else this.skipDepth++;
        return;
      case 'draw:image':
        if (this.frame) {
          this.frame.image = true;
          if (this.pictureHrefs && a['xlink:href']) this.frame.hrefs.push(a['xlink:href']);
        }
        return;
      case 'draw:object':
      case 'draw:object-ole':
        // Its draw:image is the object's replacement rendering (a chart, a formula), not a picture.
        if (this.frame) {
          this.frame.object = true;
          const latex = name === 'draw:object' ? this.formula?.(a['xlink:href']) : undefined;
          if (latex) this.frame.formula = latex;
        }
        return;
      case 'draw:text-box':
        this.sinks.push([]);
        return;
      case 'text:list': {
        const parent = this.lists[this.lists.length - 1];
        const style = a['text:style-name'] ?? parent?.style;
        let counters: number[];
        if (parent) counters = parent.counters;
        else if (this.lastListCounters && (this.elementsSinceList === 0 || a['text:continue-numbering'] === 'true' || a['text:continue-list'])) counters = this.lastListCounters;
        else counters = [];
        this.lists.push({ ...(style && { style }), counters });
        return;
      }
      case 'table:table':
        this.tables.push({ rows: [], headerRows: 0, inHeader: false });
        return;
      case 'table:table-header-rows': {
        const t = this.tables[this.tables.length - 1];
        if (t) t.inHeader = true;
        return;
      }
      case 'table:table-row': {
        const t = this.tables[this.tables.length - 1];
        if (t) {
          t.rows.push([]);
          if (t.inHeader) t.headerRows++;
        }
        return;
      }
      case 'table:table-cell':
      case 'table:covered-table-cell': {
        const cell: Cell = {
          elements: [],
          colSpan: clampInt(a['table:number-columns-spanned'], 1, MAX_REPEAT),
          rowSpan: clampInt(a['table:number-rows-spanned'], 1, 10_000),
          covered: name === 'table:covered-table-cell',
          repeat: clampInt(a['table:number-columns-repeated'], 1, MAX_REPEAT),
        };
        const rows = this.tables[this.tables.length - 1]?.rows;
        rows?.[rows.length - 1]?.push(cell);
        this.sinks.push(cell.elements);
        return;
      }
    }
  }

  private close(name: string): void {
    if (this.skipDepth > 0) {
      this.skipDepth--;
      return;
    }
    if (this.annotation) {
      if (this.annotation.close(name)) this.finishAnnotation();
      return;
    }
    if (this.changesReader) {
      if (this.changesReader.close(name)) {
        this.changes = this.changesReader.changes;
        this.changesReader = undefined;
      }
      return;
    }
    if (this.styleNode) {
      const node = this.styleStack.pop();
      if (this.styleStack.length === 0 && node) {
        if (node.name === 'style:font-face' && node.attributes['style:name']) this.autoFonts.set(node.attributes['style:name'], node.attributes['svg:font-family'] ?? node.attributes['style:name']);
        else if (node.name === 'style:style') addStyle(node, this.styles, this.autoFonts);
        else if (node.name === 'text:list-style') addListStyle(node, this.listStyles);
        this.styleNode = undefined;
      }
      return;
    }
    switch (name) {
      case 'text:h':
      case 'text:p': {
        const p = this.paragraphs.pop();
        if (p) this.finishParagraph(p);
        return;
      }
      case 'text:a': {
        const p = this.paragraph;
        if (this.link && p && this.hyperlinks.length < 1000) this.hyperlinks.push({ text: p.parts.join('').slice(this.link.start).trim(), url: this.link.url });
        this.link = undefined;
        return;
      }
      case 'text:note-citation':
        this.inCitation = false;
        return;
      case 'svg:title':
      case 'svg:desc':
        this.altField = undefined;
        return;
      case 'text:note-body': {
        const note = this.notes.pop();
        this.sinks.pop();
        const text = note ? joinTexts(note.elements, ' ') : '';
        const p = this.paragraph;
        if (!text || !p) return;
        const label = this.citation.trim() || '*';
        this.append(`[${label}]`);
        p.after.push({ kind: 'footnote', text: `[${label}] ${text}` });
        return;
      }
      case 'draw:text-box': {
        const content = this.sinks.pop() ?? [];
        const host = this.paragraph;
        if (host) host.after.push(...content);
        else this.sink.push(...content);
        return;
      }
      case 'draw:frame': {
        const frame = this.frame;
        this.frame = undefined;
        if (frame?.formula) {
          this.addFormula(frame.formula);
          return;
        }
        if (!frame?.image) return;
        frame.alt = frame.alt || frame.title.trim() || frame.desc.trim();
        const picture = this.pictureHrefs !== undefined && !frame.object && frame.hrefs.length > 0;
        if (!frame.alt && !picture) {
          this.imagesWithoutAlt++;
          return;
        }
        const image: ElementDraft = { kind: 'image', text: '', alt: frame.alt };
        if (picture) this.pictureHrefs!.set(image, frame.hrefs);
        const p = this.paragraph;
        if (p) p.after.push(image);
        else this.sink.push(image);
        return;
      }
      case 'text:list': {
        const list = this.lists.pop();
        if (list && this.lists.length === 0) {
          this.lastListCounters = list.counters;
          this.elementsSinceList = 0;
        }
        return;
      }
      case 'table:table-header-rows': {
        const t = this.tables[this.tables.length - 1];
        if (t) t.inHeader = false;
        return;
      }
      case 'table:table-cell':
      case 'table:covered-table-cell':
        this.sinks.pop();
        return;
      case 'table:table': {
        const table = this.tables.pop();
        const data = table ? buildOdfTable(table.rows, table.headerRows) : undefined;
        if (data) this.sink.push({ kind: 'table', text: data.rows.map((r) => r.map((c) => c.text).join('\t')).join('\n'), table: data });
        if (this.tables.length === 0 && this.deferred.length > 0) this.sink.push(...this.deferred.splice(0));
        return;
      }
    }
  }

  private text(text: string): void {
    if (this.skipDepth > 0 || this.styleNode) return;
    if (this.annotation) {
      this.annotation.text(text);
      return;
    }
    if (this.changesReader) {
      this.changesReader.text(text);
      return;
    }
    if (this.inCitation) {
      this.citation += text;
      return;
    }
    if (this.altField && this.frame) {
      this.frame[this.altField] += text;
      return;
    }
    // Whitespace between elements is not content in ODF (spaces are text:s); inside paragraphs it is.
    if (this.paragraph) this.append(text.replace(ODF_WHITESPACE, ' '));
  }

  private resolve(styleName: string | undefined): { level?: number; title: boolean; code: boolean } {
    let level: number | undefined;
    let title = false;
    let code: boolean | undefined;
    let current = styleName ? this.styles.get(styleName) : undefined;
    for (let hops = 0; current && hops < 20; hops++) {
      if (level === undefined && current.outlineLevel !== undefined) level = current.outlineLevel;
      const display = current.displayName.trim();
      if (!title && /^title$/i.test(display)) title = true;
      if (level === undefined && /^subtitle$/i.test(display)) level = 2;
      if (code === undefined && current.monospace !== undefined) code = current.monospace;
      if (code === undefined && /\b(?:preformatted|source text|code)\b/i.test(display)) code = true;
      current = current.parent ? this.styles.get(current.parent) : undefined;
    }
    return { ...(level !== undefined && { level }), title, code: code ?? false };
  }

  /** An annotation becomes a comment after its paragraph; a named one opens a range for its anchor. */
  private finishAnnotation(): void {
    const annotation = this.annotation!.annotation();
    this.annotation = undefined;
    const element = annotationElement(annotation, this.annotationNames);
    // Ranges never closed (a broken file) must not make every later paragraph slower: a few dozen at a time.
    if (annotation.name && this.ranges.size < MAX_OPEN_RANGES) this.ranges.set(annotation.name, { text: '', element });
    if (!element) return;
    const p = this.paragraph;
    if (p) p.after.push(element);
    else this.sink.push(element);
  }

  /** Shown revisions: `{+` ... `+}` around insertions, the deleted text as `{-...-}` where it was. */
  private trackedChange(name: string, id: string): void {
    if (this.revisions !== 'show') return;
    const change = this.changes.get(id);
    if (!change) return;
    if (name === 'text:change') {
      if (change.type !== 'deletion' || !change.text) return;
      const mark = `{-${change.text}-}`;
      if (this.paragraph) this.append(mark);
      else this.sink.push({ kind: 'paragraph', text: mark });
      return;
    }
    if (change.type !== 'insertion') return;
    if (name === 'text:change-start') {
      this.insertions.add(id);
      const p = this.paragraph;
      if (p && !this.insertionMark) this.openInsertionMark(p);
    } else if (this.insertions.delete(id) && this.insertions.size === 0) {
      this.closeInsertionMark();
    }
  }

  private openInsertionMark(p: Paragraph): void {
    p.parts.push('{+');
    this.insertionMark = { parts: p.parts, at: p.parts.length };
  }

  /** Closes the open `{+` mark; one with nothing after it is taken back. */
  private closeInsertionMark(): void {
    const mark = this.insertionMark;
    this.insertionMark = undefined;
    if (!mark) return;
    if (mark.parts.length === mark.at) mark.parts.pop();
    else mark.parts.push('+}');
  }

  private finishParagraph(p: Paragraph): void {
    if (this.insertionMark?.parts === p.parts) this.closeInsertionMark();
    if (this.ranges.size > 0) this.extendRanges(' ');
    const raw = p.parts.join('');
    const text = raw.trim();
    const sink = this.sink;
    if (text) {
      this.elementsSinceList++;
      const list = this.lists[this.lists.length - 1];
      const style = this.resolve(p.style);
      if (p.heading !== undefined) {
        sink.push({ kind: 'heading', level: p.heading, text });
      } else if (list && this.paragraphs.length === 0) {
        this.elementsSinceList = 0;
        sink.push(this.listItem(list, text));
      } else if (p.formula !== undefined && text === `$${p.formula}$`) {
        sink.push({ kind: 'formula', text: p.formula });
      } else if (style.title) {
        sink.push({ kind: 'heading', level: 1, text });
      } else if (style.level !== undefined && !list) {
        sink.push({ kind: 'heading', level: Math.min(6, style.level), text });
      } else if (style.code) {
        const previous = sink[sink.length - 1];
        if (previous?.kind === 'code') previous.text += `\n${raw.trimEnd()}`;
        else sink.push({ kind: 'code', text: raw.trimEnd() });
      } else {
        sink.push({ kind: 'paragraph', text });
      }
    }
    if (p.after.length === 0) return;
    const notes = p.after.filter((el) => el.kind === 'footnote' || el.kind === 'image' || el.kind === 'comment');
    sink.push(...p.after.filter((el) => el.kind !== 'footnote' && el.kind !== 'image' && el.kind !== 'comment'));
    if (this.tables.length > 0) this.deferred.push(...notes);
    else sink.push(...notes);
  }

  /** A formula object: `$LaTeX$` in the paragraph anchoring it (or a formula element when it has none). */
  private addFormula(latex: string): void {
    const p = this.paragraph;
    if (!p) {
      this.sink.push({ kind: 'formula', text: latex });
      return;
    }
    this.append(`$${latex}$`);
    p.formula = latex;
  }

  private listItem(list: ListFrame, text: string): ElementDraft {
    const depth = this.lists.length - 1;
    const levels = list.style ? this.listStyles.get(list.style) : undefined;
    const level = levels?.[Math.min(depth, 9)];
    if (!level?.ordered) return { kind: 'list-item', text, depth, ordered: false };
    const counters = list.counters;
    counters[depth] = (counters[depth] ?? level.start - 1) + 1;
    counters.length = depth + 1;
    const format = ODF_FORMATS[level.format] ?? 'decimal';
    if (format === 'decimal') return { kind: 'list-item', text, depth, ordered: true, number: counters[depth] };
    return { kind: 'list-item', text: `${formatNumber(counters[depth]!, format)}. ${text}`, depth, ordered: false };
  }
}

const ODF_WHITESPACE = /[\t\n\r ]+/g;
/** Characters of annotated text collected per range, and kept as the comment's anchor. */
const MAX_RANGE_TEXT = 400;
const MAX_ANCHOR = 200;
const MAX_OPEN_RANGES = 64;

function clampInt(value: string | undefined, min: number, max: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : min;
}

/**
 * ODF tables: covered cells are the slots a spanning cell hides. Row-spanned slots repeat the text
 * (as in DOCX and HTML), column-spanned ones stay empty; repeated cells are expanded (capped) and
 * trailing empty columns and rows dropped.
 */
function buildOdfTable(rawRows: Cell[][], headerRows: number): TableData | undefined {
  const grid: { text: string; row: number; col: number; rowSpan: number; colSpan: number }[][] = [];
  const spanning: ({ text: string; row: number; col: number; rowSpan: number; colSpan: number } | undefined)[] = [];
  rawRows.forEach((cells, r) => {
    const slots: (typeof grid)[number] = [];
    let col = 0;
    for (const cell of cells) {
      for (let k = 0; k < cell.repeat; k++) {
        if (cell.covered) {
          const above = spanning[col];
          slots[col] = above && above.row + above.rowSpan > r ? above : { text: '', row: r, col, rowSpan: 1, colSpan: 1 };
        } else {
          const g = { text: joinTexts(cell.elements, '\n'), row: r, col, rowSpan: cell.rowSpan, colSpan: cell.colSpan };
          slots[col] = g;
          for (let s = 0; s < cell.colSpan; s++) spanning[col + s] = g;
        }
        col++;
      }
    }
    grid.push(slots);
  });
  let width = 0;
  for (const slots of grid) slots.forEach((s, c) => { if (s.text) width = Math.max(width, c + 1); });
  let height = 0;
  grid.forEach((slots, r) => { if (slots.some((s) => s.text)) height = r + 1; });
  if (width === 0 || height === 0) return undefined;
  const rows: TableCell[][] = grid.slice(0, height).map((slots, r) => {
    const out: TableCell[] = [];
    for (let c = 0; c < width; c++) {
      const s = slots[c];
      if (!s) out.push({ text: '' });
      else if (s.row === r && s.col === c) out.push({ text: s.text, ...(s.rowSpan > 1 && { rowSpan: s.rowSpan }), ...(s.colSpan > 1 && { colSpan: s.colSpan }) });
      else out.push({ text: s.row < r && s.col === c ? s.text : '' });
    }
    return out;
  });
  return { rows, headerRows: headerRows > 0 ? Math.min(headerRows, rows.length) : rows.length > 1 ? 1 : 0 };
}

/** Header and footer text of the master pages (styles.xml), each distinct text once. */
function masterPageFurniture(root: XmlNode): { headers: ElementDraft[]; footers: ElementDraft[] } {
  const headers: ElementDraft[] = [];
  const footers: ElementDraft[] = [];
  const seen = new Set<string>();
  const master = children(root, 'office:master-styles')[0];
  for (const page of children(master, 'style:master-page')) {
    for (const part of page.children) {
      const into = part.name.startsWith('style:header') ? headers : part.name.startsWith('style:footer') ? footers : undefined;
      if (!into) continue;
      const text = deepText(part).replace(ODF_WHITESPACE, ' ').trim();
      if (text && !seen.has(text)) {
        seen.add(text);
        into.push({ kind: 'page-furniture', text });
      }
    }
  }
  return { headers, footers };
}

const META_FIELDS: Record<string, string> = {
  'dc:title': 'title',
  'dc:creator': 'lastModifiedBy',
  'meta:initial-creator': 'author',
  'dc:subject': 'subject',
  'dc:description': 'description',
  'meta:keyword': 'keywords',
  'meta:creation-date': 'created',
  'dc:date': 'modified',
  'dc:language': 'language',
  'meta:generator': 'application',
};

function readMeta(zip: ZipArchive): { metadata: Record<string, unknown>; title?: string; language?: string; pageCount?: number } {
  const metadata: Record<string, unknown> = {};
  const xml = zip.readTextIfPresent('meta.xml');
  let pageCount: number | undefined;
  if (xml) {
    try {
      const meta = children(parseXmlTree(xml), 'office:meta')[0];
      for (const node of meta?.children ?? []) {
        const key = META_FIELDS[node.name];
        const value = deepText(node).trim();
        if (key && value) metadata[key] = key === 'keywords' && metadata.keywords ? `${String(metadata.keywords)}, ${value}` : value;
        if (node.name === 'meta:document-statistic') {
          const pages = Number.parseInt(node.attributes['meta:page-count'] ?? '', 10);
          if (Number.isFinite(pages) && pages > 0) pageCount = metadata.pages = pages;
        }
      }
    } catch {
      // A malformed meta.xml loses metadata, never the document.
    }
  }
  if (metadata.author === undefined && metadata.lastModifiedBy !== undefined) metadata.author = metadata.lastModifiedBy;
  return {
    metadata,
    ...(typeof metadata.title === 'string' && { title: metadata.title }),
    ...(typeof metadata.language === 'string' && { language: metadata.language }),
    ...(pageCount !== undefined && { pageCount }),
  };
}

import type { ElementDraft } from '../document/types.js';
import type { XmlAttributes } from './xml.js';

/**
 * The review layer of OpenDocument files, read from SAX events by the ODT, ODS and ODP parsers.
 *
 * Annotations (`office:annotation`; ODP also `officeooo:annotation`): the author (`dc:creator`), time
 * (`dc:date`) and paragraphs of one comment. A reply is an annotation whose `loext:parent-name`
 * names an earlier annotation's `office:name` (LibreOffice's threading); `loext:resolved="true"`
 * marks a resolved thread. A named annotation starts a range that `office:annotation-end` with the
 * same name closes: the commented text.
 *
 * Tracked changes (`text:tracked-changes`, ODT): each `text:changed-region` is an insertion, a
 * deletion (holding the deleted paragraphs) or a format change. The body has the final text, with
 * `text:change-start`/`text:change-end` around inserted text and `text:change` where text was
 * deleted, so the final text needs nothing; shown revisions mark `{+inserted+}` and put the deleted
 * text back as `{-deleted-}` at its `text:change`.
 */

export interface OdfAnnotation {
  /** `office:name`, for ranges and replies. */
  name?: string;
  /** `loext:parent-name`: the annotation this one answers. */
  parentName?: string;
  author?: string;
  time?: string;
  resolved: boolean;
  text: string;
}

export const ANNOTATION_ELEMENTS: ReadonlySet<string> = new Set(['office:annotation', 'officeooo:annotation']);
const WHITESPACE = /[\t\n\r ]+/g;

/** Reads one annotation's content; feed it the events inside the annotation element. */
export class OdfAnnotationReader {
  private depth = 0;
  private field: 'author' | 'time' | undefined;
  private author = '';
  private time = '';
  private paragraph: string | undefined;
  /** Open text:p/text:h elements (a paragraph inside a paragraph's frame joins the outer one). */
  private paragraphDepth = 0;
  private readonly paragraphs: string[] = [];
  private readonly result: Omit<OdfAnnotation, 'text'>;

  /** @param attrs The annotation element's own attributes. */
  constructor(attrs: XmlAttributes) {
    this.result = {
      ...(attrs['office:name'] && { name: attrs['office:name'] }),
      ...(attrs['loext:parent-name'] && { parentName: attrs['loext:parent-name'] }),
      resolved: attrs['loext:resolved'] === 'true',
    };
  }

  /** Every opening tag inside the annotation (saxes reports a closing tag for self-closing ones too). */
  open(name: string, attrs: XmlAttributes): void {
    this.depth++;
    switch (name) {
      case 'dc:creator':
        this.field = 'author';
        return;
      case 'dc:date':
        this.field = 'time';
        return;
      case 'text:p':
      case 'text:h':
        if (this.paragraphDepth++ === 0) this.paragraph = '';
        return;
      case 'text:s':
        if (this.paragraph !== undefined) this.paragraph += ' '.repeat(Math.min(100, Math.max(1, Number.parseInt(attrs['text:c'] ?? '1', 10) || 1)));
        return;
      case 'text:tab':
        if (this.paragraph !== undefined) this.paragraph += '\t';
        return;
      case 'text:line-break':
        if (this.paragraph !== undefined) this.paragraph += '\n';
        return;
      default:
        return;
    }
  }

  /** True when this closes the annotation element itself (the reader is done). */
  close(name: string): boolean {
    if (this.depth === 0) return true;
    this.depth--;
    if (name === 'dc:creator' || name === 'dc:date') this.field = undefined;
    else if ((name === 'text:p' || name === 'text:h') && this.paragraphDepth > 0 && --this.paragraphDepth === 0) this.endParagraph();
    return false;
  }

  text(text: string): void {
    if (this.field === 'author') this.author += text;
    else if (this.field === 'time') this.time += text;
    else if (this.paragraph !== undefined) this.paragraph += text.replace(WHITESPACE, ' ');
  }

  annotation(): OdfAnnotation {
    const author = this.author.trim();
    const time = this.time.trim();
    return { ...this.result, ...(author && { author }), ...(time && { time }), text: this.paragraphs.join('\n').trim() };
  }

  private endParagraph(): void {
    if (this.paragraph === undefined) return;
    const text = this.paragraph.trim();
    if (text) this.paragraphs.push(text);
    this.paragraph = undefined;
  }
}

/**
 * Annotations as comment elements, in order: an annotation answering one met before (in `known`,
 * which this fills) is a reply.
 */
export function annotationElement(a: OdfAnnotation, known: Set<string>, extra: { cell?: string } = {}): ElementDraft | undefined {
  const reply = a.parentName !== undefined && known.has(a.parentName);
  if (a.name) known.add(a.name);
  if (!a.text) return undefined;
  return {
    kind: 'comment',
    text: a.text,
    comment: {
      ...(a.author && { author: a.author }),
      ...(a.time && { time: a.time }),
      ...(extra.cell && { cell: extra.cell }),
      ...(reply && { reply: true }),
      ...(!reply && a.resolved && { resolved: true }),
    },
  };
}

/** 1-based row and column -> `B3`. */
export function cellReference(row: number, col: number): string {
  let letters = '';
  for (let c = col; c > 0; c = Math.floor((c - 1) / 26)) letters = String.fromCharCode(65 + ((c - 1) % 26)) + letters;
  return `${letters}${row}`;
}

export interface TrackedChange {
  type: 'insertion' | 'deletion' | 'format-change';
  /** The deleted text (deletions). */
  text: string;
}

/** Reads `text:tracked-changes`; feed it the events inside that element. */
export class OdfTrackedChangesReader {
  readonly changes = new Map<string, TrackedChange>();
  private depth = 0;
  private region: { id: string; change?: TrackedChange } | undefined;
  private inInfo = 0;
  private paragraph: string | undefined;
  private paragraphs: string[] = [];

  /** Every opening tag inside `text:tracked-changes` (closing tags come for self-closing ones too). */
  open(name: string, attrs: XmlAttributes): void {
    this.depth++;
    if (this.inInfo > 0) {
      this.inInfo++;
      return;
    }
    switch (name) {
      case 'text:changed-region':
        this.region = { id: attrs['text:id'] ?? attrs['xml:id'] ?? '' };
        return;
      case 'text:insertion':
      case 'text:deletion':
      case 'text:format-change':
        if (this.region) this.region.change = { type: name.slice(5) as TrackedChange['type'], text: '' };
        this.paragraphs = [];
        return;
      case 'office:change-info':
        this.inInfo = 1;
        return;
      case 'text:p':
      case 'text:h':
        this.paragraph = '';
        return;
      case 'text:s':
        if (this.paragraph !== undefined) this.paragraph += ' '.repeat(Math.min(100, Math.max(1, Number.parseInt(attrs['text:c'] ?? '1', 10) || 1)));
        return;
      case 'text:tab':
        if (this.paragraph !== undefined) this.paragraph += '\t';
        return;
      default:
        return;
    }
  }

  /** True when this closes the `text:tracked-changes` element itself. */
  close(name: string): boolean {
    if (this.depth === 0) return true;
    this.depth--;
    if (this.inInfo > 0) {
      this.inInfo--;
      return false;
    }
    switch (name) {
      case 'text:p':
      case 'text:h':
        this.endParagraph();
        return false;
      case 'text:deletion':
        if (this.region?.change) this.region.change.text = this.paragraphs.join(' ');
        return false;
      case 'text:changed-region':
        if (this.region?.change && this.region.id) this.changes.set(this.region.id, this.region.change);
        this.region = undefined;
        return false;
      default:
        return false;
    }
  }

  text(text: string): void {
    if (this.inInfo === 0 && this.paragraph !== undefined) this.paragraph += text.replace(WHITESPACE, ' ');
  }

  private endParagraph(): void {
    const text = this.paragraph?.trim();
    if (text) this.paragraphs.push(text);
    this.paragraph = undefined;
  }
}

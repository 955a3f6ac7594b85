import { child, children, parseXmlTree, path, type XmlNode } from './xml.js';

/**
 * Paragraph styles of a DOCX (`word/styles.xml`), resolved through their `basedOn` chains into what
 * the body walker needs: heading level, list numbering, monospace (code) and title.
 *
 * A style is a heading when, nearest first along its chain: its paragraph properties carry an
 * outline level 0-8; or its name is "heading N" in English or a localized form ("标题 1",
 * "Überschrift 1", "Titre 1"...; Word stores the English name, but WPS and older converters store the
 * localized one); or its id is `HeadingN` / `N` as localized Word writes ids. "Title" is level 1.
 */

export interface ParagraphStyle {
  id: string;
  name: string;
  headingLevel?: number;
  title: boolean;
  /** Numbering carried by the style (style-based lists and numbered heading styles). */
  numId?: string;
  ilvl?: number;
  /** The style's font is monospace, or its name says code ("Code", "HTML Preformatted", "Source Code"). */
  code: boolean;
}

export interface DocxStyles {
  paragraph: Map<string, ParagraphStyle>;
  /** The style used by paragraphs without `w:pStyle`. */
  defaultParagraph?: string;
  /** Character styles that are monospace, by id (runs with `w:rStyle`). */
  monospaceCharacter: Set<string>;
}

/** "heading 1" and its localized names; the number follows (with or without a space). */
const HEADING_NAME = /^(?:heading|标题|標題|überschrift|titre|título|titolo|kop|nagłówek|заголовок|見出し|제목|rubrik|overskrift|otsikko|nadpis|cím|başlık|επικεφαλίδα|cabeçalho|encabezado|intestazione)\s*([1-9])$/iu;
const HEADING_ID = /^(?:heading)?([1-9])$/i;
const TITLE_NAME = /^(?:title|标题|標題|titel|titre|título|titolo|заголовок документа|表題|제목 없음)$/iu;
/** "Source Code", "Code Block", "HTML Preformatted", "Verbatim"; not "Source Reference" or "Listing Number". */
const CODE_NAME = /\b(?:code|preformatted|verbatim)\b/i;
const MONOSPACE_FONT = /mono|courier|consolas|menlo|monaco|lucida console|lucida sans typewriter|inconsolata|fira code|source code|andale|cascadia|hack\b|ocr-?a|fixedsys|terminal|simsun-extb/i;

export function isMonospaceFont(name: string): boolean {
  return MONOSPACE_FONT.test(name);
}

interface RawStyle {
  id: string;
  name: string;
  basedOn?: string;
  outlineLevel?: number;
  numId?: string;
  ilvl?: number;
  monospace?: boolean;
}

export function parseStyles(xml: string | undefined): DocxStyles {
  const result: DocxStyles = { paragraph: new Map(), monospaceCharacter: new Set() };
  if (!xml) return result;
  const root = parseXmlTree(xml);
  const raw = new Map<string, RawStyle>();
  const characterRaw = new Map<string, RawStyle>();
  for (const style of children(root, 'w:style')) {
    const type = style.attributes['w:type'] ?? 'paragraph';
    const id = style.attributes['w:styleId'];
    if (!id) continue;
    const entry = readRawStyle(style, id);
    if (type === 'paragraph') {
      raw.set(id, entry);
      if (style.attributes['w:default'] === '1' || style.attributes['w:default'] === 'true') result.defaultParagraph = id;
    } else if (type === 'character') {
      characterRaw.set(id, entry);
    }
  }
  for (const id of raw.keys()) result.paragraph.set(id, resolve(id, raw));
  for (const [id] of characterRaw) {
    if (inherit(id, characterRaw, (s) => s.monospace)) result.monospaceCharacter.add(id);
  }
  return result;
}

function readRawStyle(style: XmlNode, id: string): RawStyle {
  const name = child(style, 'w:name')?.attributes['w:val'] ?? id;
  const entry: RawStyle = { id, name };
  const basedOn = child(style, 'w:basedOn')?.attributes['w:val'];
  if (basedOn) entry.basedOn = basedOn;
  const pPr = child(style, 'w:pPr');
  const outline = intAttr(child(pPr, 'w:outlineLvl'));
  if (outline !== undefined) entry.outlineLevel = outline;
  const numPr = child(pPr, 'w:numPr');
  const numId = child(numPr, 'w:numId')?.attributes['w:val'];
  if (numId !== undefined) entry.numId = numId;
  const ilvl = intAttr(child(numPr, 'w:ilvl'));
  if (ilvl !== undefined) entry.ilvl = ilvl;
  const fonts = path(style, 'w:rPr', 'w:rFonts');
  if (fonts) {
    const font = fonts.attributes['w:ascii'] ?? fonts.attributes['w:hAnsi'];
    if (font !== undefined) entry.monospace = isMonospaceFont(font);
  }
  return entry;
}

function intAttr(node: XmlNode | undefined): number | undefined {
  const value = node?.attributes['w:val'];
  if (value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** The nearest defined value along the basedOn chain (cycles and depth are bounded). */
function inherit<T>(id: string, raw: Map<string, RawStyle>, pick: (s: RawStyle) => T | undefined): T | undefined {
  let current = raw.get(id);
  for (let hops = 0; current && hops < 20; hops++) {
    const value = pick(current);
    if (value !== undefined) return value;
    current = current.basedOn ? raw.get(current.basedOn) : undefined;
  }
  return undefined;
}

function ownHeadingLevel(s: RawStyle): number | undefined {
  if (s.outlineLevel !== undefined) return s.outlineLevel <= 8 ? s.outlineLevel + 1 : 0;
  const byName = HEADING_NAME.exec(s.name.trim()) ?? HEADING_ID.exec(s.id);
  if (byName) return Number(byName[1]);
  if (TITLE_NAME.test(s.name.trim()) || s.id === 'Title') return 1;
  return undefined;
}

function resolve(id: string, raw: Map<string, RawStyle>): ParagraphStyle {
  const own = raw.get(id)!;
  const level = inherit(id, raw, ownHeadingLevel);
  const title = inherit(id, raw, (s) => (TITLE_NAME.test(s.name.trim()) || s.id === 'Title' ? true : undefined)) ?? false;
  const numId = inherit(id, raw, (s) => s.numId);
  const ilvl = inherit(id, raw, (s) => s.ilvl);
  const code = inherit(id, raw, (s) => s.monospace ?? (CODE_NAME.test(s.name) ? true : undefined)) ?? false;
  return {
    id,
    name: own.name,
    ...(level !== undefined && level > 0 && { headingLevel: Math.min(6, level) }),
    title,
    ...(numId !== undefined && { numId }),
    ...(ilvl !== undefined && { ilvl }),
    code,
  };
}

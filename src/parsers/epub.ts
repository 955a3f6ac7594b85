import { Buffer } from 'node:buffer';
import { posix } from 'node:path';
import { ZipArchive } from '../archive/zip.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { dropUnreadPictures, ocrEmbeddedImages, type EmbeddedImage } from './embedded-images.js';
import { GroundworkError } from '../errors.js';
import { type XmlElement, childrenNamed, findAll, findFirst, parseXml } from './epub-xml.js';
import { type DomElement, type DomNode, isElement, parseHtmlDocument } from './html-dom.js';
import { walkHtml } from './html-walk.js';
import { withinStack } from './markdown.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

/**
 * EPUB 2 and 3: META-INF/container.xml names the package (OPF); its metadata (dc:title, creator,
 * language, date, identifier...) becomes the document's, and the spine gives the reading order.
 * Each spine chapter (XHTML) goes through the HTML walker whole (no main-content extraction: a
 * chapter has no page chrome), keeping its headings' levels, lists, tables and images' alt text.
 * The table of contents (EPUB 3 nav document, else the NCX) is kept as `metadata.toc`, and the nav
 * document itself is not repeated as content. With `ocr: 'on'` every picture a chapter shows is
 * OCR'd into its image element's `ocrText`: <img> and SVG-wrapped <image> (src/href resolved against
 * the chapter), data: URIs decoded in place; remote (http:, https:) pictures are never fetched. The
 * OPF's cover picture is OCR'd at the start when no chapter shows it, and a picture shown again keeps
 * its text at its first showing only. Pictures without alt text are kept when OCR finds text in
 * them; 'auto' keeps alt text only (OCR costs seconds per picture), as for DOCX. Pictures inside a
 * block quote are left to the quote's text (the walker flattens it).
 */
export const epubParser: ParserDefinition = {
  formats: ['epub'],
  version: '2',
  textual: false,
  parse(input: ParseInput, options: ParseOptions = {}): DocumentDraft | Promise<DocumentDraft> {
    const zip = ZipArchive.open(input.bytes, { ...(input.name !== undefined && { file: input.name }) });
    const packagePath = findPackagePath(zip);
    const pkg = readPackage(zip, packagePath);
    refuseDrm(zip, pkg);
    const warnings: string[] = [];
    const elements: ElementDraft[] = [];
    const pictures: PictureCollector | undefined = options.ocr === 'on' ? { zip, images: [], warnings, inline: new Map() } : undefined;
    let chapters = 0;
    for (const item of pkg.spine) {
      if (item.id === pkg.navId) continue;
      if (!HTML_MEDIA_TYPES.has(item.mediaType)) {
        warnings.push(`spine item '${item.href}' (${item.mediaType}) is not XHTML: skipped`);
        continue;
      }
      if (!zip.has(item.path)) {
        warnings.push(`spine item '${item.href}' is missing from the archive: skipped`);
        continue;
      }
      const html = zip.readText(item.path);
      const chapter = withinStack(() => chapterElements(item.path, html, pictures));
      if (chapter.length > 0) chapters++;
      for (const el of chapter) {
        // A title page followed by a chapter opening with the same heading (pandoc, calibre) says it once.
        const previous = elements[elements.length - 1];
        if (el.kind === 'heading' && previous?.kind === 'heading' && previous.level === el.level && previous.text === el.text) continue;
        elements.push(el);
      }
    }
    const toc = readToc(zip, pkg);
    const metadata: Record<string, unknown> = { ...pkg.metadata, chapters };
    if (toc.length > 0) metadata.toc = toc;
    const draft = (kept: ElementDraft[]): DocumentDraft => ({
      format: 'epub',
      mime: 'application/epub+zip',
      ...(pkg.title && { title: pkg.title }),
      ...(pkg.language && { language: pkg.language }),
      metadata,
      elements: kept,
      warnings,
    });
    if (!pictures) return draft(elements);
    const { images } = pictures;
    if (pkg.coverPath !== undefined && !images.some((image) => image.path === pkg.coverPath)) {
      // A cover no chapter shows is shown first, as a reading system does.
      const cover: ElementDraft = { kind: 'image', text: '', alt: '' };
      elements.unshift(cover);
      images.unshift({ element: cover, ...packagePicture(zip, pkg.coverPath) });
    }
    if (images.length === 0) return draft(elements);
    return ocrEmbeddedImages(images, options, warnings).then(() => {
      keepFirstShowing(images);
      // Pictures without alt text stay only when OCR found text in them.
      const { kept, dropped } = dropUnreadPictures(elements);
      if (dropped > 0) warnings.push(`${dropped} picture(s) without alt text had no OCR text and were skipped`);
      return draft(kept);
    });
  },
};

const WHITESPACE_RUN = /\s+/g;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const DATA_URI = /^data:/i;
const CRLF = /\r\n?/g;

/**
 * Appended to an <img>'s alt text while the chapter is walked: the walker keeps alt text (collapsing
 * its whitespace) but not src, and drops images without alt, so each picture's image element is
 * found by its marker, which is then cut off again.
 */
const PICTURE_MARK = '\uE000picture-';

/** Where a shown picture's bytes come from: `path` names it in warnings and is the OCR cache key. */
interface PictureSource {
  path: string;
  read: () => Uint8Array | undefined;
}

/** The book's picture pass (OCR on): the pictures shown so far, in document order. */
interface PictureCollector {
  zip: ZipArchive;
  images: EmbeddedImage[];
  warnings: string[];
  /** Inline pictures by data: URI, decoded once: the same URI repeated is one picture. */
  inline: Map<string, PictureSource>;
}

/**
 * A chapter (XHTML) through the HTML walker whole, as the HTML parser does without main-content
 * extraction. With `pictures` (OCR on) the chapter's pictures are marked first and each image
 * element is paired with its picture, alt-less ones included (alt '').
 */
function chapterElements(chapterPath: string, html: string, pictures: PictureCollector | undefined): ElementDraft[] {
  const source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  const root = parseHtmlDocument(source.replace(CRLF, '\n')).documentElement;
  if (!root) return [];
  const marked = pictures ? markPictures(root, chapterPath, pictures) : [];
  const elements = walkHtml(root, { dropBoilerplate: false });
  if (marked.length === 0) return elements;
  for (const element of elements) {
    const at = element.kind === 'image' ? element.alt?.lastIndexOf(PICTURE_MARK) ?? -1 : -1;
    if (at < 0) continue;
    const picture = marked[Number(element.alt!.slice(at + PICTURE_MARK.length))];
    // The walker joined alt and marker with one space (none when the alt was blank).
    element.alt = element.alt!.slice(0, Math.max(0, at - 1));
    if (picture !== undefined) pictures!.images.push({ element, ...picture });
  }
  return elements;
}

/** Appends markers to the alt text of the chapter's readable pictures; returns their sources, by marker number. */
function markPictures(root: DomElement, chapterPath: string, pictures: PictureCollector): PictureSource[] {
  showSvgPictures(root);
  const imgs = root.querySelectorAll('img');
  const dir = posix.dirname(chapterPath);
  const sources: PictureSource[] = [];
  for (let i = 0; i < imgs.length; i++) {
    const img = imgs[i]!;
    const src = (img.getAttribute('src') ?? '').trim();
    if (!src || insideQuote(img)) continue;
    const source = pictureSource(src, dir === '.' ? '' : dir, chapterPath, pictures);
    if (!source) continue;
    img.setAttribute('alt', `${img.getAttribute('alt') ?? ''} ${PICTURE_MARK}${sources.length}`);
    sources.push(source);
  }
  return sources;
}

/** The picture an <img src> shows: a package part, or an inline data: URI; none for remote URLs. */
function pictureSource(src: string, dir: string, chapterPath: string, pictures: PictureCollector): PictureSource | undefined {
  if (DATA_URI.test(src)) return inlinePicture(src, chapterPath, pictures);
  // http:, https:, //host/...: parsing is offline, a remote picture is never fetched.
  if (URL_SCHEME.test(src) || src.startsWith('//')) return undefined;
  return packagePicture(pictures.zip, resolveHref(dir, src));
}

function packagePicture(zip: ZipArchive, path: string): PictureSource {
  return { path, read: () => (zip.has(path) ? zip.read(path) : undefined) };
}

function inlinePicture(uri: string, chapterPath: string, pictures: PictureCollector): PictureSource | undefined {
  const known = pictures.inline.get(uri);
  if (known) return known;
  let bytes: Uint8Array;
  try {
    bytes = decodeDataUri(uri);
  } catch (error) {
    pictures.warnings.push(`a picture in '${chapterPath}' has a malformed data: URI (${(error as Error).message}): not OCR'd`);
    return undefined;
  }
  const source: PictureSource = { path: `data: URI picture ${pictures.inline.size + 1} in '${chapterPath}'`, read: () => bytes };
  pictures.inline.set(uri, source);
  return source;
}

/** The DOM editing an <svg> rewrite needs (linkedom has it; html-dom's read-only types do not say so). */
interface EditableElement extends DomElement {
  readonly ownerDocument: { createElement(name: string): DomElement };
  readonly parentNode: (DomNode & { insertBefore(node: DomElement, before: DomElement): void }) | null;
}

/**
 * SVG-wrapped pictures (`<svg><image xlink:href="cover.jpg"/></svg>`, how covers and full-page
 * illustrations are often written) get an alt-less <img> each just before their outermost <svg>,
 * which the walker skips whole: from there on they are pictures like any other.
 */
function showSvgPictures(root: DomElement): void {
  const svgImages = root.querySelectorAll('svg image');
  for (let i = 0; i < svgImages.length; i++) {
    const image = svgImages[i]!;
    // SVG 2's href wins over SVG 1.1's xlink:href.
    const href = image.getAttribute('href') ?? image.getAttribute('xlink:href');
    const svg = outermostSvg(image);
    if (!href || !svg?.parentNode) continue;
    const img = svg.ownerDocument.createElement('img');
    img.setAttribute('src', href);
    img.setAttribute('alt', '');
    svg.parentNode.insertBefore(img, svg);
  }
}

function outermostSvg(node: DomNode): EditableElement | undefined {
  let svg: DomElement | undefined;
  for (let parent = node.parentNode; parent; parent = parent.parentNode) {
    if (isElement(parent) && parent.localName === 'svg') svg = parent;
  }
  return svg as EditableElement | undefined;
}

/**
 * A picture shown again (the cover on both the cover page and the title page, an ornament opening
 * every chapter) says its text once, at its first showing; later showings keep their alt text only.
 */
function keepFirstShowing(images: readonly EmbeddedImage[]): void {
  const seen = new Set<string>();
  for (const image of images) {
    if (seen.has(image.path)) delete image.element.ocrText;
    else seen.add(image.path);
  }
}

/** data: URI header ending in `;base64` (Fetch standard: spaces allowed before `base64`). */
const BASE64_HEADER = /;[ ]*base64[\t\n\f\r ]*$/i;
const ASCII_WHITESPACE = /[\t\n\f\r ]+/g;
const BASE64_PADDING = /={1,2}$/;
const BASE64_TEXT = /^[A-Za-z0-9+/]*$/;
const TEXT_ENCODER = new TextEncoder();

/**
 * The bytes of a data: URI, as the Fetch standard's data: URL processor reads them (percent-decoded,
 * then forgiving-base64-decoded when the header ends in `;base64`). Throws on a malformed URI or an
 * empty one.
 */
export function decodeDataUri(uri: string): Uint8Array {
  const comma = uri.indexOf(',');
  if (comma < 0) throw new Error('no comma before the data');
  const body = percentDecode(uri.slice(comma + 1));
  const bytes = BASE64_HEADER.test(uri.slice(0, comma)) ? forgivingBase64(body) : body;
  if (bytes.length === 0) throw new Error('no data');
  return bytes;
}

/** UTF-8 bytes of `text` with each `%XX` replaced by its byte; a `%` without two hex digits stays. */
function percentDecode(text: string): Uint8Array {
  const bytes = TEXT_ENCODER.encode(text);
  if (!text.includes('%')) return bytes;
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const high = bytes[i] === 0x25 && i + 2 < bytes.length ? hexDigit(bytes[i + 1]!) : -1;
    const low = high >= 0 ? hexDigit(bytes[i + 2]!) : -1;
    if (low >= 0) {
      bytes[length++] = high * 16 + low;
      i += 2;
    } else {
      bytes[length++] = bytes[i]!;
    }
  }
  return bytes.subarray(0, length);
}

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** Forgiving base64 (whitespace ignored, padding optional); Buffer's decoder alone skips bad characters silently. */
function forgivingBase64(bytes: Uint8Array): Uint8Array {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1').replace(ASCII_WHITESPACE, '');
  if (text.length % 4 === 0) text = text.replace(BASE64_PADDING, '');
  if (text.length % 4 === 1 || !BASE64_TEXT.test(text)) throw new Error('not valid base64');
  const decoded = Buffer.from(text, 'base64');
  return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.length);
}

/** A block quote's images become part of its text, so a marker there would show. */
function insideQuote(node: DomNode): boolean {
  for (let parent = node.parentNode; parent; parent = parent.parentNode) {
    if (isElement(parent) && parent.localName === 'blockquote') return true;
  }
  return false;
}

const HTML_MEDIA_TYPES = new Set(['application/xhtml+xml', 'text/html', 'application/x-dtbook+xml', 'text/x-oeb1-document']);
const PACKAGE_MEDIA_TYPE = 'application/oebps-package+xml';

interface ManifestItem {
  id: string;
  href: string;
  /** Path inside the archive (href resolved against the OPF's folder, percent-decoded). */
  path: string;
  mediaType: string;
  properties: string;
}

interface Package {
  path: string;
  title?: string;
  language?: string;
  metadata: Record<string, unknown>;
  manifest: Map<string, ManifestItem>;
  spine: ManifestItem[];
  /** The EPUB 3 navigation document's manifest id. */
  navId?: string;
  /** The NCX's manifest id (spine@toc), EPUB 2. */
  ncxId?: string;
  /** The cover picture's archive path (manifest `cover-image`, else EPUB 2's `<meta name="cover">`). */
  coverPath?: string;
}

function findPackagePath(zip: ZipArchive): string {
  if (zip.has('META-INF/container.xml')) {
    const container = parseXml(zip.readText('META-INF/container.xml'), 'META-INF/container.xml');
    const rootfiles = findAll(container, 'rootfile');
    const rootfile = rootfiles.find((r) => r.attributes['media-type'] === PACKAGE_MEDIA_TYPE) ?? rootfiles[0];
    const fullPath = rootfile?.attributes['full-path'];
    if (fullPath && zip.has(fullPath)) return fullPath;
  }
  // A container.xml that is missing or points nowhere: one .opf in the archive is unambiguous.
  const opfs = zip.entries.filter((e) => e.name.toLowerCase().endsWith('.opf'));
  if (opfs.length === 1) return opfs[0]!.name;
  throw new GroundworkError('CORRUPT', 'is not a readable EPUB: META-INF/container.xml does not name a package document (.opf)');
}

/** Dublin Core fields kept as metadata; several values (creators, subjects) become arrays. */
const DC_FIELDS: Record<string, string> = {
  creator: 'author',
  contributor: 'contributors',
  publisher: 'publisher',
  date: 'date',
  identifier: 'identifier',
  description: 'description',
  subject: 'subjects',
  rights: 'rights',
};
const LIST_FIELDS = new Set(['author', 'contributors', 'subjects']);
const TOC_NAV = /\btoc\b|doc-toc/;
const LEADING_DOT_SLASH = /^\.\//;

function readPackage(zip: ZipArchive, path: string): Package {
  const opf = parseXml(zip.readText(path), path);
  const base = posix.dirname(path);
  const metadataElement = findFirst(opf, 'metadata');
  const metadata: Record<string, unknown> = {};
  let title: string | undefined;
  let language: string | undefined;
  for (const el of metadataElement?.children ?? []) {
    const value = el.text.replace(WHITESPACE_RUN, ' ').trim();
    if (!value) continue;
    if (el.name === 'title') title ??= value;
    else if (el.name === 'language') language ??= value;
    else if (el.name === 'meta' && el.attributes.property === 'dcterms:modified') metadata.modified = value;
    const key = DC_FIELDS[el.name];
    if (!key || el.name === 'meta') continue;
    if (LIST_FIELDS.has(key)) ((metadata[key] as string[] | undefined) ?? (metadata[key] = [] as string[]) as string[]).push(value);
    else metadata[key] ??= value;
  }
  if (Array.isArray(metadata.author) && metadata.author.length === 1) metadata.author = metadata.author[0];

  const manifest = new Map<string, ManifestItem>();
  let navId: string | undefined;
  for (const item of findAll(findFirst(opf, 'manifest') ?? opf, 'item')) {
    const { id, href } = item.attributes;
    if (!id || !href) continue;
    const properties = item.attributes.properties ?? '';
    manifest.set(id, { id, href, path: resolveHref(base, href), mediaType: (item.attributes['media-type'] ?? '').toLowerCase(), properties });
    if (properties.split(WHITESPACE_RUN).includes('nav')) navId = id;
  }
  const spineElement = findFirst(opf, 'spine');
  const spine: ManifestItem[] = [];
  for (const ref of spineElement ? childrenNamed(spineElement, 'itemref') : []) {
    const item = manifest.get(ref.attributes.idref ?? '');
    if (item) spine.push(item);
  }
  if (spine.length === 0) throw new GroundworkError('CORRUPT', `is not a readable EPUB: the package ${path} has an empty spine`);
  const ncxId = spineElement?.attributes.toc ?? [...manifest.values()].find((m) => m.mediaType === 'application/x-dtbncx+xml')?.id;
  const coverPath = coverPicture(metadataElement ?? opf, manifest)?.path;
  return {
    path,
    ...(title && { title }),
    ...(language && { language }),
    metadata,
    manifest,
    spine,
    ...(navId && { navId }),
    ...(ncxId && { ncxId }),
    ...(coverPath !== undefined && { coverPath }),
  };
}

/**
 * The cover picture: EPUB 3's `properties="cover-image"`, else EPUB 2's `<meta name="cover"
 * content="id">` (some producers write the href instead of the id). Only an image item counts.
 */
function coverPicture(metadata: XmlElement, manifest: Map<string, ManifestItem>): ManifestItem | undefined {
  const items = [...manifest.values()];
  let cover = items.find((item) => item.properties.split(WHITESPACE_RUN).includes('cover-image'));
  if (!cover) {
    const content = findAll(metadata, 'meta').find((meta) => meta.attributes.name === 'cover')?.attributes.content;
    if (content) cover = manifest.get(content) ?? items.find((item) => item.href === content);
  }
  return cover?.mediaType.startsWith('image/') ? cover : undefined;
}

/** An href relative to `base`, without its fragment, percent-decoded (`Chapter%201.xhtml`). */
function resolveHref(base: string, href: string): string {
  const bare = href.split('#')[0]!;
  let decoded = bare;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    // A stray '%' is a literal character in the name.
  }
  return posix.normalize(posix.join(base, decoded)).replace(LEADING_DOT_SLASH, '');
}

const FONT_OBFUSCATION = new Set(['http://www.idpf.org/2008/embedding', 'http://ns.adobe.com/pdf/enc#RC']);

/**
 * DRM: META-INF/encryption.xml listing spine documents under a real cipher (font obfuscation, the
 * only encryption an open EPUB uses, is harmless: fonts are not read).
 */
function refuseDrm(zip: ZipArchive, pkg: Package): void {
  if (!zip.has('META-INF/encryption.xml')) return;
  const encryption = parseXml(zip.readText('META-INF/encryption.xml'), 'META-INF/encryption.xml');
  const spinePaths = new Set(pkg.spine.map((item) => item.path));
  for (const data of findAll(encryption, 'EncryptedData')) {
    const algorithm = findFirst(data, 'EncryptionMethod')?.attributes.Algorithm ?? '';
    const uri = findFirst(data, 'CipherReference')?.attributes.URI;
    if (!uri || FONT_OBFUSCATION.has(algorithm)) continue;
    if (spinePaths.has(resolveHref('', uri))) {
      throw new GroundworkError('ENCRYPTED', 'is DRM-protected (its chapters are encrypted): only DRM-free EPUBs can be read');
    }
  }
}

export interface TocEntry {
  title: string;
  level: number;
}

/** The EPUB 3 nav document's `toc` nav, else the NCX navMap; empty when neither is readable. */
function readToc(zip: ZipArchive, pkg: Package): TocEntry[] {
  const nav = pkg.navId ? pkg.manifest.get(pkg.navId) : undefined;
  if (nav && zip.has(nav.path)) {
    const entries = navToc(zip.readText(nav.path));
    if (entries.length > 0) return entries;
  }
  const ncx = pkg.ncxId ? pkg.manifest.get(pkg.ncxId) : undefined;
  if (ncx && zip.has(ncx.path)) {
    try {
      return ncxToc(parseXml(zip.readText(ncx.path), ncx.path));
    } catch {
      return [];
    }
  }
  return [];
}

function navToc(xhtml: string): TocEntry[] {
  const document = parseHtmlDocument(xhtml);
  const navs = document.querySelectorAll('nav');
  let toc: DomElement | undefined;
  for (let i = 0; i < navs.length; i++) {
    const nav = navs[i]!;
    const type = `${nav.getAttribute('epub:type') ?? ''} ${nav.getAttribute('role') ?? ''}`;
    if (TOC_NAV.test(type)) {
      toc = nav;
      break;
    }
  }
  toc ??= navs[0];
  const list = toc ? firstChildNamed(toc, 'ol') ?? firstChildNamed(toc, 'ul') : undefined;
  const entries: TocEntry[] = [];
  if (list) navList(list, 1, entries);
  return entries;
}

function navList(list: DomElement, level: number, out: TocEntry[]): void {
  for (let node = list.firstChild; node; node = node.nextSibling) {
    if (!isElement(node) || node.localName !== 'li') continue;
    const label = firstChildNamed(node, 'a') ?? firstChildNamed(node, 'span');
    const title = (label?.textContent ?? '').replace(WHITESPACE_RUN, ' ').trim();
    if (title) out.push({ title, level });
    const nested = firstChildNamed(node, 'ol') ?? firstChildNamed(node, 'ul');
    if (nested) navList(nested, level + 1, out);
  }
}

function firstChildNamed(element: DomElement, name: string): DomElement | undefined {
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (isElement(node) && node.localName === name) return node;
  }
  return undefined;
}

function ncxToc(ncx: XmlElement): TocEntry[] {
  const navMap = findFirst(ncx, 'navMap');
  const entries: TocEntry[] = [];
  const walk = (parent: XmlElement, level: number): void => {
    for (const point of childrenNamed(parent, 'navPoint')) {
      const label = findFirst(childrenNamed(point, 'navLabel')[0] ?? point, 'text');
      const title = (label?.text ?? '').replace(WHITESPACE_RUN, ' ').trim();
      if (title) entries.push({ title, level });
      walk(point, level + 1);
    }
  };
  if (navMap) walk(navMap, 1);
  return entries;
}

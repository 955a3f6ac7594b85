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
 * document itself is not repeated as content. With `ocr: 'on'` every <img>'s picture (src resolved
 * against the chapter) is OCR'd into its image element's `ocrText`, and pictures without alt text
 * are kept when OCR finds text in them; 'auto' keeps alt text only (OCR costs seconds per picture),
 * as for DOCX. Pictures inside a block quote are left to the quote's text (the walker flattens it).
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
    const images: EmbeddedImage[] | undefined = options.ocr === 'on' ? [] : undefined;
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
      const chapter = withinStack(() => chapterElements(zip, item.path, html, images));
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
    if (!images || images.length === 0) return draft(elements);
    return ocrEmbeddedImages(images, options, warnings).then(() => {
      // Pictures without alt text stay only when OCR found text in them.
      const { kept, dropped } = dropUnreadPictures(elements);
      if (dropped > 0) warnings.push(`${dropped} picture(s) without alt text had no OCR text and were skipped`);
      return draft(kept);
    });
  },
};

const WHITESPACE_RUN = /\s+/g;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const CRLF = /\r\n?/g;

/**
 * Appended to an <img>'s alt text while the chapter is walked: the walker keeps alt text (collapsing
 * its whitespace) but not src, and drops images without alt, so each picture's image element is
 * found by its marker, which is then cut off again.
 */
const PICTURE_MARK = '\uE000picture-';

/**
 * A chapter (XHTML) through the HTML walker whole, as the HTML parser does without main-content
 * extraction. With `images` (OCR on) the chapter's pictures are marked first and each image element
 * is paired with its picture, alt-less ones included (alt '').
 */
function chapterElements(zip: ZipArchive, chapterPath: string, html: string, images: EmbeddedImage[] | undefined): ElementDraft[] {
  const source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  const root = parseHtmlDocument(source.replace(CRLF, '\n')).documentElement;
  if (!root) return [];
  const marked = images ? markPictures(root, chapterPath) : [];
  const elements = walkHtml(root, { dropBoilerplate: false });
  if (marked.length === 0) return elements;
  for (const element of elements) {
    const at = element.kind === 'image' ? element.alt?.lastIndexOf(PICTURE_MARK) ?? -1 : -1;
    if (at < 0) continue;
    const path = marked[Number(element.alt!.slice(at + PICTURE_MARK.length))];
    // The walker joined alt and marker with one space (none when the alt was blank).
    element.alt = element.alt!.slice(0, Math.max(0, at - 1));
    if (path !== undefined) images!.push({ element, path, read: () => (zip.has(path) ? zip.read(path) : undefined) });
  }
  return elements;
}

/** Appends markers to the alt text of the chapter's package pictures; returns their paths, by marker number. */
function markPictures(root: DomElement, chapterPath: string): string[] {
  const imgs = root.querySelectorAll('img');
  const dir = posix.dirname(chapterPath);
  const paths: string[] = [];
  for (let i = 0; i < imgs.length; i++) {
    const img = imgs[i]!;
    const src = img.getAttribute('src') ?? '';
    if (!src || URL_SCHEME.test(src) || insideQuote(img)) continue;
    img.setAttribute('alt', `${img.getAttribute('alt') ?? ''} ${PICTURE_MARK}${paths.length}`);
    paths.push(resolveHref(dir === '.' ? '' : dir, src));
  }
  return paths;
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
  return {
    path,
    ...(title && { title }),
    ...(language && { language }),
    metadata,
    manifest,
    spine,
    ...(navId && { navId }),
    ...(ncxId && { ncxId }),
  };
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

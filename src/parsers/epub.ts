import { posix } from 'node:path';
import { ZipArchive } from '../archive/zip.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { ocrEmbeddedImages, type EmbeddedImage } from './embedded-images.js';
import { GroundworkError } from '../errors.js';
import { type XmlElement, childrenNamed, findAll, findFirst, parseXml } from './epub-xml.js';
import { type DomElement, isElement, parseHtmlDocument } from './html-dom.js';
import { parseHtml } from './html.js';
import { withinStack } from './markdown.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

/**
 * EPUB 2 and 3: META-INF/container.xml names the package (OPF); its metadata (dc:title, creator,
 * language, date, identifier...) becomes the document's, and the spine gives the reading order.
 * Each spine chapter (XHTML) goes through the HTML walker whole (no main-content extraction: a
 * chapter has no page chrome), keeping its headings' levels, lists, tables and images' alt text.
 * The table of contents (EPUB 3 nav document, else the NCX) is kept as `metadata.toc`, and the nav
 * document itself is not repeated as content. With `ocr: 'on'` the pictures of the image elements
 * (img src resolved against the chapter) are OCR'd into `ocrText`; 'auto' keeps alt text only (OCR
 * costs seconds per picture). The HTML walker drops images without alt text, so those are not OCR'd.
 */
export const epubParser: ParserDefinition = {
  formats: ['epub'],
  version: '1',
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
      const chapter = withinStack(() => parseHtml(html, { mainContent: false }));
      if (chapter.elements.length > 0) chapters++;
      if (images) images.push(...chapterPictures(zip, item.path, html, chapter.elements));
      for (const el of chapter.elements) {
        // A title page followed by a chapter opening with the same heading (pandoc, calibre) says it once.
        const previous = elements[elements.length - 1];
        if (el.kind === 'heading' && previous?.kind === 'heading' && previous.level === el.level && previous.text === el.text) continue;
        elements.push(el);
      }
    }
    const toc = readToc(zip, pkg);
    const metadata: Record<string, unknown> = { ...pkg.metadata, chapters };
    if (toc.length > 0) metadata.toc = toc;
    const draft: DocumentDraft = {
      format: 'epub',
      mime: 'application/epub+zip',
      ...(pkg.title && { title: pkg.title }),
      ...(pkg.language && { language: pkg.language }),
      metadata,
      elements,
      warnings,
    };
    return images && images.length > 0 ? ocrEmbeddedImages(images, options, warnings).then(() => draft) : draft;
  },
};

const WHITESPACE_RUN = /\s+/g;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The pictures of a chapter's image elements. The walker keeps an image's alt text but not its src,
 * so the chapter's <img> elements are matched to the image elements in document order by alt text
 * (the walker skips some images, e.g. inside list items, so an unmatched <img> is passed over).
 */
function chapterPictures(zip: ZipArchive, chapterPath: string, html: string, elements: readonly ElementDraft[]): EmbeddedImage[] {
  const imageElements = elements.filter((el) => el.kind === 'image');
  if (imageElements.length === 0) return [];
  const imgs = Array.from(parseHtmlDocument(html).querySelectorAll('img'));
  const dir = posix.dirname(chapterPath);
  const out: EmbeddedImage[] = [];
  let next = 0;
  for (const element of imageElements) {
    for (let i = next; i < imgs.length; i++) {
      const img = imgs[i]!;
      if ((img.getAttribute('alt') ?? '').replace(WHITESPACE_RUN, ' ').trim() !== element.alt) continue;
      next = i + 1;
      const src = img.getAttribute('src') ?? '';
      if (!src || URL_SCHEME.test(src)) break;
      const path = resolveHref(dir === '.' ? '' : dir, src);
      out.push({ element, path, read: () => (zip.has(path) ? zip.read(path) : undefined) });
      break;
    }
  }
  return out;
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

import { ZipArchive } from '../archive/zip.js';
import { GroundworkError } from '../errors.js';
import { children, deepText, parseXmlTree, type XmlNode } from './xml.js';

/**
 * The OpenDocument package around ODP and ODS: the ZIP, its `content.xml`, the `meta.xml`
 * properties, encryption (declared per entry in `META-INF/manifest.xml`), and list styles, which
 * say whether a list level is numbered or bulleted.
 */

export interface OdfPackage {
  zip: ZipArchive;
  content: string;
  metadata: Record<string, unknown>;
  title?: string;
  language?: string;
}

const META_FIELDS: Record<string, string> = {
  'dc:title': 'title',
  'dc:subject': 'subject',
  'dc:description': 'description',
  'meta:keyword': 'keywords',
  'meta:initial-creator': 'author',
  'dc:creator': 'lastModifiedBy',
  'meta:creation-date': 'created',
  'dc:date': 'modified',
  'dc:language': 'language',
  'meta:generator': 'application',
};

export function openOdfPackage(bytes: Uint8Array, file: string | undefined, kind: string): OdfPackage {
  const fileOption = file !== undefined ? { file } : {};
  const zip = ZipArchive.open(bytes, fileOption);
  const manifest = zip.readTextIfPresent('META-INF/manifest.xml');
  if (manifest?.includes('manifest:encryption-data')) {
    throw new GroundworkError('ENCRYPTED', `is a password-protected OpenDocument ${kind}; remove the password and try again`, fileOption);
  }
  if (!zip.has('content.xml')) throw new GroundworkError('CORRUPT', `is not an OpenDocument ${kind}: the package has no content.xml`, fileOption);
  const content = zip.readText('content.xml');
  const metadata: Record<string, unknown> = {};
  const metaXml = zip.readTextIfPresent('meta.xml');
  if (metaXml) {
    try {
      const meta = children(parseXmlTree(metaXml), 'office:meta')[0];
      for (const node of meta?.children ?? []) {
        const key = META_FIELDS[node.name];
        const value = key ? deepText(node).trim() : '';
        if (key && value) metadata[key] = key === 'keywords' && metadata[key] ? `${String(metadata[key])}, ${value}` : value;
      }
    } catch {
      // Broken properties lose metadata, never the document.
    }
  }
  return {
    zip,
    content,
    metadata,
    ...(typeof metadata.title === 'string' && { title: metadata.title }),
    ...(typeof metadata.language === 'string' && { language: metadata.language }),
  };
}

/**
 * For each list style (`text:list-style`, in content.xml's automatic styles or styles.xml), whether
 * each level (1-based) is numbered. Levels not listed are bulleted.
 */
export function readListStyles(...xmls: (string | undefined)[]): Map<string, Set<number>> {
  const numbered = new Map<string, Set<number>>();
  const visit = (node: XmlNode): void => {
    if (node.name === 'text:list-style') {
      const name = node.attributes['style:name'];
      if (!name) return;
      const levels = new Set<number>();
      for (const level of children(node, 'text:list-level-style-number')) {
        const n = Number(level.attributes['text:level'] ?? 1);
        // A numbered level with an empty format shows no number (LibreOffice's "None").
        if (level.attributes['style:num-format'] !== '') levels.add(n);
      }
      numbered.set(name, levels);
      return;
    }
    for (const child of node.children) visit(child);
  };
  for (const xml of xmls) {
    if (!xml) continue;
    try {
      visit(parseXmlTree(xml));
    } catch {
      // Unreadable styles: lists stay bulleted.
    }
  }
  return numbered;
}

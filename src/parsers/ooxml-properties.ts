import type { ZipArchive } from '../archive/zip.js';
import { deepText, parseXmlTree, type XmlNode } from './xml.js';

/**
 * OOXML document properties (`docProps/core.xml`, `docProps/app.xml`), shared by DOCX, PPTX and XLSX:
 * title, author, subject, keywords, description, created/modified dates, last editor, language,
 * application, company, and the page / slide counts the application last saved.
 */

export interface OfficeProperties {
  metadata: Record<string, unknown>;
  title?: string;
  language?: string;
  /** Pages as last saved by the application (Word); undefined when absent or 0. */
  pageCount?: number;
}

const CORE_FIELDS: Record<string, string> = {
  'dc:title': 'title',
  'dc:creator': 'author',
  'dc:subject': 'subject',
  'cp:keywords': 'keywords',
  'dc:description': 'description',
  'dcterms:created': 'created',
  'dcterms:modified': 'modified',
  'cp:lastModifiedBy': 'lastModifiedBy',
  'dc:language': 'language',
  'cp:category': 'category',
};

const APP_FIELDS: Record<string, string> = {
  Application: 'application',
  Company: 'company',
  Pages: 'pages',
  Slides: 'slides',
  Words: 'words',
};

export function readOfficeProperties(zip: ZipArchive): OfficeProperties {
  const metadata: Record<string, unknown> = {};
  collect(safeTree(zip, 'docProps/core.xml'), CORE_FIELDS, metadata);
  collect(safeTree(zip, 'docProps/app.xml'), APP_FIELDS, metadata);
  for (const key of ['pages', 'slides', 'words']) {
    const n = Number(metadata[key]);
    if (metadata[key] !== undefined) metadata[key] = Number.isFinite(n) ? n : undefined;
    if (metadata[key] === undefined) delete metadata[key];
  }
  const out: OfficeProperties = { metadata };
  if (typeof metadata.title === 'string') out.title = metadata.title;
  if (typeof metadata.language === 'string') out.language = metadata.language;
  if (typeof metadata.pages === 'number' && metadata.pages > 0) out.pageCount = metadata.pages;
  return out;
}

/** A properties part that is missing or malformed only loses metadata, never the document. */
function safeTree(zip: ZipArchive, part: string): XmlNode | undefined {
  const xml = zip.readTextIfPresent(part);
  if (!xml) return undefined;
  try {
    return parseXmlTree(xml);
  } catch {
    return undefined;
  }
}

function collect(root: XmlNode | undefined, fields: Record<string, string>, into: Record<string, unknown>): void {
  if (!root) return;
  for (const node of root.children) {
    const key = fields[node.name];
    if (!key) continue;
    const value = deepText(node).trim();
    if (value) into[key] = value;
  }
}

import type { ZipArchive } from '../archive/zip.js';
import { children, parseXmlTree } from './xml.js';

/** OOXML package plumbing shared by the DOCX, PPTX and XLSX parsers. */

export interface Relationship {
  type: string;
  /** Package path of the target part, or the URL when external. */
  target: string;
  external: boolean;
}


/** Relationships of a part (`word/document.xml` -> `word/_rels/document.xml.rels`), targets resolved to package paths. */
export function readRelationships(zip: ZipArchive, part: string): Map<string, Relationship> {
  const slash = part.lastIndexOf('/');
  const dir = slash < 0 ? '' : part.slice(0, slash + 1);
  const relsPath = `${dir}_rels/${part.slice(slash + 1)}.rels`;
  const out = new Map<string, Relationship>();
  const xml = zip.readTextIfPresent(relsPath);
  if (!xml) return out;
  for (const rel of children(parseXmlTree(xml), 'Relationship')) {
    const id = rel.attributes['Id'];
    const target = rel.attributes['Target'];
    if (!id || target === undefined) continue;
    const external = rel.attributes['TargetMode'] === 'External';
    out.set(id, { type: rel.attributes['Type'] ?? '', target: external ? target : resolvePartPath(dir, target), external });
  }
  return out;
}

/** A relative part target resolved against its folder; `..` segments are resolved, never escape the root. */
export function resolvePartPath(dir: string, target: string): string {
  const segments = target.startsWith('/') ? [] : dir.split('/').filter(Boolean);
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}

import type { ZipArchive } from '../archive/zip.js';
import type { ElementDraft } from '../document/types.js';
import type { Relationship } from './ooxml-package.js';
import { children, deepText, localName, parseXmlTree, type XmlNode } from './xml.js';

/**
 * PowerPoint comments, placed after their slide's content (and speaker notes):
 * - legacy comments (`ppt/comments/commentN.xml`, `p:cm` with `dt` and `p:text`; authors in
 *   `ppt/commentAuthors.xml`); a reply names its parent in `p15:threadingInfo/p15:parentCm`
 *   (author and index) and follows it;
 * - modern comments (`ppt/comments/modernComment_*.xml`, `p188:cm` with `created`, `status` and
 *   `p188:txBody`; authors in `ppt/authors.xml`), replies in the comment's `p188:replyLst`, in order.
 * Both kinds are related to the slide with a type ending in `/comments`; each comment says which it
 * is by its text element. Names are matched by local name, as prefixes vary between writers.
 */

const COMMENTS_TYPE = /\/relationships\/comments$/;
const LEGACY_AUTHORS_TYPE = /\/relationships\/commentAuthors$/;
const MODERN_AUTHORS_TYPE = /\/relationships\/authors$/;

/** Comment authors by id: legacy numeric ids and modern GUIDs share the map (they cannot collide). */
export function readCommentAuthors(zip: ZipArchive, presentationRels: Map<string, Relationship>): Map<string, string> {
  const authors = new Map<string, string>();
  for (const rel of presentationRels.values()) {
    if (rel.external || !(LEGACY_AUTHORS_TYPE.test(rel.type) || MODERN_AUTHORS_TYPE.test(rel.type))) continue;
    const xml = zip.readTextIfPresent(rel.target);
    if (!xml) continue;
    try {
      for (const author of parseXmlTree(xml).children) {
        const name = author.attributes['name'];
        const id = author.attributes['id'];
        if (name && id !== undefined && (localName(author.name) === 'cmAuthor' || localName(author.name) === 'author')) authors.set(id, name);
      }
    } catch {
      // Unreadable authors lose the names, never the comments.
    }
  }
  return authors;
}

export function slideComments(zip: ZipArchive, slideRels: Map<string, Relationship>, authors: Map<string, string>, slide: number, warnings: string[]): ElementDraft[] {
  const out: ElementDraft[] = [];
  for (const rel of slideRels.values()) {
    if (rel.external || !COMMENTS_TYPE.test(rel.type)) continue;
    const xml = zip.readTextIfPresent(rel.target);
    if (!xml) continue;
    let list: XmlNode;
    try {
      list = parseXmlTree(xml);
    } catch (error) {
      warnings.push(`slide ${slide}: comments '${rel.target}' could not be read (${(error as Error).message}); skipped`);
      continue;
    }
    const comments = list.children.filter((c) => localName(c.name) === 'cm');
    out.push(...legacyThreads(comments.filter((c) => childLocal(c, 'text')), authors), ...comments.filter((c) => childLocal(c, 'txBody')).flatMap((c) => modernThread(c, authors)));
  }
  return out;
}

function legacyThreads(comments: readonly XmlNode[], authors: Map<string, string>): ElementDraft[] {
  const key = (authorId: string | undefined, idx: string | undefined): string => `${authorId ?? ''}/${idx ?? ''}`;
  const keys = new Set(comments.map((c) => key(c.attributes['authorId'], c.attributes['idx'])));
  const replies = new Map<string, XmlNode[]>();
  const parentOf = (c: XmlNode): string | undefined => {
    const parent = findLocal(c, 'parentCm');
    return parent ? key(parent.attributes['authorId'], parent.attributes['idx']) : undefined;
  };
  for (const c of comments) {
    const parent = parentOf(c);
    if (parent === undefined || !keys.has(parent)) continue;
    const list = replies.get(parent);
    if (list) list.push(c);
    else replies.set(parent, [c]);
  }
  const out: ElementDraft[] = [];
  for (const c of comments) {
    const parent = parentOf(c);
    if (parent !== undefined && keys.has(parent)) continue;
    const thread = [c, ...(replies.get(key(c.attributes['authorId'], c.attributes['idx'])) ?? [])];
    thread.forEach((member, i) => {
      const el = comment(deepText(childLocal(member, 'text')!), authors.get(member.attributes['authorId'] ?? ''), member.attributes['dt'], i > 0, false);
      if (el) out.push(el);
    });
  }
  return out;
}

function modernThread(cm: XmlNode, authors: Map<string, string>): ElementDraft[] {
  const out: ElementDraft[] = [];
  const first = comment(bodyText(childLocal(cm, 'txBody')!), authors.get(cm.attributes['authorId'] ?? ''), cm.attributes['created'], false, cm.attributes['status'] === 'resolved');
  if (!first) return out;
  out.push(first);
  for (const reply of childLocal(cm, 'replyLst')?.children ?? []) {
    if (localName(reply.name) !== 'reply') continue;
    const body = childLocal(reply, 'txBody');
    const el = body ? comment(bodyText(body), authors.get(reply.attributes['authorId'] ?? ''), reply.attributes['created'], true, false) : undefined;
    if (el) out.push(el);
  }
  return out;
}

function comment(raw: string, author: string | undefined, time: string | undefined, reply: boolean, resolved: boolean): ElementDraft | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  return { kind: 'comment', text, comment: { ...(author && { author }), ...(time && { time }), ...(reply && { reply: true }), ...(resolved && { resolved: true }) } };
}

/** A DrawingML text body: its paragraphs (`a:p`) joined by newlines. */
function bodyText(body: XmlNode): string {
  return children(body, 'a:p').map((p) => deepText(p).trim()).filter(Boolean).join('\n');
}

function childLocal(node: XmlNode, name: string): XmlNode | undefined {
  return node.children.find((c) => localName(c.name) === name);
}

function findLocal(node: XmlNode, name: string): XmlNode | undefined {
  for (const c of node.children) {
    if (localName(c.name) === name) return c;
    const found = findLocal(c, name);
    if (found) return found;
  }
  return undefined;
}

import type { ZipArchive } from '../archive/zip.js';
import type { ElementDraft } from '../document/types.js';
import type { Relationship } from './ooxml-package.js';
import { parseCellRef } from './xlsx-sheet.js';
import type { AnchoredElements } from './xlsx-tables.js';
import { children, deepText, parseXmlTree, type XmlNode } from './xml.js';

/**
 * A worksheet's review comments, each anchored at its cell so it follows the table holding it:
 * - threaded comments (`xl/threadedComments/threadedCommentN.xml`, related to the sheet): a thread's
 *   first comment, then its replies (`parentId`) in file order; the author is the person
 *   (`xl/persons/person.xml`, related to the workbook) named by `personId`, the time `dT`, `done`
 *   marks a resolved thread;
 * - notes (legacy comments, `xl/commentsN.xml`): author from `authors`, no time. Excel also writes
 *   every threaded comment as a note ("[Threaded comment] Your version of Excel..."), so notes on
 *   cells that have a thread are that copy and skipped. The author's name Excel puts at the start
 *   of a note's text (`Ann:`) is dropped, it is the comment's author.
 */

const THREADED_TYPE = /\/relationships\/threadedComment$/;
const NOTES_TYPE = /\/relationships\/comments$/;
const PERSON_TYPE = /\/relationships\/person$/;

/** Person id -> display name, from the workbook's person part. */
export function readPersons(zip: ZipArchive, workbookRels: Map<string, Relationship>): Map<string, string> {
  const persons = new Map<string, string>();
  for (const rel of workbookRels.values()) {
    if (rel.external || !PERSON_TYPE.test(rel.type)) continue;
    const xml = zip.readTextIfPresent(rel.target);
    if (!xml) continue;
    try {
      for (const person of children(parseXmlTree(xml), 'person')) {
        const id = person.attributes['id'];
        const name = person.attributes['displayName'];
        if (id && name) persons.set(id, name);
      }
    } catch {
      // Unreadable persons lose the authors' names, never the comments.
    }
  }
  return persons;
}

export function sheetComments(zip: ZipArchive, sheetRels: Map<string, Relationship>, persons: Map<string, string>, sheetName: string, warnings: string[]): AnchoredElements[] {
  const out: AnchoredElements[] = [];
  const threadedCells = new Set<string>();
  const read = (rel: Relationship): XmlNode | undefined => {
    const xml = zip.readTextIfPresent(rel.target);
    if (!xml) return undefined;
    try {
      return parseXmlTree(xml);
    } catch (error) {
      warnings.push(`sheet '${sheetName}': comments '${rel.target}' could not be read (${(error as Error).message}); skipped`);
      return undefined;
    }
  };
  const rels = [...sheetRels.values()].filter((r) => !r.external);
  for (const rel of rels.filter((r) => THREADED_TYPE.test(r.type))) {
    const root = read(rel);
    if (root) out.push(...threads(root, persons, threadedCells));
  }
  for (const rel of rels.filter((r) => NOTES_TYPE.test(r.type))) {
    const root = read(rel);
    if (root) out.push(...notes(root, threadedCells));
  }
  return out;
}

function threads(root: XmlNode, persons: Map<string, string>, cells: Set<string>): AnchoredElements[] {
  const all = children(root, 'threadedComment');
  const replies = new Map<string, XmlNode[]>();
  for (const c of all) {
    const parent = c.attributes['parentId'];
    if (!parent) continue;
    const list = replies.get(parent);
    if (list) list.push(c);
    else replies.set(parent, [c]);
  }
  const ids = new Set(all.map((c) => c.attributes['id']));
  const out: AnchoredElements[] = [];
  for (const top of all) {
    const parent = top.attributes['parentId'];
    // A reply whose parent is missing starts its own thread.
    if (parent && ids.has(parent)) continue;
    const ref = (top.attributes['ref'] ?? '').toUpperCase();
    const at = parseCellRef(ref);
    if (!at) continue;
    cells.add(ref);
    const thread = [top, ...(replies.get(top.attributes['id'] ?? '') ?? [])];
    const resolved = top.attributes['done'] === '1' || top.attributes['done'] === 'true';
    const elements: ElementDraft[] = [];
    thread.forEach((c, i) => {
      const text = deepText(children(c, 'text')[0] ?? c).trim();
      if (!text) return;
      const author = persons.get(c.attributes['personId'] ?? '');
      const time = c.attributes['dT'];
      elements.push({
        kind: 'comment',
        text,
        comment: { ...(author && { author }), ...(time && { time }), cell: ref, ...(i > 0 && { reply: true }), ...(i === 0 && resolved && { resolved: true }) },
      });
    });
    if (elements.length > 0) out.push({ row: at[0], col: at[1], elements, attach: 'cell' });
  }
  return out;
}

function notes(root: XmlNode, threadedCells: Set<string>): AnchoredElements[] {
  const authors = children(children(root, 'authors')[0], 'author').map((a) => deepText(a).trim());
  const out: AnchoredElements[] = [];
  for (const c of children(children(root, 'commentList')[0], 'comment')) {
    const ref = (c.attributes['ref'] ?? '').toUpperCase();
    const at = parseCellRef(ref);
    if (!at || threadedCells.has(ref)) continue;
    const author = authors[Number(c.attributes['authorId'])] || undefined;
    let text = noteText(children(c, 'text')[0]).trim();
    if (author && text.startsWith(`${author}:`)) text = text.slice(author.length + 1).trim();
    if (!text) continue;
    out.push({ row: at[0], col: at[1], elements: [{ kind: 'comment', text, comment: { ...(author && { author }), cell: ref } }], attach: 'cell' });
  }
  return out;
}

/** A note's text runs (`t`, in `r` runs or alone), phonetic guides (`rPh`) left out. */
function noteText(node: XmlNode | undefined): string {
  if (!node) return '';
  let out = '';
  for (const c of node.children) {
    if (c.name === 't') out += deepText(c);
    else if (c.name === 'r') out += noteText(c);
  }
  return out;
}

import type { ElementDraft } from '../document/types.js';
import type { NoteEntry } from './docx-body.js';
import { children, parseXmlTree } from './xml.js';

/**
 * Word comments (`word/comments.xml`) as `comment` elements, threaded by `word/commentsExtended.xml`
 * (`w15:commentEx`: the comment's last paragraph id, its parent's, `done` for a resolved thread).
 *
 * The body walker asks for a comment's thread where it meets the `w:commentReference` (the elements
 * go right after the paragraph holding it, after the table when it is in one) and tells the text
 * between `w:commentRangeStart` and `w:commentRangeEnd`: the commented text, the comment's anchor.
 * A thread is its first comment then its replies in the order comments.xml lists them; Word writes
 * a reference for every reply too, and those find their thread already placed. Comments no
 * reference reaches are returned by `unplaced()` for the end of the document.
 */

export interface DocxComment extends NoteEntry {
  /** `w14:paraId` of the comment's last paragraph (commentsExtended refers to comments by it). */
  paraId?: string;
  initials?: string;
}

/** Longest commented text kept as a comment's anchor (the rendering shows less). */
const MAX_ANCHOR = 200;

export class DocxComments {
  private readonly byId = new Map<string, DocxComment>();
  private readonly order: string[] = [];
  /** Thread root -> its members (root first), in comments.xml order. */
  private readonly threads = new Map<string, string[]>();
  private readonly parentOf = new Map<string, string>();
  private readonly resolved = new Set<string>();
  private readonly placed = new Map<string, ElementDraft>();
  private readonly anchors = new Map<string, string>();

  /**
   * @param comments The comments as the walker read them from comments.xml, in order.
   * @param extendedXml commentsExtended.xml, if the package has one.
   */
  constructor(comments: readonly DocxComment[], extendedXml?: string) {
    for (const c of comments) {
      if (this.byId.has(c.id)) continue;
      this.byId.set(c.id, c);
      this.order.push(c.id);
    }
    if (extendedXml) this.readExtended(extendedXml);
    for (const id of this.order) {
      const root = this.rootOf(id);
      const members = this.threads.get(root);
      if (!members) this.threads.set(root, root === id ? [id] : [root, id]);
      else if (!members.includes(id)) members.push(id);
    }
  }

  get size(): number {
    return this.byId.size;
  }

  /** The thread of comment `id` not placed yet: the comment (unless placed) and its replies, in order. */
  take(id: string): ElementDraft[] {
    const root = this.rootOf(id);
    const out: ElementDraft[] = [];
    for (const member of this.threads.get(root) ?? [root]) {
      if (this.placed.has(member)) continue;
      const el = this.element(member, member !== root);
      if (el) out.push(el);
    }
    return out;
  }

  /** The text a comment's range covers; an already placed comment gets it too. */
  setAnchor(id: string, text: string): void {
    const anchor = text.replace(/\s+/g, ' ').trim().slice(0, MAX_ANCHOR);
    if (!anchor) return;
    this.anchors.set(id, anchor);
    const el = this.placed.get(id);
    if (el?.comment && !el.comment.reply) el.comment.anchor = anchor;
  }

  /** Comments never referenced from the body, threaded, in comments.xml order. */
  unplaced(): ElementDraft[] {
    const out: ElementDraft[] = [];
    for (const id of this.order) if (!this.placed.has(id)) out.push(...this.take(id));
    return out;
  }

  private rootOf(id: string): string {
    let current = id;
    // Word threads one level deep; a longer chain (or a cycle in a broken file) ends at 10 hops.
    for (let hops = 0; hops < 10; hops++) {
      const parent = this.parentOf.get(current);
      if (parent === undefined) break;
      current = parent;
    }
    return current;
  }

  private element(id: string, reply: boolean): ElementDraft | undefined {
    const c = this.byId.get(id);
    if (!c || !c.text.trim()) return undefined;
    const anchor = reply ? undefined : this.anchors.get(id);
    const el: ElementDraft = {
      kind: 'comment',
      text: c.text.trim(),
      comment: {
        ...(c.author && { author: c.author }),
        ...(c.date && { time: c.date }),
        ...(anchor && { anchor }),
        ...(reply && { reply: true }),
        ...(!reply && this.resolved.has(id) && { resolved: true }),
      },
    };
    this.placed.set(id, el);
    return el;
  }

  private readExtended(xml: string): void {
    let root;
    try {
      root = parseXmlTree(xml);
    } catch {
      return; // Without threading the comments are still read, each on its own.
    }
    const byPara = new Map<string, string>();
    for (const [id, c] of this.byId) if (c.paraId) byPara.set(c.paraId, id);
    for (const ex of children(root, 'w15:commentEx')) {
      const id = byPara.get(ex.attributes['w15:paraId'] ?? '');
      if (id === undefined) continue;
      if (ex.attributes['w15:done'] === '1') this.resolved.add(id);
      const parent = byPara.get(ex.attributes['w15:paraIdParent'] ?? '');
      if (parent === undefined || parent === id) continue;
      this.parentOf.set(id, parent);
    }
  }
}

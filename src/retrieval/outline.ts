import { headingPaths } from '../document/build.js';
import type { Document } from '../document/types.js';
import type { Block } from '../store/types.js';
import { blockBody } from './clean.js';
import { parseHeadingNumbering, type Numbering } from './numbering.js';

/**
 * A document's heading tree. Built from a parsed Document's heading elements or, when only stored
 * blocks are at hand, from the blocks' heading paths; both give the same `path`s, so a node's path
 * is a prefix of the `headingPath` of every block inside it (what a section filter matches on).
 */
export interface OutlineNode {
  /** The heading text, whitespace collapsed (as in `headingPaths`). */
  title: string;
  /** Heading level 1-6 from elements; the depth + 1 from blocks. */
  level: number;
  /** Heading texts from the root to this node. */
  path: string[];
  /** The numbering in the heading text, when it has one. */
  numbering?: Numbering;
  /** 1-based position among its siblings. */
  position: number;
  children: OutlineNode[];
  /** Span in the canonical text: from the heading to the next heading of the same or a higher level. */
  start?: number;
  end?: number;
  /** Where the section's text starts, after its heading line (what a block must overlap to be inside). */
  bodyStart?: number;
  /** Page of the heading (from elements) or of the section's first block. */
  page?: number;
  /** First and last block ordinal inside the section (from blocks). */
  firstOrdinal?: number;
  lastOrdinal?: number;
}

export interface Outline {
  docId: string;
  roots: OutlineNode[];
}

/** The outline of a parsed Document, from its heading elements. */
export function outlineFromDocument(doc: Pick<Document, 'id' | 'elements' | 'canonical'>): Outline {
  const paths = headingPaths(doc.elements);
  const roots: OutlineNode[] = [];
  const stack: OutlineNode[] = [];
  for (const el of doc.elements) {
    if (el.kind !== 'heading') continue;
    const level = el.level ?? 1;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop()!.end = el.start;
    const path = paths[el.index]!;
    const node = newNode(path[path.length - 1]!, level, path);
    node.start = el.start;
    node.bodyStart = el.end;
    if (el.page !== undefined) node.page = el.page;
    (stack.length > 0 ? stack[stack.length - 1]!.children : roots).push(node);
    stack.push(node);
  }
  for (const open of stack) open.end = doc.canonical.length;
  return finish(doc.id, roots);
}

/**
 * The outline of a document from its stored blocks (in ordinal order). Blocks of the strategies that
 * keep their canonical text (`SPAN_TEXT_STRATEGIES`) carry the document's headings as canonical
 * heading lines (`### 3.2 前提条件`, between blank lines, outside code fences), even where the chunker
 * packed several small sections into one block: the outline is rebuilt from those, with the spans
 * of the document's own. Blocks without their canonical text (qwen) give the outline of their
 * heading paths instead: every distinct path a node, in the order the blocks first reach it.
 * A block's `text` may be null where it holds no `# ` (no heading line): `LibraryStore.outlineBlocks`
 * leaves those texts in the store, and the outline is the same.
 */
export function outlineFromBlocks(docId: string, blocks: Iterable<OutlineInput>): Outline {
  const list = [...blocks];
  const headings = headingLines(list);
  return headings.length > 0 ? outlineFromHeadingLines(docId, headings, list) : outlineFromHeadingPaths(docId, list);
}

/** What the outline needs of a block (a whole `Block` or a store's `OutlineBlock`). */
export type OutlineInput = Pick<Block, 'headingPath' | 'start' | 'end' | 'ordinal' | 'pageStart' | 'strategy'> & { text: string | null };

interface HeadingLine {
  level: number;
  text: string;
  start: number;
  end: number;
}

const HEADING_LINE = /^(#{1,6}) (.*\S.*)$/;
const FENCE = /^(```|~~~~)/;

/** Canonical heading lines in the blocks' bodies, by offset (once each where blocks overlap). */
function headingLines(blocks: readonly OutlineInput[]): HeadingLine[] {
  const found = new Map<number, HeadingLine>();
  for (const block of blocks) {
    if (block.text === null || !block.text.includes('# ')) continue;
    const body = blockBody(block as OutlineInput & { text: string });
    if (body === undefined) continue;
    let inFence = false;
    let at = 0;
    while (at <= body.length) {
      const eol = body.indexOf('\n', at);
      const lineEnd = eol === -1 ? body.length : eol;
      const line = body.slice(at, lineEnd);
      if (FENCE.test(line)) inFence = !inFence;
      else if (!inFence) {
        const m = HEADING_LINE.exec(line);
        const alone = (at === 0 || body.startsWith('\n\n', at - 2)) && (lineEnd === body.length || body.startsWith('\n\n', lineEnd));
        if (m && alone) {
          const start = block.start + at;
          if (!found.has(start)) found.set(start, { level: m[1]!.length, text: m[2]!.replace(/\s+/g, ' ').trim(), start, end: block.start + lineEnd });
        }
      }
      if (eol === -1) break;
      at = eol + 1;
    }
  }
  return [...found.values()].sort((a, b) => a.start - b.start);
}

function outlineFromHeadingLines(docId: string, headings: readonly HeadingLine[], blocks: readonly Pick<Block, 'start' | 'end' | 'ordinal' | 'pageStart'>[]): Outline {
  const roots: OutlineNode[] = [];
  const stack: OutlineNode[] = [];
  const all: OutlineNode[] = [];
  const docEnd = blocks.reduce((end, b) => Math.max(end, b.end), 0);
  for (const h of headings) {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= h.level) stack.pop()!.end = h.start;
    const node = newNode(h.text, h.level, [...stack.map((n) => n.title), h.text]);
    node.start = h.start;
    node.bodyStart = h.end;
    (stack.length > 0 ? stack[stack.length - 1]!.children : roots).push(node);
    stack.push(node);
    all.push(node);
  }
  for (const open of stack) open.end = docEnd;
  // Blocks by start: each section visits only the blocks it overlaps (blocks x depth in all).
  const byStart = [...blocks].sort((a, b) => a.start - b.start || a.ordinal - b.ordinal);
  let reach = 0;
  const maxEnd = byStart.map((b) => (reach = Math.max(reach, b.end)));
  for (const node of all) {
    // The first block that can reach past the section's heading: ends so far are a running maximum.
    let lo = 0;
    let hi = byStart.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (maxEnd[mid]! <= node.bodyStart!) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < byStart.length && byStart[i]!.start < node.end!; i++) {
      const block = byStart[i]!;
      if (block.end <= node.bodyStart!) continue;
      node.firstOrdinal = Math.min(node.firstOrdinal ?? block.ordinal, block.ordinal);
      node.lastOrdinal = Math.max(node.lastOrdinal ?? block.ordinal, block.ordinal);
      if (node.page === undefined && block.pageStart !== null) node.page = block.pageStart;
    }
  }
  return finish(docId, roots);
}

function outlineFromHeadingPaths(docId: string, blocks: readonly Pick<Block, 'headingPath' | 'start' | 'end' | 'ordinal' | 'pageStart'>[]): Outline {
  const roots: OutlineNode[] = [];
  const open: OutlineNode[] = [];
  for (const block of blocks) {
    const path = block.headingPath;
    let depth = 0;
    while (depth < open.length && depth < path.length && open[depth]!.title === path[depth]) depth++;
    open.length = depth;
    for (let d = depth; d < path.length; d++) {
      const node = newNode(path[d]!, d + 1, path.slice(0, d + 1));
      (d === 0 ? roots : open[d - 1]!.children).push(node);
      open.push(node);
    }
    for (const node of open) {
      node.start = Math.min(node.start ?? block.start, block.start);
      node.end = Math.max(node.end ?? block.end, block.end);
      node.firstOrdinal ??= block.ordinal;
      node.lastOrdinal = block.ordinal;
      if (node.page === undefined && block.pageStart !== null) node.page = block.pageStart;
    }
  }
  return finish(docId, roots);
}

/** Every node, parents before children, in document order. */
export function outlineNodes(outline: Outline): OutlineNode[] {
  const out: OutlineNode[] = [];
  const walk = (nodes: readonly OutlineNode[]) => {
    for (const node of nodes) {
      out.push(node);
      walk(node.children);
    }
  };
  walk(outline.roots);
  return out;
}

/** Is `prefix` a prefix of `path` (component by component)? */
export function hasPathPrefix(path: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
  return true;
}

function newNode(title: string, level: number, path: string[]): OutlineNode {
  const node: OutlineNode = { title, level, path, position: 0, children: [] };
  const numbering = parseHeadingNumbering(title);
  if (numbering) node.numbering = numbering;
  return node;
}

function finish(docId: string, roots: OutlineNode[]): Outline {
  const number = (nodes: OutlineNode[]) => {
    nodes.forEach((node, i) => {
      node.position = i + 1;
      number(node.children);
    });
  };
  number(roots);
  return { docId, roots };
}

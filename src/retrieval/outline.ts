import { headingPaths } from '../document/build.js';
import type { Document } from '../document/types.js';
import type { Block } from '../store/types.js';
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
    if (el.page !== undefined) node.page = el.page;
    (stack.length > 0 ? stack[stack.length - 1]!.children : roots).push(node);
    stack.push(node);
  }
  for (const open of stack) open.end = doc.canonical.length;
  return finish(doc.id, roots);
}

/**
 * The outline implied by stored blocks (in ordinal order): every distinct heading path becomes a
 * node, in the order the blocks first reach it. A heading path that changes and later comes back
 * (two sections of the same name) gives two nodes.
 */
export function outlineFromBlocks(docId: string, blocks: Iterable<Pick<Block, 'headingPath' | 'start' | 'end' | 'ordinal' | 'pageStart'>>): Outline {
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

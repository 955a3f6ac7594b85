import { SaxesParser } from 'saxes';
import { nestingExceeded, parseLimits } from '../limits.js';

/**
 * A thin layer over saxes for the XML inside office and e-book containers (OOXML, ODF, EPUB).
 *
 * Names are qualified as written (`w:p`, `text:h`): these formats use fixed conventional prefixes,
 * and matching the qualified name avoids saxes' namespace bookkeeping, which costs about a third of
 * its speed. Two entry points: `saxParse` streams events for big parts (a document body), and
 * `parseXmlTree` builds a small element tree for the little parts (styles, numbering, properties).
 */

export type XmlAttributes = Record<string, string>;

export interface SaxHandlers {
  open(name: string, attributes: XmlAttributes, selfClosing: boolean): void;
  close(name: string): void;
  text(text: string): void;
}

/**
 * Streams one XML document through the handlers; malformed XML throws an Error with saxes' message.
 * Elements nested deeper than `maxNesting` (src/limits.ts; libxml2 also stops at 256 by default)
 * are LIMIT_EXCEEDED: the handlers keep stacks, and the trees some parts become are walked recursively.
 */
export function saxParse(xml: string, handlers: SaxHandlers): void {
  const parser = new SaxesParser({ position: false });
  const maxNesting = parseLimits().maxNesting;
  let depth = 0;
  parser.on('opentag', (tag) => {
    if (!tag.isSelfClosing && ++depth > maxNesting) nestingExceeded('XML elements', maxNesting);
    handlers.open(tag.name, tag.attributes as XmlAttributes, tag.isSelfClosing);
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) depth--;
    handlers.close(tag.name);
  });
  parser.on('text', handlers.text);
  parser.on('cdata', handlers.text);
  parser.write(xml).close();
}

export interface XmlNode {
  name: string;
  attributes: XmlAttributes;
  children: XmlNode[];
  /** Text directly inside this element, concatenated (children's text not included; see `deepText`). */
  text: string;
}

export const TEXT_NODE = '#text';

/** The document element of a small XML document as a tree. */
export function parseXmlTree(xml: string): XmlNode {
  const root: XmlNode = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: XmlNode[] = [root];
  saxParse(xml, {
    open(name, attributes) {
      const node: XmlNode = { name, attributes, children: [], text: '' };
      stack[stack.length - 1]!.children.push(node);
      stack.push(node);
    },
    close() {
      stack.pop();
    },
    text(text) {
      const parent = stack[stack.length - 1]!;
      parent.text += text;
      // Text is also kept as a '#text' child so mixed content reads in document order.
      if (parent !== root) parent.children.push({ name: TEXT_NODE, attributes: {}, children: [], text });
    },
  });
  const top = root.children[0];
  if (!top) throw new Error('the XML has no root element');
  return top;
}

/** The first child of that name. */
export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  if (!node) return undefined;
  for (const c of node.children) if (c.name === name) return c;
  return undefined;
}

/** All children of that name. */
export function children(node: XmlNode | undefined, name: string): XmlNode[] {
  return node ? node.children.filter((c) => c.name === name) : [];
}

/** Follows a path of child names, e.g. `path(style, 'w:pPr', 'w:numPr', 'w:numId')`. */
export function path(node: XmlNode | undefined, ...names: string[]): XmlNode | undefined {
  let current = node;
  for (const name of names) current = child(current, name);
  return current;
}

/** All text inside the node, in document order. */
export function deepText(node: XmlNode): string {
  if (node.name === TEXT_NODE) return node.text;
  let out = '';
  for (const c of node.children) out += deepText(c);
  return out;
}

/** The part-local name of a qualified name (`w:p` -> `p`). */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

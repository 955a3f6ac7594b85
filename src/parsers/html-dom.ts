import { parseHTML } from 'linkedom';

/**
 * The small structural slice of the DOM that the HTML walker reads. The project compiles without
 * the DOM lib, so linkedom's documents are typed through these interfaces instead of `Document`.
 */
export interface DomNode {
  readonly nodeType: number;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly parentNode: DomNode | null;
  readonly textContent: string | null;
}

export interface DomElement extends DomNode {
  readonly localName: string;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  setAttribute(name: string, value: string): void;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

export interface DomDocument extends DomNode {
  readonly documentElement: DomElement | null;
  readonly body: DomElement | null;
  readonly head: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const CDATA_SECTION_NODE = 4;

const HAS_HTML_TAG = /<html[\s>]/i;
const HAS_HEAD_OR_BODY = /<(?:head|body)[\s>]/i;

/**
 * Parses HTML with linkedom. linkedom builds a document only from a full page (a bare fragment
 * becomes a document whose root is the fragment's first element), so fragments are wrapped first.
 */
export function parseHtmlDocument(html: string): DomDocument {
  let page = html;
  if (!HAS_HTML_TAG.test(html)) {
    page = HAS_HEAD_OR_BODY.test(html)
      ? `<!DOCTYPE html><html>${html}</html>`
      : `<!DOCTYPE html><html><head></head><body>${html}</body></html>`;
  }
  return parseHTML(page).document as unknown as DomDocument;
}

export function isElement(node: DomNode): node is DomElement {
  return node.nodeType === ELEMENT_NODE;
}

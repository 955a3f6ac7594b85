import { parseHTML } from 'linkedom';
import { parseLimits } from '../limits.js';

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
 * Elements nested deeper than `maxNesting` are flattened first (`boundNesting`).
 */
export function parseHtmlDocument(html: string): DomDocument {
  return parseBoundedHtml(html).document;
}

/** `parseHtmlDocument`, also saying how many elements were flattened for being nested too deep. */
export function parseBoundedHtml(html: string, maxNesting = parseLimits().maxNesting): { document: DomDocument; flattened: number } {
  const bounded = boundNesting(html, maxNesting);
  return { document: buildDocument(bounded.html), flattened: bounded.flattened };
}

function buildDocument(html: string): DomDocument {
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

/** Elements without content (never pushed), and those whose end tag is optional (closed by their siblings, so never deep). */
const VOID_TAGS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'basefont', 'bgsound', 'frame', 'image', 'isindex', 'menuitem']);
const OPTIONAL_END_TAGS = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'thead', 'tbody', 'tfoot', 'colgroup', 'rb', 'rt', 'rtc', 'rp', 'caption', 'html', 'head', 'body']);
/** Elements whose content is raw text: a `<` inside them opens no tag. */
const RAW_TEXT_TAGS = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
const TAG_NAME = /[A-Za-z][^\s/>]*/y;

/**
 * Flattens elements nested deeper than `maxNesting`: their start and end tags are dropped, so
 * their content joins their ancestor at that depth (what browsers do past their own depth cap;
 * Blink's is 512). One linear pass over the source with a stack of open elements, as the HTML
 * tree builder keeps one: an end tag closes up to the nearest open element of its name; void
 * elements and elements whose end tag is optional do not nest. linkedom's tree building slows
 * down with depth (quadratically), so this bounds its cost as well as every walker's stack.
 */
export function boundNesting(html: string, maxNesting: number): { html: string; flattened: number } {
  const stack: { name: string; kept: boolean }[] = [];
  let kept = 0;
  let flattened = 0;
  const out: string[] = [];
  let copied = 0;
  const drop = (from: number, to: number): void => {
    out.push(html.slice(copied, from));
    copied = to;
  };
  for (let i = html.indexOf('<'); i >= 0 && i < html.length; i = html.indexOf('<', i)) {
    const next = html.charCodeAt(i + 1);
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      const end = html.indexOf('>', i);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    const closing = next === 47; /* / */
    TAG_NAME.lastIndex = i + (closing ? 2 : 1);
    const match = TAG_NAME.exec(html);
    if (!match) {
      i++;
      continue;
    }
    const name = match[0].toLowerCase();
    const end = tagEnd(html, TAG_NAME.lastIndex);
    if (closing) {
      let at = stack.length - 1;
      while (at >= 0 && stack[at]!.name !== name) at--;
      if (at >= 0) {
        const closesKept = stack[at]!.kept;
        for (let k = stack.length - 1; k >= at; k--) if (stack[k]!.kept) kept--;
        stack.length = at;
        if (!closesKept) drop(i, end);
      }
      i = end;
      continue;
    }
    const selfClosing = html.charCodeAt(end - 2) === 47;
    if (RAW_TEXT_TAGS.has(name)) {
      const closer = rawTextEnd(name);
      closer.lastIndex = end;
      i = closer.exec(html)?.index ?? html.length;
      continue;
    }
    if (!selfClosing && !VOID_TAGS.has(name) && !OPTIONAL_END_TAGS.has(name)) {
      const keep = kept < maxNesting;
      stack.push({ name, kept: keep });
      if (keep) kept++;
      else {
        flattened++;
        drop(i, end);
      }
    }
    i = end;
  }
  if (flattened === 0) return { html, flattened };
  out.push(html.slice(copied));
  return { html: out.join(''), flattened };
}

const RAW_TEXT_ENDS = new Map<string, RegExp>();

function rawTextEnd(name: string): RegExp {
  let re = RAW_TEXT_ENDS.get(name);
  if (!re) RAW_TEXT_ENDS.set(name, (re = new RegExp(`</${name}`, 'gi')));
  return re;
}

/**
 * The index just past the `>` that ends the tag whose attributes start at `from`. As the HTML
 * tokenizer does, a quote delimits a value only right after `=`; elsewhere it is an ordinary character.
 */
function tagEnd(html: string, from: number): number {
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (c === 62 /* > */) return i + 1;
    if (c !== 61 /* = */) continue;
    let v = i + 1;
    while (v < html.length && isSpace(html.charCodeAt(v))) v++;
    const q = html.charCodeAt(v);
    if (q === 34 || q === 39) {
      const close = html.indexOf(q === 34 ? '"' : "'", v + 1);
      if (close < 0) return html.length;
      i = close;
    } else {
      i = v - 1;
    }
  }
  return html.length;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
}

import { SaxesParser } from 'saxes';
import { GroundworkError } from '../errors.js';
import { nestingExceeded, parseLimits } from '../limits.js';

/**
 * A small element tree for the EPUB package files (container.xml, the OPF, toc.ncx): a few KB each,
 * so a tree is simpler than streaming. Names are local (prefix dropped: `dc:title` -> `title`),
 * which is how EPUB readers match them whatever prefix a producer declared.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text and its descendants' text, in order. */
  text: string;
}

const XHTML_ENTITIES: Record<string, string> = { nbsp: '\u00a0', copy: '©', reg: '®', mdash: '—', ndash: '–', hellip: '…', rsquo: '’', lsquo: '‘', rdquo: '”', ldquo: '“' };

export function parseXml(xml: string, what: string): XmlElement {
  const parser = new SaxesParser({ xmlns: false });
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const maxNesting = parseLimits().maxNesting;
  parser.on('opentag', (tag) => {
    if (stack.length > maxNesting) nestingExceeded(`XML elements of ${what}`, maxNesting);
    const attributes: Record<string, string> = {};
    for (const [key, value] of Object.entries(tag.attributes)) attributes[localName(key)] = value;
    const element: XmlElement = { name: localName(tag.name), attributes, children: [], text: '' };
    stack[stack.length - 1]!.children.push(element);
    stack.push(element);
  });
  parser.on('closetag', () => {
    const closed = stack.pop()!;
    stack[stack.length - 1]!.text += closed.text;
  });
  const addText = (text: string): void => {
    stack[stack.length - 1]!.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  // XHTML-style named entities (&nbsp;) appear in hand-made package files; keep the reference's text.
  Object.assign(parser.ENTITIES, XHTML_ENTITIES);
  try {
    parser.write(xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml).close();
  } catch (error) {
    if (error instanceof GroundworkError) throw error;
    throw new GroundworkError('CORRUPT', `${what} is not well-formed XML: ${(error as Error).message}`, { cause: error });
  }
  return root;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** Every descendant element with that local name, in document order. */
export function findAll(element: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const child of element.children) {
    if (child.name === name) out.push(child);
    findAll(child, name, out);
  }
  return out;
}

export function findFirst(element: XmlElement, name: string): XmlElement | undefined {
  for (const child of element.children) {
    if (child.name === name) return child;
    const deeper = findFirst(child, name);
    if (deeper) return deeper;
  }
  return undefined;
}

export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((child) => child.name === name);
}

import { TEXT_NODE, type XmlAttributes, type XmlNode } from '../xml.js';

/**
 * Builds the element tree of one element out of a SAX stream, so a streaming walker (the DOCX
 * body, a slide) can hand an equation to a converter as a tree. Feed it the events from the
 * element's own open tag on; `close` says when that element has closed.
 */
export class SubtreeCapture {
  readonly root: XmlNode;
  private readonly stack: XmlNode[];

  constructor(name: string, attributes: XmlAttributes) {
    this.root = { name, attributes, children: [], text: '' };
    this.stack = [this.root];
  }

  open(name: string, attributes: XmlAttributes): void {
    const node: XmlNode = { name, attributes, children: [], text: '' };
    this.stack[this.stack.length - 1]!.children.push(node);
    this.stack.push(node);
  }

  /** True when the captured element itself has closed. */
  close(): boolean {
    this.stack.pop();
    return this.stack.length === 0;
  }

  text(text: string): void {
    const parent = this.stack[this.stack.length - 1];
    if (!parent) return;
    parent.text += text;
    parent.children.push({ name: TEXT_NODE, attributes: {}, children: [], text });
  }
}

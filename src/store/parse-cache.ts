import { gunzipSync, gzipSync } from 'node:zlib';
import type { Document, Element } from '../document/types.js';

/**
 * The parse cache's encoding, shared by every store: a Document as gzip-compressed JSON.
 *
 * Encoded in pieces, never as one JSON string: the canonical text is escaped and compressed a
 * slice at a time, and an element whose `text` is exactly its span of the canonical text
 * (`canonical.slice(start, end)`, a paragraph of a text file) is written with `"text": null`
 * (no entry of the old form has a null text). So encoding a
 * 100 MB text holds no second copy of it (the JSON.stringify of the whole Document held two: the
 * canonical text and the elements' texts) and the blob is smaller. The pieces are gzip members
 * one after another, which gunzip reads as one stream. Decoding gives the element texts back.
 * Entries written before (whole JSON, every text present) decode the same way.
 */

/** Characters of canonical text (or of element JSON) per compressed piece. */
const PIECE_CHARS = 1 << 20;

export function encodeParse(doc: Document): Buffer {
  const members: Buffer[] = [];
  let pending: string[] = [];
  let pendingChars = 0;
  const flush = () => {
    if (pendingChars === 0) return;
    members.push(gzipSync(pending.join(''), { level: 1 }));
    pending = [];
    pendingChars = 0;
  };
  const write = (text: string) => {
    pending.push(text);
    pendingChars += text.length;
    if (pendingChars >= PIECE_CHARS) flush();
  };
  writeDocument(doc, write);
  flush();
  return members.length === 1 ? members[0]! : Buffer.concat(members);
}

export function decodeParse(blob: Uint8Array): Document {
  const doc = JSON.parse(gunzipSync(blob).toString('utf8')) as Document;
  restoreTexts(doc);
  return doc;
}

function writeDocument(doc: Document, write: (text: string) => void): void {
  const { canonical, elements, children, ...rest } = doc;
  write('{');
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    write(`${JSON.stringify(key)}:${JSON.stringify(value)},`);
  }
  write('"elements":[');
  elements.forEach((el, i) => write(`${i > 0 ? ',' : ''}${JSON.stringify(compact(el, canonical))}`));
  write('],"canonical":"');
  for (let at = 0; at < canonical.length; at += PIECE_CHARS) {
    // A slice may end inside a surrogate pair: JSON.stringify escapes each half (\\udXXX), and
    // JSON.parse joins the two escapes back into the pair.
    write(JSON.stringify(canonical.slice(at, at + PIECE_CHARS)).slice(1, -1));
  }
  write('"');
  if (children !== undefined) {
    write(',"children":[');
    children.forEach((child, i) => {
      if (i > 0) write(',');
      writeDocument(child, write);
    });
    write(']');
  }
  write('}');
}

/** The element without its text when the text is its span of the canonical text. */
function compact(el: Element, canonical: string): Omit<Element, 'text'> & { text?: string | null } {
  if (typeof el.text !== 'string' || el.text === '' || el.end - el.start !== el.text.length || canonical.slice(el.start, el.end) !== el.text) return el;
  return { ...el, text: null };
}

function restoreTexts(doc: Document): void {
  for (const el of doc.elements) {
    if ((el as { text: string | null }).text === null) el.text = doc.canonical.slice(el.start, el.end);
  }
  for (const child of doc.children ?? []) restoreTexts(child);
}

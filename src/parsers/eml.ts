import PostalMime, { type Address, type Attachment as MailPart, type Email } from 'postal-mime';
import { detectEncoding, decodeAs } from '../detect/encoding.js';
import type { Attachment, DocumentDraft, ElementDraft } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { nestingExceeded, parseLimits } from '../limits.js';
import { plainTextElements } from './eml-text.js';
import { parseHtml } from './html.js';
import { withinStack } from './markdown.js';
import type { ParseInput, ParserDefinition } from './types.js';

/**
 * E-mail (RFC 822/MIME) with postal-mime: headers become metadata (from, to, cc, date, subject,
 * message id) and the title is the subject. The body is the text/plain part, or the HTML part
 * through the HTML walker when the message has no plain text. Every attachment, inline images and
 * attached messages (`message/rfc822`, delivery reports) included, is handed to parse() as a child
 * document. postal-mime decodes each part's declared charset (ISO-2022-JP, ks_c_5601-1987, ...).
 */
export const emlParser: ParserDefinition = {
  formats: ['eml'],
  version: '1',
  textual: true,
  async parse(input: ParseInput): Promise<DocumentDraft> {
    const email = await readEmail(input);
    if (!email.headers.some((h) => MAIL_HEADERS.has(h.key))) throw new GroundworkError('CORRUPT', 'is not an e-mail message: it has none of the headers a message has (From, To, Subject, Date, Content-Type...)');
    const metadata = mailMetadata(email);
    const warnings: string[] = [];
    const elements: ElementDraft[] = [];
    const subject = email.subject?.trim();
    if (subject) elements.push({ kind: 'heading', level: 1, text: subject });
    const envelope = envelopeText(metadata);
    if (envelope) elements.push({ kind: 'paragraph', text: envelope });
    const body = bodyElements(email, input.bytes);
    elements.push(...body.elements);
    if (body.warning) warnings.push(body.warning);
    const attachments = email.attachments.map(toAttachment);
    if (attachments.length > 0) metadata.attachments = attachments.map((a) => a.name);
    return {
      format: 'eml',
      mime: 'message/rfc822',
      ...(subject && { title: subject }),
      metadata,
      elements,
      warnings,
      ...(attachments.length > 0 && { attachments }),
    };
  },
};

/** Headers that only a message has; a file with none of them is not one. */
const MAIL_HEADERS = new Set(['from', 'to', 'cc', 'subject', 'date', 'message-id', 'content-type', 'mime-version', 'received', 'return-path', 'sender', 'reply-to']);

/**
 * postal-mime reads raw bytes and decodes each part by its declared charset. A message stored
 * whole as UTF-16 (headers too) is not MIME bytes: it is decoded first and handed over as text.
 */
async function readEmail(input: ParseInput): Promise<Email> {
  const encoding = input.encoding ?? detectEncoding(input.bytes);
  const raw = encoding.startsWith('utf-16') ? input.text ?? decodeAs(input.bytes, encoding) : input.bytes;
  // Attached messages stay attachments (child documents) instead of being inlined into the body.
  const maxNesting = parseLimits().maxNesting;
  try {
    return await PostalMime.parse(raw, { rfc822Attachments: true, forceRfc822Attachments: true, maxNestingDepth: maxNesting });
  } catch (error) {
    if (/nesting depth/i.test((error as Error).message)) nestingExceeded('MIME parts', maxNesting, error);
    throw error;
  }
}

function formatAddress(address: Address): string {
  if (address.group) return `${address.name}: ${address.group.map(formatAddress).join(', ')}`;
  return address.name ? `${address.name} <${address.address}>` : address.address ?? '';
}

function mailMetadata(email: Email): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (email.from) metadata.from = formatAddress(email.from);
  if (email.to?.length) metadata.to = email.to.map(formatAddress);
  if (email.cc?.length) metadata.cc = email.cc.map(formatAddress);
  if (email.replyTo?.length) metadata.replyTo = email.replyTo.map(formatAddress);
  if (email.date) metadata.date = email.date;
  if (email.subject) metadata.subject = email.subject;
  if (email.messageId) metadata.messageId = email.messageId;
  if (email.inReplyTo) metadata.inReplyTo = email.inReplyTo;
  return metadata;
}

/** The From/To/Cc/Date lines, so a chunk of the mail can say who wrote to whom and when. */
function envelopeText(metadata: Record<string, unknown>): string {
  const lines: string[] = [];
  const add = (label: string, value: unknown): void => {
    if (value === undefined) return;
    lines.push(`${label}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  };
  add('From', metadata.from);
  add('To', metadata.to);
  add('Cc', metadata.cc);
  add('Date', metadata.date);
  return lines.join('\n');
}

const TEXT_PLAIN = /content-type:\s*text\/plain/i;

/**
 * The plain-text body, unless the message has no text/plain part (postal-mime then derives `text`
 * from the HTML, losing its lists and tables), in which case the HTML is walked.
 */
function bodyElements(email: Email, bytes: Uint8Array): { elements: ElementDraft[]; warning?: string } {
  const hasPlainPart = email.text !== undefined && (email.html === undefined || TEXT_PLAIN.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')) || isUtf16(bytes));
  if (hasPlainPart && email.text!.trim()) return { elements: plainTextElements(email.text!) };
  if (email.html?.trim()) {
    const html = withinStack(() => parseHtml(email.html!, { mainContent: false }));
    return { elements: html.elements };
  }
  if (email.text?.trim()) return { elements: plainTextElements(email.text) };
  return { elements: [], warning: 'the message has no text or HTML body' };
}

/** A UTF-16 file does not show `Content-Type: text/plain` as Latin-1 bytes; its text part is trusted. */
function isUtf16(bytes: Uint8Array): boolean {
  return detectEncoding(bytes.subarray(0, 4096)).startsWith('utf-16');
}

const EXTENSION_BY_MIME: Record<string, string> = {
  'text/plain': 'txt',
  'text/html': 'html',
  'text/csv': 'csv',
  'text/markdown': 'md',
  'text/calendar': 'ics',
  'message/rfc822': 'eml',
  'message/global': 'eml',
  'message/delivery-status': 'txt',
  'message/disposition-notification': 'txt',
  'text/rfc822-headers': 'txt',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'application/zip': 'zip',
  'application/rtf': 'rtf',
  'application/epub+zip': 'epub',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/tiff': 'tif',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
};

/** Every part postal-mime reports as an attachment; unnamed parts are named from their type. */
function toAttachment(part: MailPart, index: number): Attachment {
  const content = part.content;
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content instanceof Uint8Array ? content : new Uint8Array(content);
  const name = part.filename?.trim() || `${part.mimeType.startsWith('message/rfc822') ? 'attached-message' : 'part'}-${index + 1}.${EXTENSION_BY_MIME[part.mimeType] ?? 'bin'}`;
  return { name, bytes };
}

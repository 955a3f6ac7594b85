import type { Format } from '../document/types.js';
import type { Detection } from './types.js';

/**
 * Which text format a decoded text is. Two shapes win over any text extension: WebVTT, and an e-mail
 * header block in a `.txt`. Otherwise the extension decides (`.json` is still told from JSON Lines
 * and AWS Transcribe output by content); without one, heuristics in this order: JSON/JSONL/Transcribe,
 * HTML, XML (as text), Markdown, CSV/TSV, and plain text last. A `.txt` that merely looks like
 * Markdown or JSON stays text: the name is the user's word, and text loses nothing.
 */
export interface Sniffed {
  format: Format;
  mime?: string;
  by: Detection['by'];
}

const HEAD_CHARS = 8192;

export function sniffText(text: string, extFormat: Format | undefined): Sniffed {
  const head = text.slice(0, HEAD_CHARS).replace(LEADING_SPACE, '');
  if (isWebVtt(head)) return { format: 'vtt', by: 'sniff' };
  if (isEmail(head) && (extFormat === undefined || extFormat === 'text' || extFormat === 'eml')) return { format: 'eml', by: 'sniff' };
  const jsonNamed = extFormat === 'json' || extFormat === 'jsonl';
  const first = head.charCodeAt(0);
  if ((extFormat === undefined || jsonNamed) && (first === 0x7b /* { */ || first === 0x5b) /* [ */) {
    const json = sniffJson(text, head, extFormat);
    if (json) return json;
  }
  if (extFormat) return { format: extFormat, by: 'extension' };
  if (isHtmlDocument(head)) return { format: 'html', by: 'sniff' };
  if (XML_PROLOG.test(head)) return { format: 'text', mime: 'application/xml', by: 'sniff' };
  if (looksLikeHtml(head)) return { format: 'html', by: 'sniff' };
  if (looksLikeMarkdown(head)) return { format: 'markdown', by: 'sniff' };
  const delimited = sniffDelimited(head);
  if (delimited) return { format: delimited, by: 'sniff' };
  return { format: 'text', by: 'sniff' };
}

const LEADING_SPACE = /^[\uFEFF\s]+/;
const XML_PROLOG = /^<\?xml\s/i;

function isWebVtt(head: string): boolean {
  return head.startsWith('WEBVTT') && (head.length === 6 || /[ \t\n]/.test(head[6]!));
}

const MAIL_HEADER_LINE = /^([A-Za-z][A-Za-z0-9-]*):[ \t]*\S?/;
/** Headers that only mail has; Subject/Date/To alone also open memos and front matter. */
const MAIL_ONLY = new Set(['from', 'received', 'mime-version', 'message-id', 'return-path', 'delivered-to', 'x-mailer', 'in-reply-to', 'references', 'dkim-signature', 'x-originating-ip', 'content-transfer-encoding']);
const MAIL_KNOWN = new Set([...MAIL_ONLY, 'to', 'cc', 'bcc', 'subject', 'date', 'reply-to', 'sender', 'content-type', 'thread-topic', 'thread-index', 'x-ms-has-attach', 'importance', 'organization', 'user-agent']);

/**
 * The text opens with an RFC 5322 header block (an mbox `From ` line may precede it): every line up
 * to the first blank line is a `Name: value` header or a folded continuation, at least three are
 * known mail headers, and one of them is mail-only (From, Received, MIME-Version, Message-ID...).
 */
export function isEmail(head: string): boolean {
  let known = 0;
  let mailOnly = 0;
  let headers = 0;
  let start = head.startsWith('From ') ? head.indexOf('\n') + 1 : 0;
  if (start === 0 && head.startsWith('From ')) return false;
  while (start < head.length) {
    let end = head.indexOf('\n', start);
    if (end < 0) end = head.length;
    const line = head.slice(start, end);
    start = end + 1;
    if (line.trim() === '') break;
    if ((line[0] === ' ' || line[0] === '\t') && headers > 0) continue;
    const match = MAIL_HEADER_LINE.exec(line);
    if (!match) return false;
    headers++;
    const name = match[1]!.toLowerCase();
    if (MAIL_KNOWN.has(name) || name.startsWith('x-')) known++;
    if (MAIL_ONLY.has(name)) mailOnly++;
  }
  return known >= 3 && mailOnly >= 1;
}

const TRANSCRIBE_HINT = /"results"\s*:\s*\{\s*"(transcripts|items|speaker_labels|channel_labels|language_code|audio_segments)"/;

/**
 * AWS Transcribe output (`jobName` with `results.transcripts`) is a transcript; otherwise JSON Lines
 * when the first line is a whole JSON value and the next non-blank line opens another; otherwise
 * JSON. Without a .json/.jsonl name the text must really parse, so prose that opens with `[1]` stays text.
 */
function sniffJson(text: string, head: string, extFormat: Format | undefined): Sniffed | undefined {
  if (head.startsWith('{') && TRANSCRIBE_HINT.test(head) && /"jobName"\s*:|"transcripts"\s*:\s*\[/.test(head)) {
    return { format: 'transcribe', by: 'sniff' };
  }
  const named = extFormat === 'json' || extFormat === 'jsonl';
  const by: Detection['by'] = named ? 'extension' : 'sniff';
  const lines = firstNonBlankLines(text, 3);
  const openers = lines.filter((l) => l.startsWith('{') || l.startsWith('[')).length;
  if (lines.length >= 2 && openers === lines.length && parses(lines[0]!)) return { format: 'jsonl', by: extFormat === 'jsonl' ? 'extension' : 'sniff' };
  if (extFormat === 'jsonl') return { format: 'jsonl', by: 'extension' };
  if (named || parses(text)) return { format: 'json', by };
  return undefined;
}

function firstNonBlankLines(text: string, count: number): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length && lines.length < count) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    if (line) lines.push(line);
    start = end + 1;
  }
  return lines;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const HTML_OPENING = /^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!doctype\s+html|<html[\s>])/i;

/** A document that declares itself HTML: `<!doctype html>` or `<html>` first (after an XML prolog or comments). */
function isHtmlDocument(head: string): boolean {
  return HTML_OPENING.test(head);
}

const HTML_TAG = /<(head|body|div|p|span|table|tr|td|ul|ol|li|h[1-6]|a|meta|title|br|script|style|link|section|article|nav)[\s>/]/gi;

/** Starts with a tag and uses at least four distinct HTML element names in the first 8 KB. */
function looksLikeHtml(head: string): boolean {
  if (!head.startsWith('<')) return false;
  const names = new Set<string>();
  for (const match of head.matchAll(HTML_TAG)) {
    names.add(match[1]!.toLowerCase());
    if (names.size >= 4) return true;
  }
  return false;
}

const MD_HEADING = /^#{1,6}[ \t]+\S/gm;
const MD_FENCE = /^[ \t]{0,3}(```|~~~)/gm;
const MD_TABLE_RULE = /^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$/gm;
const MD_LIST = /^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\S/gm;
const MD_LINK = /\[[^\]\n]+\]\([^)\s]+\)/g;
const MD_QUOTE = /^>[ \t]?\S/gm;

function count(re: RegExp, text: string): number {
  re.lastIndex = 0;
  let n = 0;
  while (re.exec(text)) n++;
  return n;
}

/** Markdown's block markers, weighted; a plain bulleted list alone is not enough. */
function looksLikeMarkdown(head: string): boolean {
  const headings = count(MD_HEADING, head);
  const fences = count(MD_FENCE, head);
  const tableRules = count(MD_TABLE_RULE, head);
  const links = count(MD_LINK, head);
  const score = 2 * headings + 2 * fences + 3 * tableRules + count(MD_LIST, head) + links + count(MD_QUOTE, head);
  return score >= 4 && (headings >= 1 || fences >= 2 || tableRules >= 1 || links >= 2);
}

/**
 * CSV/TSV: on at least three of the first lines (quoted fields skipped), one delimiter occurs the same
 * non-zero number of times on nine lines in ten.
 */
function sniffDelimited(head: string): 'csv' | 'tsv' | undefined {
  const lines = firstNonBlankLines(head.slice(0, head.lastIndexOf('\n') > 0 ? head.lastIndexOf('\n') : head.length), 20);
  if (lines.length < 3) return undefined;
  const delimiter = sniffDelimiter(lines);
  if (!delimiter) return undefined;
  return delimiter.char === '\t' ? 'tsv' : 'csv';
}

export interface SniffedDelimiter {
  char: string;
  /** Fields per line, by the most common count. */
  fields: number;
  /** Share of sampled lines with exactly that count. */
  consistency: number;
}

const DELIMITERS = [',', ';', '\t', '|'] as const;

/** The delimiter with the most consistent non-zero count per line (ties: the order above). */
export function sniffDelimiter(lines: readonly string[], minConsistency = 0.9): SniffedDelimiter | undefined {
  let best: SniffedDelimiter | undefined;
  for (const char of DELIMITERS) {
    const counts = lines.map((line) => countOutsideQuotes(line, char));
    const tally = new Map<number, number>();
    for (const c of counts) if (c > 0) tally.set(c, (tally.get(c) ?? 0) + 1);
    let mode = 0;
    let modeLines = 0;
    for (const [c, n] of tally) if (n > modeLines || (n === modeLines && c > mode)) [mode, modeLines] = [c, n];
    if (mode === 0) continue;
    const consistency = modeLines / lines.length;
    if (consistency < minConsistency) continue;
    if (!best || consistency > best.consistency || (consistency === best.consistency && mode + 1 > best.fields)) {
      best = { char, fields: mode + 1, consistency };
    }
  }
  return best;
}

function countOutsideQuotes(line: string, char: string): number {
  let n = 0;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === char && !quoted) n++;
  }
  return n;
}

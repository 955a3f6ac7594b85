import type { Token, Tokens } from 'marked';
import type { DocumentDraft, ElementDraft, TableCell, TableData } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { engineLimitError, nestingExceeded, parseLimits } from '../limits.js';
import type { ParseInput, ParserDefinition } from './types.js';
import { parseHtmlDocument } from './html-dom.js';
import { lexMarkdown } from './markdown-lexer.js';
import { joinBlockTexts, tableText, walkHtml } from './html-walk.js';

/**
 * Markdown parser on marked's lexer (GFM; its block quotes and emphasis-heavy runs read in linear
 * time, see markdown-lexer.ts). One lexer pass over the whole document; every element
 * keeps `sourceStart`/`sourceEnd` into the LF-normalised input. Top-level tokens are exact: their
 * `raw`s concatenate to the source. Blocks nested in list items are lexed by marked from dedented
 * text, so they are located in the source by their first line, searching forward from the previous
 * one (linear overall) and spanning as many lines as their `raw` has.
 *
 * Text rules: inline markup is rendered to plain text; links keep only their text (the URL is noise
 * for retrieval); images inside text keep their alt text, a paragraph of only images becomes image
 * elements; soft line breaks become spaces (none between CJK characters), hard breaks newlines;
 * task items start with `[x] ` or `[ ] `; thematic breaks and link definitions are dropped; HTML
 * blocks are read with the HTML parser's walker (so an HTML list stays a list); YAML front matter
 * becomes metadata.
 */

export interface MarkdownResult {
  elements: ElementDraft[];
  title?: string;
  /** From front matter `lang` or `language`. */
  language?: string;
  metadata: Record<string, unknown>;
}

export const markdownParser: ParserDefinition = {
  formats: ['markdown'],
  version: '1',
  textual: true,
  parse(input: ParseInput): DocumentDraft {
    const text = input.text ?? new TextDecoder('utf-8').decode(input.bytes);
    const result = withinStack(() => parseMarkdown(text));
    return {
      format: 'markdown',
      mime: 'text/markdown',
      ...(result.title !== undefined && { title: result.title }),
      ...(result.language !== undefined && { language: result.language }),
      metadata: result.metadata,
      elements: result.elements,
    };
  },
};

/**
 * Runs a parse, turning stack exhaustion (marked recurses once per level of nested quotes/lists)
 * into LIMIT_EXCEEDED naming maxNesting instead of an opaque crash message. The nesting checks
 * before parsing (`checkMarkdownNesting`, the HTML depth bound) make this a last resort.
 */
export function withinStack<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw engineLimitError(error) ?? error;
  }
}

const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

/**
 * The deepest nesting of block quotes and lists in `source`, by one pass over its lines: `>`
 * markers count one level each; list items nest by indentation, tracked with a stack of the
 * indentation of the open items (an item pops the items indented as far or further). It errs on
 * the deep side, never the shallow one. Throws LIMIT_EXCEEDED past `maxNesting`: marked recurses
 * per level, and its cost on nested lists grows much faster than their size.
 */
export function checkMarkdownNesting(source: string, maxNesting = parseLimits().maxNesting): void {
  const items: number[] = [];
  let previousBlank = true;
  for (let start = 0; start < source.length; ) {
    let end = source.indexOf('\n', start);
    if (end < 0) end = source.length;
    let i = start;
    let quotes = 0;
    let column = 0;
    let markers = 0;
    for (;;) {
      while (i < end && (source.charCodeAt(i) === 32 || source.charCodeAt(i) === 9)) {
        column += source.charCodeAt(i) === 9 ? 4 - (column % 4) : 1;
        i++;
      }
      if (i < end && source.charCodeAt(i) === 62 /* > */) {
        quotes++;
        i++;
        column++;
        continue;
      }
      const marker = LIST_MARKER.exec(source.slice(i, Math.min(end, i + 12)));
      if (!marker) break;
      markers++;
      const at = column;
      while (items.length > 0 && items[items.length - 1]! >= at) items.pop();
      items.push(at);
      i += marker[0].length;
      column += marker[0].length;
    }
    const blank = i >= end;
    // An unindented line after a blank one that is no list item ends every open list.
    if (!blank && markers === 0 && column === 0 && quotes === 0 && previousBlank) items.length = 0;
    const depth = quotes + items.length;
    if (depth > maxNesting) nestingExceeded('Markdown block quotes and lists', maxNesting);
    previousBlank = blank;
    start = end + 1;
  }
}

const CRLF = /\r\n?/g;
const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

/** The text offsets refer to: BOM dropped, CRLF and CR turned into LF. */
export function normaliseMarkdownSource(text: string): string {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return noBom.includes('\r') ? noBom.replace(CRLF, '\n') : noBom;
}

/** `lex` is the tokenizer (tests compare lexMarkdown with marked's own lexer through it). */
export function parseMarkdown(text: string, lex: (src: string) => Token[] = lexMarkdown): MarkdownResult {
  const source = normaliseMarkdownSource(text);
  checkMarkdownNesting(source);
  const frontMatter = FRONT_MATTER.exec(source);
  const metadata = frontMatter ? parseFrontMatter(frontMatter[1]!) : {};
  const base = frontMatter ? frontMatter[0].length : 0;
  const tokens = lex(base > 0 ? source.slice(base) : source);
  const emitter = new Emitter(source);
  let offset = base;
  for (const token of tokens) {
    emitter.block(token, offset, offset + token.raw.length, 0);
    offset += token.raw.length;
  }
  const elements = emitter.elements;
  const title = (typeof metadata.title === 'string' && metadata.title) || elements.find((el) => el.kind === 'heading' && el.level === 1)?.text;
  const language = [metadata.lang, metadata.language].find((v): v is string => typeof v === 'string' && v !== '');
  return { elements, ...(title && { title }), ...(language && { language }), metadata };
}

/** Emits elements for block tokens; `start`/`end` bound the token in the normalised source. */
class Emitter {
  readonly elements: ElementDraft[] = [];
  private readonly source: string;

  constructor(source: string) {
    this.source = source;
  }

  block(token: Token, start: number, end: number, listDepth: number): void {
    const span = { sourceStart: start, sourceEnd: trimmedEnd(this.source, start, end) };
    switch (token.type) {
      case 'heading':
        this.push({ kind: 'heading', level: token.depth, text: inlineText(token.tokens ?? []), ...span });
        return;
      case 'paragraph':
      case 'text':
        this.paragraph(token as Tokens.Paragraph | Tokens.Text, span);
        return;
      case 'code': {
        const language = (token.lang ?? '').trim().split(/\s+/)[0]?.replace(/^\{\.?|\}$/g, '');
        this.push({ kind: 'code', text: token.text.replace(TRAILING_NEWLINES, ''), ...(language && { language }), ...span });
        return;
      }
      case 'table':
        this.table(token as Tokens.Table, span);
        return;
      case 'blockquote': {
        const inner = new Emitter(this.source);
        for (const child of token.tokens ?? []) inner.block(child, start, end, 0);
        this.push({ kind: 'quote', text: joinBlockTexts(inner.elements), ...span });
        return;
      }
      case 'list':
        this.list(token as Tokens.List, start, end, listDepth);
        return;
      case 'html':
        this.html(token.text, span);
        return;
      default:
        // space, hr, def (link definitions), checkbox: nothing to keep.
        return;
    }
  }

  private push(el: ElementDraft): void {
    if (el.text || el.kind === 'image' || el.kind === 'table') this.elements.push(el);
  }

  private paragraph(token: Tokens.Paragraph | Tokens.Text, span: SourceSpan): void {
    const tokens = token.tokens ?? [];
    const images = onlyImages(tokens);
    if (images) {
      for (const image of images) if (image.text) this.push({ kind: 'image', text: '', alt: plain(image.text), ...span });
      return;
    }
    this.push({ kind: 'paragraph', text: tokens.length > 0 ? inlineText(tokens) : plain(token.text), ...span });
  }

  private table(token: Tokens.Table, span: SourceSpan): void {
    const cell = (c: Tokens.TableCell): TableCell => ({ text: inlineText(c.tokens).replace(/\n/g, ' ') });
    const table: TableData = { rows: [token.header.map(cell), ...token.rows.map((row) => row.map(cell))], headerRows: 1 };
    this.push({ kind: 'table', text: tableText(table), table, ...span });
  }

  private list(token: Tokens.List, start: number, end: number, depth: number): void {
    const first = typeof token.start === 'number' ? token.start : 1;
    let cursor = start;
    token.items.forEach((item, i) => {
      const located = locate(this.source, item.raw, cursor, end);
      cursor = located.end;
      this.listItem(item, located, depth, token.ordered, first + i);
    });
  }

  /**
   * One list item: its leading text is the item's element; nested blocks (sub-lists, code, tables)
   * follow as their own elements; text after a nested block continues the item under the same number.
   */
  private listItem(item: Tokens.ListItem, at: SourceSpan, depth: number, ordered: boolean, number: number): void {
    const lines: string[] = [];
    let textStart = at.sourceStart;
    let textEnd = at.sourceStart;
    let cursor = at.sourceStart;
    let emitted = false;
    const flush = (): void => {
      const text = lines.join('\n').trim();
      lines.length = 0;
      if (text) {
        emitted = true;
        this.push({ kind: 'list-item', text, depth, ordered, ...(ordered && { number }), sourceStart: textStart, sourceEnd: textEnd });
      }
    };
    let prefix = '';
    for (const child of item.tokens) {
      if (child.type === 'checkbox') {
        prefix = (child as Tokens.Checkbox).checked ? '[x] ' : '[ ] ';
        continue;
      }
      if (child.type === 'space') continue;
      const located = locate(this.source, child.raw, cursor, at.sourceEnd);
      cursor = located.end;
      if (child.type === 'text' || child.type === 'paragraph') {
        // The item's first text starts at its marker; text after a nested block starts where it is.
        if (lines.length === 0) textStart = emitted ? located.sourceStart : at.sourceStart;
        const tokens = (child as Tokens.Text).tokens;
        lines.push(prefix + (tokens && tokens.length > 0 ? inlineText(tokens) : plain(child.text ?? '')));
        prefix = '';
        textEnd = located.sourceEnd;
        continue;
      }
      flush();
      this.block(child, located.sourceStart, located.end, depth + 1);
    }
    if (prefix) lines.push(prefix.trim());
    if (lines.length > 0 && textEnd === at.sourceStart) textEnd = at.sourceEnd;
    flush();
  }

  private html(html: string, span: SourceSpan): void {
    if (ONLY_COMMENTS.test(html)) return;
    const document = parseHtmlDocument(html);
    const root = document.documentElement;
    if (!root) return;
    for (const el of walkHtml(root, { dropBoilerplate: false })) this.push({ ...el, ...span });
  }
}

interface SourceSpan {
  sourceStart: number;
  sourceEnd: number;
}

const TRAILING_NEWLINES = /\n+$/;
const ONLY_COMMENTS = /^\s*(?:<!--[\s\S]*?-->\s*)+$/;

/** End of [start, end) with trailing whitespace excluded. */
function trimmedEnd(source: string, start: number, end: number): number {
  let e = end;
  while (e > start && isSpace(source.charCodeAt(e - 1))) e--;
  return e;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13;
}

/**
 * Where a nested token's (dedented) raw sits in the source, searching [from, limit): its first
 * non-blank line, trimmed, found by indexOf; its end after as many lines as the raw has. Falls back
 * to the whole bound when the line is not found (never expected, but offsets must stay in range).
 */
function locate(source: string, raw: string, from: number, limit: number): SourceSpan & { end: number } {
  const body = raw.trimEnd();
  const leading = leadingBlankLines(body);
  const firstBreak = body.indexOf('\n', leading);
  const firstLine = body.slice(leading, firstBreak < 0 ? body.length : firstBreak).trim();
  const at = firstLine ? source.indexOf(firstLine, from) : -1;
  if (at < 0 || at >= limit) return { sourceStart: from, sourceEnd: trimmedEnd(source, from, limit), end: limit };
  let lineBreaks = 0;
  for (let i = leading; i < body.length; i++) if (body.charCodeAt(i) === 10) lineBreaks++;
  let end = at;
  for (let k = 0; k < lineBreaks; k++) {
    const next = source.indexOf('\n', end);
    if (next < 0 || next >= limit) break;
    end = next + 1;
  }
  const lineEnd = source.indexOf('\n', end);
  end = Math.min(lineEnd < 0 ? source.length : lineEnd, limit);
  return { sourceStart: at, sourceEnd: trimmedEnd(source, at, end), end };
}

/** Length of the blank lines at the start of `text`. */
function leadingBlankLines(text: string): number {
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) lineStart = i + 1;
    else if (code !== 32 && code !== 9 && code !== 13) break;
  }
  return lineStart;
}

/** The images of a paragraph made only of images (badges, figures), possibly wrapped in links. */
function onlyImages(tokens: readonly Token[]): Tokens.Image[] | undefined {
  const images: Tokens.Image[] = [];
  const visit = (list: readonly Token[]): boolean => {
    for (const t of list) {
      if (t.type === 'image') images.push(t as Tokens.Image);
      else if (t.type === 'link') {
        if (!visit((t as Tokens.Link).tokens)) return false;
      } else if (t.type === 'br' || (t.type === 'text' && !/\S/.test(t.raw))) continue;
      else return false;
    }
    return true;
  };
  return visit(tokens) && images.length > 0 ? images : undefined;
}

/** Marks a hard line break while inline text is assembled; soft breaks are plain '\n' until then. */
const HARD_BREAK = '\u2028';
const HARD_BREAKS = /\u2028/g;
const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\u3000-\\u303f\\uff00-\\uffef';
const SOFT_BREAK_BETWEEN_CJK = new RegExp(`(?<=[${CJK}])[ \\t]*\\n[ \\t]*(?=[${CJK}])`, 'gu');
const SOFT_BREAK = /[ \t]*\n[ \t]*/g;
const BR_TAG = /^<br\s*\/?>$/i;

/** Plain text of inline tokens. */
export function inlineText(tokens: readonly Token[]): string {
  const raw = inlineRaw(tokens);
  if (!raw.includes('\n') && !raw.includes(HARD_BREAK)) return raw.trim();
  return raw.replace(SOFT_BREAK_BETWEEN_CJK, '').replace(SOFT_BREAK, ' ').replace(HARD_BREAKS, '\n').trim();
}

function inlineRaw(tokens: readonly Token[]): string {
  let out = '';
  for (const t of tokens) {
    switch (t.type) {
      case 'text': {
        const nested = (t as Tokens.Text).tokens;
        out += nested && nested.length > 0 ? inlineRaw(nested) : decodeEntities(t.text);
        break;
      }
      case 'escape':
      case 'codespan':
        out += t.text;
        break;
      case 'strong':
      case 'em':
      case 'del':
      case 'link':
        out += inlineRaw((t as Tokens.Strong).tokens);
        break;
      case 'image':
        out += decodeEntities(t.text);
        break;
      case 'br':
        out += HARD_BREAK;
        break;
      case 'html':
        if (BR_TAG.test(t.raw.trim())) out += HARD_BREAK;
        break;
      case 'checkbox':
        out += (t as Tokens.Checkbox).checked ? '[x] ' : '[ ] ';
        break;
      default:
        // Extension tokens: their children, or their text.
        if ('tokens' in t && Array.isArray(t.tokens)) out += inlineRaw(t.tokens);
        else if ('text' in t && typeof t.text === 'string') out += t.text;
    }
  }
  return out;
}

function plain(text: string): string {
  return decodeEntities(text).replace(SOFT_BREAK, ' ').trim();
}

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™',
  hellip: '…', mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«',
  raquo: '»', middot: '·', bull: '•', times: '×', divide: '÷', deg: '°', plusmn: '±', para: '¶',
  sect: '§', euro: '€', pound: '£', yen: '¥', cent: '¢', larr: '←', rarr: '→', uarr: '↑', darr: '↓',
  harr: '↔', check: '✓', ensp: '\u2002', emsp: '\u2003', thinsp: '\u2009', zwj: '\u200d', zwnj: '\u200c',
  shy: '\u00ad', iexcl: '¡', iquest: '¿', frac12: '½', frac14: '¼', frac34: '¾', micro: 'µ', le: '≤', ge: '≥',
  ne: '≠', infin: '∞', sup2: '²', sup3: '³', auml: 'ä', ouml: 'ö', uuml: 'ü', Auml: 'Ä', Ouml: 'Ö',
  Uuml: 'Ü', szlig: 'ß', eacute: 'é', egrave: 'è', agrave: 'à', ccedil: 'ç',
};

/** Decodes numeric and common named character references (marked's lexer leaves them encoded). */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED_ENTITIES[name] ?? whole;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
  });
}

const YAML_KEY = /^([A-Za-z_][\w.-]*)\s*:\s*(.*)$/;
const YAML_ITEM = /^\s+-\s+(.*)$/;

/**
 * Front matter: the flat YAML subset documents use in practice (`key: value`, quoted strings,
 * `[a, b]` and `- item` lists, numbers, booleans). Nested maps are kept as their raw text.
 */
export function parseFrontMatter(yaml: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  let openKey: string | undefined;
  let nested: string[] = [];
  const close = (): void => {
    if (openKey !== undefined && nested.length > 0) metadata[openKey] = nested.join('\n');
    openKey = undefined;
    nested = [];
  };
  for (const line of yaml.split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const item = YAML_ITEM.exec(line);
    if (item && openKey !== undefined && nested.length === 0) {
      const list = Array.isArray(metadata[openKey]) ? (metadata[openKey] as unknown[]) : [];
      list.push(yamlScalar(item[1]!));
      metadata[openKey] = list;
      continue;
    }
    if (/^\s/.test(line) && openKey !== undefined) {
      nested.push(line.trim());
      continue;
    }
    close();
    const pair = YAML_KEY.exec(line);
    if (!pair) continue;
    const [, key, value] = pair;
    if (value!.trim() === '') openKey = key!;
    else metadata[key!] = yamlValue(value!.trim());
  }
  close();
  return metadata;
}

function yamlValue(value: string): unknown {
  if (value.startsWith('[') && value.endsWith(']')) {
    return value.slice(1, -1).split(',').map((v) => yamlScalar(v.trim())).filter((v) => v !== '');
  }
  return yamlScalar(value);
}

function yamlScalar(value: string): unknown {
  const quoted = value.trim();
  if (quoted.length >= 2 && (quoted[0] === '"' || quoted[0] === "'") && quoted.endsWith(quoted[0])) return quoted.slice(1, -1);
  const v = value.replace(/\s+#.*$/, '').trim();
  if (v === 'true' || v === 'false') return v === 'true';
  if (/^-?\d+(?:\.\d+)?$/.test(v)) return Number(v);
  return v;
}

import { Lexer, Tokenizer, type Tokens, type TokensList } from 'marked';
import { plainInline } from './markdown-inline.js';

/**
 * marked's lexer (GFM) with two of its steps replaced where they are superlinear:
 *
 * - Block quotes. marked lexes a quote's `>` lines, and when lazy continuation lines follow a nested
 *   quote it lexes that nested quote again with them; every level does the same, so a staircase of
 *   quotes 20 deep (`> > > a` / `> > b` / `> c`) took 24 s for 1.2 KB, doubling per level. Here a
 *   quote decides which lazy lines it takes from the last block before them (a paragraph, a list or
 *   a nested quote takes them; code, a heading, a rule, HTML or a table ends the quote, as in marked),
 *   strips one level of markers and lexes its content once: each level costs its own length.
 * - Emphasis. marked pairs each `*`/`_`/`~` opener by scanning the rest of its inline run, O(openers
 *   x length) with a large constant (20-100 s/MB on `_*~` runs even in 512-character pieces). An
 *   inline run with more than MAX_MARKED_DELIMITERS delimiter characters is read by the linear reader
 *   of markdown-inline.ts instead; every other run (nearly all real text) stays marked's.
 */

/** Inline runs with more `*`, `_` (not inside a word) or `~` characters than this skip marked's emphasis matching. */
export const MAX_MARKED_DELIMITERS = 64;

const QUOTE_MARKER = /^ {0,3}>/;
const ALL_MARKERS = /^(?: {0,3}> ?)+/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}#{1,6}(?:\s|$)/;
const RULE = /^ {0,3}(?:(?:-[\t ]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})$/;
const SETEXT = /^ {0,3}(?:=+|-+)[ \t]*$/;
const HTML_START = /^ {0,3}(?:<\/?[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|<!--|<\?|<![A-Za-z]|<!\[CDATA\[)/;
const TABLE_DELIMITER = /^ {0,3}\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$/;
const INDENTED = /^(?: {4}|\t)/;
const LIST_ITEM = /^ {0,3}(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/;
const ONE_MARKER = /^ {0,3}> ?/;
const MARKER_TAB = /^( {0,3}>)(\t[ \t]*)/;
const ONE_MARKER_SPACE = /^ {0,3}>[ \t]?/;
const LAZY_UNDERLINE = /^ {0,3}((?:=+|-+)[ \t]*)$/;
const LIST_MARKER_PREFIX = /^ {0,3}(?:[*+-]|\d{1,9}[.)])[ \t]+(?=\S)/;

type LastBlock = 'paragraph' | 'other' | 'blank' | 'ends-quote';

/** Tracks the innermost block of a quote's lines, to decide whether lazy lines continue it. */
class QuoteTracker {
  private fence: string | undefined;
  private last: LastBlock = 'blank';
  private table = false;
  /** Quote depth of the open paragraph (-1: none). Shallower text lines continue it lazily. */
  private paragraphDepth = -1;
  /** The open paragraph is a list item's: an unindented line after it is lazy, never an underline. */
  private paragraphInItem = false;
  /** The block the quote's own level (one marker stripped) ends with. */
  private own: 'blank' | 'quote' | 'list' | 'text' = 'blank';

  /** Takes one line of the quote (its markers included). */
  line(line: string): void {
    const own = line.replace(ONE_MARKER, '');
    if (own.trim() === '') this.own = 'blank';
    else if (QUOTE_MARKER.test(own)) this.own = 'quote';
    else if (LIST_ITEM.test(own)) this.own = 'list';
    // Text right after a nested quote's paragraph is that paragraph's lazy continuation.
    else if (!(this.own === 'quote' && this.last === 'paragraph') && this.own !== 'list') this.own = 'text';
    const markers = ALL_MARKERS.exec(line)?.[0] ?? '';
    // The innermost text: markers and a list item's marker stripped.
    const inner = line.slice(markers.length);
    const content = inner.replace(LIST_MARKER_PREFIX, '');
    const depth = markers.split('>').length - 1;
    if (this.fence !== undefined) {
      const close = FENCE.exec(content);
      if (close && close[1]![0] === this.fence[0] && close[1]!.length >= this.fence.length && content.trim() === close[1]) this.fence = undefined;
      this.last = 'ends-quote';
      return;
    }
    // The open paragraph goes on at its depth, or lazily from a shallower one; a deeper line or a
    // new list item opens new blocks (a `===` there underlines nothing).
    const open = this.paragraphDepth >= 0 && depth <= this.paragraphDepth && content === inner;
    const atParagraph = open && depth === this.paragraphDepth && (!this.paragraphInItem || /^\s{2,}/.test(inner));
    if (!open) this.table = false;
    if (content.trim() === '') {
      this.last = 'blank';
      this.table = false;
      this.paragraphDepth = -1;
      return;
    }
    const fence = FENCE.exec(content);
    if (fence) {
      this.fence = fence[1]!;
      this.last = 'ends-quote';
      this.paragraphDepth = -1;
      return;
    }
    if (this.table || (atParagraph && TABLE_DELIMITER.test(content) && content.includes('-'))) {
      this.table = true;
      this.last = 'ends-quote';
      this.paragraphDepth = -1;
      return;
    }
    if (ATX.test(content) || RULE.test(content) || (atParagraph && SETEXT.test(content)) || HTML_START.test(content) || (INDENTED.test(content) && !open)) {
      this.last = 'ends-quote';
      this.paragraphDepth = -1;
      return;
    }
    this.last = 'paragraph';
    if (!open) {
      this.paragraphDepth = depth;
      this.paragraphInItem = content !== inner;
    }
  }

  /** Whether lazy lines (without `>`) after the lines so far continue the quote. */
  takesLazyLines(): boolean {
    return this.last === 'paragraph';
  }

  /**
   * The block the quote's own level ends with. marked lexes a quote in parts where lazy lines
   * follow: after a paragraph the lazy lines open the next part (its opening paragraph merges into
   * the one before); a list takes the lazy lines and the next part starts after them; a nested
   * quote takes the lazy lines and what follows into itself (no part).
   */
  ownBlock(): 'blank' | 'quote' | 'list' | 'text' {
    return this.own;
  }
}

function trimTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return text.slice(0, end);
}

/** marked's expandTabs: tabs to the next multiple of 4 columns, counting from `indent`. */
function expandTabs(line: string, indent: number): string {
  let col = indent;
  let out = '';
  for (const char of line) {
    if (char === '\t') {
      const added = 4 - (col % 4);
      out += ' '.repeat(added);
      col += added;
    } else {
      out += char;
      col++;
    }
  }
  return out;
}

class LinearTokenizer extends Tokenizer {
  override blockquote(src: string): Tokens.Blockquote | undefined {
    const cap = this.rules.block.blockquote.exec(src);
    if (!cap) return undefined;
    const lines = trimTrailingNewlines(cap[0]).split('\n');
    const tracker = new QuoteTracker();
    const n = lines.length;
    // Lazy lines a nested quote or a list takes: marked lexes those blocks again with them as written.
    const asWritten = new Uint8Array(n);
    // Parts lexed apart (see ownBlock); each part's opening paragraph merges into the one before.
    const parts = [0];
    let taken = 0;
    while (taken < n && QUOTE_MARKER.test(lines[taken]!)) tracker.line(lines[taken++]!);
    while (taken < n && tracker.takesLazyLines()) {
      const own = tracker.ownBlock();
      const lazy = taken;
      while (taken < n && !QUOTE_MARKER.test(lines[taken]!)) taken++;
      if (own === 'text') parts.push(lazy);
      else {
        asWritten.fill(1, lazy, taken);
        if (own === 'list' && taken < n) parts.push(taken);
      }
      while (taken < n && QUOTE_MARKER.test(lines[taken]!)) tracker.line(lines[taken++]!);
    }
    parts.push(taken);
    const tokens: Tokens.Blockquote['tokens'] = [];
    const top = this.lexer.state.top;
    const texts: string[] = [];
    for (let p = 0; p + 1 < parts.length; p++) {
      const out: string[] = [];
      for (let k = parts[p]!; k < parts[p + 1]!; k++) {
        let line = lines[k]!;
        if (QUOTE_MARKER.test(line)) {
          // A tab after `>` runs to the next tab stop; the marker takes one column of it.
          const tab = MARKER_TAB.exec(line);
          if (tab) line = (tab[2]!.startsWith(' ') ? `${tab[1]} ${tab[2]!.slice(1)}` : tab[1]! + expandTabs(tab[2]!, tab[1]!.length)) + line.slice(tab[0].length);
          line = line.replace(ONE_MARKER_SPACE, '');
        } else if (!asWritten[k] && k > parts[p]! && LAZY_UNDERLINE.test(line)) {
          // A lazy `===` or `---` line is paragraph text, not a setext underline.
          line = line.replace(LAZY_UNDERLINE, '    $1');
        }
        out.push(line);
      }
      const text = out.join('\n');
      this.lexer.state.top = true;
      this.lexer.blockTokens(text, tokens, true);
      texts.push(text);
    }
    this.lexer.state.top = top;
    return { type: 'blockquote', raw: lines.slice(0, taken).join('\n'), tokens, text: texts.join('\n') };
  }
}

/** Delimiter characters marked would try to pair in `src` (an `_` between two letters or digits cannot open or close). */
export function delimiterCount(src: string): number {
  let count = 0;
  for (let i = src.indexOf('*'); i >= 0; i = src.indexOf('*', i + 1)) count++;
  for (let i = src.indexOf('~'); i >= 0; i = src.indexOf('~', i + 1)) count++;
  for (let i = src.indexOf('_'); i >= 0; i = src.indexOf('_', i + 1)) {
    if (!(isWordChar(src.charCodeAt(i - 1)) && isWordChar(src.charCodeAt(i + 1)))) count++;
  }
  return count;
}

function isWordChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code > 0x7f;
}

/**
 * Tokens of a Markdown source, as `new Lexer({ gfm: true }).lex(src)` gives them except where the
 * module comment says. A run read by the linear reader becomes one `plain` token whose `text` is
 * its plain text (hard breaks as U+2028, as the Markdown parser's inline rendering marks them).
 */
export function lexMarkdown(src: string): TokensList {
  const lexer = new Lexer({ gfm: true, tokenizer: new LinearTokenizer() });
  const source = src.includes('\r') ? src.replace(/\r\n|\r/g, '\n') : src;
  lexer.blockTokens(source, lexer.tokens);
  const links = lexer.tokens.links;
  for (const next of lexer.inlineQueue) {
    // As marked's lex(): an inline <pre> left open ends with the block holding it.
    lexer.state.inRawBlock = false;
    if (delimiterCount(next.src) > MAX_MARKED_DELIMITERS) next.tokens.push(plainToken(next.src, plainInline(next.src, links)));
    else lexer.inlineTokens(next.src, next.tokens);
  }
  lexer.inlineQueue = [];
  return lexer.tokens;
}

function plainToken(raw: string, text: string): Tokens.Generic {
  return { type: 'plain', raw, text };
}

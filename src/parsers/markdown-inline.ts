import { decodeEntities } from './markdown.js';

/**
 * A linear reader of one Markdown inline run into the plain text the Markdown parser makes of
 * marked's inline tokens: emphasis and strikethrough markers that pair are dropped (CommonMark's
 * delimiter-stack algorithm with its "openers bottom" bounds, so pairing is linear), code spans keep
 * their text, links their text, images their alt text, raw HTML is dropped (`<br>` is a hard break),
 * backslash escapes and entities are decoded. lexMarkdown uses it for runs whose number of
 * delimiters would make marked's pairing slow; the differential test checks it against marked.
 */

/** Hard line break marker (the Markdown parser's inline rendering turns it into '\n'). */
export const HARD_BREAK = '\u2028';

/** Longest link destination or title searched for (longer ones are read as text). */
const MAX_LINK_PART = 2048;
const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;
const PUNCTUATION = /[\p{P}\p{S}]/u;
const WHITESPACE = /\s/;
const AUTOLINK = /^<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/;
const EMAIL_AUTOLINK = /^<([A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>/;
const OPEN_TAG = /^<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>$/;
const CLOSE_TAG = /^<\/[A-Za-z][A-Za-z0-9-]*\s*>$/;
const BR_TAG = /^<br\s*\/?>$/i;

export interface LinkDefinitions {
  [label: string]: { href: string | null; title?: string | null } | undefined;
}

interface Delimiter {
  /** Increasing in source order. */
  id: number;
  char: number;
  /** Characters of the run still unpaired. */
  count: number;
  length: number;
  canOpen: boolean;
  canClose: boolean;
  /** Index of the run's piece in the output. */
  piece: number;
  prev: Delimiter | undefined;
  next: Delimiter | undefined;
}

interface Bracket {
  /** Index of the `[` (or `![`) piece. */
  piece: number;
  /** Source position just after the `[`. */
  textStart: number;
  image: boolean;
  active: boolean;
  /** The last delimiter before the bracket (the bottom of the link text's emphasis). */
  delimiter: Delimiter | undefined;
}

const STAR = 42;
/** Characters that end a plain run: \ ` * _ ~ ! [ ] < & and the line break. */
const SPECIAL = new Uint8Array(128);
for (const ch of '\\`*_~![]<&\nfhw') SPECIAL[ch.charCodeAt(0)] = 1;
/** marked's GFM autolink: a scheme or www., then no space or `<`; trailing punctuation is given back. */
const URL_START = /(?:(?:ftp|https?):\/\/|www\.)(?:[a-zA-Z0-9-]+\.?)+[^\s<]*/y;
const URL_BACKPEDAL = /(?:[^?!.,:;*_'"~()&]+|\([^)]*\)|&(?![a-zA-Z0-9]+;$)|[?!.,:;*_'"~)]+(?!$))+/;
const UNDERSCORE = 95;
const TILDE = 126;

function isWhitespace(s: string, i: number): boolean {
  return i < 0 || i >= s.length || WHITESPACE.test(s[i]!);
}

/** The code point before position i (surrogate pairs whole), '' at the start. */
function charBefore(s: string, i: number): string {
  if (i <= 0) return '';
  const low = s.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) return s.slice(i - 2, i);
  return s[i - 1]!;
}

function charAt(s: string, i: number): string {
  if (i >= s.length) return '';
  const high = s.charCodeAt(i);
  if (high >= 0xd800 && high <= 0xdbff && i + 1 < s.length) return s.slice(i, i + 2);
  return s[i]!;
}

function isPunctuation(ch: string): boolean {
  return ch !== '' && PUNCTUATION.test(ch);
}

/** Normalised reference label, as marked keys its link definitions. */
function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase().toUpperCase().toLowerCase();
}

class InlineReader {
  private readonly pieces: string[] = [];
  private text = '';
  private first: Delimiter | undefined;
  private last: Delimiter | undefined;
  private readonly brackets: Bracket[] = [];
  private delimiters = 0;
  /** Next position of each backtick run length at or after the scan (lazily filled). */
  private backtickRuns: Map<number, number[]> | undefined;
  private readonly backtickNext = new Map<number, number>();
  private nextGreater = -2;
  private nextLess = -2;

  constructor(
    private readonly src: string,
    private readonly links: LinkDefinitions,
  ) {}

  read(): string {
    const s = this.src;
    const n = s.length;
    let i = 0;
    // Plain characters are not copied one by one: a run of them is taken when a special one ends it.
    let plainFrom = 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (!SPECIAL[c]) {
        i++;
        continue;
      }
      // GFM autolinks (http://, https://, ftp://, www.) are text, their `_` and `\\` included.
      if (c === 0x66 || c === 0x68 || c === 0x77) {
        if (plainFrom < i) this.text += s.slice(plainFrom, i);
        plainFrom = i;
        const end = this.urlEnd(i);
        i = end < 0 ? i + 1 : end;
        if (end >= 0) plainFrom = i;
        continue;
      }
      if (plainFrom < i) this.text += s.slice(plainFrom, i);
      switch (c) {
        case 92: // backslash
          if (s.charCodeAt(i + 1) === 10 && i + 2 < n) {
            this.literal(HARD_BREAK);
            i = this.skipIndent(i + 2);
          } else if (i + 1 < n && ASCII_PUNCTUATION.test(s[i + 1]!)) {
            this.literal(s[i + 1]!);
            i += 2;
          } else {
            this.text += '\\';
            i++;
          }
          break;
        case 96: // backtick
          i = this.codeSpan(i);
          break;
        case STAR:
        case UNDERSCORE:
        case TILDE:
          i = this.delimiterRun(i, c);
          break;
        case 33: // !
          if (s.charCodeAt(i + 1) === 91) {
            this.openBracket(i + 2, true);
            i += 2;
          } else {
            this.text += '!';
            i++;
          }
          break;
        case 91: // [
          this.openBracket(i + 1, false);
          i++;
          break;
        case 93: // ]
          i = this.closeBracket(i);
          break;
        case 60: // <
          i = this.angle(i);
          break;
        case 10: // line break: hard when two or more spaces end the line
          i = this.lineBreak(i);
          break;
        default:
          // `&`: entities are decoded when the run is flushed.
          this.text += '&';
          i++;
      }
      plainFrom = i;
    }
    if (plainFrom < n) this.text += s.slice(plainFrom, n);
    this.flush();
    this.processEmphasis(undefined);
    let out = '';
    for (const piece of this.pieces) out += piece;
    return out;
  }

  // -- output ---------------------------------------------------------------------------------

  /** Ends the current text run (entities decoded). */
  private flush(): void {
    if (this.text) {
      this.pieces.push(decodeEntities(this.text));
      this.text = '';
    }
  }

  /** Text that is not decoded (escapes, code). */
  private literal(text: string): void {
    this.flush();
    this.pieces.push(text);
  }

  private lineBreak(i: number): number {
    let spaces = 0;
    while (spaces < this.text.length && this.text.charCodeAt(this.text.length - 1 - spaces) === 32) spaces++;
    if (spaces >= 2 && i + 1 < this.src.length) {
      this.text = this.text.slice(0, this.text.length - spaces);
      this.literal(HARD_BREAK);
      return this.skipIndent(i + 1);
    }
    this.text += '\n';
    return i + 1;
  }

  /** A hard break takes the next line's leading spaces with it. */
  private skipIndent(i: number): number {
    while (i < this.src.length && (this.src.charCodeAt(i) === 32 || this.src.charCodeAt(i) === 9)) i++;
    return i;
  }

  /** End of a GFM autolink starting at i (its text kept as text), or -1. */
  private urlEnd(i: number): number {
    URL_START.lastIndex = i;
    const m = URL_START.exec(this.src);
    if (!m) return -1;
    let url = m[0];
    for (let previous = ''; previous !== url; ) {
      previous = url;
      url = URL_BACKPEDAL.exec(url)?.[0] ?? '';
    }
    if (url === '') return -1;
    // Decoded on its own, as marked's link text is (an entity cannot run on past the link).
    this.literal(decodeEntities(url));
    return i + url.length;
  }

  // -- code spans -----------------------------------------------------------------------------

  private codeSpan(i: number): number {
    const s = this.src;
    let j = i;
    while (j < s.length && s.charCodeAt(j) === 96) j++;
    const length = j - i;
    const close = this.backtickRun(length, j);
    if (close < 0) {
      this.text += s.slice(i, j);
      return j;
    }
    let code = s.slice(j, close).replace(/\n/g, ' ');
    if (/[^ ]/.test(code) && code.startsWith(' ') && code.endsWith(' ')) code = code.slice(1, -1);
    this.literal(code);
    return close + length;
  }

  /** Start of the first backtick run of exactly `length` at or after `from`, or -1. */
  private backtickRun(length: number, from: number): number {
    if (!this.backtickRuns) {
      this.backtickRuns = new Map();
      const s = this.src;
      for (let k = s.indexOf('`'); k >= 0; ) {
        let e = k;
        while (e < s.length && s.charCodeAt(e) === 96) e++;
        let list = this.backtickRuns.get(e - k);
        if (!list) this.backtickRuns.set(e - k, (list = []));
        list.push(k);
        k = s.indexOf('`', e);
      }
    }
    const list = this.backtickRuns.get(length);
    if (!list) return -1;
    let at = this.backtickNext.get(length) ?? 0;
    while (at < list.length && list[at]! < from) at++;
    this.backtickNext.set(length, at);
    return at < list.length ? list[at]! : -1;
  }

  // -- emphasis -------------------------------------------------------------------------------

  private delimiterRun(i: number, c: number): number {
    const s = this.src;
    let j = i;
    while (j < s.length && s.charCodeAt(j) === c) j++;
    const before = charBefore(s, i);
    const after = charAt(s, j);
    const beforeSpace = before === '' || WHITESPACE.test(before);
    const afterSpace = after === '' || WHITESPACE.test(after);
    const beforePunct = isPunctuation(before);
    const afterPunct = isPunctuation(after);
    const leftFlanking = !afterSpace && (!afterPunct || beforeSpace || beforePunct);
    const rightFlanking = !beforeSpace && (!beforePunct || afterSpace || afterPunct);
    let canOpen = leftFlanking;
    let canClose = rightFlanking;
    if (c === UNDERSCORE) {
      canOpen = leftFlanking && (!rightFlanking || beforePunct);
      canClose = rightFlanking && (!leftFlanking || afterPunct);
    }
    // GFM strikethrough: one or two tildes.
    if (c === TILDE && j - i > 2) canOpen = canClose = false;
    this.flush();
    this.pieces.push(s.slice(i, j));
    if (canOpen || canClose) {
      const d: Delimiter = { id: this.delimiters++, char: c, count: j - i, length: j - i, canOpen, canClose, piece: this.pieces.length - 1, prev: this.last, next: undefined };
      if (this.last) this.last.next = d;
      else this.first = d;
      this.last = d;
    }
    return j;
  }

  private remove(d: Delimiter): void {
    if (d.prev) d.prev.next = d.next;
    else this.first = d.next;
    if (d.next) d.next.prev = d.prev;
    else this.last = d.prev;
  }

  /** CommonMark's process emphasis over the delimiters above `bottom`. */
  private processEmphasis(bottom: Delimiter | undefined): void {
    // openersBottom[char][closer can open][length % 3]: where the search for an opener stopped before.
    const openersBottom = new Map<string, number>();
    const bottomId = bottom ? bottom.id : -1;
    let current = bottom ? bottom.next : this.first;
    while (current) {
      if (!current.canClose) {
        current = current.next;
        continue;
      }
      const key = `${current.char}:${current.canOpen ? 1 : 0}:${current.length % 3}`;
      const floor = Math.max(bottomId, openersBottom.get(key) ?? -1);
      let opener = current.prev;
      let found: Delimiter | undefined;
      while (opener && opener.id > floor) {
        if (opener.char === current.char && opener.canOpen && opener.count > 0) {
          if (current.char === TILDE) {
            if (opener.count === current.count) {
              found = opener;
              break;
            }
          } else {
            const oddMatch = (current.canOpen || opener.canClose) && (opener.length + current.length) % 3 === 0 && !(opener.length % 3 === 0 && current.length % 3 === 0);
            if (!oddMatch) {
              found = opener;
              break;
            }
          }
        }
        opener = opener.prev;
      }
      if (!found) {
        // No opener at or below the one before this closer pairs with a closer of this kind.
        openersBottom.set(key, current.prev ? current.prev.id : -1);
        const next = current.next;
        if (!current.canOpen) this.remove(current);
        current = next;
        continue;
      }
      const use = current.char === TILDE ? current.count : current.count >= 2 && found.count >= 2 ? 2 : 1;
      found.count -= use;
      current.count -= use;
      this.pieces[found.piece] = String.fromCharCode(found.char).repeat(found.count);
      this.pieces[current.piece] = String.fromCharCode(current.char).repeat(current.count);
      // Delimiters between the pair can no longer pair with anything.
      for (let d = found.next; d && d !== current; d = d.next) this.remove(d);
      if (found.count === 0) this.remove(found);
      if (current.count === 0) {
        const next = current.next;
        this.remove(current);
        current = next;
      }
    }
    // Everything above the bottom is settled: unpaired runs stay as text.
    if (bottom) {
      bottom.next = undefined;
      this.last = bottom;
    } else {
      this.first = this.last = undefined;
    }
  }

  // -- links and images -----------------------------------------------------------------------

  private openBracket(textStart: number, image: boolean): void {
    this.flush();
    this.pieces.push(image ? '![' : '[');
    this.brackets.push({ piece: this.pieces.length - 1, textStart, image, active: true, delimiter: this.last });
  }

  private closeBracket(i: number): number {
    const opener = this.brackets.pop();
    if (!opener || !opener.active) {
      this.text += ']';
      return i + 1;
    }
    const end = this.linkEnd(i, opener.textStart);
    if (end < 0) {
      this.text += ']';
      return i + 1;
    }
    this.flush();
    if (opener.image) {
      // marked keeps an image's alt as written (markup and all), escaped brackets unescaped.
      const alt = decodeEntities(this.src.slice(opener.textStart, i).replace(/\\([[\]])/g, '$1'));
      this.pieces.length = opener.piece;
      this.pieces.push(alt);
      this.last = opener.delimiter;
      if (this.last) this.last.next = undefined;
      else this.first = undefined;
    } else {
      this.pieces[opener.piece] = '';
      this.processEmphasis(opener.delimiter);
      // No links inside links.
      for (const b of this.brackets) if (!b.image) b.active = false;
    }
    return end;
  }

  /** Where a link whose text ends at `close` (its `]`) ends in the source, or -1 when it is not a link. */
  private linkEnd(close: number, textStart: number): number {
    const s = this.src;
    if (s.charCodeAt(close + 1) === 40) {
      const end = this.inlineLinkEnd(close + 2);
      if (end >= 0) return end;
    }
    const label = s.slice(textStart, close);
    if (s.charCodeAt(close + 1) === 91) {
      const refEnd = s.indexOf(']', close + 2);
      if (refEnd >= 0 && refEnd - close < 1000) {
        const ref = s.slice(close + 2, refEnd);
        if (!ref.includes('[')) {
          const key = normalizeLabel(ref === '' ? label : ref);
          // A full reference whose label is not defined is no link, and no shortcut either.
          return key !== '' && this.links[key]?.href != null ? refEnd + 1 : -1;
        }
      }
    }
    const key = normalizeLabel(label);
    if (key !== '' && label.length < 1000 && this.links[key]?.href != null) return close + 1;
    return -1;
  }

  /** End (after `)`) of an inline link's `(destination "title")` starting at `p`, or -1. */
  private inlineLinkEnd(p: number): number {
    const s = this.src;
    const limit = Math.min(s.length, p + MAX_LINK_PART);
    const skipSpace = (k: number): number => {
      while (k < limit && (s.charCodeAt(k) === 32 || s.charCodeAt(k) === 9 || s.charCodeAt(k) === 10)) k++;
      return k;
    };
    let k = skipSpace(p);
    if (s.charCodeAt(k) === 60) {
      k++;
      while (k < limit && s.charCodeAt(k) !== 62) {
        const c = s.charCodeAt(k);
        if (c === 10 || c === 60) return -1;
        k += c === 92 ? 2 : 1;
      }
      if (k >= limit) return -1;
      k++;
    } else {
      let depth = 0;
      while (k < limit) {
        const c = s.charCodeAt(k);
        if (c === 92) {
          k += 2;
          continue;
        }
        if (c <= 32) break;
        if (c === 40) depth++;
        else if (c === 41) {
          if (depth === 0) break;
          depth--;
        }
        k++;
      }
      if (depth !== 0) return -1;
    }
    const afterDestination = k;
    k = skipSpace(k);
    const quote = s.charCodeAt(k);
    if ((quote === 34 || quote === 39 || quote === 40) && k > afterDestination) {
      const closing = quote === 40 ? 41 : quote;
      k++;
      while (k < limit && s.charCodeAt(k) !== closing) k += s.charCodeAt(k) === 92 ? 2 : 1;
      if (k >= limit) return -1;
      k = skipSpace(k + 1);
    }
    return s.charCodeAt(k) === 41 ? k + 1 : -1;
  }

  // -- autolinks and raw HTML -----------------------------------------------------------------

  private angle(i: number): number {
    const s = this.src;
    const gt = this.greaterAfter(i);
    if (gt < 0) {
      this.text += '<';
      return i + 1;
    }
    if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 4);
      if (end >= 0) {
        this.flush();
        return end + 3;
      }
    }
    // A tag holds no other `<`: the next `<` before the next `>` means this one is text.
    if (this.lessAfter(i) < gt || gt - i > MAX_LINK_PART) {
      this.text += '<';
      return i + 1;
    }
    const candidate = s.slice(i, gt + 1);
    const autolink = AUTOLINK.exec(candidate) ?? EMAIL_AUTOLINK.exec(candidate);
    if (autolink) {
      this.text += autolink[1];
      return gt + 1;
    }
    if (OPEN_TAG.test(candidate) || CLOSE_TAG.test(candidate) || /^<[?!][\s\S]*>$/.test(candidate)) {
      if (BR_TAG.test(candidate)) this.literal(HARD_BREAK);
      else this.flush();
      return gt + 1;
    }
    this.text += '<';
    return i + 1;
  }

  /** The next `>` after i (-1: none), each search starting where the last one ended. */
  private greaterAfter(i: number): number {
    if (this.nextGreater === -1 || this.nextGreater > i) return this.nextGreater;
    this.nextGreater = this.src.indexOf('>', i + 1);
    return this.nextGreater;
  }

  /** The next `<` after i (Infinity: none). */
  private lessAfter(i: number): number {
    if (this.nextLess === -1) return Infinity;
    if (this.nextLess > i) return this.nextLess;
    this.nextLess = this.src.indexOf('<', i + 1);
    return this.nextLess < 0 ? Infinity : this.nextLess;
  }
}

/** Plain text of one inline run (see the module comment), hard breaks as HARD_BREAK. */
export function plainInline(src: string, links: LinkDefinitions = {}): string {
  return new InlineReader(src, links).read();
}

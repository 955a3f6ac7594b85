import type { ElementDraft } from '../document/types.js';

/**
 * A plain-text mail body into elements: blocks separated by blank lines become paragraphs; a block
 * whose lines are all bullets (`-`, `*`, `•`, `+`) or numbers (`1.`, `2)`) becomes list items,
 * depth from indentation; a block quoted with `>` becomes a quote. Line breaks inside a paragraph
 * are kept (addresses, signatures and tables in mail depend on them).
 */

const BLANK_LINES = /\n(?:[ \t\u00a0]*\n)+/;
const LIST_LINE = /^([ \t]*)(?:([-*•+‣◦·])|(\d{1,3})[.)])[ \t]+(\S.*)$/;
const QUOTE_PREFIX = /^[ \t]*>[ \t]?/;
const TRAILING_SPACE = /[ \t\u00a0]+$/;
const CR_NEWLINE = /\r\n?/g;
const TAB = /\t/g;
const INDENTED = /^[ \t]/;

export function plainTextElements(body: string): ElementDraft[] {
  const elements: ElementDraft[] = [];
  for (const raw of body.replace(CR_NEWLINE, '\n').split(BLANK_LINES)) {
    const lines = raw.split('\n').map((line) => line.replace(TRAILING_SPACE, '')).filter((line) => line.trim() !== '');
    if (lines.length === 0) continue;
    if (lines.every((line) => QUOTE_PREFIX.test(line))) {
      elements.push({ kind: 'quote', text: lines.map((line) => line.replace(QUOTE_PREFIX, '')).join('\n') });
      continue;
    }
    // A lead-in line followed by its list ("Agenda:\n - a\n - b") is a paragraph, then the items.
    const firstItem = lines.findIndex((line) => LIST_LINE.test(line));
    const items = firstItem >= 0 ? listItems(lines.slice(firstItem)) : undefined;
    if (firstItem > 0 && items) elements.push({ kind: 'paragraph', text: dedent(lines.slice(0, firstItem)).join('\n') });
    if (items) {
      elements.push(...items);
      continue;
    }
    elements.push({ kind: 'paragraph', text: dedent(lines).join('\n') });
  }
  return elements;
}

/** The block's lines as list items, or undefined when any line is not a list item (or its continuation). */
function listItems(lines: readonly string[]): ElementDraft[] | undefined {
  const first = LIST_LINE.exec(lines[0]!);
  if (!first) return undefined;
  const items: { indent: number; ordered: boolean; number?: number; text: string }[] = [];
  for (const line of lines) {
    const m = LIST_LINE.exec(line);
    if (m) {
      items.push({ indent: m[1]!.replace(TAB, '    ').length, ordered: m[3] !== undefined, ...(m[3] !== undefined && { number: Number(m[3]) }), text: m[4]!.trim() });
      continue;
    }
    // An indented line continues the item before it (a wrapped bullet); anything else is prose.
    const last = items[items.length - 1];
    if (!last || !INDENTED.test(line)) return undefined;
    last.text += ` ${line.trim()}`;
  }
  const indents = [...new Set(items.map((item) => item.indent))].sort((a, b) => a - b);
  return items.map((item) => ({
    kind: 'list-item' as const,
    text: item.text,
    depth: indents.indexOf(item.indent),
    ordered: item.ordered,
    ...(item.number !== undefined && { number: item.number }),
  }));
}

/** Removes the indentation all lines share. */
function dedent(lines: readonly string[]): string[] {
  let common = Number.POSITIVE_INFINITY;
  for (const line of lines) common = Math.min(common, line.length - line.trimStart().length);
  return common > 0 && Number.isFinite(common) ? lines.map((line) => line.slice(common)) : [...lines];
}

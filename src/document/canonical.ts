import type { CommentInfo, ElementDraft, TableData } from './types.js';

/**
 * Canonical rendering: one deterministic Markdown-like text per document. Offsets of elements and
 * chunks refer to it. Rules: `#` headings, `- `/`N. ` list items indented two spaces per depth,
 * pipe tables, fenced code, `> ` quotes, display equations as `$$LaTeX$$` on one line (inline ones
 * are `$LaTeX$` in their paragraph's text), `[Comment by A, time, on "text"] body` comments; list
 * items in a run and the replies under a comment are separated by one newline, every other pair of
 * elements by a blank line; page furniture is not rendered.
 */

export function renderElement(el: ElementDraft): string {
  switch (el.kind) {
    case 'heading':
      return `${'#'.repeat(clampLevel(el.level))} ${oneLine(el.text)}`;
    case 'list-item': {
      const indent = '  '.repeat(Math.max(0, el.depth ?? 0));
      const marker = el.ordered ? `${el.number ?? 1}. ` : '- ';
      const pad = indent + ' '.repeat(marker.length);
      return indent + marker + el.text.replace(/\n/g, `\n${pad}`);
    }
    case 'table':
      return el.table ? renderTable(el.table) : el.text;
    case 'code': {
      const fence = el.text.includes('```') ? '~~~~' : '```';
      return `${fence}${el.language ?? ''}\n${el.text}\n${fence}`;
    }
    case 'quote':
      return el.text
        .split('\n')
        .map((line) => (line ? `> ${line}` : '>'))
        .join('\n');
    case 'image': {
      const alt = el.alt ?? '';
      const body = el.ocrText ?? el.text;
      return body ? `![${oneLine(alt)}]\n${body}` : `![${oneLine(alt)}]`;
    }
    case 'turn':
      return el.speaker ? `${el.speaker}: ${el.text}` : el.text;
    case 'comment':
      return `[${commentLabel(el.comment ?? {}, el.slide)}] ${el.text}`;
    case 'page-furniture':
      return '';
    case 'formula':
      // One line, so the equation is one span that blank-line splitting never cuts.
      return el.text.trim() ? `$$${el.text.replace(/\s*\n\s*/g, ' ').trim()}$$` : '';
    default:
      return el.text;
  }
}

export function renderTable(table: TableData): string {
  const width = table.rows.reduce((w, row) => Math.max(w, row.length), 0);
  if (width === 0) return '';
  const lines: string[] = [];
  table.rows.forEach((row, r) => {
    const cells: string[] = [];
    for (let c = 0; c < width; c++) cells.push(escapeCell(row[c]?.text ?? ''));
    lines.push(`| ${cells.join(' | ')} |`);
    if (r === table.headerRows - 1) lines.push(`|${' --- |'.repeat(width)}`);
  });
  return lines.join('\n');
}

/** The separator placed before `next` when it follows `prev` in the canonical text. */
export function separatorBetween(prev: ElementDraft, next: ElementDraft): string {
  if (prev.kind === 'list-item' && next.kind === 'list-item') return '\n';
  // A reply continues its thread's block.
  return prev.kind === 'comment' && next.kind === 'comment' && next.comment?.reply ? '\n' : '\n\n';
}

/** Longest commented text quoted in a comment's label, in code points. */
export const COMMENT_ANCHOR_CHARS = 60;

/**
 * `Comment by Ann, 2024-01-05 10:30, on "the figure"`: who, when and what it is anchored to (the
 * commented text, a cell, else the slide); `Reply by ...` for replies, which sit under their thread.
 */
export function commentLabel(info: CommentInfo, slide?: number): string {
  let label = info.reply ? 'Reply' : 'Comment';
  if (info.author) label += ` by ${oneLine(info.author)}`;
  const parts = [label];
  if (info.time) parts.push(displayTime(info.time));
  if (!info.reply) {
    if (info.anchor?.trim()) parts.push(`on "${clip(oneLine(info.anchor), COMMENT_ANCHOR_CHARS)}"`);
    else if (info.cell) parts.push(`on ${info.cell}`);
    else if (slide !== undefined) parts.push(`on slide ${slide}`);
  }
  if (info.resolved) parts.push('resolved');
  return parts.join(', ');
}

const ISO_MINUTES = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/;

/** `2024-01-05T10:30:00Z` -> `2024-01-05 10:30`; anything else as written. */
function displayTime(time: string): string {
  const m = ISO_MINUTES.exec(time.trim());
  return m ? `${m[1]} ${m[2]}` : oneLine(time);
}

/** At most `max` code points, cut at a word boundary when one is near the end, `…` marking the cut. */
function clip(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  let cut = points.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  if (space > cut.length * 0.6) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

function escapeCell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim();
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function clampLevel(level: number | undefined): number {
  return Math.min(6, Math.max(1, level ?? 1));
}

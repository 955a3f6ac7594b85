import type { ElementDraft, TableData } from './types.js';

/**
 * Canonical rendering: one deterministic Markdown-like text per document. Offsets of elements and
 * chunks refer to it. Rules: `#` headings, `- `/`N. ` list items indented two spaces per depth,
 * pipe tables, fenced code, `> ` quotes, display equations as `$$LaTeX$$` on one line (inline ones
 * are `$LaTeX$` in their paragraph's text); list items in a run are separated by one newline, every
 * other pair of elements by a blank line; page furniture is not rendered.
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
  return prev.kind === 'list-item' && next.kind === 'list-item' ? '\n' : '\n\n';
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

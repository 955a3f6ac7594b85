/**
 * Minimal valid PDFs (Helvetica, stroked lines) built in memory, for tests without the corpus. Text
 * is WinAnsi (ASCII and Latin-1) plus the spacing accents ˘ ˇ ˙ ˚ ˛ (mapped to unused WinAnsi codes).
 */
export interface TextItem {
  text: string;
  size: number;
  /** PDF user space: origin bottom-left, points. */
  x: number;
  y: number;
  /** Set the text this wide (points) by scaling it horizontally: a justified line. */
  width?: number;
}

/** A stroked line segment in PDF user space. */
export type Segment = [x0: number, y0: number, x1: number, y1: number];

export interface PageSpec {
  items: TextItem[];
  lines?: Segment[];
  /** Draw a grey inline image (a stand-in for a scan) over most of the page. */
  image?: boolean;
  /** /Rotate of the page (clockwise degrees). */
  rotate?: number;
  /** MediaBox [x0 y0 x1 y1]; default [0 0 612 792]. */
  mediaBox?: [number, number, number, number];
}

export function minimalPdf(items: TextItem[], info: { title?: string } = {}): Uint8Array {
  return minimalPdfPages([{ items }], info);
}

/** A one-page PDF whose only content is an image: a scan without a text layer. */
export function scannedPdf(): Uint8Array {
  return minimalPdfPages([{ items: [], image: true }]);
}

export function minimalPdfPages(pages: PageSpec[], info: { title?: string } = {}): Uint8Array {
  const escape = (s: string): string => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // pages tree, filled below
  add(`<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [${[...EXTRA_GLYPHS].map(([code, name]) => `${code} /${name}`).join(' ')}] >> >>`);
  const kids: number[] = [];
  for (const page of pages) {
    const text = page.items.map((t) => {
      const scale = t.width === undefined ? '' : `${((100 * t.width) / textWidth(t.text, t.size)).toFixed(3)} Tz `;
      return `BT /F1 ${t.size} Tf ${scale}${t.x} ${t.y} Td (${winAnsi(escape(t.text))}) Tj ET`;
    });
    const rules = (page.lines ?? []).map(([x0, y0, x1, y1]) => `${x0} ${y0} m ${x1} ${y1} l S`);
    const image = page.image ? ['q 468 0 0 648 72 72 cm BI /W 2 /H 2 /CS /G /BPC 8 ID AAAA EI Q'] : [];
    const content = [...image, ...(rules.length > 0 ? ['0.8 w', ...rules] : []), ...text].join('\n');
    const contentId = add(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    const box = (page.mediaBox ?? [0, 0, 612, 792]).join(' ');
    const rotate = page.rotate ? ` /Rotate ${page.rotate}` : '';
    kids.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [${box}]${rotate} /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentId} 0 R >>`));
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const infoId = add(`<< ${info.title ? `/Title (${escape(info.title)})` : ''} /Producer (groundwork test) >>`);
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${infoId} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Uint8Array.from(out, (c) => c.charCodeAt(0));
}

/** Glyphs outside WinAnsi, at codes WinAnsi leaves undefined. */
const EXTRA_GLYPHS = new Map<number, string>([
  [0x81, 'breve'],
  [0x8d, 'caron'],
  [0x8f, 'dotaccent'],
  [0x90, 'ring'],
  [0x9d, 'ogonek'],
]);
const EXTRA_CODES = new Map<string, number>([
  ['\u02d8', 0x81],
  ['\u02c7', 0x8d],
  ['\u02d9', 0x8f],
  ['\u02da', 0x90],
  ['\u02db', 0x9d],
  ['\u02c6', 0x88],
  ['\u02dc', 0x98],
]);

/** A string as WinAnsi bytes (one char per byte), for the content stream. */
function winAnsi(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const mapped = code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : EXTRA_CODES.get(ch);
    if (mapped === undefined) throw new Error(`fixtures: ${JSON.stringify(ch)} has no WinAnsi code`);
    out += String.fromCharCode(mapped);
  }
  return out;
}

/** Advance widths of Helvetica (1/1000 em) for the ASCII and accent glyphs the fixtures measure. */
const HELVETICA: Record<string, number> = {
  ' ': 278, a: 556, b: 556, c: 500, d: 556, e: 556, f: 278, g: 556, h: 556, i: 222, j: 222, k: 500, l: 222, m: 833,
  n: 556, o: 556, p: 556, q: 556, r: 333, s: 500, t: 278, u: 556, v: 500, w: 722, x: 500, y: 500, z: 500,
  A: 667, B: 667, C: 722, D: 722, E: 667, F: 611, G: 778, H: 722, I: 278, J: 500, K: 667, L: 556, M: 833, N: 722,
  O: 778, P: 667, Q: 778, R: 722, S: 667, T: 611, U: 722, V: 667, W: 944, X: 667, Y: 667, Z: 611,
  ',': 278, '.': 278, '-': 333, '\u02d8': 333, '\u00b4': 333, '\u00a8': 333, '\u02c7': 333,
};

/** Width of a text in Helvetica at `size` points. */
export function textWidth(text: string, size: number): number {
  let w = 0;
  for (const ch of text) w += HELVETICA[ch] ?? 556;
  return (w * size) / 1000;
}

/**
 * An accent drawn as a glyph of its own over a letter of `text` (set at x, y): the text, then the
 * accent centred over the letter at `index`, or the accent first when `before` is set.
 */
export function accented(text: string, index: number, accent: string, x: number, y: number, size: number, before = false): TextItem[] {
  const left = x + textWidth(text.slice(0, index), size);
  const centre = left + textWidth(text[index]!, size) / 2;
  const mark = { text: accent, size, x: Math.round((centre - textWidth(accent, size) / 2) * 100) / 100, y };
  const word = { text, size, x, y };
  return before ? [mark, word] : [word, mark];
}

/** A ruled grid table: rows of cell texts placed from (left, top) with fixed column width and row height. */
export function ruledTable(rows: string[][], left: number, top: number, colWidth = 120, rowHeight = 20): PageSpec {
  const cols = rows[0]!.length;
  const items: TextItem[] = [];
  const lines: Segment[] = [];
  rows.forEach((row, r) => row.forEach((text, c) => items.push({ text, size: 10, x: left + c * colWidth + 4, y: top - (r + 1) * rowHeight + 6 })));
  for (let r = 0; r <= rows.length; r++) lines.push([left, top - r * rowHeight, left + cols * colWidth, top - r * rowHeight]);
  for (let c = 0; c <= cols; c++) lines.push([left + c * colWidth, top, left + c * colWidth, top - rows.length * rowHeight]);
  return { items, lines };
}

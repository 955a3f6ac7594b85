/** Minimal valid PDFs (Helvetica, ASCII text, stroked lines) built in memory, for tests without the corpus. */
export interface TextItem {
  text: string;
  size: number;
  /** PDF user space: origin bottom-left, points. */
  x: number;
  y: number;
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
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const page of pages) {
    const text = page.items.map((t) => `BT /F1 ${t.size} Tf ${t.x} ${t.y} Td (${escape(t.text)}) Tj ET`);
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
  return new TextEncoder().encode(out);
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

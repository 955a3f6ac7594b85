import { allocUtf8, readUtf16, type Engine } from './engine.js';

/** Info-dictionary fields of a PDF, dates as ISO 8601 when they parse. */
export interface PdfMetadata {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  creator?: string;
  producer?: string;
  created?: string;
  modified?: string;
}

const TAGS: [keyof PdfMetadata, string][] = [
  ['title', 'Title'],
  ['author', 'Author'],
  ['subject', 'Subject'],
  ['keywords', 'Keywords'],
  ['creator', 'Creator'],
  ['producer', 'Producer'],
  ['created', 'CreationDate'],
  ['modified', 'ModDate'],
];

export function readMetadata(engine: Engine, doc: number): PdfMetadata {
  const meta: PdfMetadata = {};
  const cap = 4096;
  const buf = engine.malloc(cap);
  for (const [key, tag] of TAGS) {
    const tagPtr = allocUtf8(engine, tag);
    const len = engine.raw.FPDF_GetMetaText!(doc, tagPtr, buf, cap);
    engine.free(tagPtr);
    if (len <= 2) continue;
    const value = readUtf16(engine, buf, Math.min(len, cap)).replace(/\u0000/g, '').trim();
    if (!value) continue;
    meta[key] = key === 'created' || key === 'modified' ? (pdfDate(value) ?? value) : value;
  }
  engine.free(buf);
  return meta;
}

const PDF_DATE = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(Z|[+-]\d{2}'?\d{2}'?|[+-]\d{2})?/;

/** `D:20200806083000-04'00'` -> `2020-08-06T08:30:00-04:00`; undefined when it does not parse. */
export function pdfDate(value: string): string | undefined {
  const m = PDF_DATE.exec(value);
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz] = m;
  let zone = '';
  if (tz === 'Z') zone = 'Z';
  else if (tz) {
    const digits = tz.replace(/'/g, '');
    zone = `${digits.slice(0, 3)}:${digits.slice(3, 5) || '00'}`;
  }
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return undefined;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`;
}

import { deflateSync } from 'node:zlib';
import { loadEngine, openDocument, type Engine, type OpenedDocument } from './engine.js';

/** An 8-bit grey image, row-major, one byte per pixel (the shape src/ocr feeds its engines). */
export interface GrayPage {
  width: number;
  height: number;
  data: Uint8Array;
  /** Resolution the page was rendered at: pixels = points * dpi / 72. */
  dpi: number;
}

const BITMAP_BGRX = 3;
const FPDF_ANNOT = 0x01;
const FPDF_GRAYSCALE = 0x08;
const FPDF_PRINTING = 0x800;
/** Refuse renders above this many pixels (a 300 dpi A0 page); callers lower the dpi instead. */
const MAX_PIXELS = 120_000_000;

/**
 * Renders page `index` (0-based) of an open document to grey pixels at `dpi`, as displayed
 * (rotation applied). 300 dpi suits OCR of small print; 150 dpi is enough for body text.
 */
export function renderPageGray(engine: Engine, doc: OpenedDocument, index: number, dpi = 300): GrayPage {
  const raw = engine.raw;
  const page = raw.FPDF_LoadPage!(doc.handle, index);
  if (!page) throw new Error(`page ${index + 1} could not be loaded`);
  try {
    let scale = dpi / 72;
    const widthPt = raw.FPDF_GetPageWidthF!(page);
    const heightPt = raw.FPDF_GetPageHeightF!(page);
    if (widthPt * heightPt * scale * scale > MAX_PIXELS) scale = Math.sqrt(MAX_PIXELS / (widthPt * heightPt));
    const width = Math.max(1, Math.round(widthPt * scale));
    const height = Math.max(1, Math.round(heightPt * scale));
    const bitmap = raw.FPDFBitmap_CreateEx!(width, height, BITMAP_BGRX, 0, 0);
    if (!bitmap) throw new Error(`page ${index + 1}: no memory for a ${width}x${height} render`);
    try {
      raw.FPDFBitmap_FillRect!(bitmap, 0, 0, width, height, 0xffffffff);
      raw.FPDF_RenderPageBitmap!(bitmap, page, 0, 0, width, height, 0, FPDF_ANNOT | FPDF_GRAYSCALE | FPDF_PRINTING);
      const stride = raw.FPDFBitmap_GetStride!(bitmap);
      const buffer = raw.FPDFBitmap_GetBuffer!(bitmap);
      const heap = engine.heap().HEAPU8;
      const data = new Uint8Array(width * height);
      for (let y = 0; y < height; y++) {
        let p = buffer + y * stride;
        const row = y * width;
        for (let x = 0; x < width; x++, p += 4) {
          // BGRx -> luma (ITU-R BT.601 weights, integer).
          data[row + x] = (heap[p]! * 29 + heap[p + 1]! * 150 + heap[p + 2]! * 77) >> 8;
        }
      }
      return { width, height, data, dpi: (scale * 72) | 0 };
    } finally {
      raw.FPDFBitmap_Destroy!(bitmap);
    }
  } finally {
    raw.FPDF_ClosePage!(page);
  }
}

/** Opens PDF bytes and renders one page (0-based) to grey pixels. */
export async function renderPdfPage(bytes: Uint8Array, index: number, options: { dpi?: number; password?: string } = {}): Promise<GrayPage> {
  const engine = await loadEngine();
  const doc = openDocument(engine, bytes, options.password);
  try {
    if (index < 0 || index >= doc.pageCount) throw new RangeError(`page ${index + 1} is out of range (1-${doc.pageCount})`);
    return renderPageGray(engine, doc, index, options.dpi ?? 300);
  } finally {
    doc.close();
  }
}

/** A grey image as PNG bytes (8-bit greyscale, zlib level 3: fast, a few MB at 300 dpi). */
export function encodeGrayPng(image: { width: number; height: number; data: Uint8Array }): Uint8Array {
  const { width, height, data } = image;
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0; // filter: none
    raw.set(data.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // colour type: greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 3 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

let crcTable: Uint32Array | undefined;

function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

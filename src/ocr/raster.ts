import { createRequire } from 'node:module';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import UTIF from 'utif2';

/**
 * An 8-bit image, row-major: gray (1 channel) or RGB (3). Color is kept because Tesseract
 * thresholds each channel and picks the clearest: text on a tinted table header is lost in gray.
 */
export interface Raster {
  width: number;
  height: number;
  channels: 1 | 3;
  data: Uint8Array;
}

export type ImageKind = 'png' | 'jpeg' | 'tiff' | 'bmp' | 'webp' | 'gif';

/** Decoders refuse images above this many pixels (a 600 dpi A3 scan is ~70 MP). */
export const MAX_PIXELS = 100_000_000;

/** The image format from its magic bytes, or undefined. */
export function imageKind(bytes: Uint8Array): ImageKind | undefined {
  if (bytes.length < 12) return undefined;
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if ((bytes[0] === 0x49 && bytes[1] === 0x49 && bytes[2] === 0x2a && bytes[3] === 0) || (bytes[0] === 0x4d && bytes[1] === 0x4d && bytes[2] === 0 && bytes[3] === 0x2a)) return 'tiff';
  if (bytes[0] === 0x42 && bytes[1] === 0x4d) return 'bmp';
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return 'webp';
  if (ascii(bytes, 0, 'GIF8')) return 'gif';
  return undefined;
}

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * Decodes an image into grayscale pages (a multi-page TIFF gives several). Transparent pixels are
 * composited over white: scans saved with an alpha channel would otherwise OCR as black pages.
 * Throws an Error naming the format when the bytes cannot be decoded.
 */
export async function decodeImage(bytes: Uint8Array): Promise<Raster[]> {
  const kind = imageKind(bytes);
  switch (kind) {
    case 'png': {
      const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return [rgbaToRaster(png.data, png.width, png.height)];
    }
    case 'jpeg': {
      const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_PIXELS / 1e6, maxMemoryUsageInMB: 2048 });
      return [rgbaToRaster(img.data, img.width, img.height)];
    }
    case 'tiff':
      return decodeTiff(bytes);
    case 'bmp':
      return [decodeBmp(bytes)];
    case 'webp': {
      const { decode } = await loadWebp();
      const img = decode(bytes);
      return [rgbaToRaster(new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength), img.width, img.height)];
    }
    default:
      throw new Error(kind === 'gif' ? 'GIF images are not supported for OCR; convert to PNG' : 'not a PNG, JPEG, TIFF, BMP or WebP image');
  }
}

type WebpModule = { decode(source: Uint8Array): { width: number; height: number; data: Uint8ClampedArray } };
let webpModule: WebpModule | undefined;
/** The WebP decoder compiles its wasm when loaded: load it only when a WebP image arrives. */
function loadWebp(): WebpModule {
  webpModule ??= createRequire(import.meta.url)('@cwasm/webp') as WebpModule;
  return webpModule;
}

function decodeTiff(bytes: Uint8Array): Raster[] {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const ifds = UTIF.decode(buffer);
  const pages: Raster[] = [];
  for (const ifd of ifds) {
    // Thumbnails and masks are sub-IFDs with NewSubfileType bit 0 (reduced-resolution) set: skip them.
    const subfileType = ifd['t254'] as number[] | undefined;
    if (subfileType && (subfileType[0]! & 1) === 1) continue;
    UTIF.decodeImage(buffer, ifd);
    if (!ifd.width || !ifd.height) continue;
    checkSize(ifd.width, ifd.height);
    pages.push(rgbaToRaster(UTIF.toRGBA8(ifd), ifd.width, ifd.height));
  }
  if (pages.length === 0) throw new Error('the TIFF holds no decodable image');
  return pages;
}

function checkSize(width: number, height: number): void {
  if (width * height > MAX_PIXELS) throw new Error(`${width}x${height} pixels is more than the ${MAX_PIXELS / 1e6} MP limit`);
}

/** RGB with alpha composited over white; gray (1 channel) when every pixel is gray. */
function rgbaToRaster(rgba: Uint8Array, width: number, height: number): Raster {
  checkSize(width, height);
  const pixels = width * height;
  const rgb = new Uint8Array(pixels * 3);
  let gray = true;
  for (let p = 0, q = 0; q < rgb.length; p += 4, q += 3) {
    const alpha = rgba[p + 3]!;
    const r = alpha === 255 ? rgba[p]! : (rgba[p]! * alpha + 255 * (255 - alpha) + 127) / 255;
    const g = alpha === 255 ? rgba[p + 1]! : (rgba[p + 1]! * alpha + 255 * (255 - alpha) + 127) / 255;
    const b = alpha === 255 ? rgba[p + 2]! : (rgba[p + 2]! * alpha + 255 * (255 - alpha) + 127) / 255;
    rgb[q] = r;
    rgb[q + 1] = g;
    rgb[q + 2] = b;
    if (gray && (r !== g || g !== b)) gray = false;
  }
  if (!gray) return { width, height, channels: 3, data: rgb };
  const out = new Uint8Array(pixels);
  for (let i = 0; i < pixels; i++) out[i] = rgb[i * 3]!;
  return { width, height, channels: 1, data: out };
}

/** BT.601 luma of a raster (the raster itself when it is gray). */
export function toGray(image: Raster): Raster {
  if (image.channels === 1) return image;
  const out = new Uint8Array(image.width * image.height);
  const d = image.data;
  for (let i = 0, p = 0; i < out.length; i++, p += 3) out[i] = (d[p]! * 77 + d[p + 1]! * 150 + d[p + 2]! * 29) >> 8;
  return { width: image.width, height: image.height, channels: 1, data: out };
}

/** Uncompressed BMP (1/4/8-bit palette, 16-bit 5-5-5, 24-bit, 32-bit), bottom-up or top-down. */
function decodeBmp(bytes: Uint8Array): Raster {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dataOffset = view.getUint32(10, true);
  const headerSize = view.getUint32(14, true);
  const width = headerSize === 12 ? view.getUint16(18, true) : view.getInt32(18, true);
  const rawHeight = headerSize === 12 ? view.getInt16(20, true) : view.getInt32(22, true);
  const bits = view.getUint16(headerSize === 12 ? 24 : 28, true);
  const compression = headerSize === 12 ? 0 : view.getUint32(30, true);
  // 3 = BI_BITFIELDS: for 32-bit files it is the usual BGRA layout, which is all we read.
  if (compression !== 0 && !(compression === 3 && bits === 32)) throw new Error(`compressed BMP (method ${compression}) is not supported; convert to PNG`);
  const height = Math.abs(rawHeight);
  checkSize(width, height);
  const paletteEntry = headerSize === 12 ? 3 : 4;
  const paletteGray: number[] = [];
  if (bits <= 8) {
    const colors = headerSize >= 40 && view.getUint32(46, true) > 0 ? view.getUint32(46, true) : 1 << bits;
    const paletteStart = 14 + headerSize;
    for (let c = 0; c < colors; c++) {
      const at = paletteStart + c * paletteEntry;
      paletteGray.push((bytes[at + 2]! * 77 + bytes[at + 1]! * 150 + bytes[at]! * 29) >> 8);
    }
  }
  const stride = Math.ceil((width * bits) / 32) * 4;
  if (dataOffset + stride * height > bytes.length) throw new Error('truncated BMP');
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = dataOffset + (rawHeight > 0 ? height - 1 - y : y) * stride;
    const target = y * width;
    for (let x = 0; x < width; x++) {
      let gray: number;
      if (bits === 24 || bits === 32) {
        const at = row + x * (bits >> 3);
        gray = (bytes[at + 2]! * 77 + bytes[at + 1]! * 150 + bytes[at]! * 29) >> 8;
      } else if (bits === 16) {
        const v = view.getUint16(row + x * 2, true);
        gray = ((((v >> 10) & 31) * 8 * 77 + ((v >> 5) & 31) * 8 * 150 + (v & 31) * 8 * 29) >> 8);
      } else {
        const bitOffset = x * bits;
        const byte = bytes[row + (bitOffset >> 3)]!;
        const index = (byte >> (8 - bits - (bitOffset & 7))) & ((1 << bits) - 1);
        gray = paletteGray[index] ?? 0;
      }
      out[target + x] = gray;
    }
  }
  return { width, height, channels: 1, data: out };
}

/** Rotates clockwise by quarterTurns x 90 degrees. */
export function rotateQuarter(image: Raster, quarterTurns: number): Raster {
  const turns = ((quarterTurns % 4) + 4) % 4;
  if (turns === 0) return image;
  const { width: w, height: h, data, channels: n } = image;
  const out = new Uint8Array(data.length);
  // 90 clockwise: source (x, y) -> target (h - 1 - y, x) in an h-wide image; 270 is the mirror; 180 reverses.
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const target = turns === 1 ? x * h + (h - 1 - y) : turns === 3 ? (w - 1 - x) * h + y : (h - 1 - y) * w + (w - 1 - x);
      const src = (y * w + x) * n;
      for (let c = 0; c < n; c++) out[target * n + c] = data[src + c]!;
    }
  }
  return turns === 2 ? { width: w, height: h, channels: n, data: out } : { width: h, height: w, channels: n, data: out };
}

/** Shrinks by an integer factor, averaging each factor x factor box (keeps thin strokes gray, not lost). */
export function downscale(image: Raster, factor: number): Raster {
  if (factor <= 1) return image;
  const n = image.channels;
  const width = Math.floor(image.width / factor);
  const height = Math.floor(image.height / factor);
  const rowValues = width * n;
  const out = new Uint8Array(height * rowValues);
  const area = factor * factor;
  const sums = new Uint32Array(rowValues);
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    for (let dy = 0; dy < factor; dy++) {
      const src = (y * factor + dy) * image.width * n;
      for (let x = 0; x < width; x++) {
        for (let dx = 0; dx < factor; dx++) {
          const at = src + (x * factor + dx) * n;
          for (let c = 0; c < n; c++) sums[x * n + c]! += image.data[at + c]!;
        }
      }
    }
    const target = y * rowValues;
    for (let i = 0; i < rowValues; i++) out[target + i] = Math.round(sums[i]! / area);
  }
  return { width, height, channels: n, data: out };
}

/** Binary PGM/PPM (P5/P6): read by Leptonica in both engines without any codec, and costs no compression. */
export function encodePnm(image: Raster): Uint8Array {
  const header = new TextEncoder().encode(`${image.channels === 1 ? 'P5' : 'P6'}\n${image.width} ${image.height}\n255\n`);
  const out = new Uint8Array(header.length + image.data.length);
  out.set(header, 0);
  out.set(image.data, header.length);
  return out;
}

/**
 * Enlarges by an integer factor with bilinear sampling (pixel centres aligned, edges clamped):
 * small print reads far better once its letters are twice as tall.
 */
export function upscale(image: Raster, factor: number): Raster {
  if (factor <= 1) return image;
  const { width: w, height: h, data, channels: n } = image;
  const width = w * factor;
  const height = h * factor;
  const out = new Uint8Array(width * height * n);
  // Source column and weight for each target column, computed once.
  const left = new Int32Array(width);
  const right = new Int32Array(width);
  const wx = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const sx = Math.min(w - 1, Math.max(0, (x + 0.5) / factor - 0.5));
    left[x] = sx | 0;
    right[x] = Math.min(w - 1, left[x]! + 1);
    wx[x] = sx - left[x]!;
  }
  const stride = w * n;
  for (let y = 0; y < height; y++) {
    const sy = Math.min(h - 1, Math.max(0, (y + 0.5) / factor - 0.5));
    const top = (sy | 0) * stride;
    const bottom = Math.min(h - 1, (sy | 0) + 1) * stride;
    const fy = sy - (sy | 0);
    let at = y * width * n;
    for (let x = 0; x < width; x++) {
      const a = left[x]! * n;
      const b = right[x]! * n;
      const fx = wx[x]!;
      for (let c = 0; c < n; c++, at++) {
        const upper = data[top + a + c]! + (data[top + b + c]! - data[top + a + c]!) * fx;
        const lower = data[bottom + a + c]! + (data[bottom + b + c]! - data[bottom + a + c]!) * fx;
        out[at] = upper + (lower - upper) * fy + 0.5;
      }
    }
  }
  return { width, height, channels: n, data: out };
}

/** Tiles of this many pixels a side are judged for a tinted background. */
const TINT_TILE = 48;
/** A tile whose most common gray is in this range, and covers TINT_SHARE of it, lies on a tint. */
const TINT_MIN = 120;
const TINT_MAX = 235;
const TINT_SHARE = 0.5;
/** Grays within this of the tile's most common one count as that gray. */
const TINT_NEAR = 8;
/** Grays this close below the tint are its anti-aliasing and noise, whitened with it. */
const TINT_SPREAD = 16;

/**
 * A copy with tinted backgrounds (a shaded table header, a colored box) made white, tile by tile:
 * where one light gray fills most of a tile, it and everything lighter becomes white, while darker
 * ink stays; in the tiles around, where the tint ends, that gray alone is whitened. Tesseract's
 * layout analysis takes a large gray area for a picture and reads nothing in it (the header of the
 * scanned table), and the tint left at a tile's edge reads as specks. Photos have no such dominant
 * gray and white paper is above TINT_MAX, so both are left as they are. The image itself is
 * returned when nothing is tinted.
 */
export function whitenTints(image: Raster): Raster {
  const { width, height, channels: n } = image;
  const gray = toGray(image).data;
  const cols = Math.ceil(width / TINT_TILE);
  const rows = Math.ceil(height / TINT_TILE);
  const tints = new Uint8Array(cols * rows);
  const hist = new Uint32Array(256);
  let any = false;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x0 = c * TINT_TILE;
      const x1 = Math.min(width, x0 + TINT_TILE);
      const y0 = r * TINT_TILE;
      const y1 = Math.min(height, y0 + TINT_TILE);
      hist.fill(0);
      for (let y = y0; y < y1; y++) for (let i = y * width + x0; i < y * width + x1; i++) hist[gray[i]!]!++;
      let mode = 0;
      for (let v = 1; v < 256; v++) if (hist[v]! > hist[mode]!) mode = v;
      if (mode < TINT_MIN || mode > TINT_MAX) continue;
      let near = 0;
      for (let v = mode - TINT_NEAR; v <= mode + TINT_NEAR; v++) near += hist[v]!;
      if (near < TINT_SHARE * (y1 - y0) * (x1 - x0)) continue;
      tints[r * cols + c] = mode;
      any = true;
    }
  }
  if (!any) return image;
  const out = image.data.slice();
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let tint = tints[r * cols + c]!;
      const own = tint > 0;
      for (let dr = -1; dr <= 1 && !own; dr++) {
        for (let dc = -1; dc <= 1; dc++) {
          const rr = r + dr;
          const cc = c + dc;
          if (rr >= 0 && rr < rows && cc >= 0 && cc < cols) tint = Math.max(tint, tints[rr * cols + cc]!);
        }
      }
      if (tint === 0) continue;
      const lo = tint - TINT_SPREAD;
      const hi = own ? 255 : tint + TINT_NEAR;
      const x0 = c * TINT_TILE;
      const x1 = Math.min(width, x0 + TINT_TILE);
      for (let y = r * TINT_TILE; y < Math.min(height, (r + 1) * TINT_TILE); y++) {
        for (let i = y * width + x0; i < y * width + x1; i++) {
          if (gray[i]! < lo || gray[i]! > hi) continue;
          for (let at = i * n; at < i * n + n; at++) out[at] = 255;
        }
      }
    }
  }
  return { width, height, channels: n, data: out };
}

import { BOLD, FILE_SPACE, ITALIC, MONO, NEWLINE_BEFORE, SPACE_BEFORE, UNICODE_ERROR, type PageChars } from '../layout/chars.js';
import type { Engine, RawFn } from './engine.js';
import type { PageGeometry } from './geometry.js';

/** Fonts seen in a document, interned by name (an opaque key: non-ASCII names come back as mojibake). */
export class FontTable {
  readonly names: string[] = [];
  readonly flags: number[] = [];
  /** Per name: the style its name implies, and the ids interned for it by style. */
  private readonly byName = new Map<string, { nameStyle: number; ids: Map<number, number> }>();

  intern(name: string, flags: number): number {
    const ids = this.entry(name).ids;
    let id = ids.get(flags);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.flags.push(flags);
      ids.set(flags, id);
    }
    return id;
  }

  /** BOLD / ITALIC / MONO as the font's name says them (tested once per name, not per text object). */
  nameStyle(name: string): number {
    return this.entry(name).nameStyle;
  }

  private entry(name: string): { nameStyle: number; ids: Map<number, number> } {
    let entry = this.byName.get(name);
    if (!entry) {
      const nameStyle = (BOLD_NAME.test(name) ? BOLD : 0) | (ITALIC_NAME.test(name) ? ITALIC : 0) | (MONO_NAME.test(name) ? MONO : 0);
      entry = { nameStyle, ids: new Map() };
      this.byName.set(name, entry);
    }
    return entry;
  }
}

// PDF font-descriptor flags.
const PDF_FIXED_PITCH = 1;
const PDF_ITALIC = 64;
const PDF_FORCE_BOLD = 1 << 18;
const MONO_NAME = /mono|courier|consol|menlo|typewriter|cmtt|inconsolata|code/i;
const BOLD_NAME = /bold|black|heavy|semibold|demi|medi|cmbx|sfbx|[-,]bd?\b|\bbx\d/i;
const ITALIC_NAME = /italic|oblique/i;
// Text render modes (PDF 9.3.6): 1 stroke only (outlined), 2 fill then stroke (the usual faux bold), 5 stroke and clip.
const RENDER_STROKE = 1;
const RENDER_FILL_STROKE = 2;
const RENDER_STROKE_CLIP = 5;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200b);
}

/** Extracts every character of a loaded text page in one pass over the raw exports. */
export function extractChars(engine: Engine, textPage: number, geometry: PageGeometry, fonts: FontTable): PageChars {
  const raw = engine.raw;
  const countChars = raw.FPDFText_CountChars!;
  const getUnicode = raw.FPDFText_GetUnicode!;
  const getLooseBox = raw.FPDFText_GetLooseCharBox!;
  const getFontSize = raw.FPDFText_GetFontSize!;
  const getTextObject = raw.FPDFText_GetTextObject!;
  const getFontWeight = raw.FPDFText_GetFontWeight!;
  const getFontInfo = raw.FPDFText_GetFontInfo!;
  const hasMapError = raw.FPDFText_HasUnicodeMapError!;
  const isGenerated = raw.FPDFText_IsGenerated!;
  const getMatrix = raw.FPDFText_GetMatrix!;
  const getRenderMode = raw.FPDFTextObj_GetTextRenderMode!;
  const getFillColor = raw.FPDFPageObj_GetFillColor!;
  const getStrokeColor = raw.FPDFPageObj_GetStrokeColor!;
  const n = Math.max(0, countChars(textPage));
  const out: PageChars = {
    count: 0,
    code: new Uint32Array(n),
    x0: new Float32Array(n),
    y0: new Float32Array(n),
    x1: new Float32Array(n),
    y1: new Float32Array(n),
    size: new Float32Array(n),
    font: new Int32Array(n),
    flags: new Uint8Array(n),
    dir: new Uint8Array(n),
    color: new Uint32Array(n),
  };
  const color = out.color!;
  const rect = engine.scratch; // FS_RECTF: left, top, right, bottom (floats)
  const flagsPtr = engine.scratch + 16;
  const nameCap = 256;
  const namePtr = engine.malloc(nameCap);
  const colorPtr = engine.malloc(16); // R, G, B, A as unsigned ints
  const { a, b, c, d, e, f } = geometry;
  let pendingFlags = 0;
  let lastObject = -1;
  let fontId = 0;
  let fontStyle = 0;
  let fontSize = 0;
  let direction = 0;
  let mapError = 0;
  let rgb = 0;
  let k = 0;
  let highSurrogate = 0;
  for (let i = 0; i < n; i++) {
    let code = getUnicode(textPage, i) >>> 0;
    if (code >= 0xd800 && code <= 0xdbff) {
      highSurrogate = code;
      continue;
    }
    if (code >= 0xdc00 && code <= 0xdfff && highSurrogate) {
      code = 0x10000 + ((highSurrogate - 0xd800) << 10) + (code - 0xdc00);
    }
    highSurrogate = 0;
    if (code === 0x0d || code === 0x0a) {
      pendingFlags |= NEWLINE_BEFORE;
      continue;
    }
    // PDFium reports a hyphen that ends a line as U+0002.
    if (code === 0x02) code = 0x2d;
    if (isSpace(code) || code === 0 || code === 0xfffe) {
      pendingFlags |= SPACE_BEFORE;
      if (code !== 0 && code !== 0xfffe && isGenerated(textPage, i) === 0) pendingFlags |= FILE_SPACE;
      continue;
    }
    if (!getLooseBox(textPage, i, rect)) continue;
    const heap = engine.heap();
    const f32 = heap.HEAPF32;
    const r = rect >> 2;
    const left = f32[r]!;
    const top = f32[r + 1]!;
    const right = f32[r + 2]!;
    const bottom = f32[r + 3]!;
    const object = getTextObject(textPage, i);
    if (object !== lastObject) {
      lastObject = object;
      // GetFontSize is the Tf operand; the text matrix may scale it (Tf 1 with Tm 10 0 0 10 ...).
      const matrix = engine.scratch + 32;
      let scale = 1;
      direction = 4;
      if (getMatrix(textPage, i, matrix)) {
        const m = engine.heap().HEAPF32;
        const j = matrix >> 2;
        scale = Math.hypot(m[j + 2]!, m[j + 3]!) || 1;
        // Baseline direction on the displayed page.
        const dx = a * m[j]! + c * m[j + 1]!;
        const dy = b * m[j]! + d * m[j + 1]!;
        direction = quarterTurn(dx, dy);
      }
      fontSize = getFontSize(textPage, i) * scale;
      const weight = getFontWeight(textPage, i);
      const len = getFontInfo(textPage, i, namePtr, nameCap, flagsPtr);
      const u8 = engine.heap().HEAPU8;
      const name = len > 1 ? Buffer.from(u8.buffer, u8.byteOffset + namePtr, Math.min(len, nameCap) - 1).toString('latin1') : '';
      const pdfFlags = engine.heap().HEAP32[flagsPtr >> 2]!;
      fontStyle = fonts.nameStyle(name);
      if (weight >= 600 || pdfFlags & PDF_FORCE_BOLD) fontStyle |= BOLD;
      if (pdfFlags & PDF_ITALIC) fontStyle |= ITALIC;
      if (pdfFlags & PDF_FIXED_PITCH) fontStyle |= MONO;
      const mode = getRenderMode(object);
      // Filled and stroked glyphs are thickened: word processors draw synthetic bold this way.
      if (mode === RENDER_FILL_STROKE) fontStyle |= BOLD;
      rgb = objectColor(engine, object, colorPtr, mode === RENDER_STROKE || mode === RENDER_STROKE_CLIP ? getStrokeColor : getFillColor);
      fontId = fonts.intern(name, fontStyle);
      // Checked once per text object: a font without a Unicode map fails for all its glyphs.
      mapError = hasMapError(textPage, i) ? UNICODE_ERROR : 0;
    }
    // Transform both corners; rotation may swap which is the top-left.
    const ax = a * left + c * top + e;
    const ay = b * left + d * top + f;
    const bx = a * right + c * bottom + e;
    const by = b * right + d * bottom + f;
    out.code[k] = code;
    out.x0[k] = ax < bx ? ax : bx;
    out.x1[k] = ax < bx ? bx : ax;
    out.y0[k] = ay < by ? ay : by;
    out.y1[k] = ay < by ? by : ay;
    out.size[k] = fontSize;
    out.font[k] = fontId;
    out.flags[k] = fontStyle | pendingFlags | mapError;
    out.dir[k] = direction;
    color[k] = rgb;
    pendingFlags = 0;
    k++;
  }
  engine.free(namePtr);
  engine.free(colorPtr);
  out.count = k;
  return out;
}

/** An object's fill or stroke colour as 0xRRGGBB (black when PDFium cannot tell). */
function objectColor(engine: Engine, object: number, out: number, getColor: RawFn): number {
  if (!getColor(object, out, out + 4, out + 8, out + 12)) return 0;
  const i32 = engine.heap().HEAP32;
  const j = out >> 2;
  return ((i32[j]! & 0xff) << 16) | ((i32[j + 1]! & 0xff) << 8) | (i32[j + 2]! & 0xff);
}

/** Quarter turns (clockwise) of a baseline direction on the displayed page (y down); 4 when skewed. */
function quarterTurn(dx: number, dy: number): number {
  const ax = Math.abs(dx);
  const ay = Math.abs(dy);
  if (ay <= 0.2 * ax) return dx > 0 ? 0 : 2;
  if (ax <= 0.2 * ay) return dy > 0 ? 1 : 3;
  return 4;
}

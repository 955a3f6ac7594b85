import type { Engine } from './engine.js';

/**
 * The affine map from PDF user space (y up, origin anywhere) to the page as displayed: top-left
 * origin, y down, in points, after /Rotate and the crop box. x' = a*x + c*y + e, y' = b*x + d*y + f.
 */
export interface PageGeometry {
  /** Displayed size in points (width and height swap on 90/270 rotation). */
  width: number;
  height: number;
  rotation: number;
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
}

// Device-space resolution used to sample the map: 1/1000 point per device unit.
const SCALE = 1000;
const PROBE = 1000;

/** Samples PDFium's own page-to-device map at three points, so rotation and origins come out as PDFium sees them. */
export function pageGeometry(engine: Engine, page: number): PageGeometry {
  const raw = engine.raw;
  const width = raw.FPDF_GetPageWidthF!(page);
  const height = raw.FPDF_GetPageHeightF!(page);
  const rotation = raw.FPDFPage_GetRotation!(page);
  const sizeX = Math.max(1, Math.round(width * SCALE));
  const sizeY = Math.max(1, Math.round(height * SCALE));
  const out = engine.scratch;
  const map = (x: number, y: number): [number, number] => {
    raw.FPDF_PageToDevice!(page, 0, 0, sizeX, sizeY, 0, x, y, out, out + 4);
    const i32 = engine.heap().HEAP32;
    return [i32[out >> 2]! / SCALE, i32[(out >> 2) + 1]! / SCALE];
  };
  const [ox, oy] = map(0, 0);
  const [px, py] = map(PROBE, 0);
  const [qx, qy] = map(0, PROBE);
  return {
    width,
    height,
    rotation,
    a: (px - ox) / PROBE,
    b: (py - oy) / PROBE,
    c: (qx - ox) / PROBE,
    d: (qy - oy) / PROBE,
    e: ox,
    f: oy,
  };
}

export function applyX(g: PageGeometry, x: number, y: number): number {
  return g.a * x + g.c * y + g.e;
}

export function applyY(g: PageGeometry, x: number, y: number): number {
  return g.b * x + g.d * y + g.f;
}

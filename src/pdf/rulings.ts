import type { PageRules, Rule } from '../layout/rules.js';
import type { Engine } from './engine.js';
import type { PageGeometry } from './geometry.js';

const OBJ_PATH = 2;
const OBJ_FORM = 5;
const SEG_LINETO = 0;
const SEG_MOVETO = 2;
/** A filled rectangle thinner than this (points) is a rule. */
const THIN = 2.5;
/** Pages with more path segments than this are drawings, not tables: stop collecting. */
const MAX_SEGMENTS = 20000;
/** Rules shorter than this (points) are ticks or glyph parts. */
const MIN_LENGTH = 4;

type Matrix = [number, number, number, number, number, number];

function multiply(m: Matrix, n: Matrix): Matrix {
  // m applied first, then n.
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

/** The rules a page's path objects draw (inside form XObjects too; thin filled rectangles count), in display coordinates. */
export function extractRules(engine: Engine, page: number, geometry: PageGeometry): PageRules {
  const raw = engine.raw;
  const rules: PageRules = { horizontal: [], vertical: [] };
  const pageMatrix: Matrix = [geometry.a, geometry.b, geometry.c, geometry.d, geometry.e, geometry.f];
  const matPtr = engine.scratch + 32; // FS_MATRIX: 6 floats
  const ptA = engine.scratch;
  const ptB = engine.scratch + 4;
  const modePtr = engine.scratch + 8;
  const strokePtr = engine.scratch + 12;
  let budget = MAX_SEGMENTS;

  const readMatrix = (obj: number): Matrix => {
    if (!raw.FPDFPageObj_GetMatrix!(obj, matPtr)) return [1, 0, 0, 1, 0, 0];
    const f = engine.heap().HEAPF32;
    const i = matPtr >> 2;
    return [f[i]!, f[i + 1]!, f[i + 2]!, f[i + 3]!, f[i + 4]!, f[i + 5]!];
  };

  const addSegment = (m: Matrix, ax: number, ay: number, bx: number, by: number, width: number): void => {
    const x0 = m[0] * ax + m[2] * ay + m[4];
    const y0 = m[1] * ax + m[3] * ay + m[5];
    const x1 = m[0] * bx + m[2] * by + m[4];
    const y1 = m[1] * bx + m[3] * by + m[5];
    const dx = Math.abs(x1 - x0);
    const dy = Math.abs(y1 - y0);
    if (dy <= Math.max(0.5, width) && dx >= MIN_LENGTH) {
      const y = (y0 + y1) / 2;
      rules.horizontal.push({ x0: Math.min(x0, x1), x1: Math.max(x0, x1), y0: y, y1: y });
    } else if (dx <= Math.max(0.5, width) && dy >= MIN_LENGTH) {
      const x = (x0 + x1) / 2;
      rules.vertical.push({ x0: x, x1: x, y0: Math.min(y0, y1), y1: Math.max(y0, y1) });
    }
  };

  const visitPath = (obj: number, m: Matrix): void => {
    if (!raw.FPDFPath_GetDrawMode!(obj, modePtr, strokePtr)) return;
    const i32 = engine.heap().HEAP32;
    const fillMode = i32[modePtr >> 2]!;
    const stroke = i32[strokePtr >> 2]! !== 0;
    if (fillMode === 0 && !stroke) return; // invisible (clip) path
    const n = raw.FPDFPath_CountSegments!(obj);
    if (n <= 0 || n > budget) return;
    budget -= n;
    const xs = new Float64Array(n);
    const ys = new Float64Array(n);
    const types = new Int8Array(n);
    const closes = new Uint8Array(n);
    for (let s = 0; s < n; s++) {
      const seg = raw.FPDFPath_GetPathSegment!(obj, s);
      raw.FPDFPathSegment_GetPoint!(seg, ptA, ptB);
      const f = engine.heap().HEAPF32;
      xs[s] = f[ptA >> 2]!;
      ys[s] = f[ptB >> 2]!;
      types[s] = raw.FPDFPathSegment_GetType!(seg);
      closes[s] = raw.FPDFPathSegment_GetClose!(seg) ? 1 : 0;
    }
    const full = multiply(m, pageMatrix);
    // A filled thin rectangle is a rule along its long side; any other closed shape gives its edges.
    if (!stroke && n >= 4 && n <= 5) {
      let minX = Infinity;
      let minY = Infinity;
      let maxX = -Infinity;
      let maxY = -Infinity;
      for (let s = 0; s < n; s++) {
        minX = Math.min(minX, xs[s]!);
        maxX = Math.max(maxX, xs[s]!);
        minY = Math.min(minY, ys[s]!);
        maxY = Math.max(maxY, ys[s]!);
      }
      const scaleX = Math.hypot(full[0], full[1]);
      const scaleY = Math.hypot(full[2], full[3]);
      const w = (maxX - minX) * scaleX;
      const h = (maxY - minY) * scaleY;
      if (h <= THIN && w > h) {
        const mid = (minY + maxY) / 2;
        addSegment(full, minX, mid, maxX, mid, THIN);
        return;
      }
      if (w <= THIN && h > w) {
        const mid = (minX + maxX) / 2;
        addSegment(full, mid, minY, mid, maxY, THIN);
        return;
      }
    }
    let startX = 0;
    let startY = 0;
    for (let s = 0; s < n; s++) {
      const type = types[s]!;
      if (type === SEG_MOVETO) {
        startX = xs[s]!;
        startY = ys[s]!;
      } else if (type === SEG_LINETO && s > 0) {
        addSegment(full, xs[s - 1]!, ys[s - 1]!, xs[s]!, ys[s]!, 0.5);
      }
      if (closes[s]) addSegment(full, xs[s]!, ys[s]!, startX, startY, 0.5);
    }
  };

  const visit = (container: number, isForm: boolean, m: Matrix, depth: number): void => {
    const count = isForm ? raw.FPDFFormObj_CountObjects!(container) : raw.FPDFPage_CountObjects!(container);
    for (let i = 0; i < count && budget > 0; i++) {
      const obj = isForm ? raw.FPDFFormObj_GetObject!(container, i) : raw.FPDFPage_GetObject!(container, i);
      if (!obj) continue;
      const type = raw.FPDFPageObj_GetType!(obj);
      if (type === OBJ_PATH) visitPath(obj, multiply(readMatrix(obj), m));
      else if (type === OBJ_FORM && depth < 4) visit(obj, true, multiply(readMatrix(obj), m), depth + 1);
    }
  };
  visit(page, false, [1, 0, 0, 1, 0, 0], 0);
  return rules;
}

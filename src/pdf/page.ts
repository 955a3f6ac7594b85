import type { PageChars } from '../layout/chars.js';
import type { PositionedPage } from '../layout/page.js';
import { extractChars, type FontTable } from './chars.js';
import type { Engine, OpenedDocument } from './engine.js';
import { pageGeometry } from './geometry.js';
import { extractRules } from './rulings.js';

const OBJ_IMAGE = 3;
const OBJ_FORM = 5;

/** Everything layout analysis needs from one page (its image objects counted); the PDFium page is closed before this returns. */
export function readPage(engine: Engine, doc: OpenedDocument, index: number, fonts: FontTable): PositionedPage {
  const raw = engine.raw;
  const page = raw.FPDF_LoadPage!(doc.handle, index);
  if (!page) throw new Error(`page ${index + 1} could not be loaded`);
  try {
    const geometry = pageGeometry(engine, page);
    const textPage = raw.FPDFText_LoadPage!(page);
    let chars: PageChars;
    try {
      chars = textPage ? extractChars(engine, textPage, geometry, fonts) : emptyChars();
    } finally {
      if (textPage) raw.FPDFText_ClosePage!(textPage);
    }
    const rules = extractRules(engine, page, geometry);
    const images = countImages(engine, page, false, 0);
    return { index, width: geometry.width, height: geometry.height, chars, rules, images };
  } finally {
    raw.FPDF_ClosePage!(page);
  }
}

/** Image objects on the page, inside form XObjects too (scanners often wrap the scan in one). */
function countImages(engine: Engine, container: number, isForm: boolean, depth: number): number {
  const raw = engine.raw;
  const count = isForm ? raw.FPDFFormObj_CountObjects!(container) : raw.FPDFPage_CountObjects!(container);
  let images = 0;
  for (let i = 0; i < count; i++) {
    const obj = isForm ? raw.FPDFFormObj_GetObject!(container, i) : raw.FPDFPage_GetObject!(container, i);
    const type = raw.FPDFPageObj_GetType!(obj);
    if (type === OBJ_IMAGE) images++;
    else if (type === OBJ_FORM && depth < 4) images += countImages(engine, obj, true, depth + 1);
  }
  return images;
}

function emptyChars(): PageChars {
  return {
    count: 0,
    code: new Uint32Array(0),
    x0: new Float32Array(0),
    y0: new Float32Array(0),
    x1: new Float32Array(0),
    y1: new Float32Array(0),
    size: new Float32Array(0),
    font: new Int32Array(0),
    flags: new Uint8Array(0),
    dir: new Uint8Array(0),
  };
}

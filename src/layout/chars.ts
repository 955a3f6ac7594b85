/**
 * The characters of one page as parallel typed arrays (no object per character): what every source
 * of positioned text gives the layout analysis (the PDF text layer, OCR words turned into
 * "characters", a layout model's output). Boxes have a top-left origin, in points (a PDF page
 * after its rotation and crop-box origin; pixels times 72/dpi for an image).
 * Whitespace characters are not stored: a space before a character is the SPACE_BEFORE flag, a
 * line break in the content stream is NEWLINE_BEFORE; layout uses them only as hints.
 */
export interface PageChars {
  count: number;
  code: Uint32Array;
  x0: Float32Array;
  y0: Float32Array;
  x1: Float32Array;
  y1: Float32Array;
  /** Effective font size in points. */
  size: Float32Array;
  /** Index into the document's FontTable. */
  font: Int32Array;
  flags: Uint8Array;
  /**
   * Writing direction on the displayed page, in quarter turns clockwise: 0 left to right, 1 top to
   * bottom, 2 upside down, 3 bottom to top; 4 for skewed text.
   */
  dir: Uint8Array;
  /**
   * Colour the text is painted in, 0xRRGGBB (the fill colour; the stroke colour for outlined
   * text). Absent where the source has no colour (characters built from OCR words).
   */
  color?: Uint32Array;
}

export const BOLD = 1;
export const ITALIC = 2;
export const SPACE_BEFORE = 4;
export const NEWLINE_BEFORE = 8;
export const UNICODE_ERROR = 16;
export const MONO = 32;
/** Text not in the page's main writing direction (margin stamps, vertical labels); set by `orientChars`. */
export const ROTATED = 64;
/**
 * The space before the character is a space character in the file, not one PDFium inferred from a
 * gap or a new text object: next to CJK text only the file's own spaces are word spaces.
 */
export const FILE_SPACE = 128;

/**
 * Turns the page so its main writing direction reads left to right (a landscape table on a portrait
 * page, a page stored sideways): boxes are rotated into that frame, and characters in any other
 * direction are flagged ROTATED. Returns the quarter turns applied and the frame's size.
 */
export function orientChars(chars: PageChars, width: number, height: number): { turns: number; width: number; height: number } {
  const counts = [0, 0, 0, 0, 0];
  for (let i = 0; i < chars.count; i++) counts[chars.dir[i]!]!++;
  let turns = 0;
  for (let q = 1; q < 4; q++) if (counts[q]! > counts[turns]!) turns = q;
  for (let i = 0; i < chars.count; i++) if (chars.dir[i] !== turns) chars.flags[i]! |= ROTATED;
  if (turns === 0) return { turns, width, height };
  const { x0, y0, x1, y1 } = chars;
  for (let i = 0; i < chars.count; i++) {
    const a = x0[i]!;
    const b = y0[i]!;
    const c = x1[i]!;
    const d = y1[i]!;
    if (turns === 1) {
      // Text runs down: x' = y, y' = width - x.
      x0[i] = b;
      x1[i] = d;
      y0[i] = width - c;
      y1[i] = width - a;
    } else if (turns === 3) {
      // Text runs up: x' = height - y, y' = x.
      x0[i] = height - d;
      x1[i] = height - b;
      y0[i] = a;
      y1[i] = c;
    } else {
      x0[i] = width - c;
      x1[i] = width - a;
      y0[i] = height - d;
      y1[i] = height - b;
    }
  }
  return turns === 2 ? { turns, width, height } : { turns, width: height, height: width };
}

/** Maps a box from a frame turned by `orientChars` back onto the displayed page. */
export function unturnBox<T extends { x0: number; y0: number; x1: number; y1: number }>(box: T, turns: number, width: number, height: number): { x0: number; y0: number; x1: number; y1: number } {
  // width/height: the displayed page's.
  if (turns === 1) return { x0: width - box.y1, x1: width - box.y0, y0: box.x0, y1: box.x1 };
  if (turns === 3) return { x0: box.y0, x1: box.y1, y0: height - box.x1, y1: height - box.x0 };
  if (turns === 2) return { x0: width - box.x1, x1: width - box.x0, y0: height - box.y1, y1: height - box.y0 };
  return { x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1 };
}

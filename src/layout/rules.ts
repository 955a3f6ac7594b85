/**
 * Horizontal and vertical rules drawn on a page (stroked lines, thin filled rectangles, rectangle
 * edges, lines found in a scan's pixels), in top-left page coordinates. They are what ruled tables
 * are built from. A horizontal rule spans x0..x1 at y (y0 === y1); a vertical one spans y0..y1 at
 * x (x0 === x1).
 */
export interface Rule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface PageRules {
  horizontal: Rule[];
  vertical: Rule[];
}

/** Rules turned into the frame `orientChars` chose (same mapping as its boxes). */
export function turnRules(rules: PageRules, turns: number, width: number, height: number): PageRules {
  if (turns === 0) return rules;
  const map = (r: Rule): Rule => {
    if (turns === 1) return { x0: r.y0, x1: r.y1, y0: width - r.x1, y1: width - r.x0 };
    if (turns === 3) return { x0: height - r.y1, x1: height - r.y0, y0: r.x0, y1: r.x1 };
    return { x0: width - r.x1, x1: width - r.x0, y0: height - r.y1, y1: height - r.y0 };
  };
  const h = rules.horizontal.map(map);
  const v = rules.vertical.map(map);
  // A quarter turn makes horizontal rules vertical and the other way round.
  return turns === 2 ? { horizontal: h, vertical: v } : { horizontal: v, vertical: h };
}

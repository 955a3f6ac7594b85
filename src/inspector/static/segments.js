// The canonical-text view's pieces (docs/inspector.md): pure, no DOM, so Node tests it too.

/**
 * The canonical text cut at every chunk boundary and blank line: segments in order, each with the
 * chunk covering its start (-1 for text no chunk holds, e.g. running headers) and the chunks that
 * begin there.
 */
export function segmentsOf(text, chunks) {
  const cuts = [0, text.length];
  for (const c of chunks) cuts.push(c.start, c.end);
  for (let at = text.indexOf('\n\n'); at !== -1; at = text.indexOf('\n\n', at + 2)) cuts.push(at + 2);
  const points = Int32Array.from(cuts).sort();
  const segments = [];
  let j = -1;
  let begins = 0;
  for (let k = 0; k + 1 < points.length; k++) {
    const a = points[k];
    const b = points[k + 1];
    if (b <= a) continue;
    while (j + 1 < chunks.length && chunks[j + 1].start <= a) j++;
    const starting = [];
    while (begins < chunks.length && chunks[begins].start <= a) {
      if (chunks[begins].start === a) starting.push(begins);
      begins++;
    }
    const covering = j >= 0 && chunks[j].end > a ? j : -1;
    segments.push({ start: a, end: b, chunk: covering, starting });
  }
  return segments;
}

/**
 * NFC normalisation with a map from offsets in the normalised text back to the original, for
 * tokenizers that normalise first (Qwen). Normalisation never reaches across a character that is
 * neither a combining mark nor a conjoining Hangul jamo (such a character has combining class 0
 * and never composes with what precedes it), so the text is cut before each such character,
 * each segment normalised alone, and unchanged neighbours merged.
 */
export interface NfcText {
  readonly normalized: string;
  /** Offset in the original text for an offset in `normalized` (inside a changed segment: its end). */
  toOriginal(offset: number): number;
}

const STABLE_START = /[^\p{M}\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF]/uy;

const identity: (offset: number) => number = (offset) => offset;

export function normalizeNfc(text: string): NfcText {
  const whole = text.normalize('NFC');
  if (whole === text) return { normalized: text, toOriginal: identity };
  const origStarts: number[] = [];
  const normStarts: number[] = [];
  const changed: boolean[] = [];
  let normalized = '';
  let segStart = 0;
  const close = (end: number): void => {
    const original = text.slice(segStart, end);
    const norm = original.normalize('NFC');
    const isChanged = norm !== original;
    const last = changed.length - 1;
    if (last < 0 || isChanged || changed[last]) {
      origStarts.push(segStart);
      normStarts.push(normalized.length);
      changed.push(isChanged);
    }
    normalized += norm;
    segStart = end;
  };
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff) continue;
    STABLE_START.lastIndex = i;
    if (STABLE_START.test(text)) close(i);
  }
  close(text.length);
  // The cut rule is a sufficient condition taken from Unicode's composition data; if a future
  // Unicode version breaks it, keep the tokens exact and map offsets coarsely.
  if (normalized !== whole) return { normalized: whole, toOriginal: (offset) => (offset === 0 ? 0 : text.length) };
  origStarts.push(text.length);
  normStarts.push(normalized.length);
  return {
    normalized,
    toOriginal(offset) {
      let lo = 0;
      let hi = normStarts.length - 2;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (normStarts[mid]! <= offset) lo = mid;
        else hi = mid - 1;
      }
      if (!changed[lo]) return origStarts[lo]! + (offset - normStarts[lo]!);
      return offset === normStarts[lo] ? origStarts[lo]! : origStarts[lo + 1]!;
    },
  };
}

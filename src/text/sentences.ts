// INTERIM (replaced by the rule-based splitter): Intl.Segmenter sentences, fed a paragraph at a time.
export interface Span {
  start: number;
  end: number;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * Sentence spans of `text[from, to)`, in order, covering the range exactly (each sentence keeps its
 * trailing whitespace), offsets absolute in `text`.
 */
export function splitSentences(text: string, from = 0, to = text.length): Span[] {
  const spans: Span[] = [];
  for (const seg of segmenter.segment(text.slice(from, to))) {
    spans.push({ start: from + seg.index, end: from + seg.index + seg.segment.length });
  }
  return spans;
}

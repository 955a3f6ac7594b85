import { decodeText } from '../detect/encoding.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { decodeEntities } from './markdown.js';
import type { ParseInput, ParserDefinition } from './types.js';

/**
 * WebVTT captions (W3C WebVTT 1): one `turn` per cue, with the cue's start/end in seconds and the
 * speaker from its `<v Speaker>` voice tag. NOTE, STYLE and REGION blocks are skipped, cue settings
 * (`align:right size:50%`) ignored, cue markup (`<i>`, `<c.x>`, `<00:01.000>`) removed, and a
 * multi-line cue keeps its lines. A cue whose text has several voices becomes one turn per voice.
 */
export const vttParser: ParserDefinition = {
  formats: ['vtt'],
  version: '1',
  textual: true,
  parse(input: ParseInput): DocumentDraft {
    const text = input.text ?? decodeText(input.bytes).text;
    const { elements, title, warnings } = parseVtt(text);
    const speakers = distinctSpeakers(elements);
    return {
      format: 'vtt',
      mime: 'text/vtt',
      ...(title && { title }),
      metadata: { cues: elements.length, ...(speakers.length > 0 && { speakers }) },
      elements,
      warnings,
    };
  },
};

const TIMING = /^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s+-->\s+((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})/;
const VOICE_START = /<v[\s.]/g;
const WHITESPACE = /\s/;
const BLANK_LINE_SPLIT = /\n[ \t]*\n+/;
const LINE_SPACES = /[ \t]+/g;
const VOICE_CLOSE = /<\/v>/g;

export interface VttResult {
  elements: ElementDraft[];
  title?: string;
  warnings: string[];
}

export function parseVtt(source: string): VttResult {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  if (!text.startsWith('WEBVTT')) {
    throw new GroundworkError('CORRUPT', "is not WebVTT: the file must start with 'WEBVTT'");
  }
  const blocks = text.split(BLANK_LINE_SPLIT);
  // The header line may carry a title after 'WEBVTT ' (e.g. 'WEBVTT - Meeting 3').
  const header = blocks[0]!.split('\n')[0]!.slice(6).replace(/^[\s-]+/, '').trim();
  const elements: ElementDraft[] = [];
  let malformed = 0;
  for (let b = 1; b < blocks.length; b++) {
    const lines = blocks[b]!.split('\n');
    const first = lines[0]!.trim();
    if (first === '' || first.startsWith('NOTE') || first === 'STYLE' || first === 'REGION') continue;
    // An optional cue identifier precedes the timing line.
    const timingIndex = TIMING.test(lines[0]!) ? 0 : lines.length > 1 && TIMING.test(lines[1]!) ? 1 : -1;
    if (timingIndex < 0) {
      malformed++;
      continue;
    }
    const timing = TIMING.exec(lines[timingIndex]!)!;
    const startTime = parseTimestamp(timing[1]!);
    const endTime = parseTimestamp(timing[2]!);
    const payload = lines.slice(timingIndex + 1).join('\n');
    for (const span of voiceSpans(payload)) {
      if (!span.text) continue;
      elements.push({ kind: 'turn', text: span.text, ...(span.speaker && { speaker: span.speaker }), startTime, endTime });
    }
  }
  const warnings = malformed > 0 ? [`skipped ${malformed} block(s) without a cue timing line`] : [];
  return { elements, ...(header && { title: header }), warnings };
}

/** `hh:mm:ss.ttt` or `mm:ss.ttt` (a comma is accepted too, as SRT-converted files have it) in seconds. */
export function parseTimestamp(stamp: string): number {
  const parts = stamp.replace(',', '.').split(':');
  let seconds = 0;
  for (const part of parts) seconds = seconds * 60 + Number(part);
  return Math.round(seconds * 1000) / 1000;
}

interface VoiceSpan {
  speaker?: string;
  text: string;
}

/**
 * Splits a cue payload at its voice tags; text before the first tag has no speaker. Scans the
 * payload once: a voice tag runs to the next `>` (as `<v(\.[^\s>]*)?\s+([^>]*)>`), its text to the
 * next voice tag. An unclosed `<v` (no `>` after it) ends the scan, so tags without a `>` cost one
 * search in all instead of one per tag.
 */
function voiceSpans(payload: string): VoiceSpan[] {
  const body = payload.replace(VOICE_CLOSE, '');
  const starts: number[] = [];
  for (const m of body.matchAll(VOICE_START)) starts.push(m.index);
  if (starts.length === 0) return [{ text: cueText(body) }];
  const spans: VoiceSpan[] = [];
  if (starts[0]! > 0) spans.push({ text: cueText(body.slice(0, starts[0])) });
  let i = 0;
  while (i < starts.length) {
    let k = starts[i]! + 2;
    if (body.charCodeAt(k) === 0x2e) {
      k++;
      while (k < body.length && !WHITESPACE.test(body[k]!) && body[k] !== '>') k++;
    }
    if (k >= body.length || !WHITESPACE.test(body[k]!)) {
      i++;
      continue;
    }
    const close = body.indexOf('>', k);
    if (close < 0) break;
    while (WHITESPACE.test(body[k]!)) k++;
    const speaker = decodeEntities(body.slice(k, close).trim());
    while (i < starts.length && starts[i]! <= close) i++;
    const next = i < starts.length ? starts[i]! : body.length;
    spans.push({ ...(speaker && { speaker }), text: cueText(body.slice(close + 1, next)) });
  }
  return spans;
}

/** Cue text without markup, entities decoded, each line's spaces collapsed. */
function cueText(raw: string): string {
  return decodeEntities(stripTags(raw))
    .split('\n')
    .map((line) => line.replace(LINE_SPACES, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** `raw` without `<...>` tags (each `<` to the next `>`), in one pass: a `<` with no `>` after it ends the tags. */
export function stripTags(raw: string): string {
  let open = raw.indexOf('<');
  if (open < 0) return raw;
  let out = '';
  let from = 0;
  while (open >= 0) {
    const close = raw.indexOf('>', open + 1);
    if (close < 0) break;
    out += raw.slice(from, open);
    from = close + 1;
    open = raw.indexOf('<', from);
  }
  return out + raw.slice(from);
}

export function distinctSpeakers(elements: readonly ElementDraft[]): string[] {
  const seen = new Set<string>();
  for (const el of elements) if (el.speaker) seen.add(el.speaker);
  return [...seen];
}

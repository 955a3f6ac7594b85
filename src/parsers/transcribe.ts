import { decodeText } from '../detect/encoding.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import type { ParseInput, ParserDefinition } from './types.js';
import { distinctSpeakers } from './vtt.js';

/**
 * AWS Transcribe job output (`results.transcripts`, `results.items`) into timed `turn` elements.
 * Speakers come from `speaker_labels` (speaker identification; matched to items by start time, or
 * an item's own `speaker_label` in newer output) or `channel_labels` (channel identification: each
 * channel's items are merged by time). A new turn starts when the speaker changes; a long run by
 * one speaker (or a transcript without speakers) is cut at a sentence end once it is long enough,
 * and at long pauses, so turns stay readable units. Punctuation items join the preceding word.
 */
export const transcribeParser: ParserDefinition = {
  formats: ['transcribe'],
  version: '1',
  textual: true,
  parse(input: ParseInput): DocumentDraft {
    const text = input.text ?? decodeText(input.bytes).text;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new GroundworkError('CORRUPT', `is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    const result = parseTranscribe(json);
    const speakers = distinctSpeakers(result.elements);
    return {
      format: 'transcribe',
      mime: 'application/json',
      ...(result.title && { title: result.title }),
      ...(result.language && { language: result.language }),
      metadata: { identification: result.identification, ...(speakers.length > 0 && { speakers }), ...(result.title && { jobName: result.title }) },
      elements: result.elements,
      warnings: result.warnings,
    };
  },
};

/** A same-speaker run longer than this many words is cut at its next sentence end. */
const MAX_TURN_WORDS = 120;
/** A silence at least this long (seconds) after a sentence end starts a new turn. */
const PAUSE_SECONDS = 2;
const SENTENCE_END = /[.?!。？！]$/;

interface TranscribeItem {
  start_time?: string;
  end_time?: string;
  type?: string;
  speaker_label?: string;
  channel_label?: string;
  alternatives?: { content?: string }[];
}

interface Word {
  content: string;
  punctuation: boolean;
  start?: number;
  end?: number;
  speaker?: string;
}

export interface TranscribeResult {
  elements: ElementDraft[];
  title?: string;
  language?: string;
  identification: 'speaker' | 'channel' | 'none';
  warnings: string[];
}

export function parseTranscribe(json: unknown): TranscribeResult {
  const root = json as { jobName?: unknown; results?: Record<string, unknown> };
  const results = root?.results;
  if (!results || typeof results !== 'object' || !Array.isArray(results.transcripts)) {
    throw new GroundworkError('CORRUPT', 'is not AWS Transcribe output: results.transcripts is missing');
  }
  const title = typeof root.jobName === 'string' && root.jobName ? root.jobName : undefined;
  const language = typeof results.language_code === 'string' ? results.language_code : undefined;
  const warnings: string[] = [];
  const items = Array.isArray(results.items) ? (results.items as TranscribeItem[]) : [];
  const channels = (results.channel_labels as { channels?: { channel_label?: string; items?: TranscribeItem[] }[] } | undefined)?.channels;
  const segments = (results.speaker_labels as { segments?: { speaker_label?: string; items?: TranscribeItem[] }[] } | undefined)?.segments;

  let words: Word[];
  let identification: TranscribeResult['identification'] = 'none';
  if (Array.isArray(channels) && channels.length > 0) {
    identification = 'channel';
    words = channelWords(channels);
  } else {
    const speakerAt = Array.isArray(segments) ? speakerByStartTime(segments) : undefined;
    if (speakerAt || items.some((item) => item.speaker_label)) identification = 'speaker';
    words = itemWords(items, speakerAt);
  }
  if (words.length === 0) {
    // A job with a transcript but no items (an older or trimmed export): keep the transcript text.
    const transcript = (results.transcripts as { transcript?: string }[]).map((t) => t.transcript ?? '').join('\n').trim();
    if (transcript) {
      warnings.push('no timed items: the transcript is kept as one untimed turn');
      return { elements: [{ kind: 'turn', text: transcript }], ...(title && { title }), ...(language && { language }), identification: 'none', warnings };
    }
  }
  return { elements: buildTurns(words), ...(title && { title }), ...(language && { language }), identification, warnings };
}

/** Speaker of each pronunciation, keyed by its start time (the items and the segments share it). */
function speakerByStartTime(segments: readonly { speaker_label?: string; items?: TranscribeItem[] }[]): Map<number, string> {
  const map = new Map<number, string>();
  for (const segment of segments) {
    for (const item of segment.items ?? []) {
      const speaker = item.speaker_label ?? segment.speaker_label;
      if (item.start_time !== undefined && speaker) map.set(Number(item.start_time), speaker);
    }
  }
  return map;
}

function itemWords(items: readonly TranscribeItem[], speakerAt: Map<number, string> | undefined): Word[] {
  const words: Word[] = [];
  for (const item of items) {
    const word = toWord(item);
    if (!word) continue;
    const speaker = item.speaker_label ?? (word.start !== undefined ? speakerAt?.get(word.start) : undefined);
    if (speaker) word.speaker = speaker;
    words.push(word);
  }
  return words;
}

/**
 * Channel identification: each channel is one party. Punctuation carries no time, so each channel's
 * items are first grouped into timed words with their punctuation, then the channels are merged
 * by start time (stable, so channel order breaks ties).
 */
function channelWords(channels: readonly { channel_label?: string; items?: TranscribeItem[] }[]): Word[] {
  const groups: { start: number; words: Word[] }[] = [];
  channels.forEach((channel, index) => {
    const speaker = channel.channel_label ?? `ch_${index}`;
    let group: { start: number; words: Word[] } | undefined;
    for (const item of channel.items ?? []) {
      const word = toWord(item);
      if (!word) continue;
      word.speaker = speaker;
      if (word.punctuation && group) {
        group.words.push(word);
        continue;
      }
      group = { start: word.start ?? Number.POSITIVE_INFINITY, words: [word] };
      groups.push(group);
    }
  });
  groups.sort((a, b) => a.start - b.start);
  return groups.flatMap((g) => g.words);
}

function toWord(item: TranscribeItem): Word | undefined {
  const content = item.alternatives?.[0]?.content;
  if (!content) return undefined;
  const start = item.start_time !== undefined ? Number(item.start_time) : undefined;
  const end = item.end_time !== undefined ? Number(item.end_time) : undefined;
  return {
    content,
    punctuation: item.type === 'punctuation',
    ...(start !== undefined && Number.isFinite(start) && { start }),
    ...(end !== undefined && Number.isFinite(end) && { end }),
  };
}

function buildTurns(words: readonly Word[]): ElementDraft[] {
  const turns: ElementDraft[] = [];
  // A turn's text is built from parts, joined once: a long turn costs its length, not its length squared.
  let parts: string[] = [];
  let last = '';
  let speaker: string | undefined;
  let start: number | undefined;
  let end: number | undefined;
  let count = 0;
  const flush = (): void => {
    if (parts.length > 0) turns.push({ kind: 'turn', text: parts.join(''), ...(speaker && { speaker }), ...(start !== undefined && { startTime: start }), ...(end !== undefined && { endTime: end }) });
    parts = [];
    last = '';
    start = undefined;
    end = undefined;
    count = 0;
  };
  const append = (content: string): void => {
    parts.push(content);
    last = content;
  };
  for (const word of words) {
    if (word.punctuation) {
      // Punctuation joins the word before it, whoever speaks next.
      append(word.content);
      continue;
    }
    const wordSpeaker = word.speaker ?? speaker;
    if (parts.length > 0) {
      const sentenceEnded = SENTENCE_END.test(last);
      const paused = end !== undefined && word.start !== undefined && word.start - end >= PAUSE_SECONDS;
      if (wordSpeaker !== speaker || (sentenceEnded && (count >= MAX_TURN_WORDS || paused))) flush();
    }
    speaker = wordSpeaker;
    if (parts.length > 0) parts.push(' ');
    append(word.content);
    count++;
    if (start === undefined && word.start !== undefined) start = word.start;
    if (word.end !== undefined) end = word.end;
  }
  flush();
  return turns;
}

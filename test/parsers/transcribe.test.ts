import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { registerParser } from '../../src/parsers/registry.js';
import { parseTranscribe, transcribeParser } from '../../src/parsers/transcribe.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { tokenF1 } from './similarity.js';

registerParser(transcribeParser);

const word = (content: string, start: number, end: number, extra: Record<string, unknown> = {}) => ({
  start_time: String(start), end_time: String(end), alternatives: [{ confidence: '1.0', content }], type: 'pronunciation', ...extra,
});
const punct = (content: string) => ({ alternatives: [{ confidence: '0.0', content }], type: 'punctuation' });

describe('transcribe: items into turns', () => {
  test('speaker identification: turns change with the speaker, punctuation joins the previous word', () => {
    const items = [word('Hello', 0.1, 0.4), word('there', 0.4, 0.7), punct('.'), word('Hi', 1.0, 1.2), punct('!'), word('Bye', 2.0, 2.3)];
    const json = {
      jobName: 'call',
      results: {
        transcripts: [{ transcript: 'Hello there. Hi! Bye' }],
        speaker_labels: {
          speakers: 2,
          segments: [
            { speaker_label: 'spk_0', start_time: '0.1', end_time: '0.7', items: [{ start_time: '0.1', speaker_label: 'spk_0' }, { start_time: '0.4', speaker_label: 'spk_0' }] },
            { speaker_label: 'spk_1', start_time: '1.0', end_time: '1.2', items: [{ start_time: '1.0', speaker_label: 'spk_1' }] },
            { speaker_label: 'spk_0', start_time: '2.0', end_time: '2.3', items: [{ start_time: '2.0', speaker_label: 'spk_0' }] },
          ],
        },
        items,
      },
    };
    const result = parseTranscribe(json);
    expect(result.identification).toBe('speaker');
    expect(result.title).toBe('call');
    expect(result.elements).toEqual([
      { kind: 'turn', text: 'Hello there.', speaker: 'spk_0', startTime: 0.1, endTime: 0.7 },
      { kind: 'turn', text: 'Hi!', speaker: 'spk_1', startTime: 1, endTime: 1.2 },
      { kind: 'turn', text: 'Bye', speaker: 'spk_0', startTime: 2, endTime: 2.3 },
    ]);
  });

  test('channel identification: channels merged by time, each channel a speaker', () => {
    const json = {
      results: {
        transcripts: [{ transcript: 'x' }],
        channel_labels: {
          number_of_channels: 2,
          channels: [
            { channel_label: 'ch_0', items: [word('Good', 0, 0.3), word('morning', 0.3, 0.8), punct('.'), word('Fine', 3, 3.4), punct('.')] },
            { channel_label: 'ch_1', items: [word('Hey', 1, 1.2), punct(','), word('how', 1.3, 1.5), word('are', 1.5, 1.7), word('you', 1.7, 1.9), punct('?')] },
          ],
        },
        items: [],
      },
    };
    const result = parseTranscribe(json);
    expect(result.identification).toBe('channel');
    expect(result.elements.map((e) => [e.speaker, e.text, e.startTime, e.endTime])).toEqual([
      ['ch_0', 'Good morning.', 0, 0.8],
      ['ch_1', 'Hey, how are you?', 1, 1.9],
      ['ch_0', 'Fine.', 3, 3.4],
    ]);
  });

  test('no speakers: a long pause after a sentence end starts a new turn; a pause mid-sentence does not', () => {
    const items = [word('One', 0, 0.2), word('two', 3, 3.2), punct('.'), word('Three', 6, 6.2), punct('.')];
    const result = parseTranscribe({ results: { transcripts: [{ transcript: '' }], items } });
    expect(result.identification).toBe('none');
    expect(result.elements.map((e) => [e.text, e.startTime, e.endTime, e.speaker])).toEqual([
      ['One two.', 0, 3.2, undefined],
      ['Three.', 6, 6.2, undefined],
    ]);
  });

  test('a transcript without items is one untimed turn; non-Transcribe JSON is CORRUPT', async () => {
    const result = parseTranscribe({ results: { transcripts: [{ transcript: 'Only text.' }] } });
    expect(result.elements).toEqual([{ kind: 'turn', text: 'Only text.' }]);
    expect(result.warnings).toHaveLength(1);
    const bytes = new TextEncoder().encode('{"results": {"items": []}}');
    await expect(parse(bytes, { format: 'transcribe' })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

describe.skipIf(!hasShared)('transcribe: corpus', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  const files = [
    ['transcribe-01-plain.json', 'none', 0],
    ['transcribe-02-channel-identification.json', 'channel', 2],
    ['transcribe-03-speaker-identification.json', 'speaker', 3],
  ] as const;

  // Measure: token F1 of all turns' text against AWS's own results.transcripts text; threshold 0.99
  // (the channel file's transcript was punctuated separately per channel, hence not 1.0).
  test.each(files)('%s: detected, %s identification, turns cover the transcript (token F1 >= 0.99), times ordered', async (name, identification, speakers) => {
    const doc = await parse(corpus('dialog', name));
    expect(doc.format).toBe('transcribe');
    expect(doc.metadata.identification).toBe(identification);
    expect(((doc.metadata.speakers as string[] | undefined) ?? []).length).toBe(speakers);
    const json = JSON.parse(readFileSync(corpus('dialog', name), 'utf8')) as { results: { transcripts: { transcript: string }[] } };
    const f1 = tokenF1(doc.elements.map((e) => e.text).join('\n'), json.results.transcripts[0]!.transcript).f1;
    expect(f1).toBeGreaterThanOrEqual(0.99);
    for (const el of doc.elements) {
      expect(el.kind).toBe('turn');
      expect(el.endTime!).toBeGreaterThanOrEqual(el.startTime!);
    }
    for (let i = 1; i < doc.elements.length; i++) expect(doc.elements[i]!.startTime!).toBeGreaterThanOrEqual(doc.elements[i - 1]!.startTime!);
    if (speakers > 0) for (let i = 1; i < doc.elements.length; i++) expect(doc.elements[i]!.speaker).not.toBe(doc.elements[i - 1]!.speaker);
  });
});

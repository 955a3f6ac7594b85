import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { decodeEntities } from '../../src/parsers/markdown.js';
import { registerParser } from '../../src/parsers/registry.js';
import { parseTimestamp, parseVtt, vttParser } from '../../src/parsers/vtt.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { tokenF1 } from './similarity.js';

registerParser(vttParser);

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('vtt: cues into turns', () => {
  test('voice tags give speakers, timings give seconds, NOTE/STYLE/REGION blocks and cue settings are ignored', () => {
    const vtt = [
      'WEBVTT - Weekly sync',
      '',
      'STYLE',
      '::cue { color: yellow }',
      '',
      'NOTE a comment',
      'over two lines',
      '',
      'REGION',
      'id:fred width:40%',
      '',
      'intro-1',
      '00:00:01.500 --> 00:00:04.000 align:left size:50%',
      '<v.loud Ana Lima>Hello <b>all</b> &amp; welcome',
      'to the call',
      '',
      '01:02.250 --> 01:05.000',
      '<v Bo>Thanks</v>',
      '',
      '1:00:00.000 --> 1:00:01.000',
      'No voice here <00:00:00.500>karaoke',
    ].join('\n');
    const result = parseVtt(vtt);
    expect(result.title).toBe('Weekly sync');
    expect(result.elements).toEqual([
      { kind: 'turn', text: 'Hello all & welcome\nto the call', speaker: 'Ana Lima', startTime: 1.5, endTime: 4 },
      { kind: 'turn', text: 'Thanks', speaker: 'Bo', startTime: 62.25, endTime: 65 },
      { kind: 'turn', text: 'No voice here karaoke', startTime: 3600, endTime: 3601 },
    ]);
  });

  test('a cue with two voices becomes two turns with the same timing', () => {
    const { elements } = parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\n<v A>Yes?\n<v B>No.\n');
    expect(elements.map((e) => [e.speaker, e.text, e.startTime])).toEqual([
      ['A', 'Yes?', 1],
      ['B', 'No.', 1],
    ]);
  });

  test('timestamps', () => {
    expect(parseTimestamp('00:11.000')).toBe(11);
    expect(parseTimestamp('01:00:11,250')).toBe(3611.25);
  });

  test('a file that does not start with WEBVTT is CORRUPT; blocks without timing are reported', async () => {
    await expect(parse(bytes('00:01.000 --> 00:02.000\nhi\n'), { format: 'vtt' })).rejects.toMatchObject({ code: 'CORRUPT' });
    const doc = await parse(bytes('WEBVTT\n\nstray text\n\n00:01.000 --> 00:02.000\n<v X>hi\n'), { name: 'a.vtt' });
    expect(doc.format).toBe('vtt');
    expect(doc.elements).toHaveLength(1);
    expect(doc.canonical).toBe('X: hi');
    expect(doc.warnings[0]).toMatch(/1 block/);
  });
});

describe.skipIf(!hasShared)('vtt: corpus (docling ground truth)', () => {
  if (!hasShared) console.warn(sharedSkipReason);

  test('webvtt_example_01: every cue text, voice and time equals docling\'s; text token F1 vs expected.md = 1.0', async () => {
    const doc = await parse(corpus('dialog', 'webvtt_example_01.vtt'));
    const expected = JSON.parse(readFileSync(corpus('dialog', 'webvtt_example_01.vtt.expected.json'), 'utf8')) as {
      texts: { text: string; source: { start_time: number; end_time: number; voice: string }[] }[];
    };
    expect(doc.elements.map((e) => [e.text, e.speaker, e.startTime, e.endTime])).toEqual(
      expected.texts.map((t) => [t.text, t.source[0]!.voice, t.source[0]!.start_time, t.source[0]!.end_time]),
    );
    const turnsText = doc.elements.map((e) => e.text).join('\n');
    expect(tokenF1(turnsText, readFileSync(corpus('dialog', 'webvtt_example_01.vtt.expected.md'), 'utf8')).f1).toBe(1);
    expect(doc.metadata.speakers).toEqual(['Roger Bingham', 'Neil deGrasse Tyson']);
  });
});

describe('vtt: cue markup in one pass', () => {
  /** The regex reading the one-pass scan replaced (quadratic on `<` without `>`). */
  function referenceSpans(payload: string): { speaker?: string; text: string }[] {
    const cue = (raw: string): string =>
      decodeEntities(raw.replace(/<[^>]*>/g, ''))
        .split('\n')
        .map((line) => line.replace(/[ \t]+/g, ' ').trim())
        .filter(Boolean)
        .join('\n');
    const body = payload.replace(/<\/v>/g, '');
    const firstVoice = body.search(/<v[\s.]/);
    if (firstVoice < 0) return [{ text: cue(body) }].filter((s) => s.text);
    const spans: { speaker?: string; text: string }[] = [];
    if (firstVoice > 0) spans.push({ text: cue(body.slice(0, firstVoice)) });
    const voice = /<v(?:\.[^\s>]*)?\s+([^>]*)>([\s\S]*?)(?=<v[\s.]|$)/g;
    voice.lastIndex = firstVoice;
    for (let m = voice.exec(body); m; m = voice.exec(body)) {
      const speaker = decodeEntities(m[1]!.trim());
      spans.push({ ...(speaker && { speaker }), text: cue(m[2]!) });
    }
    return spans.filter((s) => s.text);
  }

  test('voice tags and markup read as the regexes read them (fast-check)', () => {
    const fragment = fc.constantFrom('<v Ann>', '<v.loud Bob>', '<v>', '<v.x>', '</v>', '<i>', '</i>', '<', '>', '<b', 'hello', 'two words', ' ', '\n', '&amp;', '<v ', '<v\tCy>', 'x>y', '<c.a>');
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 24 }), (parts) => {
        const payload = parts.join('').replace(/\n[ \t]*\n/g, '\n').replace(/^\s+/, '');
        if (payload.trim() === '') return;
        const got = parseVtt(`WEBVTT\n\n00:00.000 --> 00:01.000\n${payload}`).elements.map((e) => ({ ...(e.speaker && { speaker: e.speaker }), text: e.text }));
        expect(got).toEqual(referenceSpans(payload));
      }),
      { seed: 20261201, numRuns: 400 },
    );
  });

  test('a cue of 200,000 unclosed tags is read in one pass', () => {
    const payload = '<v <b <i '.repeat(200_000 / 9);
    const { elements } = parseVtt(`WEBVTT\n\n00:00:00.000 --> 00:00:05.000\n${payload}\n`);
    // No `>` closes any tag: the whole payload is text (before the first `<v `, nothing).
    expect(elements.length).toBeLessThanOrEqual(1);
  });
});

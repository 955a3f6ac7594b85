import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { audioParser, readTranscription, transcriptionConfig } from '../../src/parsers/audio.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

registerParser(audioParser);

/** A mono 16-bit PCM WAV of `samples` samples of a square wave (valid RIFF, detected as audio). */
function tinyWav(samples = 800, rate = 8000): Uint8Array {
  const data = samples * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVEfmt ', 8, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(data, 40);
  for (let i = 0; i < samples; i++) b.writeInt16LE(i % 40 < 20 ? 8000 : -8000, 44 + i * 2);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

interface Received {
  path: string;
  contentType: string;
  fields: Record<string, string>;
  file?: { name: string; type: string; bytes: Uint8Array };
}

type Reply = { status: number; type: string; body: string } | 'hang';

/** A transcription server on 127.0.0.1 that records each multipart request and answers `reply`. */
class FakeTranscriber {
  server!: Server;
  url = '';
  received: Received[] = [];
  reply: Reply = { status: 200, type: 'application/json', body: '{}' };

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(() => {
        const reply = this.reply;
        if (reply === 'hang') return; // never answers: the client's timeout must fire
        res.writeHead(reply.status, { 'content-type': reply.type });
        res.end(reply.body);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/audio/transcriptions`;
  }

  private async handle(req: IncomingMessage): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const contentType = req.headers['content-type'] ?? '';
    const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': contentType }, body: Buffer.concat(chunks) }).formData();
    const fields: Record<string, string> = {};
    let file: Received['file'];
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') fields[key] = value;
      else file = { name: (value as File).name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) };
    }
    this.received.push({ path: req.url ?? '', contentType, fields, ...(file && { file }) });
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const verbose = JSON.stringify({
  task: 'transcribe',
  language: 'english',
  duration: 4.2,
  text: ' Hello there. General Kenobi.',
  segments: [
    { id: 0, start: 0, end: 1.52, text: ' Hello there.' },
    { id: 1, start: 1.52, end: 4.2, text: ' General   Kenobi. ' },
    { id: 2, start: 4.2, end: 4.2, text: '  ' },
  ],
});

describe('audio: transcription through an OpenAI-compatible endpoint', () => {
  const fake = new FakeTranscriber();
  const savedEnv = { ...process.env };
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.received = [];
    for (const key of ['GROUNDWORK_TRANSCRIBE_URL', 'GROUNDWORK_TRANSCRIBE_MODEL', 'GROUNDWORK_TRANSCRIBE_TIMEOUT_MS', 'GROUNDWORK_TRANSCRIBE_API_KEY']) {
      if (savedEnv[key] === undefined) delete process.env[key];
      else process.env[key] = savedEnv[key];
    }
    delete process.env.GROUNDWORK_TRANSCRIBE_URL;
  });

  test('without an endpoint: UNSUPPORTED, and the message says how to enable it', async () => {
    const error = await parse(tinyWav(), { name: 'memo.wav' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNSUPPORTED' });
    expect((error as Error).message).toMatch(/GROUNDWORK_TRANSCRIBE_URL/);
    expect((error as Error).message).toMatch(/transcribeUrl/);
    expect((error as Error).message).toMatch(/whisper\.cpp/);
    expect(fake.received).toHaveLength(0);
  });

  test('verbose_json segments become timed turns; the request is multipart with file, model and response_format', async () => {
    fake.reply = { status: 200, type: 'application/json', body: verbose };
    const wav = tinyWav();
    const doc = await parse(wav, { name: 'memo.wav', transcribeUrl: fake.url });
    expect(doc.format).toBe('audio');
    expect(doc.mime).toBe('audio/wav');
    expect(doc.elements.map((e) => [e.kind, e.text, e.startTime, e.endTime])).toEqual([
      ['turn', 'Hello there.', 0, 1.52],
      ['turn', 'General Kenobi.', 1.52, 4.2],
    ]);
    expect(doc.language).toBe('english');
    expect(doc.metadata).toMatchObject({ duration: 4.2, transcription: { model: 'whisper-1' } });
    expect(fake.received).toHaveLength(1);
    const request = fake.received[0]!;
    expect(request.path).toBe('/v1/audio/transcriptions');
    expect(request.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(request.fields).toEqual({ model: 'whisper-1', response_format: 'verbose_json' });
    expect(request.file?.name).toBe('memo.wav');
    expect(request.file?.type).toBe('audio/wav');
    expect(Buffer.from(request.file!.bytes).equals(Buffer.from(wav))).toBe(true);
  });

  test('endpoint and model from the environment; a server answering only {text} gives one untimed turn', async () => {
    process.env.GROUNDWORK_TRANSCRIBE_URL = fake.url.replace('/v1/audio/transcriptions', '/inference');
    process.env.GROUNDWORK_TRANSCRIBE_MODEL = 'ggml-base.en';
    fake.reply = { status: 200, type: 'application/json', body: '{"text":" Just the text. "}' };
    const doc = await parse(tinyWav(), { name: 'memo.wav' });
    expect(doc.elements).toMatchObject([{ kind: 'turn', text: 'Just the text.' }]);
    expect(doc.elements[0]!.startTime).toBeUndefined();
    expect(fake.received[0]!.path).toBe('/inference');
    expect(fake.received[0]!.fields.model).toBe('ggml-base.en');
  });

  test('a plain-text answer is one turn', () => {
    expect(readTranscription({ contentType: 'text/plain', body: 'hello\nworld\n' }).elements).toEqual([{ kind: 'turn', text: 'hello world' }]);
  });

  test('a non-2xx answer is IO with the status and an excerpt of the body', async () => {
    fake.reply = { status: 500, type: 'application/json', body: '{"error":"model not loaded"}' };
    const error = await parse(tinyWav(), { name: 'memo.wav', transcribeUrl: fake.url }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'IO' });
    expect((error as Error).message).toMatch(/500/);
    expect((error as Error).message).toMatch(/model not loaded/);
  });

  test('an answer without text or segments, or invalid JSON, is IO', async () => {
    fake.reply = { status: 200, type: 'application/json', body: '{"status":"queued"}' };
    await expect(parse(tinyWav(), { name: 'a.wav', transcribeUrl: fake.url })).rejects.toMatchObject({ code: 'IO' });
    fake.reply = { status: 200, type: 'application/json', body: '{"text": ' };
    await expect(parse(tinyWav(), { name: 'a.wav', transcribeUrl: fake.url })).rejects.toMatchObject({ code: 'IO' });
  });

  test('no answer within the timeout is IO naming the timeout', async () => {
    process.env.GROUNDWORK_TRANSCRIBE_TIMEOUT_MS = '300';
    fake.reply = 'hang';
    const error = await parse(tinyWav(), { name: 'a.wav', transcribeUrl: fake.url }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'IO' });
    expect((error as Error).message).toMatch(/no answer within/);
  });

  test('connection refused is IO', async () => {
    const closed = new FakeTranscriber();
    await closed.start();
    const url = closed.url;
    await closed.stop();
    const error = await parse(tinyWav(), { name: 'a.wav', transcribeUrl: url }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'IO' });
    expect((error as Error).message).toMatch(/connection refused/);
  });

  test('a non-http URL is INVALID_OPTIONS; an empty transcript (silence) is rejected as EMPTY by parse()', async () => {
    expect(() => transcriptionConfig({ transcribeUrl: 'ftp://x/y' }, {})).toThrow(/not an http/);
    fake.reply = { status: 200, type: 'application/json', body: '{"text":"","segments":[]}' };
    await expect(parse(tinyWav(), { name: 'silence.wav', transcribeUrl: fake.url })).rejects.toMatchObject({ code: 'EMPTY' });
  });

  describe.skipIf(!hasShared)('corpus audio', () => {
    if (!hasShared) console.warn(sharedSkipReason);
    test('sample_10s.mp3 is sent whole as audio/mpeg; silent_1s.wav with no speech is EMPTY', async () => {
      const mp3 = corpus('audio', 'sample_10s.mp3');
      expect(existsSync(mp3)).toBe(true);
      fake.reply = { status: 200, type: 'application/json', body: verbose };
      const doc = await parse(mp3, { transcribeUrl: fake.url });
      expect(doc.mime).toBe('audio/mpeg');
      expect(doc.elements).toHaveLength(2);
      expect(fake.received[0]!.file?.name).toBe('sample_10s.mp3');
      expect(fake.received[0]!.file?.type).toBe('audio/mpeg');
      expect(fake.received[0]!.file?.bytes.length).toBe(readFileSync(mp3).length);
      fake.reply = { status: 200, type: 'application/json', body: '{"text":"","segments":[]}' };
      await expect(parse(corpus('audio', 'silent_1s.wav'), { transcribeUrl: fake.url })).rejects.toMatchObject({ code: 'EMPTY' });
    });
  });
});

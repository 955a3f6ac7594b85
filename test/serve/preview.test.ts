import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '../../src/parse.js';
import { chunk } from '../../src/chunk.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { fileForm, followJob, form, json, post, startServer, type Running } from './helpers.js';

describe.skipIf(!hasShared)(`previews and page images (${hasShared ? 'corpus' : sharedSkipReason})`, () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('parses an upload or JSON text without storing it, as parse() does', async () => {
    const file = corpus('md', 'nested.md');
    const uploaded = await json(await fetch(`${s.url}/v1/parse`, { method: 'POST', body: fileForm(file) }));
    const direct = await parse(file);
    expect(uploaded.document.canonical).toBe(direct.canonical);
    expect(uploaded.document.id).toBe(direct.id);
    const text = await json(await post(`${s.url}/v1/parse`, { text: '# Title\n\nBody text.\n', name: 'x.md' }));
    expect(text.document.format).toBe('markdown');
    expect(text.document.elements[0].kind).toBe('heading');
    expect((await s.library.stats()).documents).toBe(0);
  });

  it('chunks with the strategy and options given, as chunk() does', async () => {
    const file = corpus('md', 'wiki.md');
    const response = await fetch(`${s.url}/v1/chunk`, { method: 'POST', body: fileForm(file, { options: JSON.stringify({ strategy: 'token', chunkOptions: { chunkSize: 100 } }) }) });
    expect(response.status).toBe(200);
    const body = await json(response);
    const direct = chunk(await parse(file), { strategy: 'token', chunkSize: 100 });
    expect(body.strategy).toBe('token');
    expect(body.chunks.map((c: any) => c.text)).toEqual(direct.map((c) => c.text));
    const json2 = await json(await post(`${s.url}/v1/chunk`, { text: 'One. Two. Three.', strategy: 'sentence' }));
    expect(json2.chunks.length).toBeGreaterThan(0);
    const bad = await post(`${s.url}/v1/chunk`, { text: 'x', strategy: 'token', chunkOptions: { chunkSize: -5 } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('INVALID_OPTIONS');
  });

  it('422 for a file it cannot read, 415 for one it does not support, naming the client\'s file', async () => {
    const corrupt = await fetch(`${s.url}/v1/parse`, { method: 'POST', body: form([{ name: 'broken.pdf', bytes: '%PDF-1.7\n1 0 obj <<' }]) });
    expect(corrupt.status).toBe(422);
    const body = await json(corrupt);
    expect(body.error.code).toBe('CORRUPT');
    expect(body.error.message).toContain('broken.pdf');
    expect(body.error.message).not.toContain('uploads');
    const unsupported = await fetch(`${s.url}/v1/parse`, { method: 'POST', body: form([{ name: 'blob.bin', bytes: new Uint8Array([0, 1, 2, 3, 0xff, 0xfe, 0, 0, 7, 8, 9, 0, 1, 2, 3, 4]) }]) });
    expect(unsupported.status).toBe(415);
    expect((await json(unsupported)).error).toMatchObject({ code: 'UNSUPPORTED', file: 'blob.bin' });
    // a legacy Word file (an OLE compound file's header; the corpus has none): 415, saying what to do
    const ole = new Uint8Array(1024);
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const legacy = await fetch(`${s.url}/v1/parse`, { method: 'POST', body: form([{ name: 'minutes.doc', bytes: ole }]) });
    expect(legacy.status).toBe(415);
    const legacyBody = await json(legacy);
    expect(legacyBody.error.code).toBe('UNSUPPORTED');
    expect(legacyBody.error.message).toMatch(/minutes\.doc: is a legacy binary Word document .*save it as \.docx/);
    // and the corpus' misnamed .doc (really a DOCX) is read by its content, not refused by its name
    expect((await fetch(`${s.url}/v1/parse`, { method: 'POST', body: fileForm(corpus('adversarial', 'eng_spa_mult.doc')) })).status).toBe(200);
  });

  it('renders a PDF page as PNG, the same bytes from the cache the second time', async () => {
    const job = await json(await fetch(`${s.url}/v1/documents`, { method: 'POST', body: fileForm(corpus('pdf', 'header-test-doc.pdf')) }));
    const { last } = await followJob(s.url, job.id);
    expect(last.event).toBe('done');
    const id = (last.data as any).files[0].docId;
    const first = await fetch(`${s.url}/v1/documents/${id}/pages/1.png?dpi=50`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await first.arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const second = Buffer.from(await (await fetch(`${s.url}/v1/documents/${id}/pages/1.png?dpi=50`)).arrayBuffer());
    expect(second.equals(png)).toBe(true);
    expect((await fetch(`${s.url}/v1/documents/${id}/pages/999.png`)).status).toBe(404);
    expect((await fetch(`${s.url}/v1/documents/${id}/pages/0.png`)).status).toBe(400);
  });

  it('serves an image document\'s page in its own pixels (its OCR boxes\' units), grey, whatever the dpi; 415 for a format without pages', async () => {
    const file = corpus('images', 'table-multi-row-column-cells.png');
    const job = await json(await fetch(`${s.url}/v1/documents`, { method: 'POST', body: fileForm(file) }));
    const { last } = await followJob(s.url, job.id);
    expect(last.event).toBe('done');
    const id = (last.data as any).files[0].docId;
    const response = await fetch(`${s.url}/v1/documents/${id}/pages/1.png?dpi=50`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const png = PNG.sync.read(Buffer.from(await response.arrayBuffer()));
    const source = PNG.sync.read(readFileSync(file));
    expect([png.width, png.height]).toEqual([source.width, source.height]);
    // grey: every pixel's channels equal, and the source's luma
    const at = (x: number, y: number) => (y * png.width + x) * 4;
    for (const [x, y] of [[0, 0], [100, 50], [source.width - 1, source.height - 1]] as const) {
      const i = at(x, y);
      expect(png.data[i]).toBe(png.data[i + 1]);
      expect(Math.abs(png.data[i]! - (source.data[i]! * 77 + source.data[i + 1]! * 150 + source.data[i + 2]! * 29) / 256)).toBeLessThanOrEqual(1);
    }
    // the boxes of its blocks lie inside that image
    const boxes = (await s.library.blocks(id)).flatMap((b) => b.bboxes ?? []);
    expect(boxes.length).toBeGreaterThan(0);
    for (const box of boxes) expect(box.x1 <= png.width && box.y1 <= png.height).toBe(true);
    expect((await fetch(`${s.url}/v1/documents/${id}/pages/2.png`)).status).toBe(404);
    const md = await json(await fetch(`${s.url}/v1/documents`, { method: 'POST', body: fileForm(corpus('md', 'nested.md')) }));
    const mdId = (await followJob(s.url, md.id)).last.data as any;
    const unsupported = await fetch(`${s.url}/v1/documents/${mdId.files[0].docId}/pages/1.png`);
    expect(unsupported.status).toBe(415);
    expect((await json(unsupported)).error.code).toBe('UNSUPPORTED');
  }, 60_000);
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/run.js';
import { Library } from '../../src/library/library.js';
import { startEmbeddingServer, type FixtureServer } from '../embed/fixtures.js';

/** `groundwork embed`, and ingest / search with an embedder, against the loopback embeddings server. */

let dir: string;
let docs: string;
let lib: string;
let server: FixtureServer;

async function cli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run([...args, '--library', lib], { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  for (const name of Object.keys(process.env)) if (name.startsWith('GROUNDWORK_EMBEDDINGS_') || name.startsWith('GROUNDWORK_RERANK_')) delete process.env[name];
  server = await startEmbeddingServer({ dimensions: 8 });
  dir = mkdtempSync(join(tmpdir(), 'gw-cli-embed-'));
  docs = join(dir, 'docs');
  lib = join(dir, 'library');
  mkdirSync(docs);
  writeFileSync(join(docs, 'guide.md'), '# Install\n\nRun the installer and accept the licence.\n\n# Configure\n\nEdit the settings file to choose a port.\n');
  writeFileSync(join(docs, 'notes.md'), '# Budget\n\nThe quarterly budget was approved by the board.\n');
  expect((await cli('ingest', docs, '--workers', '0')).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('groundwork embed and vector search', () => {
  test('without vectors: bm25 by default, --mode vector says what to do, embed without an embedder is an error', async () => {
    const bm25 = await cli('search', 'budget', '--json', '--explain');
    expect(bm25.code).toBe(0);
    expect(JSON.parse(bm25.stdout).explanation.mode ?? 'bm25').toBe('bm25');
    const vector = await cli('search', 'budget', '--mode', 'vector');
    expect(vector.code).toBe(2);
    expect(vector.stderr).toContain('groundwork embed');
    const none = await cli('embed');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--embed-url');
  });

  test('embed, then hybrid search with explain; the settings are stored, later ingests embed with them', async () => {
    const embed = await cli('embed', '--embed-url', server.url, '--embed-model', 'fixture', '--embed-dimensions', '8', '--json');
    expect(embed.code).toBe(0);
    const report = JSON.parse(embed.stdout);
    expect(report).toMatchObject({ model: 'openai:fixture:8', blocks: 2, embedded: 2 });

    const hybrid = await cli('search', 'quarterly budget', '--json', '--explain');
    expect(hybrid.code).toBe(0);
    const result = JSON.parse(hybrid.stdout);
    expect(result.hits[0].scores).toMatchObject({ bm25: expect.any(Number), vector: expect.any(Number), fused: expect.any(Number) });
    const readable = await cli('search', 'quarterly budget', '--explain');
    expect(readable.stdout).toContain('Searched (hybrid)');
    expect(readable.stdout).toMatch(/scores: bm25 [\d.]+ \(#1\)  vector [\d.-]+ \(#\d\)  fused/);

    writeFileSync(join(docs, 'extra.md'), '# Extra\n\nA new file about rivers and lakes.\n');
    const ingest = await cli('ingest', docs, '--workers', '0', '--json');
    expect(ingest.code).toBe(0);
    expect(JSON.parse(ingest.stdout).embedding).toMatchObject({ model: 'openai:fixture:8', blocks: 1, failed: [] });
    const text = await cli('ingest', docs, '--workers', '0');
    expect(text.stdout).toContain('Vectors (openai:fixture:8)');

    const vector = await cli('search', 'rivers', '--mode', 'vector', '--json', '-k', '2');
    expect(vector.code).toBe(0);
    expect(JSON.parse(vector.stdout)).toHaveLength(2);
    const weighted = await cli('search', 'rivers', '--weights', 'bm25=0,vector=1', '--json', '-k', '2');
    expect(weighted.code).toBe(0);
    expect((await cli('search', 'rivers', '--weights', 'bm25')).code).toBe(2);
  });

  test('another model is refused until embed --model switches; --drop-old and --quantization', async () => {
    const mixed = await cli('search', 'budget', '--mode', 'vector', '--embed-url', server.url, '--embed-model', 'other', '--embed-dimensions', '8');
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('openai:fixture:8');
    expect(mixed.stderr).toContain('openai:other:8');
    const switched = await cli('embed', '--model', 'other', '--drop-old', '--quantization', 'binary', '--json');
    expect(switched.code).toBe(0);
    expect(JSON.parse(switched.stdout)).toMatchObject({ model: 'openai:other:8', blocks: 3 });
    const library = await Library.open(lib);
    try {
      expect(await library.vectorStats()).toMatchObject({ model: 'openai:other:8', models: [{ model: 'openai:other:8', quantization: 'binary', blocks: 3 }] });
      expect((await library.settings()).quantization).toBe('binary');
    } finally {
      await library.close();
    }
    const vector = await cli('search', 'budget', '--mode', 'vector', '--json', '-k', '1');
    expect(vector.code).toBe(0);
    expect(JSON.parse(vector.stdout)).toHaveLength(1);
    expect((await cli('embed', '--quantization', 'int4')).code).toBe(2);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { mcpCommand } from '../../src/cli/mcp-command.js';
import { serveCommand } from '../../src/cli/serve-command.js';
import { contextualText } from '../../src/embed/documents.js';
import { Library } from '../../src/library/library.js';
import { mcpServePlugin } from '../../src/mcp/serve-plugin.js';
import { serve, type ServeHandle } from '../../src/serve/index.js';
import { startEmbeddingServer, startRerankServer, type FixtureServer } from '../embed/fixtures.js';
import { json, post } from './helpers.js';

/**
 * Vector and hybrid search over HTTP (/v1/search, Dify's /retrieval, MCP's search tool at /mcp):
 * a real library whose blocks were embedded by the loopback OpenAI-embeddings fixture, served on
 * loopback. The fixture's vectors come from a hash of the text, so a query that is a block's exact
 * text has that block's vector (cosine 1) and a made-up word matches no keyword but still has
 * nearest vectors: what only the vector retriever can find.
 */
const FILES: Record<string, string> = {
  'guide.md': '# Install\n\nRun the installer and accept the licence.\n\n# Configure\n\nEdit the settings file to choose a port.\n',
  'notes.md': '# Budget\n\nThe quarterly budget was approved by the board.\n\n# Travel\n\nTrain tickets are refunded within a month.\n',
  'rivers.md': '# 长江\n\n长江是中国最长的河流，流经十一个省份。\n\n# Danube\n\nThe Danube flows through ten countries.\n',
};
const BUDGET = 'The quarterly budget was approved by the board.';
const NO_KEYWORD = 'zyxwvutsrq';

let embeddings: FixtureServer;
let reranks: FixtureServer;
let root: string;
let vectorLib: Library;
let plainLib: Library;
let vectorServer: ServeHandle;
/** The budget block's id, and its contextual text: the text that was embedded, so the query whose vector is the block's. */
let budgetId: string;
let EXACT: string;
let plainServer: ServeHandle;

function docsIn(dir: string): string {
  const docs = join(dir, 'docs');
  mkdirSync(docs, { recursive: true });
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(docs, name), text);
  return docs;
}

beforeAll(async () => {
  embeddings = await startEmbeddingServer({ dimensions: 8 });
  reranks = await startRerankServer({ api: 'tei' });
  root = mkdtempSync(join(tmpdir(), 'gw-serve-search-'));
  const docs = docsIn(root);
  vectorLib = await Library.open(join(root, 'vectors'));
  await vectorLib.useEmbedder({ flags: { url: embeddings.url, model: 'fixture', dimensions: 8, maxRetries: 0 }, env: {} });
  const report = await vectorLib.addFiles(docs, { workers: 0, chunkOptions: { chunkSize: 16 } });
  expect(report.embedding?.failed).toEqual([]);
  const notes = (await vectorLib.documents()).find((d) => d.paths[0]!.endsWith('notes.md'))!;
  const budget = (await vectorLib.blocks(notes.id)).find((b) => b.text.includes(BUDGET))!;
  budgetId = budget.id;
  EXACT = contextualText(budget);
  plainLib = await Library.open(join(root, 'plain'));
  await plainLib.addFiles(docs, { workers: 0, chunkOptions: { chunkSize: 16 } });
  const plugins = [mcpServePlugin()];
  vectorServer = await serve(vectorLib, { port: 0, workers: 1, plugins, knowledgeId: 'kb' });
  plainServer = await serve(plainLib, { port: 0, workers: 1, plugins, knowledgeId: 'kb' });
}, 120_000);

afterAll(async () => {
  await vectorServer?.close();
  await plainServer?.close();
  await vectorLib?.close();
  await plainLib?.close();
  await embeddings?.close();
  await reranks?.close();
  rmSync(root, { recursive: true, force: true });
});

const search = async (server: ServeHandle, body: Record<string, unknown>) => {
  const response = await post(`${server.url}/v1/search`, body);
  return { status: response.status, body: await json(response) };
};

describe('POST /v1/search: vector and hybrid, as groundwork search runs them', () => {
  it('defaults to hybrid when the library has vectors and an embedder, to bm25 when it has none', async () => {
    expect((await search(vectorServer, { query: 'budget' })).body.mode).toBe('hybrid');
    expect((await search(plainServer, { query: 'budget' })).body.mode).toBe('bm25');
  });

  it('mode vector: the query is embedded by the library\'s model; a block\'s own text is its nearest vector; scores in explain', async () => {
    embeddings.reset();
    const { status, body } = await search(vectorServer, { query: EXACT, mode: 'vector', k: 3, explain: true, sectionReferences: false });
    expect(status).toBe(200);
    expect(body.mode).toBe('vector');
    expect(body.hits[0].block.id).toBe(budgetId);
    expect(body.hits[0].scores.vector).toBeCloseTo(1, 5);
    expect(body.hits[0].scores.bm25).toBeUndefined();
    expect(body.explanation).toBeDefined();
    // One embedding request, for the query (the blocks were embedded at ingest).
    expect(embeddings.requests.map((r) => r.body.input)).toEqual([[EXACT]]);
  });

  it('mode hybrid: both retrievers, fused; a word no block has is found by the vector retriever alone', async () => {
    const hybrid = await search(vectorServer, { query: EXACT, mode: 'hybrid', k: 3, explain: true, sectionReferences: false });
    expect(hybrid.status).toBe(200);
    const top = hybrid.body.hits[0];
    expect(top.block.id).toBe(budgetId);
    expect(top.scores).toMatchObject({ bm25Rank: 1, vectorRank: 1 });
    expect(top.scores.fused).toBeGreaterThan(0);
    const keywordless = await search(vectorServer, { query: NO_KEYWORD, explain: true });
    expect(keywordless.body.mode).toBe('hybrid');
    expect(keywordless.body.hits.length).toBeGreaterThan(0);
    expect(keywordless.body.hits.every((h: { scores: Record<string, number> }) => h.scores.vector !== undefined && h.scores.bm25 === undefined)).toBe(true);
    expect((await search(vectorServer, { query: NO_KEYWORD, mode: 'bm25' })).body.hits).toEqual([]);
    // Weights as the CLI's --weights: bm25 left out is the vector ranking.
    const weighted = await search(vectorServer, { query: 'quarterly budget', weights: { bm25: 0, vector: 1 }, k: 3, merge: false, dedupe: false });
    const vectorOnly = await search(vectorServer, { query: 'quarterly budget', mode: 'vector', k: 3, merge: false, dedupe: false });
    expect(weighted.body.hits.map((h: { block: { id: string } }) => h.block.id)).toEqual(vectorOnly.body.hits.map((h: { block: { id: string } }) => h.block.id));
  });

  it('vector or hybrid without vectors, or rerank without a reranker: 400 INVALID_OPTIONS saying what to configure', async () => {
    for (const mode of ['vector', 'hybrid']) {
      const { status, body } = await search(plainServer, { query: 'budget', mode });
      expect(status).toBe(400);
      expect(body.error.code).toBe('INVALID_OPTIONS');
      expect(body.error.message).toMatch(/no vectors.*embed/);
    }
    const rerank = await search(plainServer, { query: 'budget', rerank: true });
    expect(rerank.status).toBe(400);
    expect(rerank.body.error).toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('reranker') });
  });

  it('an embedder that fails is 502 EMBEDDER; bm25 still answers', async () => {
    embeddings.always({ status: 500, body: { error: { message: 'model crashed', type: 'server_error' } } });
    try {
      const { status, body } = await search(vectorServer, { query: 'budget refund', mode: 'vector' });
      expect(status).toBe(502);
      expect(body.error.code).toBe('EMBEDDER');
      expect((await search(vectorServer, { query: 'budget', mode: 'bm25' })).status).toBe(200);
    } finally {
      embeddings.always(undefined);
    }
  });

  it('rerank with the server\'s reranker (serve({ reranker })): its score in each hit', async () => {
    const { openReranker } = await import('../../src/embed/config.js');
    const reranker = openReranker({ flags: { url: reranks.url, api: 'tei' }, env: {} })!.reranker;
    const server = await serve(vectorLib, { port: 0, workers: 1, reranker });
    try {
      reranks.reset();
      const { status, body } = await search(server, { query: 'quarterly budget', rerank: true, explain: true, k: 3 });
      expect(status).toBe(200);
      expect(body.hits.length).toBeGreaterThan(0);
      expect(body.hits.every((h: { scores: Record<string, number> }) => typeof h.scores.rerank === 'number')).toBe(true);
      expect(reranks.requests.length).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('Dify POST /retrieval: library.search in its default mode', () => {
  const retrieval = (server: ServeHandle, query: string) =>
    post(`${server.url}/retrieval`, { knowledge_id: 'kb', query, retrieval_setting: { top_k: 3, score_threshold: 0 } });

  it('hybrid when the library has vectors: a query without a keyword in the library still gets records', async () => {
    const hybrid = await json(await retrieval(vectorServer, NO_KEYWORD));
    expect(hybrid.records.length).toBeGreaterThan(0);
    expect(hybrid.records[0].score).toBe(1);
    expect((await json(await retrieval(plainServer, NO_KEYWORD))).records).toEqual([]);
    const exact = await json(await retrieval(vectorServer, EXACT));
    expect(exact.records[0]).toMatchObject({ content: expect.stringContaining(BUDGET), score: 1, metadata: { block_id: budgetId } });
  });
});

describe('MCP search at /mcp: library.search, with mode, explain and the CLI\'s errors', () => {
  async function connect(server: ServeHandle): Promise<Client> {
    const client = new Client({ name: 'groundwork-search-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    return client;
  }
  const callTool = async (client: Client, args: Record<string, unknown>) => (await client.callTool({ name: 'search', arguments: args })) as CallToolResult;
  const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

  it('mode vector and hybrid, with scores when explain', async () => {
    const client = await connect(vectorServer);
    try {
      const vector = await callTool(client, { query: EXACT, mode: 'vector', k: 2, explain: true, sectionReferences: false });
      expect(vector.isError).toBeFalsy();
      const out = vector.structuredContent as { mode: string; hits: { blockIds: string[]; scores?: Record<string, number> }[]; explanation?: unknown };
      expect(out.mode).toBe('vector');
      expect(out.hits[0]!.blockIds).toEqual([budgetId]);
      expect(out.hits[0]!.scores!.vector).toBeCloseTo(1, 5);
      expect(out.explanation).toBeDefined();
      expect(textOf(vector)).toMatch(/scores: vector 1/);
      const hybrid = await callTool(client, { query: NO_KEYWORD });
      const hybridOut = hybrid.structuredContent as { mode: string; hits: { scores?: unknown }[] };
      expect(hybridOut.mode).toBe('hybrid');
      expect(hybridOut.hits.length).toBeGreaterThan(0);
      expect(hybridOut.hits[0]!.scores).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('vector without vectors is an error result ending in [INVALID_OPTIONS]; a bad mode is rejected by the schema', async () => {
    const client = await connect(plainServer);
    try {
      const result = await callTool(client, { query: 'budget', mode: 'vector' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/no vectors.*\[INVALID_OPTIONS\]$/);
      const bad = await callTool(client, { query: 'budget', mode: 'semantic' }).catch((e: unknown) => e);
      expect(bad instanceof Error ? bad.message : textOf(bad as CallToolResult)).toMatch(/mode/);
    } finally {
      await client.close();
    }
  });
});

describe('groundwork serve takes the embedder as groundwork search does', () => {
  function recorder(): CliIO & { errText(): string } {
    let err = '';
    return { out: () => undefined, err: (t) => void (err += t), readStdin: async () => new Uint8Array(), errText: () => err };
  }

  /** Runs serveCommand until it listens (or exits), then one search, then stops it. */
  async function serveOnce(args: string[], body: Record<string, unknown>): Promise<{ code: number; err: string; status?: number; body?: any }> {
    const io = recorder();
    const stop = new AbortController();
    const running = serveCommand(['--library', join(root, 'vectors-cli'), '--port', '0', ...args], io, stop.signal);
    let url: string | undefined;
    while (url === undefined) {
      const settled = await Promise.race([running.then((code) => ({ code })), new Promise<undefined>((r) => setTimeout(() => r(undefined), 50))]);
      if (settled) return { code: settled.code, err: io.errText() };
      url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(io.errText())?.[1];
    }
    const response = await post(`${url}/v1/search`, body);
    const result = { status: response.status, body: await json(response) };
    stop.abort();
    return { code: await running, err: io.errText(), ...result };
  }

  it('--embed-url/--embed-model: hybrid over the library\'s vectors; a model that is not the library\'s is refused at start', async () => {
    // A library embedded with model "cli-model": the flags naming it serve its vectors, flags
    // naming another model are refused (as groundwork search refuses them).
    const lib = await Library.open(join(root, 'vectors-cli'));
    await lib.useEmbedder({ flags: { url: embeddings.url, model: 'cli-model', dimensions: 8, maxRetries: 0 }, env: {} });
    await lib.addFiles(join(root, 'docs'), { workers: 0, chunkOptions: { chunkSize: 16 } });
    await lib.close();

    const flags = ['--embed-url', embeddings.url, '--embed-model', 'cli-model', '--embed-dimensions', '8'];
    const ok = await serveOnce(flags, { query: EXACT, mode: 'vector', k: 1, sectionReferences: false, explain: true });
    expect(ok.code).toBe(0);
    expect(ok.status).toBe(200);
    expect(ok.body.hits[0].block.text).toContain(BUDGET);
    expect(ok.body.hits[0].scores.vector).toBeCloseTo(1, 5);
    expect(ok.err).toContain('hybrid by default');

    const wrong = await serveOnce(['--embed-url', embeddings.url, '--embed-model', 'other-model', '--embed-dimensions', '8'], { query: 'x' });
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/cli-model.*other-model|other-model.*cli-model/);
    expect(wrong.err).toContain('[INVALID_OPTIONS]');
  });
  it('groundwork mcp takes the same flags: a model that is not the library\'s is refused before it serves', async () => {
    const io = recorder();
    const code = await mcpCommand(['--library', join(root, 'vectors'), '--embed-url', embeddings.url, '--embed-model', 'other-model', '--embed-dimensions', '8'], io);
    expect(code).toBe(2);
    expect(io.errText()).toMatch(/openai:fixture:8.*openai:other-model:8.*\[INVALID_OPTIONS\]/s);
    const help = recorder();
    let out = '';
    expect(await mcpCommand(['--help'], { ...help, out: (t) => void (out += t) })).toBe(0);
    expect(out).toContain('--embed-url URL');
    expect(out).toContain('--rerank-url URL');
  });
});

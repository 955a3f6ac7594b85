import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpServePlugin } from '../../src/mcp/serve-plugin.js';
import { newKey, parseKeys } from '../../src/serve/auth.js';
import { serve, type ServeHandle } from '../../src/serve/server.js';
import { buildLibrary, call, callError, type TestLibrary } from './helpers.js';

/** MCP at /mcp under the real `serve()` on loopback, behind its API keys, with the SDK's client. */
let lib: TestLibrary;
let server: ServeHandle;
let url: URL;
const reader = newKey('reader', 'read-only');
const writer = newKey('writer', 'read-write');

beforeAll(async () => {
  lib = await buildLibrary();
  server = await serve(lib.library, {
    port: 0,
    keys: parseKeys(`${reader.line}\n${writer.line}`, 'test'),
    plugins: [mcpServePlugin({ allowIngest: [lib.docs], describe: 'a warehouse service contract' })],
  });
  url = new URL(`${server.url}/mcp`);
}, 180_000);

afterAll(async () => {
  await server?.close();
  await lib?.cleanup();
});

async function connect(key?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {});
  const client = new Client({ name: 'groundwork-serve-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('MCP at /mcp under groundwork serve (loopback, API keys)', () => {
  it('refuses a request without a key or with an unknown one (401)', async () => {
    await expect(connect()).rejects.toThrow(/401|API key/);
    await expect(connect('gw_not_a_key')).rejects.toThrow(/401|API key/);
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(401);
  });

  it('a read-only key lists and calls the read tools; ingest is not there for it', async () => {
    const client = await connect(reader.key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search', 'get_block', 'list_documents', 'get_outline', 'read_section']);
    expect(tools[0]!.description).toMatch(/^Search a warehouse service contract\./);
    const { structured } = await call(client, 'search', { query: '第三章第二节提到的三个前提条件', k: 3 });
    expect(structured.hits.length).toBeGreaterThan(0);
    for (const hit of structured.hits) {
      expect(hit.citation).toMatchObject({ file: lib.files.contract, headingPath: ['仓储系统运维服务合同', '第三章 服务的开始', '3.2 前提条件'] });
    }
    const hit = structured.hits[0];
    expect((await call(client, 'get_block', { blockId: hit.citation.blockId, neighbors: 1 })).structured.block.id).toBe(hit.citation.blockId);
    expect((await call(client, 'list_documents', {})).structured.total).toBeGreaterThan(0);
    expect((await call(client, 'get_outline', { document: hit.citation.docId })).structured.sections.length).toBe(16);
    expect((await call(client, 'read_section', { document: hit.citation.docId, section: '3.2' })).structured.text).toContain('以下三个前提条件');
    expect(await callError(client, 'ingest', { paths: [lib.files.contract] })).toMatch(/Tool ingest not found/);
    expect(await callError(client, 'search', { query: 'x', k: 5000 })).toMatch(/-32602/);
    await client.close();
  });

  it('a read-write key gets ingest', async () => {
    const client = await connect(writer.key);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('ingest');
    expect((await call(client, 'ingest', { paths: [lib.files.contract] })).structured).toMatchObject({ added: 0, skipped: 1, rejected: [] });
    expect(await callError(client, 'ingest', { paths: ['/etc'] })).toMatch(/\[INVALID_OPTIONS\]$/);
    await client.close();
  });
});

describe('groundwork serve --help', () => {
  it('names /mcp and its flags', async () => {
    const { run } = await import('../../src/cli/run.js');
    const out: string[] = [];
    expect(await run(['serve', '--help'], { out: (t) => void out.push(t), err: () => undefined, readStdin: async () => new Uint8Array() })).toBe(0);
    expect(out.join('')).toMatch(/MCP for agents at \/mcp/);
    expect(out.join('')).toContain('--allow-ingest DIR');
    expect(out.join('')).not.toContain('--max-upload-bytes');
  });
});

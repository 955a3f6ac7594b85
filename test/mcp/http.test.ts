import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpAccess } from '../../src/mcp/context.js';
import { mcpFastifyPlugin, mcpNodeListener } from '../../src/mcp/http.js';
import { mcpServerFactory } from '../../src/mcp/server.js';
import { buildLibrary, call, callError, type TestLibrary } from './helpers.js';

/**
 * Streamable HTTP on loopback, with the SDK's client. The keys here are the test's own table (the
 * HTTP API's key handling lives in src/server/); what is tested is that /mcp gives each access
 * level its tools and refuses callers without one.
 */
const KEYS: Record<string, McpAccess> = { 'read-key': 'read', 'write-key': 'read-write' };
const accessOf = (authorization: string | undefined): McpAccess | undefined => KEYS[(authorization ?? '').replace(/^Bearer /, '')];

let lib: TestLibrary;
let node: Server;
let fastify: FastifyInstance;
const urls: Record<'node' | 'fastify', URL> = {} as never;

beforeAll(async () => {
  lib = await buildLibrary();
  const factory = mcpServerFactory(lib.library, { allowIngest: [lib.docs] });
  node = createServer(mcpNodeListener({ createServer: factory, authorize: (req: IncomingMessage) => accessOf(req.headers.authorization) }));
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  urls.node = new URL(`http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`);
  fastify = Fastify();
  await fastify.register(mcpFastifyPlugin, { createServer: factory, authorize: (request) => accessOf(request.headers.authorization) });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  urls.fastify = new URL(`http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`);
}, 180_000);

afterAll(async () => {
  await fastify?.close();
  await new Promise((resolve) => (node ? node.close(resolve) : resolve(undefined)));
  await lib?.cleanup();
});

async function connect(url: URL, key?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {});
  const client = new Client({ name: 'groundwork-http-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe.each(['node', 'fastify'] as const)('MCP over Streamable HTTP (%s, loopback)', (kind) => {
  it('refuses a caller without a key, or with a wrong one (401)', async () => {
    await expect(connect(urls[kind])).rejects.toThrow(/401|Unauthorized/);
    await expect(connect(urls[kind], 'wrong-key')).rejects.toThrow(/401|Unauthorized/);
    const res = await fetch(urls[kind], { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('a read-only key gets the read tools; calling ingest fails', async () => {
    const client = await connect(urls[kind], 'read-key');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['search', 'get_block', 'list_documents', 'get_outline', 'read_section']);
    expect(await callError(client, 'ingest', { paths: [lib.files.contract] })).toMatch(/Tool ingest not found/);
    const { structured } = await call(client, 'search', { query: '第三章第二节提到的三个前提条件', k: 3 });
    expect(structured.hits.length).toBeGreaterThan(0);
    for (const hit of structured.hits) expect(hit.citation).toMatchObject({ file: lib.files.contract, headingPath: ['仓储系统运维服务合同', '第三章 服务的开始', '3.2 前提条件'] });
    expect((await call(client, 'read_section', { section: '3.2 前提条件', document: lib.files.contract })).structured.text).toContain('以下三个前提条件');
    expect(await callError(client, 'search', { query: '' })).toMatch(/-32602/);
    await client.close();
  });

  it('a read-write key gets ingest too', async () => {
    const client = await connect(urls[kind], 'write-key');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('ingest');
    const { structured } = await call(client, 'ingest', { paths: [lib.files.contract] });
    expect(structured).toMatchObject({ added: 0, skipped: 1, rejected: [] });
    await client.close();
  });

  it('is stateless: GET and DELETE are 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(urls[kind], { method, headers: { authorization: 'Bearer read-key', accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
    }
  });
});

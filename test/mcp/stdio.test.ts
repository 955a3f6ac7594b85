import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { CLI_ENTRY } from '../cli/cli.js';
import { projectRoot } from '../helpers.js';
import { buildLibrary, call, callError, type TestLibrary } from './helpers.js';

let lib: TestLibrary;
let client: Client;
let transport: StdioClientTransport;
const stderr: string[] = [];

beforeAll(async () => {
  lib = await buildLibrary();
  transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', CLI_ENTRY, 'mcp', '--library', lib.library.dir, '--describe', 'a warehouse service contract', '--memory-index'],
    cwd: projectRoot,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString('utf8')));
  client = new Client({ name: 'groundwork-stdio-test', version: '1.0.0' });
  await client.connect(transport);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await lib?.cleanup();
});

describe('groundwork mcp over stdio (the real CLI, spawned)', () => {
  it('lists the read tools with the description it was started with', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search', 'get_block', 'list_documents', 'get_outline', 'read_section']);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(tools[0]!.description).toMatch(/^Search a warehouse service contract\./);
    expect(client.getServerVersion()).toMatchObject({ name: 'groundwork' });
    expect(stderr.join('')).toContain('groundwork: MCP server on stdio');
  });

  it('calls each tool; every search hit carries its citation', async () => {
    const search = await call(client, 'search', { query: '第三章第二节提到的三个前提条件', k: 3 });
    expect(search.structured.hits.length).toBeGreaterThan(0);
    for (const hit of search.structured.hits) {
      expect(hit.citation).toMatchObject({ file: lib.files.contract, headingPath: ['仓储系统运维服务合同', '第三章 服务的开始', '3.2 前提条件'] });
      expect(hit.citation.blockId).toMatch(/^[0-9a-f]{32}$/);
    }
    const hit = search.structured.hits[0];
    const block = await call(client, 'get_block', { blockId: hit.citation.blockId, docId: hit.citation.docId, neighbors: 1 });
    expect(block.structured.block.id).toBe(hit.citation.blockId);
    const docs = await call(client, 'list_documents', {});
    expect(docs.structured.documents.map((d: any) => d.paths[0])).toContain(lib.files.contract);
    const outline = await call(client, 'get_outline', { document: hit.citation.docId });
    expect(outline.structured.sections.map((s: any) => s.title)).toContain('3.2 前提条件');
    const section = await call(client, 'read_section', { document: hit.citation.docId, section: '3.2' });
    expect(section.structured.text).toMatch(/^### 3.2 前提条件\n[\s\S]*延误责任。\s*$/);
    const { contents } = await client.readResource({ uri: hit.citation.uri });
    expect((contents[0] as { text: string }).text).toContain('### 3.2 前提条件');
  });

  it('rejects bad arguments and says what is missing', async () => {
    const result = (await client.callTool({ name: 'read_section', arguments: { section: 3 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(await callError(client, 'get_outline', { document: 'nope' })).toMatch(/\[NOT_FOUND\]$/);
  });
});

describe('groundwork mcp --allow-ingest over stdio', () => {
  it('offers ingest, which adds a file inside the allowed folder and refuses one outside', async () => {
    const ingesting = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', CLI_ENTRY, 'mcp', '--library', lib.library.dir, '--allow-ingest', lib.docs],
      cwd: projectRoot,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const other = new Client({ name: 'groundwork-stdio-ingest-test', version: '1.0.0' });
    await other.connect(ingesting);
    try {
      const { tools } = await other.listTools();
      expect(tools.map((t) => t.name)).toEqual(['search', 'get_block', 'list_documents', 'get_outline', 'read_section', 'ingest']);
      expect(tools.find((t) => t.name === 'ingest')!.annotations?.readOnlyHint).not.toBe(true);
      const note = join(lib.docs, 'stdio-note.md');
      writeFileSync(note, '# Stdio note\n\nThe quokka inventory is counted on Fridays.\n');
      expect((await call(other, 'ingest', { paths: [note] })).structured).toMatchObject({ added: 1, rejected: [] });
      const found = await call(other, 'search', { query: 'quokka inventory', k: 1 });
      expect(found.structured.hits[0].citation.file).toBe(note);
      expect(await callError(other, 'ingest', { paths: ['/etc/hostname'] })).toMatch(/\[INVALID_OPTIONS\]$/);
    } finally {
      await other.close();
    }
  }, 120_000);
});

describe('groundwork mcp exit codes (in-process: they return before serving)', () => {
  const runIn = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(argv, { out: (t) => void out.push(t), err: (t) => void err.push(t), readStdin: async () => new Uint8Array() });
    return { code, stdout: out.join(''), stderr: err.join('') };
  };

  it('--help prints the usage; no library is exit 1; a bad flag is exit 2', async () => {
    const help = await runIn(['mcp', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: groundwork mcp');
    expect(help.stdout).toContain('--allow-ingest DIR');
    const none = await runIn(['mcp', '--library', join(lib.dir, 'nothing-here')]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no library here .*\[IO\]/);
    expect((await runIn(['mcp', '--nope'])).code).toBe(2);
    expect((await runIn(['mcp', '--describe', ' '])).code).toBe(2);
    expect((await runIn(['mcp', '--library', lib.library.dir, '--allow-ingest', join(lib.dir, 'missing')])).stderr).toMatch(/cannot allow ingest from this folder.*\[IO\]/);
  });
});

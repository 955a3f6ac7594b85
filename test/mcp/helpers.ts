import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { Library } from '../../src/library/library.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { corpus, hasShared, projectRoot } from '../helpers.js';

export const CONTRACT = join(projectRoot, 'test', 'fixtures', 'mcp', 'service-contract-zh.md');

export interface TestLibrary {
  dir: string;
  docs: string;
  library: Library;
  /** Paths of the ingested files by short name. */
  files: { contract: string; manualDocx: string; manualPdf: string };
  cleanup(): Promise<void>;
}

/**
 * A real library on disk: the contract fixture (第三章 > 3.2 前提条件) and, with the shared corpus,
 * the Chinese warehouse manual as DOCX and PDF (structured: 第一章..第四章, 2.1-2.3; pages in the PDF).
 */
export async function buildLibrary(): Promise<TestLibrary> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-mcp-'));
  const docs = join(dir, 'docs');
  mkdirSync(docs);
  const files = {
    contract: join(docs, 'service-contract-zh.md'),
    manualDocx: join(docs, 'warehouse-manual-zh.docx'),
    manualPdf: join(docs, 'warehouse-manual-zh.pdf'),
  };
  copyFileSync(CONTRACT, files.contract);
  if (hasShared) {
    copyFileSync(corpus('zh-generated', 'warehouse-manual-zh.docx'), files.manualDocx);
    copyFileSync(corpus('zh-generated', 'warehouse-manual-zh.pdf'), files.manualPdf);
  }
  const library = await Library.open(join(dir, 'lib'));
  const report = await library.addFiles(docs, { workers: 1 });
  expect(report.rejected).toEqual([]);
  return {
    dir, docs, library, files,
    async cleanup() {
      await library.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A client linked in memory to `server` (the SDK's own client: it checks structured content against output schemas). */
export async function linkedClient(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'groundwork-test', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Calls a tool and expects success; returns its structured content. */
export async function call<T = Record<string, any>>(client: Client, name: string, args: Record<string, unknown>): Promise<{ structured: T; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  expect(result.structuredContent).toBeDefined();
  return { structured: result.structuredContent as T, text: textOf(result) };
}

/** Calls a tool and expects an isError result; returns its text. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should fail: ${textOf(result)}`).toBe(true);
  return textOf(result);
}

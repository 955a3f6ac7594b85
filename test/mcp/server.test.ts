import { readFileSync, symlinkSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '../../src/parse.js';
import { RetrievalOptionsSchema, SEARCH_MODES } from '../../src/retrieval/options.js';
import { createMcpServer, mcpServerFactory } from '../../src/mcp/server.js';
import { RESOURCE_NOT_FOUND } from '../../src/mcp/resources.js';
import { hasShared } from '../helpers.js';
import { buildLibrary, call, callError, linkedClient, textOf, type TestLibrary } from './helpers.js';

let lib: TestLibrary;
let client: Client;

beforeAll(async () => {
  lib = await buildLibrary();
  client = await linkedClient(createMcpServer(lib.library, { describe: 'warehouse service contracts and manuals' }));
}, 180_000);

afterAll(async () => {
  await client?.close();
  await lib?.cleanup();
});

const last = (path: readonly string[]) => path[path.length - 1];
const READ_TOOLS = ['search', 'get_block', 'list_documents', 'get_outline', 'read_section'];

describe('tools/list', () => {
  it('lists the read tools, annotated read-only, with input and output schemas; no ingest unless allowed', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(READ_TOOLS);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description!.length).toBeGreaterThan(40);
    }
  });

  it('derives the search input from the search options schema (mode, k, filter, section, weights, rerank, explain) and folds --describe into its description', async () => {
    const search = (await client.listTools()).tools.find((t) => t.name === 'search')!;
    const props = search.inputSchema.properties as Record<string, { enum?: string[]; description?: string; default?: unknown; maximum?: number }>;
    expect(Object.keys(props)).toEqual(['query', 'k', 'mode', 'filter', 'section', 'sectionReferences', 'neighbors', 'weights', 'rerank', 'explain']);
    expect(props.explain!.description).toBe(RetrievalOptionsSchema.shape.explain.description);
    expect(search.inputSchema.required).toEqual(['query']);
    expect(props.mode!.enum).toEqual([...SEARCH_MODES]);
    expect(props.k!.description).toBe(RetrievalOptionsSchema.shape.k.description);
    expect(props.k!.maximum).toBe(1000);
    expect(props.section!.description).toBe(RetrievalOptionsSchema.shape.section.description);
    expect(search.description).toMatch(/^Search warehouse service contracts and manuals\./);
  });

  it('offers ingest with allowIngest and read-write access only', async () => {
    const factory = mcpServerFactory(lib.library, { allowIngest: [lib.docs] });
    for (const [access, has] of [['read-write', true], ['read', false]] as const) {
      const c = await linkedClient(factory(access));
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names.includes('ingest')).toBe(has);
      if (has) expect((await c.listTools()).tools.find((t) => t.name === 'ingest')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      else expect(await callError(c, 'ingest', { paths: [lib.files.contract] })).toMatch(/Tool ingest not found/);
      await c.close();
    }
  });

  it('rejects bad server options with INVALID_OPTIONS and a missing ingest folder with IO', () => {
    expect(() => createMcpServer(lib.library, { describe: '' })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => createMcpServer(lib.library, { allowIngest: [join(lib.dir, 'nope')] })).toThrow(expect.objectContaining({ code: 'IO' }));
  });
});

describe('journey 6: an agent reads a contract', () => {
  it('"第三章第二节提到的三个前提条件" lands in 3.2 前提条件, every hit cited', async () => {
    const { structured, text } = await call(client, 'search', { query: '第三章第二节提到的三个前提条件', k: 5 });
    expect(structured.section).toMatchObject({ status: 'unique', action: 'restrict' });
    expect(structured.section.sections[0]).toMatchObject({ title: '3.2 前提条件', label: '3.2' });
    expect(structured.hits.length).toBeGreaterThan(0);
    for (const hit of structured.hits) {
      expect(last(hit.citation.headingPath)).toBe('3.2 前提条件');
      expect(hit.citation.file).toBe(lib.files.contract);
      expect(hit.citation.blockId).toMatch(/^[0-9a-f]{32}$/);
      expect(hit.citation.uri).toBe(`groundwork://documents/${hit.citation.docId}`);
      expect(text).toContain(`(block ${hit.citation.blockId})`);
    }
    expect(structured.hits[0].text).toContain('以下三个前提条件');
    expect(text).toContain('仓储系统运维服务合同 > 第三章 服务的开始 > 3.2 前提条件');
  });

  it('get_outline shows the contract\'s structure', async () => {
    const { structured, text } = await call(client, 'get_outline', { document: lib.files.contract });
    const titles = structured.sections.map((s: { title: string }) => s.title);
    expect(titles).toEqual([
      '仓储系统运维服务合同', '第一章 总则', '1.1 合同目的', '1.2 定义', '第二章 服务范围', '2.1 日常运维', '2.2 故障处理',
      '第三章 服务的开始', '3.1 交接', '3.2 前提条件', '3.3 试运行', '第四章 费用与支付', '4.1 服务费', '4.2 额外服务', '第五章 违约责任', '第六章 其他',
    ]);
    const s32 = structured.sections.find((s: { title: string }) => s.title === '3.2 前提条件');
    expect(s32).toMatchObject({ depth: 3, label: '3.2', headingPath: ['仓储系统运维服务合同', '第三章 服务的开始', '3.2 前提条件'] });
    expect(text).toContain('\n    - 3.2 前提条件');
    expect((await call(client, 'get_outline', { document: lib.files.contract, maxDepth: 2 })).structured.sections).toHaveLength(7);
  });

  it('read_section reads "3.2 前提条件" whole: exactly the canonical text from its heading to 3.3', async () => {
    const { canonical } = await parse(lib.files.contract);
    const expected = canonical.slice(canonical.indexOf('### 3.2 前提条件'), canonical.indexOf('### 3.3 试运行')).trimEnd();
    for (const section of ['3.2 前提条件', '3.2', '第三章第二节', '第三章 服务的开始 > 前提条件']) {
      const { structured, text } = await call(client, 'read_section', { section, document: lib.files.contract });
      expect(structured.text.trimEnd(), section).toBe(expected);
      expect(structured).toMatchObject({ title: '3.2 前提条件', label: '3.2', truncated: false, file: lib.files.contract });
      expect(structured.citation.headingPath).toEqual(['仓储系统运维服务合同', '第三章 服务的开始', '3.2 前提条件']);
      expect(text).toContain('3. 甲方已为乙方开通远程运维通道');
    }
    // Without a document: the only one with that heading.
    expect((await call(client, 'read_section', { section: '3.2 前提条件' })).structured.text.trimEnd()).toBe(expected);
  });

  it('read_section of a chapter includes its subsections; maxChars cuts and says so', async () => {
    const { structured } = await call(client, 'read_section', { section: '第三章', document: lib.files.contract });
    expect(structured.text).toMatch(/^## 第三章 服务的开始\n\n### 3.1 交接[\s\S]*### 3.2 前提条件[\s\S]*### 3.3 试运行[\s\S]*百分之五十计收。\s*$/);
    const cut = await call(client, 'read_section', { section: '第三章', document: lib.files.contract, maxChars: 100 });
    expect(cut.structured).toMatchObject({ truncated: true });
    expect(cut.structured.text).toBe(structured.text.slice(0, 100));
    expect(cut.text).toContain('[cut at 100 characters');
  });
});

describe.skipIf(!hasShared)('the Chinese warehouse manual (corpus, DOCX and PDF)', () => {
  it('search cites file, page and heading path on every hit (PDF pages)', async () => {
    const { structured } = await call(client, 'search', { query: '预检查脚本 时间同步', k: 6 });
    expect(structured.hits.length).toBeGreaterThan(1);
    // The same text in the DOCX and the PDF is one hit citing one and listing the other.
    const citations = structured.hits.flatMap((h: any) => [h.citation, ...h.alsoIn]);
    expect(citations.some((c: any) => c.file === lib.files.manualPdf)).toBe(true);
    for (const citation of citations) {
      expect(Object.keys(citation).sort()).toEqual(['blockId', 'docId', 'file', 'headingPath', 'pageEnd', 'pageStart', 'title', 'uri']);
      expect(citation.headingPath.length).toBeGreaterThan(0);
      if (citation.file === lib.files.manualPdf) expect(citation.pageStart).toBeGreaterThanOrEqual(1);
    }
    for (const hit of structured.hits) expect(hit.text.length).toBeGreaterThan(0);
  });

  it('a section named in the query lands there in both formats: 第二章第二节 is 2.2 安装步骤', async () => {
    const { structured } = await call(client, 'search', { query: '第二章第二节的预检查', k: 5 });
    // 2.2 in the DOCX, the PDF and the contract (2.2 故障处理): hits inside them rank first (boost), the rest follow.
    expect(structured.section.sections.map((s: any) => s.title).sort()).toEqual(['2.2 安装步骤', '2.2 安装步骤', '2.2 故障处理']);
    expect(structured.section.action).toBe('boost');
    expect(last(structured.hits[0].citation.headingPath)).toBe('2.2 安装步骤');
    for (const hit of structured.hits.filter((h: any) => h.section)) expect(last(hit.citation.headingPath)).toMatch(/^2\.2 /);
    // Restricted to one document, every hit is inside.
    const one = await call(client, 'search', { query: '第二章第二节的预检查', k: 5, filter: { docId: lib.files.manualDocx } });
    expect(one.structured.section.action).toBe('restrict');
    for (const hit of one.structured.hits) expect(last(hit.citation.headingPath)).toBe('2.2 安装步骤');
  });

  it('get_outline of the DOCX: 第一章..第四章 with 2.1-2.3', async () => {
    const { structured } = await call(client, 'get_outline', { document: lib.files.manualDocx });
    expect(structured.sections.map((s: any) => s.title)).toEqual(expect.arrayContaining(['第一章 概述', '第二章 安装', '2.1 硬件与环境准备', '2.2 安装步骤', '2.3 安装后检查', '第三章 配置', '第四章 故障排查']));
  });

  it('read_section "2.2 安装步骤" of the DOCX holds all six steps and the note after them, nothing of 2.3', async () => {
    const { structured } = await call(client, 'read_section', { section: '2.2 安装步骤', document: lib.files.manualDocx });
    for (const step of ['校验安装包', '运行预检查脚本', '初始化数据库', '安装核心服务', '注册边缘网关', '验证安装结果', '大概率失败']) expect(structured.text).toContain(step);
    expect(structured.text).not.toContain('2.3 安装后检查');
    expect(structured.text).not.toContain('试运行期间');
  });

  it('a section in several documents is an error that lists them', async () => {
    const text = await callError(client, 'read_section', { section: '2.2 安装步骤' });
    expect(text).toMatch(/sections match "2.2 安装步骤"/);
    expect(text).toContain(lib.files.manualPdf);
    expect(text).toMatch(/\[INVALID_OPTIONS\]$/);
  });

  it('list_documents lists them, filtered by format', async () => {
    const all = await call(client, 'list_documents', {});
    expect(all.structured.total).toBe(3);
    const pdf = await call(client, 'list_documents', { format: 'pdf' });
    expect(pdf.structured.documents.map((d: any) => d.paths[0])).toEqual([lib.files.manualPdf]);
    expect(pdf.structured.documents[0].pageCount).toBe(4);
    expect((await call(client, 'list_documents', { limit: 1, offset: 1 })).structured.documents).toHaveLength(1);
  });
});

describe('get_block', () => {
  it('reads a cited block with its neighbours, with or without its document', async () => {
    const hit = (await call(client, 'search', { query: '服务费 季度', k: 1 })).structured.hits[0];
    const blocks = await lib.library.blocks(hit.citation.docId);
    const block = blocks.find((b) => b.id === hit.citation.blockId)!;
    const withDoc = await call(client, 'get_block', { blockId: block.id, docId: hit.citation.docId, neighbors: 1 });
    expect(withDoc.structured.block).toMatchObject({ id: block.id, text: block.text, ordinal: block.ordinal });
    expect(withDoc.structured.before.map((b: any) => b.ordinal)).toEqual(block.ordinal > 0 ? [block.ordinal - 1] : []);
    expect(withDoc.structured.after.map((b: any) => b.ordinal)).toEqual(block.ordinal < blocks.length - 1 ? [block.ordinal + 1] : []);
    expect(withDoc.structured.citation).toMatchObject({ blockId: block.id, file: lib.files.contract, headingPath: block.headingPath });
    const scanned = await call(client, 'get_block', { blockId: block.id });
    expect(scanned.structured.block.id).toBe(block.id);
    expect(scanned.structured.before).toEqual([]);
  });

  it('an unknown block is NOT_FOUND', async () => {
    expect(await callError(client, 'get_block', { blockId: 'f'.repeat(32) })).toMatch(/no block with the id .* \[NOT_FOUND\]$/);
    expect(await callError(client, 'get_block', { blockId: 'f'.repeat(32), docId: 'nope' })).toMatch(/\[NOT_FOUND\]$/);
  });
});

describe('errors', () => {
  it('bad arguments are rejected by the input schemas (isError, as the SDK does: -32602)', async () => {
    for (const [name, args] of [
      ['search', { query: '' }],
      ['search', { query: 'x', k: 0 }],
      ['search', { query: 'x', mode: 'semantic' }],
      ['search', { query: 'x', unknown: 1 }],
      ['search', { query: 'x', filter: { pageFrom: 3, pageTo: 1 } }],
      ['get_block', {}],
      ['get_outline', { document: 3 }],
      ['read_section', { section: '' }],
      ['list_documents', { limit: 0 }],
    ] as const) {
      expect(await callError(client, name, args as Record<string, unknown>), `${name} ${JSON.stringify(args)}`).toMatch(/-32602.*Input validation error/);
    }
  });

  it('a GroundworkError becomes an isError result ending with its code', async () => {
    expect(await callError(client, 'get_outline', { document: 'no-such-document' })).toMatch(/no document with the id, id prefix or path "no-such-document".*\[NOT_FOUND\]$/);
    expect(await callError(client, 'search', { query: '前提条件', section: '9.9 不存在' })).toMatch(/no section matches "9.9 不存在".*\[NOT_FOUND\]$/);
    // library.search's error, as groundwork search --mode vector prints it.
    expect(await callError(client, 'search', { query: '前提条件', mode: 'vector' })).toMatch(/this library has no vectors.*groundwork embed \[INVALID_OPTIONS\]$/);
    expect(await callError(client, 'read_section', { section: '第九章', document: lib.files.contract })).toMatch(/\[NOT_FOUND\]$/);
  });
});

describe('resources', () => {
  it('lists every document and reads one as its text in order', async () => {
    const { resources } = await client.listResources();
    expect(resources).toHaveLength(hasShared ? 3 : 1);
    const contract = resources.find((r) => r.name === lib.files.contract)!;
    expect(contract).toMatchObject({ title: '仓储系统运维服务合同', mimeType: 'text/markdown' });
    expect(contract.uri).toMatch(/^groundwork:\/\/documents\/[0-9a-f]{64}$/);
    const { contents } = await client.readResource({ uri: contract.uri });
    const { canonical } = await parse(lib.files.contract);
    expect((contents[0] as { text: string }).text.trimEnd()).toBe(canonical.trimEnd());
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['groundwork://documents/{id}']);
  });

  it('an unknown document is a protocol error with the resource-not-found code', async () => {
    await expect(client.readResource({ uri: 'groundwork://documents/0000' })).rejects.toMatchObject({ code: RESOURCE_NOT_FOUND });
  });
});

describe('ingest', () => {
  let ingestClient: Client;
  let root: string;
  beforeAll(async () => {
    root = join(lib.dir, 'inbox');
    mkdirSync(root);
    writeFileSync(join(root, 'note.md'), '# 备忘\n\n## 第一节 安排\n\n下周二检查三号库区的充电桩。\n');
    symlinkSync('/etc/hostname', join(root, 'escape.txt'));
    ingestClient = await linkedClient(createMcpServer(lib.library, { allowIngest: [root], maxUploadBytes: 4096 }));
  });
  afterAll(async () => ingestClient?.close());

  it('adds a file inside the allowed folder, then finds it', async () => {
    const { structured } = await call(ingestClient, 'ingest', { paths: ['note.md'] });
    expect(structured).toMatchObject({ added: 1, rejected: [] });
    expect(structured.documents[0].path).toBe(join(root, 'note.md'));
    const hits = (await call(ingestClient, 'search', { query: '充电桩', k: 3 })).structured.hits;
    expect(hits[0].citation.file).toBe(join(root, 'note.md'));
    expect((await call(ingestClient, 'ingest', { paths: [root] })).structured).toMatchObject({ added: 0, skipped: 1 });
  });

  it('refuses paths outside the allowed folders, symlinks out included', async () => {
    expect(await callError(ingestClient, 'ingest', { paths: [lib.files.contract] })).toMatch(/outside the folders this server may read.*\[INVALID_OPTIONS\]$/);
    expect(await callError(ingestClient, 'ingest', { paths: ['escape.txt'] })).toMatch(/\[INVALID_OPTIONS\]$/);
    expect(await callError(ingestClient, 'ingest', { paths: ['../docs/service-contract-zh.md'] })).toMatch(/\[INVALID_OPTIONS\]$/);
    expect(await callError(ingestClient, 'ingest', { paths: ['missing.md'] })).toMatch(/no such file.*\[IO\]$/);
    expect(await callError(ingestClient, 'ingest', {})).toMatch(/give paths, files or both/);
  });

  it('takes uploaded bytes into the library\'s uploads folder, within maxUploadBytes', async () => {
    const body = '# 通知\n\n叉车年检安排在十二月。\n';
    const { structured } = await call(ingestClient, 'ingest', { files: [{ name: '../../通知.md', contentBase64: Buffer.from(body).toString('base64') }] });
    expect(structured).toMatchObject({ added: 1, rejected: [] });
    const stored = structured.documents[0].path as string;
    expect(stored.startsWith(join(lib.library.dir, 'uploads'))).toBe(true);
    expect(stored.endsWith('/通知.md')).toBe(true);
    expect(readFileSync(stored, 'utf8')).toBe(body);
    const big = Buffer.alloc(5000, 97).toString('base64');
    expect(await callError(ingestClient, 'ingest', { files: [{ name: 'big.txt', contentBase64: big }] })).toMatch(/larger than 4096 bytes \[TOO_LARGE\]$/);
    expect(await callError(ingestClient, 'ingest', { files: [{ name: 'x.txt', contentBase64: '!!!' }] })).toMatch(/not base64 \[INVALID_OPTIONS\]$/);
    expect(existsSync(join(lib.library.dir, 'uploads'))).toBe(true);
  });
});

describe('output schemas', () => {
  it('structured content passes each tool\'s output schema (the client checks it too)', async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === 'search')!;
    const hits = (search.outputSchema!.properties as any).hits;
    expect(hits.items.required).toEqual(expect.arrayContaining(['citation', 'text']));
    expect(z.toJSONSchema(z.string()).type).toBe('string');
    expect(textOf(await client.callTool({ name: 'list_documents', arguments: {} }))).toMatch(/documents?\./);
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/run.js';
import { fixtureRerankScore, startRerankServer } from '../embed/fixtures.js';
import { PARK_REPORT } from '../retrieval/helpers.js';

/** `groundwork search` on the retrieval pipeline: section references, --section, --neighbors, --explain. */

let dir: string;
let docs: string;
let lib: string;

async function cli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run([...args, '--library', lib], { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-cli-retrieval-'));
  docs = join(dir, 'docs');
  lib = join(dir, 'library');
  mkdirSync(docs);
  copyFileSync(PARK_REPORT, join(docs, 'park-report-zh.md'));
  // Li Wei's contract (USER-JOURNEYS.md, journey 1).
  writeFileSync(join(docs, 'contract-zh.md'), '# 合同总则\n\n## 第一章 总则\n\n本合同适用于设备采购。\n\n## 第二章 价款\n\n合同总价为一百万元。\n\n## 第三章 履约\n\n### 3.1 交付\n\n卖方应在签约后三十日内交付设备，交付时提供三个前提文件的副本。\n\n### 3.2 前提条件\n\n履约须满足三个前提条件：双方签字、预付款到账、设备验收合格。\n\n### 3.3 违约责任\n\n任何一方违约，应当赔偿对方的全部损失。\n');
  writeFileSync(join(docs, 'copy.md'), '# 摘录\n\n资金来源为市级财政专项资金四千万元、新区财政配套资金三千万元，其余五千万元由建设单位申请政策性银行贷款解决。\n');
  const ingest = await cli('ingest', docs, '--workers', '1', '--json');
  expect(ingest.code).toBe(0);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('groundwork search with sections', () => {
  test('第三章第二节提到的三个前提条件 returns the contract\'s 3.2 with its heading path (journey 1)', async () => {
    const result = await cli('search', '第三章第二节提到的三个前提条件', '--json', '-k', '3');
    expect(result.code).toBe(0);
    const hits = JSON.parse(result.stdout) as Record<string, any>[];
    expect(hits[0]!.path).toBe(join(docs, 'contract-zh.md'));
    expect(hits[0]!.headingPath).toEqual(['合同总则', '第三章 履约', '3.2 前提条件']);
    // The chunker packed 3.1 and 3.2 into one block (its own path says 3.1): the hit is in 3.2.
    expect(hits[0]!.block.headingPath).toEqual(['合同总则', '第三章 履约', '3.1 交付']);
    expect(hits[0]!.text).toContain('### 3.2 前提条件');
    expect(hits[0]!.section).toEqual({ headingPath: ['合同总则', '第三章 履约', '3.2 前提条件'], title: '3.2 前提条件', label: '3.2' });
    expect(hits[0]!.scores).toMatchObject({ bm25Rank: 1 });
    // Without the reference understood, 3.1 (which says 三个前提 too) competes for the top.
    const literal = JSON.parse((await cli('search', '第三章第二节提到的三个前提条件', '--json', '--literal')).stdout) as Record<string, any>[];
    expect(literal.some((h) => h.headingPath.at(-1) === '3.1 交付')).toBe(true);
  });

  test('--explain prints the section, how it was resolved, and each hit\'s scores', async () => {
    const result = await cli('search', '第三章第二节提到的三个前提条件', '--explain', '-k', '2');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Searched (bm25) for "提到的三个前提条件"');
    expect(result.stdout).toMatch(/Section "第三章第二节": 2 sections match in the \d documents searched \(ambiguous\); hits inside first/);
    expect(result.stdout).toContain('  合同总则 > 第三章 履约 > 3.2 前提条件  [numbering, numbering-other]');
    expect(result.stdout).toContain('  滨江智慧园区建设项目可行性研究报告 > 三、技术方案 > （二）数据标准  [numbering-other, numbering-other]');
    expect(result.stdout).toMatch(/scores: bm25 \d+\.\d+ \(#1\)/);
    const json = JSON.parse((await cli('search', '第三章第二节提到的三个前提条件', '--explain', '--json')).stdout) as Record<string, any>;
    expect(json.keywords).toBe('提到的三个前提条件');
    expect(json.section.action).toBe('boost');
    expect(json.explanation.runs.map((r: { purpose: string }) => r.purpose)).toEqual(['discover', 'inside', 'outside']);
  });

  test('--section with --doc keeps to the named section; a section that is not there is NOT_FOUND', async () => {
    const report = join(docs, 'park-report-zh.md');
    const result = await cli('search', '条件', '--section', '二、建设内容 > （二）', '--doc', report, '--json');
    expect(result.code).toBe(0);
    const hits = JSON.parse(result.stdout) as Record<string, any>[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.headingPath.at(-1) === '（二）建设规模')).toBe(true);
    const missing = await cli('search', '条件', '--section', '九、不存在', '--doc', report);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no section matches "九、不存在"');
    expect(missing.stderr).toContain('[NOT_FOUND]');
  });

  test('--neighbors widens hits; the same text in two documents is one hit with the other listed', async () => {
    const wide = JSON.parse((await cli('search', '专户存储', '--neighbors', '1', '--json', '-k', '1')).stdout) as Record<string, any>[];
    expect(wide[0]!.blockIds.length).toBe(3);
    expect(wide[0]!.matched).toHaveLength(1);
    const dup = await cli('search', '政策性银行贷款');
    expect(dup.stdout).toMatch(/also in: \S*(copy|park-report-zh)\.md/);
    expect(dup.stdout.match(/政策性银行贷款|«政策性»/g)?.length ?? 0).toBeGreaterThan(0);
  });

  test('--rerank with --rerank-url reranks through the endpoint (TEI shape, loopback); without one it is a usage error', async () => {
    const server = await startRerankServer({ api: 'tei' });
    try {
      const result = await cli('search', '资金 来源', '--rerank', '--rerank-url', server.url, '--json', '-k', '3');
      expect(result.stderr).toBe('');
      const hits = JSON.parse(result.stdout) as Record<string, any>[];
      expect(hits.length).toBeGreaterThan(1);
      for (const hit of hits) expect(hit.scores.rerank).toBe(fixtureRerankScore('资金 来源', hit.block.text));
      expect(server.requests.length).toBe(1);
    } finally {
      await server.close();
    }
    const saved = process.env.GROUNDWORK_RERANK_URL;
    delete process.env.GROUNDWORK_RERANK_URL;
    try {
      const missing = await cli('search', '资金', '--rerank');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--rerank-url or GROUNDWORK_RERANK_URL');
    } finally {
      if (saved !== undefined) process.env.GROUNDWORK_RERANK_URL = saved;
    }
  });

  test('usage errors: --mode vector without vectors, a bad --neighbors or --mode', async () => {
    const vector = await cli('search', 'x', '--mode', 'vector');
    expect(vector.code).toBe(2);
    expect(vector.stderr).toContain('this library has no vectors');
    expect((await cli('search', 'x', '--neighbors', 'many')).code).toBe(2);
    expect((await cli('search', 'x', '--neighbors', '99')).stderr).toContain('at most 20');
    expect((await cli('search', 'x', '--mode', 'semantic')).stderr).toContain('--mode must be one of bm25, vector, hybrid');
  });
});

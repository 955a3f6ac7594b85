import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Library } from '../../src/library/library.js';
import { matchesCondition } from '../../src/serve/routes/dify.js';
import { newKey, serve, type ServeHandle } from '../../src/serve/index.js';
import { json, post } from './helpers.js';

/** Dify's external knowledge API, with the request shapes of Dify's documentation. */
describe('POST /retrieval (Dify external knowledge API)', () => {
  const key = newKey('dify', 'read-only');
  let library: Library;
  let server: ServeHandle;
  let knowledgeId: string;
  let docs: { id: string; title: string | null; format: string }[];

  beforeAll(async () => {
    const source = mkdtempSync(join(tmpdir(), 'gw-dify-src-'));
    writeFileSync(join(source, 'dify.md'), '# Dify Introduction\n\nDify: The Innovation Engine for GenAI Applications. Dify is an open-source platform for building LLM apps.\n');
    writeFileSync(join(source, 'notes.txt'), 'Meeting notes.\n\nThe budget was approved; Dify was mentioned once.\n');
    const dir = mkdtempSync(join(tmpdir(), 'gw-dify-'));
    library = await Library.open(dir);
    await library.addFiles(source, { workers: 1 });
    docs = await library.documents();
    knowledgeId = basename(dir);
    server = await serve(library, { port: 0, keys: [{ name: 'dify', scope: 'read-only', hash: Buffer.from(key.line.split('sha256:')[1]!, 'hex') }] });
  });
  afterAll(async () => {
    await server?.close();
    await library?.close();
  });

  const auth = () => ({ authorization: `Bearer ${key.key}` });

  it('answers the documented request with records of content, score, title and metadata', async () => {
    const response = await post(`${server.url}/retrieval`, { knowledge_id: knowledgeId, query: 'What is Dify?', retrieval_setting: { top_k: 2, score_threshold: 0.0 } }, auth());
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.records.length).toBe(2);
    for (const record of body.records) {
      expect(Object.keys(record).sort()).toEqual(['content', 'metadata', 'score', 'title']);
      expect(record.content).toContain('Dify');
      expect(record.score).toBeGreaterThan(0);
      expect(record.score).toBeLessThanOrEqual(1);
      expect(record.metadata).toBeTypeOf('object');
      expect(record.metadata).not.toBeNull();
    }
    expect(body.records[0].score).toBe(1);
    expect(body.records[0].title).toBe('Dify Introduction');
    expect(body.records[0].metadata).toMatchObject({ format: 'markdown', heading_path: 'Dify Introduction' });
    expect(body.records[0].metadata.doc_id).toBe(docs.find((d) => d.format === 'markdown')!.id);
  });

  it('keeps top_k and the score threshold', async () => {
    const one = await json(await post(`${server.url}/retrieval`, { knowledge_id: knowledgeId, query: 'Dify', retrieval_setting: { top_k: 1, score_threshold: 0 } }, auth()));
    expect(one.records).toHaveLength(1);
    const strict = await json(await post(`${server.url}/retrieval`, { knowledge_id: knowledgeId, query: 'Dify platform', retrieval_setting: { top_k: 5, score_threshold: 1 } }, auth()));
    expect(strict.records).toHaveLength(1);
    const none = await json(await post(`${server.url}/retrieval`, { knowledge_id: knowledgeId, query: 'xylophone', retrieval_setting: { top_k: 5, score_threshold: 0.5 } }, auth()));
    expect(none).toEqual({ records: [] });
  });

  it('filters by metadata_condition and by a document id as knowledge_id', async () => {
    const md = docs.find((d) => d.format === 'markdown')!;
    const filtered = await json(await post(`${server.url}/retrieval`, {
      knowledge_id: knowledgeId, query: 'Dify', retrieval_setting: { top_k: 5, score_threshold: 0 },
      metadata_condition: { logical_operator: 'and', conditions: [{ name: ['format'], comparison_operator: 'is', value: 'text' }] },
    }, auth()));
    expect(filtered.records.length).toBe(1);
    expect(filtered.records[0].metadata.format).toBe('text');
    const or = await json(await post(`${server.url}/retrieval`, {
      knowledge_id: knowledgeId, query: 'Dify', retrieval_setting: { top_k: 5, score_threshold: 0 },
      metadata_condition: { logical_operator: 'or', conditions: [{ name: 'title', comparison_operator: 'contains', value: 'Introduction' }, { name: 'format', comparison_operator: 'is', value: 'text' }] },
    }, auth()));
    expect(or.records.length).toBe(2);
    const byDoc = await json(await post(`${server.url}/retrieval`, { knowledge_id: md.id, query: 'Dify', retrieval_setting: { top_k: 5, score_threshold: 0 } }, auth()));
    expect(byDoc.records.map((r: any) => r.metadata.doc_id)).toEqual([md.id]);
  });

  it('says 1001, 1002 and 2001 as Dify documents them', async () => {
    const request = { knowledge_id: knowledgeId, query: 'Dify', retrieval_setting: { top_k: 2, score_threshold: 0.5 } };
    const malformed = await post(`${server.url}/retrieval`, request, { authorization: key.key });
    expect(malformed.status).toBe(403);
    expect(await json(malformed)).toEqual({ error_code: 1001, error_msg: "Invalid Authorization header format. Expected 'Bearer <api-key>' format." });
    const missing = await post(`${server.url}/retrieval`, request);
    expect((await json(missing)).error_code).toBe(1001);
    const wrong = await post(`${server.url}/retrieval`, request, { authorization: 'Bearer not-the-key' });
    expect(wrong.status).toBe(403);
    expect(await json(wrong)).toEqual({ error_code: 1002, error_msg: 'Authorization failed' });
    const unknown = await post(`${server.url}/retrieval`, { ...request, knowledge_id: 'AAA-BBB-CCC' }, auth());
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toEqual({ error_code: 2001, error_msg: 'The knowledge does not exist' });
    // A request Dify would never send is our ordinary 400.
    const bad = await post(`${server.url}/retrieval`, { query: 'Dify' }, auth());
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('INVALID_OPTIONS');
  });

  it('implements the comparison operators', () => {
    const fields = { category: 'AI', year: 2024, tags: ['rag', 'search'], date: '2024-05-01', empty: '' };
    const t = (name: string, op: string, value?: unknown) => matchesCondition(fields, { name, comparison_operator: op, value: value as string });
    expect(t('category', 'contains', 'A')).toBe(true);
    expect(t('category', 'not contains', 'A')).toBe(false);
    expect(t('category', 'start with', 'A')).toBe(true);
    expect(t('category', 'end with', 'I')).toBe(true);
    expect(t('category', 'is', 'AI')).toBe(true);
    expect(t('category', 'is not', 'AI')).toBe(false);
    expect(t('tags', 'in', ['search', 'x'] as never)).toBe(true);
    expect(t('tags', 'not in', ['x'] as never)).toBe(true);
    expect(t('empty', 'empty')).toBe(true);
    expect(t('missing', 'empty')).toBe(true);
    expect(t('category', 'not empty')).toBe(true);
    expect(t('year', '=', 2024)).toBe(true);
    expect(t('year', '≠', 2024)).toBe(false);
    expect(t('year', '>', 2000)).toBe(true);
    expect(t('year', '<', 2000)).toBe(false);
    expect(t('year', '≥', 2024)).toBe(true);
    expect(t('year', '≤', 2023)).toBe(false);
    expect(t('date', 'before', '2025-01-01')).toBe(true);
    expect(t('date', 'after', '2025-01-01')).toBe(false);
    expect(() => t('year', 'resembles', 1)).toThrow(/comparison_operator/);
  });
});

import { basename } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { StoredDocument } from '../../store/types.js';
import { HttpError } from '../errors.js';
import { route } from '../route.js';
import { abandonedSignal } from './search.js';
import type { ServeContext } from '../server.js';

/**
 * Dify's external knowledge API (docs.dify.ai, "External Knowledge API"): Dify POSTs to
 * `{endpoint}/retrieval` with a Bearer key; we answer `records` of content, score (0-1), title,
 * metadata, or `{ error_code, error_msg }` with 1001 (bad Authorization header), 1002
 * (authorization failed), 2001 (no such knowledge).
 */
const ConditionSchema = z.object({
  name: z.union([z.string(), z.array(z.string())]).describe('metadata field name (a list: any of them)'),
  comparison_operator: z.string(),
  value: z.union([z.string(), z.number(), z.array(z.string())]).nullable().optional(),
});

export const DifyRequestSchema = z.object({
  knowledge_id: z.string().describe('this library\'s knowledge id (default: its folder name), or a document id to search only that document'),
  query: z.string(),
  retrieval_setting: z.object({
    top_k: z.number().int().min(1).max(1000),
    score_threshold: z.number().min(0).max(1).default(0),
  }),
  metadata_condition: z.object({
    logical_operator: z.enum(['and', 'or']).default('and'),
    conditions: z.array(ConditionSchema),
  }).optional(),
}).meta({ id: 'DifyRetrievalRequest' });

export const DifyResponseSchema = z.object({
  records: z.array(z.object({
    content: z.string(),
    score: z.number().describe('the hit\'s score (BM25, or the fused score in hybrid mode, as `groundwork search` ranks) over the best hit\'s: 1 for the best, in (0, 1]'),
    title: z.string(),
    metadata: z.record(z.string(), z.unknown()),
  })),
}).meta({ id: 'DifyRetrievalResponse' });

export const DifyErrorSchema = z.object({ error_code: z.number().int(), error_msg: z.string() }).meta({ id: 'DifyError' });

export type DifyCondition = z.infer<typeof ConditionSchema>;

/** Our errors in Dify's shape where Dify has a code for them. */
function difyError(error: unknown): { status: number; body: unknown } | undefined {
  if (!(error instanceof HttpError)) return undefined;
  if (error.code === 'UNAUTHORIZED') {
    return error.detail.auth === 'unknown'
      ? { status: 403, body: { error_code: 1002, error_msg: 'Authorization failed' } }
      : { status: 403, body: { error_code: 1001, error_msg: "Invalid Authorization header format. Expected 'Bearer <api-key>' format." } };
  }
  if (error.code === 'FORBIDDEN') return { status: 403, body: { error_code: 1002, error_msg: 'Authorization failed' } };
  if (error.code === 'NOT_FOUND' && error.detail.file === 'knowledge') return { status: 404, body: { error_code: 2001, error_msg: 'The knowledge does not exist' } };
  return undefined;
}

/** `POST /retrieval`. */
export function difyRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    route(app, {
      method: 'POST', url: '/retrieval', operationId: 'difyRetrieval', tags: ['dify'], scope: 'read', errorStyle: difyError,
      summary: 'Dify external knowledge API: records for a query (connect a Dify knowledge base to this library)',
      body: DifyRequestSchema,
      responses: {
        200: { description: 'records, best first', schema: DifyResponseSchema },
        403: { description: '1001 invalid Authorization header, 1002 authorization failed', schema: DifyErrorSchema },
        404: { description: '2001 the knowledge does not exist', schema: DifyErrorSchema },
      },
      handler: async ({ body }, _request, reply) => {
        const docIds = await scopeDocuments(ctx, body.knowledge_id, body.metadata_condition);
        if (docIds !== undefined && docIds.length === 0) return { records: [] };
        if (body.query.trim() === '') return { records: [] };
        // `library.search` in its default mode: hybrid when the library has vectors and an embedder, else bm25.
        const result = await ctx.search(body.query, { k: body.retrieval_setting.top_k, ...(docIds && { filter: { docId: docIds } }) }, abandonedSignal(reply));
        const best = result.hits[0]?.score ?? 0;
        const docs = new Map<string, StoredDocument | undefined>();
        const records = [];
        for (const hit of result.hits) {
          const score = best > 0 ? hit.score / best : 0;
          if (score < body.retrieval_setting.score_threshold) continue;
          if (!docs.has(hit.docId)) docs.set(hit.docId, await ctx.library.document(hit.docId));
          const doc = docs.get(hit.docId);
          records.push({
            content: hit.text,
            score,
            title: doc?.title ?? (hit.path ? basename(hit.path) : hit.docId),
            metadata: {
              ...primitiveMetadata(doc?.metadata ?? {}),
              path: hit.path ?? '',
              doc_id: hit.docId,
              block_id: hit.block.id,
              heading_path: hit.headingPath.join(' > '),
              ...(hit.pageStart !== null && { page_start: hit.pageStart }),
              ...(hit.pageEnd !== null && { page_end: hit.pageEnd }),
              ...(doc && { format: doc.format }),
            },
          });
        }
        return { records };
      },
    });
  };
}

/**
 * The documents a request may search: all (undefined) for this library's knowledge id, one for a
 * document id; narrowed by the metadata condition. An unknown knowledge id is Dify's 2001.
 */
async function scopeDocuments(ctx: ServeContext, knowledgeId: string, condition: z.infer<typeof DifyRequestSchema>['metadata_condition']): Promise<string[] | undefined> {
  let docs: StoredDocument[] | undefined;
  if (knowledgeId !== ctx.knowledgeId) {
    const doc = /^[0-9a-f]{8,64}$/.test(knowledgeId) ? await ctx.library.document(knowledgeId).catch(() => undefined) : undefined;
    if (!doc) throw new HttpError('NOT_FOUND', `no knowledge ${JSON.stringify(knowledgeId)}`, { file: 'knowledge' });
    docs = [doc];
  }
  if (!condition || condition.conditions.length === 0) return docs?.map((d) => d.id);
  docs ??= await ctx.library.documents();
  const test = (doc: StoredDocument) => {
    const fields = documentFields(doc);
    const results = condition.conditions.map((c) => matchesCondition(fields, c));
    return condition.logical_operator === 'or' ? results.some(Boolean) : results.every(Boolean);
  };
  return docs.filter(test).map((d) => d.id);
}

/** What a condition's `name` can refer to: the document's metadata, and title, format, language, path, doc_id. */
export function documentFields(doc: StoredDocument): Record<string, unknown> {
  return { ...doc.metadata, title: doc.title, format: doc.format, language: doc.language, path: doc.paths[0] ?? null, doc_id: doc.id };
}

/** One Dify metadata condition against a document's fields (any of the names, when several). */
export function matchesCondition(fields: Record<string, unknown>, condition: DifyCondition): boolean {
  const names = Array.isArray(condition.name) ? condition.name : [condition.name];
  return names.some((name) => compare(fields[name], condition.comparison_operator, condition.value));
}

function compare(actual: unknown, operator: string, expected: unknown): boolean {
  const empty = actual === undefined || actual === null || actual === '' || (Array.isArray(actual) && actual.length === 0);
  const text = Array.isArray(actual) ? actual.map(String) : empty ? [] : [String(actual)];
  const want = expected === undefined || expected === null ? '' : String(expected);
  const list = Array.isArray(expected) ? expected.map(String) : [want];
  const num = Number(actual);
  const wantNum = Number(expected);
  switch (operator) {
    case 'empty': case 'null': return empty;
    case 'not empty': case 'not null': return !empty;
    case 'contains': return text.some((t) => t.includes(want));
    case 'not contains': return !text.some((t) => t.includes(want));
    case 'start with': return text.some((t) => t.startsWith(want));
    case 'end with': return text.some((t) => t.endsWith(want));
    case 'is': return text.some((t) => t === want);
    case 'is not': return !text.some((t) => t === want);
    case 'in': return text.some((t) => list.includes(t));
    case 'not in': return !text.some((t) => list.includes(t));
    case '=': return !empty && num === wantNum;
    case '≠': case '!=': return empty || num !== wantNum;
    case '>': return !empty && num > wantNum;
    case '<': return !empty && num < wantNum;
    case '≥': case '>=': return !empty && num >= wantNum;
    case '≤': case '<=': return !empty && num <= wantNum;
    case 'before': return !empty && dateOf(actual) < dateOf(expected);
    case 'after': return !empty && dateOf(actual) > dateOf(expected);
    default: throw new HttpError('INVALID_OPTIONS', `unknown comparison_operator ${JSON.stringify(operator)}`);
  }
}

function dateOf(value: unknown): number {
  if (typeof value === 'number') return value < 1e11 ? value * 1000 : value;
  const t = Date.parse(String(value));
  return Number.isNaN(t) ? Number.NaN : t;
}

function primitiveMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
  return out;
}

import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES, GroundworkError, type ErrorCode } from '../../src/errors.js';
import { Library } from '../../src/library/library.js';
import {
  HTTP_ONLY_CODES, HttpError, loadKeys, newKey, route, serve, STATUS_OF, type HttpErrorCode, type ServePlugin,
} from '../../src/serve/index.js';
import { followJob, form, json, post, startServer, type Running } from './helpers.js';

/** A plugin that throws the error a test names, and one route that waits until told. */
function testPlugin(hold: { wait?: Promise<void>; entered?: () => void }): ServePlugin {
  return {
    name: 'test-errors',
    prefix: '/test',
    register(app) {
      route(app, {
        method: 'GET', url: '/throw/:code', operationId: 'testThrow', summary: 'throws', tags: ['test'], scope: 'read',
        params: z.object({ code: z.string() }),
        responses: { 200: { description: 'never' } },
        handler: async ({ params }) => {
          const code = params.code as HttpErrorCode;
          if ((HTTP_ONLY_CODES as readonly string[]).includes(code)) throw new HttpError(code, `thrown ${code}`);
          throw new GroundworkError(code as ErrorCode, `thrown ${code}`, { file: 'some.pdf', ...(code === 'LIMIT_EXCEEDED' && { limit: { name: 'maxNesting', value: 256, flag: '--max-nesting' } }) });
        },
      });
      route(app, {
        method: 'GET', url: '/hold', operationId: 'testHold', summary: 'waits', tags: ['test'], scope: 'read',
        responses: { 200: { description: 'released', schema: z.object({ released: z.boolean() }) } },
        handler: async () => {
          hold.entered?.();
          await hold.wait;
          return { released: true };
        },
      });
    },
  };
}

describe('errors: one table from code to status', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer({ plugins: [testPlugin({})], maxUploadBytes: 1000, maxUploadFiles: 2, maxBodyBytes: 2048 });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('maps every code to its status over HTTP, with the code, message, file and limit in the body', async () => {
    const codes = [...ERROR_CODES, ...HTTP_ONLY_CODES];
    expect(Object.keys(STATUS_OF).sort()).toEqual([...codes].sort());
    const seen = new Set<number>();
    for (const code of codes) {
      const response = await fetch(`${s.url}/test/throw/${code}`);
      expect(response.status, code).toBe(STATUS_OF[code]);
      seen.add(response.status);
      const body = await json(response);
      expect(body.error.code).toBe(code);
      expect(body.error.message).toContain(`thrown ${code}`);
      if (!(HTTP_ONLY_CODES as readonly string[]).includes(code)) expect(body.error.file).toBe('some.pdf');
      if (code === 'LIMIT_EXCEEDED') expect(body.error.limit).toEqual({ name: 'maxNesting', value: 256, flag: '--max-nesting' });
    }
    expect([...seen].sort()).toEqual([400, 401, 403, 404, 413, 415, 422, 429, 500, 502, 503, 504]);
  });

  it('400: a request that fails its schema lists every issue', async () => {
    const response = await post(`${s.url}/v1/search`, { query: '', k: 5000, mode: 'telepathy' });
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error.code).toBe('INVALID_OPTIONS');
    expect(body.error.issues.map((i: any) => i.path.join('.')).sort()).toEqual(['k', 'mode', 'query']);
    const notJson = await fetch(`${s.url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": ' });
    expect(notJson.status).toBe(400);
    expect((await json(notJson)).error.code).toBe('INVALID_OPTIONS');
    const badQuery = await fetch(`${s.url}/v1/blocks/x?neighbors=-1`);
    expect(badQuery.status).toBe(400);
  });

  it('413: a file over the upload limit, too many files, a JSON body over the limit; nothing is left in uploads/', async () => {
    const big = await fetch(`${s.url}/v1/documents`, { method: 'POST', body: form([{ name: 'big.txt', bytes: 'x'.repeat(5000) }]) });
    expect(big.status).toBe(413);
    const bigBody = await json(big);
    expect(bigBody.error.code).toBe('TOO_LARGE');
    expect(bigBody.error.limit).toMatchObject({ name: 'maxUploadBytes', value: 1000 });
    const many = await fetch(`${s.url}/v1/documents`, { method: 'POST', body: form([1, 2, 3].map((i) => ({ name: `${i}.txt`, bytes: `file ${i}` }))) });
    expect(many.status).toBe(413);
    expect((await json(many)).error.limit).toMatchObject({ name: 'maxUploadFiles', value: 2 });
    const body = await post(`${s.url}/v1/search`, { query: 'y'.repeat(4000) });
    expect(body.status).toBe(413);
    expect((await json(body)).error.code).toBe('TOO_LARGE');
    expect(readdirSync(join(s.dir, 'uploads'))).toEqual([]);
  });

  it('415: an upload that is not multipart; 400 without a file part', async () => {
    const response = await post(`${s.url}/v1/documents`, { file: 'hello' });
    expect(response.status).toBe(415);
    expect((await json(response)).error.code).toBe('UNSUPPORTED');
    const empty = await fetch(`${s.url}/v1/documents`, { method: 'POST', body: form([], { strategy: 'token' }) });
    expect(empty.status).toBe(400);
  });
});

describe('keys', () => {
  const writer = newKey('ci', 'read-write');
  const reader = newKey('viewer', 'read-only');
  let s: Running;
  let logs = '';
  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-keys-')), 'keys');
    writeFileSync(file, `# keys for the test\n${writer.line}\n${reader.line}\n`);
    const stream = new Writable({ write(chunk, _enc, cb) { logs += String(chunk); cb(); } });
    s = await startServer({ keys: loadKeys({ file }), logger: { level: 'info', stream } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('stores only hashes: the file holds no key', () => {
    expect(writer.line).not.toContain(writer.key);
    expect(writer.line).toMatch(/^ci read-write sha256:[0-9a-f]{64}$/);
  });

  it('401 without a key or with a wrong one, 403 for a read-only key writing, 200 within scope', async () => {
    const missing = await fetch(`${s.url}/v1/stats`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect((await json(missing)).error.code).toBe('UNAUTHORIZED');
    const wrong = await fetch(`${s.url}/v1/stats`, { headers: { authorization: `Bearer ${writer.key}x` } });
    expect(wrong.status).toBe(401);
    const malformed = await fetch(`${s.url}/v1/stats`, { headers: { authorization: writer.key } });
    expect(malformed.status).toBe(401);

    const read = await fetch(`${s.url}/v1/stats`, { headers: { authorization: `Bearer ${reader.key}` } });
    expect(read.status).toBe(200);
    const search = await post(`${s.url}/v1/search`, { query: 'anything' }, { authorization: `Bearer ${reader.key}` });
    expect(search.status).toBe(200);
    const write = await fetch(`${s.url}/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${reader.key}` }, body: form([{ name: 'a.txt', bytes: 'hello there' }]) });
    expect(write.status).toBe(403);
    expect((await json(write)).error.code).toBe('FORBIDDEN');
    const remove = await fetch(`${s.url}/v1/documents/abcdef12`, { method: 'DELETE', headers: { authorization: `Bearer ${reader.key}` } });
    expect(remove.status).toBe(403);
    const deleteAsWriter = await fetch(`${s.url}/v1/documents/abcdef12`, { method: 'DELETE', headers: { authorization: `Bearer ${writer.key}` } });
    expect(deleteAsWriter.status).toBe(404);

    // Health and the API description need no key.
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${s.url}/openapi.json`)).status).toBe(200);
  });

  it('a read-only key may preview and re-chunk (they store nothing), not cancel a job; the library is unchanged', async () => {
    const source = join(mkdtempSync(join(tmpdir(), 'gw-keys-doc-')), 'notes.md');
    writeFileSync(source, '# Notes\n\nThe zebra committee met on Tuesday.\n\n## Budget\n\nThe budget was approved.\n');
    await s.library.addFiles([source], { workers: 0 });
    const id = (await s.library.document(source))!.id;
    const before = await s.library.stats();
    const auth = { authorization: `Bearer ${reader.key}` };
    const rechunk = await post(`${s.url}/v1/documents/${id}/chunk`, { strategy: 'token', chunkOptions: { chunkSize: 8, chunkOverlap: 0 } }, auth);
    expect(rechunk.status).toBe(200);
    expect((await json(rechunk)).chunks.length).toBeGreaterThan((await s.library.blocks(id)).length);
    expect((await post(`${s.url}/v1/chunk`, { text: '# A\n\nb c d', name: 'a.md' }, auth)).status).toBe(200);
    expect((await post(`${s.url}/v1/parse`, { text: 'plain', name: 'a.txt' }, auth)).status).toBe(200);
    expect(await s.library.stats()).toEqual(before);
    const cancel = await fetch(`${s.url}/v1/jobs/nope`, { method: 'DELETE', headers: auth });
    expect(cancel.status).toBe(403);
    // Every route's scope, as the OpenAPI document states it: the routes that change the library
    // are write routes, and a read-only key gets 403 on each of them.
    const doc = await json(await fetch(`${s.url}/openapi.json`));
    const byScope: Record<string, string[]> = {};
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) (byScope[op['x-groundwork-scope']] ??= []).push(`${method.toUpperCase()} ${path}`);
    }
    expect(byScope.write!.sort()).toEqual(['DELETE /v1/documents/{id}', 'DELETE /v1/jobs/{id}', 'POST /v1/documents']);
    expect(byScope.none!.sort()).toEqual(['GET /', 'GET /healthz', 'GET /openapi.json']);
    for (const route of byScope.write!) {
      const [method, path] = route.split(' ') as [string, string];
      const response = await fetch(`${s.url}${path.replace('{id}', id)}`, { method, headers: auth, ...(method === 'POST' && { body: form([{ name: 'a.txt', bytes: 'x' }]) }) });
      expect(response.status, route).toBe(403);
    }
    expect(await s.library.document(id)).toBeDefined();
  });

  it('never logs a key', () => {
    expect(logs).toContain('"statusCode"');
    expect(logs).not.toContain(writer.key);
    expect(logs).not.toContain(reader.key);
  });

  it('refuses to listen beyond loopback without keys, and rejects a bad keys file without echoing it', async () => {
    const library = await Library.open(mkdtempSync(join(tmpdir(), 'gw-serve-')));
    try {
      await expect(serve(library, { host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    } finally {
      await library.close();
    }
    expect(() => loadKeys({ env: 'ci read-write sha256:abc' })).toThrow(/entry 1/);
    expect(() => loadKeys({ env: `${writer.line}; ${reader.line}` })).not.toThrow();
  });
});

describe('CORS and upload names', () => {
  it('CORS is off by default: no Access-Control header, a preflight is not answered', async () => {
    const s = await startServer();
    try {
      const plain = await fetch(`${s.url}/v1/stats`, { headers: { origin: 'https://app.example' } });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('access-control-allow-origin')).toBeNull();
      const preflight = await fetch(`${s.url}/v1/search`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      expect(preflight.status).toBe(404);
    } finally {
      await s.stop();
    }
  });

  it('CORS with named origins allows those and no other', async () => {
    const s = await startServer({ corsOrigins: ['https://app.example'] });
    try {
      const allowed = await fetch(`${s.url}/v1/search`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });
      expect(allowed.status).toBeLessThan(300);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
      const get = await fetch(`${s.url}/v1/stats`, { headers: { origin: 'https://app.example' } });
      expect(get.headers.get('access-control-allow-origin')).toBe('https://app.example');
      const other = await fetch(`${s.url}/v1/stats`, { headers: { origin: 'https://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const otherPreflight = await fetch(`${s.url}/v1/search`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(otherPreflight.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await s.stop();
    }
  });

  it('an upload\'s file name never becomes a path: traversal names land in uploads/ under generated names', async () => {
    const s = await startServer();
    const outside = `gw-escape-${process.pid}-${Date.now()}`;
    try {
      const names = [`../../../../../../tmp/${outside}.md`, `..\\..\\${outside}.md`, `/tmp/${outside}-abs.md`, `${outside}\u0000.md`];
      const seen: string[] = [];
      const watcher = setInterval(() => { try { seen.push(...readdirSync(join(s.dir, 'uploads'))); } catch { /* not made yet */ } }, 1);
      const response = await fetch(`${s.url}/v1/documents`, { method: 'POST', body: form(names.map((name, i) => ({ name, bytes: `# Escape ${i}\n\nfile ${i} stays inside\n` }))) });
      clearInterval(watcher);
      expect(response.status).toBe(202);
      const job = await json(response);
      // the client's names are shown back as their last segment, control characters dropped
      expect(job.files.map((f: any) => f.name)).toEqual([`${outside}.md`, `${outside}.md`, `${outside}-abs.md`, `${outside}.md`]);
      const { last } = await followJob(s.url, job.id);
      expect(last.event).toBe('done');
      // nothing was written beside the library or at the absolute path
      for (const dir of [tmpdir(), join(s.dir, '..'), '/tmp']) expect(readdirSync(dir).filter((n) => n.startsWith(outside))).toEqual([]);
      // what was written is under uploads/ with a generated name (a UUID and the extension)
      for (const name of new Set(seen)) expect(name).toMatch(/^[0-9a-f-]{36}\.md(\.part)?$/);
      expect((await s.library.documents()).length).toBe(4);
    } finally {
      await s.stop();
    }
  });
});

describe('rate limit and shutdown', () => {
  it('429 with Retry-After once a caller has used its burst', async () => {
    const s = await startServer({ rateLimit: { perSecond: 0.01, burst: 3 } });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${s.url}/v1/stats`);
        statuses.push(response.status);
        if (response.status === 429) {
          retryAfter = response.headers.get('retry-after');
          expect((await json(response)).error.code).toBe('RATE_LIMITED');
        } else await response.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      // Health checks are not limited.
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('the limit is per key: one key at its limit does not hold back another', async () => {
    const a = newKey('a', 'read-only');
    const b = newKey('b', 'read-only');
    const s = await startServer({ rateLimit: { perSecond: 0.01, burst: 2 }, keys: loadKeys({ env: `${a.line}; ${b.line}` }) });
    try {
      const as = (key: string) => fetch(`${s.url}/v1/stats`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => { await r.arrayBuffer(); return r.status; });
      expect([await as(a.key), await as(a.key), await as(a.key)]).toEqual([200, 200, 429]);
      expect([await as(b.key), await as(b.key), await as(b.key)]).toEqual([200, 200, 429]);
    } finally {
      await s.stop();
    }
  });

  it('503 for new requests while it shuts down; the request being answered finishes', async () => {
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const hold = { wait: new Promise<void>((r) => (release = r)), entered };
    const s = await startServer({ plugins: [testPlugin(hold)], shutdownGraceMs: 60_000 });
    const held = fetch(`${s.url}/test/hold`);
    await inside;
    const closing = s.server.close();
    const refused = await fetch(`${s.url}/healthz`);
    expect(refused.status).toBe(503);
    expect((await json(refused)).error.code).toBe('SHUTTING_DOWN');
    release();
    const answered = await held;
    expect(answered.status).toBe(200);
    expect(await json(answered)).toEqual({ released: true });
    await closing;
    await s.library.close();
  });
});

describe('OpenAPI', () => {
  let s: Running;
  let doc: any;
  beforeAll(async () => {
    s = await startServer();
    doc = await json(await fetch(`${s.url}/openapi.json`));
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** Every schema object in the document, with where it is. */
  function schemasOf(document: any): { where: string; schema: any }[] {
    const out: { where: string; schema: any }[] = [];
    for (const [name, schema] of Object.entries(document.components.schemas)) out.push({ where: `components.${name}`, schema });
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const p of op.parameters ?? []) out.push({ where: `${method} ${path} param ${p.name}`, schema: p.schema });
        for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) if (media.schema) out.push({ where: `${method} ${path} body ${type}`, schema: media.schema });
        for (const [status, response] of Object.entries<any>(op.responses)) {
          for (const [type, media] of Object.entries<any>(response.content ?? {})) if (media.schema) out.push({ where: `${method} ${path} ${status} ${type}`, schema: media.schema });
        }
      }
    }
    return out;
  }

  it('is OpenAPI 3.1 with every route the server has', () => {
    expect(doc.openapi).toBe('3.1.0');
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    const routes = new Set<string>();
    // Every route Fastify has (HEAD twins of GET aside) is in the document.
    for (const r of ['GET /healthz', 'GET /openapi.json', 'GET /', 'GET /v1/stats', 'POST /v1/documents', 'GET /v1/documents', 'GET /v1/documents/{id}',
      'GET /v1/documents/{id}/original', 'DELETE /v1/documents/{id}', 'GET /v1/jobs', 'GET /v1/jobs/{id}', 'DELETE /v1/jobs/{id}', 'GET /v1/jobs/{id}/events',
      'GET /v1/blocks/{id}', 'POST /v1/search', 'POST /retrieval', 'POST /v1/parse', 'POST /v1/chunk', 'GET /v1/documents/{id}/pages/{page}.png', 'POST /v1/documents/{id}/chunk']) routes.add(r);
    expect([...documented].sort()).toEqual([...routes].sort());
    for (const r of routes) {
      const [method, path] = r.split(' ') as [string, string];
      expect(s.server.app.hasRoute({ method: method as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }), r).toBe(true);
    }
    expect(new Set(Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId))).size).toBe(routes.size);
  });

  it('every operation has responses, and every error response is the one error schema', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(1);
        expect(op.responses.default.content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
        if (op.security) expect(op.responses['401']).toBeDefined();
      }
    }
  });

  it('follows OpenAPI 3.1\'s structural rules: info, unique path templates, path parameters declared, responses described', () => {
    expect(doc.info.title).toBeTypeOf('string');
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
    // Templated paths that differ only in their parameter names are the same path (forbidden).
    const shapes = Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}'));
    expect(new Set(shapes).size).toBe(shapes.length);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      expect(path.startsWith('/'), path).toBe(true);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const [method, op] of Object.entries<any>(item)) {
        expect(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']).toContain(method);
        const params: any[] = op.parameters ?? [];
        // every template variable is a required path parameter, and there is no other path parameter
        expect(params.filter((p) => p.in === 'path').map((p) => p.name).sort(), `${method} ${path}`).toEqual(templated);
        for (const p of params) {
          expect(['path', 'query', 'header', 'cookie']).toContain(p.in);
          if (p.in === 'path') expect(p.required, `${method} ${path} ${p.name}`).toBe(true);
          expect(p.schema ?? p.content, `${method} ${path} ${p.name}`).toBeDefined();
        }
        // no parameter twice (name + location)
        expect(new Set(params.map((p) => `${p.in}:${p.name}`)).size).toBe(params.length);
        for (const [status, response] of Object.entries<any>(op.responses)) {
          expect(status === 'default' || /^[1-5](\d\d|XX)$/.test(status), `${method} ${path} ${status}`).toBe(true);
          expect(response.description, `${method} ${path} ${status}`).toBeTypeOf('string');
        }
        if (op.requestBody) expect(Object.keys(op.requestBody.content).length).toBeGreaterThan(0);
        for (const requirement of op.security ?? []) for (const name of Object.keys(requirement)) expect(doc.components.securitySchemes[name]).toBeDefined();
        expect(['none', 'read', 'write']).toContain(op['x-groundwork-scope']);
      }
    }
  });

  it('every $ref resolves inside the document', () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (k === '$ref' ? refs.push(x as string) : walk(x));
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref.startsWith('#/'), ref).toBe(true);
      let at: any = doc;
      for (const part of ref.slice(2).split('/')) at = at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      expect(at, ref).toBeTypeOf('object');
    }
  });

  it('every schema compiles as JSON Schema 2020-12 (ajv)', () => {
    const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: 'https://groundwork.local/openapi.json', components: doc.components }, 'openapi');
    const all = schemasOf(doc);
    expect(all.length).toBeGreaterThan(30);
    for (const { where, schema } of all) {
      const wrapped = { $id: `https://groundwork.local/check/${encodeURIComponent(where)}`, ...rewrite(schema) };
      expect(() => ajv.compile(wrapped), where).not.toThrow();
    }
    // And a real response validates against its schema.
    const validate = ajv.compile({ $ref: 'https://groundwork.local/openapi.json#/components/schemas/Error' });
    expect(validate({ error: { code: 'NOT_FOUND', message: 'no' } })).toBe(true);
    expect(validate({ error: { code: 'NOPE', message: 'no' } })).toBe(false);
  });

  /** Local refs point into the document added as 'openapi'. */
  function rewrite(v: any): any {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === '$ref' && typeof x === 'string' ? `https://groundwork.local/openapi.json${x}` : rewrite(x)]));
    }
    return v;
  }
});

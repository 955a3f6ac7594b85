import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { z } from 'zod';
import { ErrorBodySchema, validationError } from './errors.js';

/** Who may call a route: anyone (health), a read-only or read-write key, a read-write key. */
export type Scope = 'none' | 'read' | 'write';

export interface RouteResponse {
  description: string;
  /** The JSON body (`application/json`), or the body of `contentType`. */
  schema?: z.ZodType;
  /** Default application/json; e.g. text/event-stream, image/png, application/octet-stream. */
  contentType?: string;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * One route, described once: its input schemas validate the request (400 with the issue list
 * before the handler runs) and, with its responses, become its OpenAPI operation. Nothing about
 * a route's shape is written anywhere else.
 */
export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT';
  /** Fastify syntax inside the plugin's prefix, e.g. `/:id`. */
  url: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  scope: Scope;
  params?: P;
  query?: Q;
  /** A JSON body. */
  body?: B;
  /** A request body that is not JSON (multipart): documented, read by the handler itself (with `body` too: either). */
  rawBody?: { contentType: string; schema: z.ZodType; description?: string };
  responses: Record<number, RouteResponse>;
  /** Requests this route may hold open for long (SSE). */
  streaming?: boolean;
  /** Renders this route's errors in another API's shape (Dify's); undefined falls back to ours. */
  errorStyle?: ErrorStyle;
  handler(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>, request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
}

/** What a route carries in Fastify's route config, for the hooks (auth) and the OpenAPI builder. */
export interface RouteConfig {
  scope: Scope;
  spec?: RouteSpec;
  errorStyle?: ErrorStyle;
}

export type ErrorStyle = (error: unknown) => { status: number; body: unknown } | undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    scope?: Scope;
    spec?: RouteSpec;
    errorStyle?: ErrorStyle;
  }
}

/** Registers one described route on `app` (inside whatever prefix `app` has). */
export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(app: FastifyInstance, spec: RouteSpec<P, Q, B>): void {
  const options: RouteOptions = {
    method: spec.method,
    url: spec.url,
    config: { scope: spec.scope, spec: spec as unknown as RouteSpec, ...(spec.errorStyle && { errorStyle: spec.errorStyle }) } satisfies RouteConfig,
    handler: async (request, reply) => {
      const params = parseInput(spec.params, request.params, 'path parameters');
      const query = parseInput(spec.query, request.query, 'query parameters');
      // A route taking JSON or multipart validates the JSON form only (the handler reads the parts).
      const json = !spec.rawBody || !request.isMultipart?.();
      const body = spec.body && json ? parseInput(spec.body, request.body ?? {}, 'request body') : undefined;
      return spec.handler({ params, query, body } as RouteInput<z.output<P>, z.output<Q>, z.output<B>>, request, reply);
    },
  };
  app.route(options);
}

function parseInput<S extends z.ZodType | undefined>(schema: S, value: unknown, where: string): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(where, result.error);
  return result.data;
}

/** A route as it ended up in the server: full URL and its spec. */
export interface RegisteredRoute {
  method: string;
  url: string;
  spec: RouteSpec | undefined;
}

/** Collects every route the server registers (with `app.addHook('onRoute')` at the root). */
export function collectRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (options) => {
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: options.url, spec: (options.config as RouteConfig | undefined)?.spec });
    }
  });
  return routes;
}

type JsonSchema = Record<string, unknown>;

const PARAM = /:([A-Za-z0-9_]+)/g;

/** `/v1/jobs/:id/events` -> `/v1/jobs/{id}/events`. */
export function openApiPath(url: string): string {
  return url.replace(PARAM, '{$1}');
}

/**
 * The OpenAPI 3.1 document of the described routes, generated from their zod schemas
 * (`z.toJSONSchema`, JSON Schema 2020-12, OpenAPI 3.1's dialect). Schemas with a `.meta({ id })`
 * become `components.schemas` entries referenced by `$ref`.
 */
export function openApiDocument(routes: readonly RegisteredRoute[], info: { title: string; version: string; description?: string }): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  const convert = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => hoist(
    z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema,
    components,
  );
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, url, spec } of routes) {
    if (!spec) continue;
    const operation: Record<string, unknown> = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description && { description: spec.description }),
      tags: spec.tags,
      // Which key the route needs (docs/serve.md, "Keys"): none, read (read-only or read-write), write (read-write).
      'x-groundwork-scope': spec.scope,
    };
    const parameters = [...parametersOf(spec.params, 'path', convert), ...parametersOf(spec.query, 'query', convert)];
    if (parameters.length > 0) operation.parameters = parameters;
    if (spec.body || spec.rawBody) {
      operation.requestBody = {
        required: true,
        ...(spec.rawBody?.description && { description: spec.rawBody.description }),
        content: {
          ...(spec.body && { 'application/json': { schema: convert(spec.body, 'input') } }),
          ...(spec.rawBody && { [spec.rawBody.contentType]: { schema: convert(spec.rawBody.schema, 'input') } }),
        },
      };
    }
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      const type = response.contentType ?? 'application/json';
      responses[status] = {
        description: response.description,
        ...(response.schema || type !== 'application/json' ? { content: { [type]: response.schema ? { schema: convert(response.schema, 'output') } : {} } } : {}),
      };
    }
    const error = { description: '', content: { 'application/json': { schema: convert(ErrorBodySchema, 'output') } } };
    const addError = (status: number, description: string) => {
      if (!(String(status) in responses)) responses[status] = { ...error, description };
    };
    if (spec.params || spec.query || spec.body || spec.rawBody) addError(400, 'invalid request (INVALID_OPTIONS, with the issues)');
    if (spec.scope !== 'none') {
      addError(401, 'no API key, or an unknown one (UNAUTHORIZED)');
      addError(403, 'the key lacks the scope (FORBIDDEN)');
      addError(429, 'rate limit of the key (RATE_LIMITED; Retry-After says when to retry)');
    }
    addError(503, 'the server is shutting down (SHUTTING_DOWN)');
    responses.default = { ...error, description: 'any other error: { error: { code, message } }' };
    operation.responses = responses;
    if (spec.scope !== 'none') operation.security = [{ bearer: [] }, {}];
    (paths[openApiPath(url)] ??= {})[method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an API key (docs/serve.md, "Keys"); not needed on loopback without keys' } },
    },
  };
}

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query', convert: (s: z.ZodType, io: 'input' | 'output') => JsonSchema): unknown[] {
  if (!schema) return [];
  const json = convert(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: where, required: where === 'path' || required.has(name), ...(typeof description === 'string' && { description }), schema: rest };
  });
}

/**
 * Moves a converted schema's `$defs` into the components, pointing its `$ref`s there, and
 * drops the per-schema `$schema` (the document's dialect says it once).
 */
function hoist(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const { $schema: _dialect, $defs, ...rest } = schema;
  for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    const { $id: _id, $schema: _s, ...body } = def;
    components[name] = rewriteLocalRefs(body) as JsonSchema;
  }
  return rewriteLocalRefs(rest) as JsonSchema;
}

/** `#/$defs/X` (from schemas without an id, e.g. recursive ones) -> `#/components/schemas/X`. */
function rewriteLocalRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteLocalRefs);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? `#/components/schemas/${v.slice(8)}` : rewriteLocalRefs(v);
    }
    return out;
  }
  return value;
}

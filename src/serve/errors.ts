import { z } from 'zod';
import { ERROR_CODES, GroundworkError, isGroundworkError, type ErrorCode, type LimitInfo } from '../errors.js';

/**
 * The HTTP API's errors: every failure is `{ error: { code, message, file?, limit?, issues? } }`
 * with the status from one table. The codes are the CLI's (GroundworkError codes) plus four that
 * only HTTP has: a missing or unknown key, a key without the scope, a rate limit, a server going
 * down. Nothing else decides a status.
 */
export const HTTP_ONLY_CODES = ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED', 'SHUTTING_DOWN'] as const;
export type HttpOnlyCode = (typeof HTTP_ONLY_CODES)[number];
export type HttpErrorCode = ErrorCode | HttpOnlyCode;

/** Code -> status, for every code there is (the test walks this table). */
export const STATUS_OF: Readonly<Record<HttpErrorCode, number>> = {
  INVALID_OPTIONS: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TOO_LARGE: 413,
  UNSUPPORTED: 415,
  // A file that was read and refused: the request was well-formed, its content cannot be used.
  ENCRYPTED: 422,
  CORRUPT: 422,
  EMPTY: 422,
  LIMIT_EXCEEDED: 422,
  RATE_LIMITED: 429,
  IO: 500,
  // The worker parsing a file died without an answer: the engine's fault on that file (limits' CRASHED).
  CRASHED: 500,
  EMBEDDER: 502,
  SHUTTING_DOWN: 503,
  TIMEOUT: 504,
};

export const ALL_HTTP_CODES: readonly HttpErrorCode[] = [...ERROR_CODES, ...HTTP_ONLY_CODES];

/** One issue of a rejected request: where (path in the input) and what. */
export const IssueSchema = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});

export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.enum(ALL_HTTP_CODES as [HttpErrorCode, ...HttpErrorCode[]]),
    message: z.string(),
    file: z.string().optional(),
    limit: z.object({ name: z.string(), value: z.number(), flag: z.string().optional() }).optional(),
    issues: z.array(IssueSchema).optional().describe('for a request that failed validation: each problem and where'),
  }),
}).meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** An error the server raises itself, with an HTTP-only code or extra detail. */
export class HttpError extends Error {
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly detail: {
      issues?: { path: (string | number)[]; message: string }[];
      retryAfter?: number;
      file?: string;
      limit?: LimitInfo;
      /** For UNAUTHORIZED / FORBIDDEN: what was wrong with the key (Dify's error codes tell these apart). */
      auth?: 'malformed' | 'missing' | 'unknown' | 'scope';
    } = {},
  ) {
    super(message);
  }

  get status(): number {
    return STATUS_OF[this.code];
  }
}

/** A request that failed its schema: 400 with every issue. */
export function validationError(where: string, error: z.ZodError): HttpError {
  const issues = error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message }));
  return new HttpError('INVALID_OPTIONS', `invalid ${where}: ${z.prettifyError(error).replace(/\n\s*/g, '; ')}`, { issues });
}

/** Any thrown value as a status and body; unknown errors are 500 IO without their internals. */
export function errorResponse(error: unknown): { status: number; body: ErrorBody; retryAfter?: number } {
  if (error instanceof HttpError) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    if (error.detail.issues) body.error.issues = error.detail.issues;
    if (error.detail.file) body.error.file = error.detail.file;
    if (error.detail.limit) body.error.limit = error.detail.limit;
    return { status: error.status, body, ...(error.detail.retryAfter !== undefined && { retryAfter: error.detail.retryAfter }) };
  }
  if (isGroundworkError(error)) return { status: STATUS_OF[error.code], body: groundworkBody(error) };
  // Fastify's own errors (a body that is not JSON, a body over the limit, a bad content type).
  const fastify = fastifyError(error);
  if (fastify) return fastify;
  return { status: 500, body: { error: { code: 'IO', message: 'internal error (see the server log)' } } };
}

function groundworkBody(error: GroundworkError): ErrorBody {
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  if (error.file !== undefined) body.error.file = error.file;
  if (error.limit) body.error.limit = error.limit;
  return body;
}

function fastifyError(error: unknown): { status: number; body: ErrorBody } | undefined {
  const e = error as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (typeof e?.code !== 'string' || typeof e.statusCode !== 'number') return undefined;
  const message = typeof e.message === 'string' ? e.message : e.code;
  if (e.statusCode === 413 || e.code === 'FST_REQ_FILE_TOO_LARGE' || e.code === 'FST_FILES_LIMIT' || e.code === 'FST_PARTS_LIMIT' || e.code === 'FST_FIELDS_LIMIT') {
    return { status: 413, body: { error: { code: 'TOO_LARGE', message } } };
  }
  if (e.statusCode === 415) return { status: 415, body: { error: { code: 'UNSUPPORTED', message } } };
  if (e.statusCode === 404) return { status: 404, body: { error: { code: 'NOT_FOUND', message } } };
  if (e.statusCode >= 400 && e.statusCode < 500) return { status: 400, body: { error: { code: 'INVALID_OPTIONS', message } } };
  return undefined;
}

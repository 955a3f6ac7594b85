import { GroundworkError, type ErrorCode, type LimitInfo } from '../errors.js';

/**
 * A failure talking to an embedding or rerank endpoint. `code` is `EMBEDDER` (the endpoint said no,
 * answered something unusable, or could not be reached) or `TIMEOUT` (no answer within `timeoutMs`,
 * with `limit` naming it). `file` is the endpoint (without credentials or query string), so the CLI
 * prints `groundwork: http://127.0.0.1:8080/v1/embeddings: HTTP 429 ... [EMBEDDER]`.
 */
export class EmbedderError extends GroundworkError {
  /** The HTTP status of the last answer, when there was one. */
  readonly status: number | undefined;
  /** The endpoint's own message (OpenAI's `error.message`, TEI's `error`, Cohere's `message`, ...), redacted. */
  readonly endpointMessage: string | undefined;
  /** Requests made, retries included. */
  readonly attempts: number;

  constructor(
    code: Extract<ErrorCode, 'EMBEDDER' | 'TIMEOUT'>,
    message: string,
    options: { endpoint: string; status?: number; endpointMessage?: string; attempts?: number; cause?: unknown; limit?: LimitInfo },
  ) {
    super(code, message, {
      file: options.endpoint,
      ...(options.cause !== undefined && { cause: options.cause }),
      ...(options.limit !== undefined && { limit: options.limit }),
    });
    this.status = options.status;
    this.endpointMessage = options.endpointMessage;
    this.attempts = options.attempts ?? 1;
  }
}

/** An answer that breaks the protocol (wrong count, bad vector, not JSON): never retried. */
export function badAnswer(endpoint: string, what: string, status?: number): EmbedderError {
  return new EmbedderError('EMBEDDER', `unusable answer from the endpoint: ${what}`, { endpoint, ...(status !== undefined && { status }) });
}

/** The message without the `file: ` prefix GroundworkError adds. */
export function ownMessage(error: GroundworkError): string {
  const prefix = error.file !== undefined ? `${error.file}: ` : '';
  return prefix !== '' && error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

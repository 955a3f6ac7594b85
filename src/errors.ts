/** Every failure a user can act on carries one of these codes (DESIGN.md, "Errors"). */
export type ErrorCode =
  | 'ENCRYPTED'
  | 'CORRUPT'
  | 'EMPTY'
  | 'UNSUPPORTED'
  | 'TOO_LARGE'
  | 'LIMIT_EXCEEDED'
  | 'TIMEOUT'
  | 'IO'
  | 'INVALID_OPTIONS'
  | 'NOT_FOUND'
  | 'EMBEDDER'
  /**
   * The worker parsing a file died without an answer: a native crash (SIGSEGV, abort) or an exit
   * of a library it uses. A fault of the engine on that file, not a verdict that the file is damaged.
   */
  | 'CRASHED';

/** Every code, for exhaustive tables (CLI exit codes, HTTP statuses, docs). */
export const ERROR_CODES: readonly ErrorCode[] = [
  'ENCRYPTED', 'CORRUPT', 'EMPTY', 'UNSUPPORTED', 'TOO_LARGE', 'LIMIT_EXCEEDED', 'TIMEOUT', 'IO', 'INVALID_OPTIONS', 'NOT_FOUND', 'EMBEDDER', 'CRASHED',
];

/**
 * Which limit a TOO_LARGE, LIMIT_EXCEEDED or TIMEOUT error ran into: its option name, the value in
 * force, and the CLI flag that raises it (when there is one), so a user can act on it.
 */
export interface LimitInfo {
  /** The option name in the library API, e.g. `fileTimeoutMs`, `maxDepth`. */
  name: string;
  value: number;
  /** The CLI flag that raises it, e.g. `--file-timeout`. */
  flag?: string;
}

/** The one error type Groundwork throws on purpose: a code to switch on, the file, and a sentence. */
export class GroundworkError extends Error {
  override readonly name = 'GroundworkError';
  readonly code: ErrorCode;
  readonly file: string | undefined;
  /** For limit errors: the limit that was hit. */
  readonly limit: LimitInfo | undefined;

  constructor(code: ErrorCode, message: string, options: { file?: string; cause?: unknown; limit?: LimitInfo } = {}) {
    super(options.file ? `${options.file}: ${message}` : message, { cause: options.cause });
    this.code = code;
    this.file = options.file;
    this.limit = options.limit;
  }
}

export function isGroundworkError(value: unknown): value is GroundworkError {
  return value instanceof GroundworkError;
}

/** Throws INVALID_OPTIONS naming the option, for option validation in chunkers and parsers. */
export function invalidOption(message: string): never {
  throw new GroundworkError('INVALID_OPTIONS', message);
}

/** Every failure a user can act on carries one of these codes (DESIGN.md, "Errors"). */
export type ErrorCode =
  | 'ENCRYPTED'
  | 'CORRUPT'
  | 'EMPTY'
  | 'UNSUPPORTED'
  | 'TOO_LARGE'
  | 'LIMIT_EXCEEDED'
  | 'IO'
  | 'INVALID_OPTIONS';

/** The one error type Groundwork throws on purpose: a code to switch on, the file, and a sentence. */
export class GroundworkError extends Error {
  override readonly name = 'GroundworkError';
  readonly code: ErrorCode;
  readonly file: string | undefined;

  constructor(code: ErrorCode, message: string, options: { file?: string; cause?: unknown } = {}) {
    super(options.file ? `${options.file}: ${message}` : message, { cause: options.cause });
    this.code = code;
    this.file = options.file;
  }
}

export function isGroundworkError(value: unknown): value is GroundworkError {
  return value instanceof GroundworkError;
}

/** Throws INVALID_OPTIONS naming the option, for option validation in chunkers and parsers. */
export function invalidOption(message: string): never {
  throw new GroundworkError('INVALID_OPTIONS', message);
}

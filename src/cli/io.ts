import { readFile } from 'node:fs/promises';
import { GroundworkError, isGroundworkError } from '../errors.js';
import { UsageError } from './args.js';

/** Where a command writes and reads; the real process in main.ts, a recorder in tests. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<Uint8Array>;
}

export const EXIT_OK = 0;
/** A file failed (unreadable, corrupt, empty, unsupported...). */
export const EXIT_FAILED = 1;
/** The command was called wrongly (unknown flag, bad value, option a strategy rejects). */
export const EXIT_USAGE = 2;

/** The label a stdin input carries in messages and in `Document.source.name`. */
export const STDIN_NAME = '<stdin>';

/**
 * Prints one error the way every command does (`groundwork: <file>: <message> [CODE]`) and returns
 * the exit code it deserves. `file` names the input when the error does not carry it itself.
 */
export function reportError(io: CliIO, error: unknown, command: string, file?: string): number {
  if (error instanceof UsageError) {
    io.err(`groundwork: ${error.message}\nRun 'groundwork ${command} --help' for usage.\n`);
    return EXIT_USAGE;
  }
  if (isGroundworkError(error)) {
    const where = error.file === undefined && file !== undefined ? `${file}: ` : '';
    io.err(`groundwork: ${where}${error.message} [${error.code}]\n`);
    return error.code === 'INVALID_OPTIONS' ? EXIT_USAGE : EXIT_FAILED;
  }
  // Anything else is a bug in Groundwork, not in the input: show where it happened.
  const where = file !== undefined ? `${file}: ` : '';
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.err(`groundwork: ${where}internal error: ${detail}\n`);
  return EXIT_FAILED;
}

/** Reads a file argument as bytes (`-` is stdin), with IO errors that name the file. */
export async function readInputBytes(io: CliIO, file: string): Promise<{ bytes: Uint8Array; label: string }> {
  if (file === '-') return { bytes: await io.readStdin(), label: STDIN_NAME };
  try {
    return { bytes: await readFile(file), label: file };
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a file' : (cause as Error).message;
    throw new GroundworkError('IO', `cannot read: ${reason}`, { file, cause });
  }
}

/** Node's stdin as one byte array (the format is detected from the bytes, never assumed UTF-8). */
export async function readProcessStdin(): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const part of process.stdin) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

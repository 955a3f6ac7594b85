import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../helpers.js';

export const CLI_ENTRY = join(projectRoot, 'src', 'cli', 'main.ts');
export const SAMPLES = join(projectRoot, 'samples');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (`node --import tsx src/cli/main.ts ...`) as a child process, stdin optional. */
export function runCli(args: readonly string[], stdin?: Uint8Array | string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_ENTRY, ...args], {
      cwd: projectRoot,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.end(stdin ?? '');
  });
}

export interface ServedCli {
  /** The address `groundwork serve` printed (`... at http://127.0.0.1:PORT`). */
  url: string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the real `groundwork serve ARGS --port 0` as a child process and resolves once it prints the
 * address it listens on; rejects with its stderr if it exits first.
 */
export async function spawnServe(args: readonly string[]): Promise<ServedCli> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_ENTRY, 'serve', ...args, '--port', '0'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
      const match = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`groundwork serve exited ${code} before listening: ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

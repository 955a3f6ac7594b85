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

import { spawn } from 'node:child_process';
import { tesseractBinary } from './languages.js';

/** A page that takes longer than this is abandoned (the process is killed): a hang must not stall a batch. */
const CLI_TIMEOUT_MS = 300_000;

export interface RecognizeRequest {
  /** The image as PGM/PPM bytes. */
  image: Uint8Array;
  lang: string;
  psm: number;
  dpi?: number;
}

/**
 * Runs `tesseract stdin stdout -l LANG --psm N tsv`, the image on stdin. OMP_THREAD_LIMIT=1:
 * Tesseract's OpenMP threads made it 4-5x slower on 2 shared cores (research/dependencies.md).
 */
export function recognizeWithCli(request: RecognizeRequest): Promise<string> {
  const args = ['stdin', 'stdout', '-l', request.lang, '--psm', String(request.psm)];
  if (request.dpi) args.push('--dpi', String(Math.round(request.dpi)));
  args.push('tsv');
  return runTesseract(args, request.image);
}

function runTesseract(args: string[], input: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tesseractBinary(), args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${tesseractBinary()}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`tesseract failed (${signal ? `killed by ${signal}` : `exit ${code}`}): ${Buffer.concat(err).toString('utf8').trim().split('\n').slice(-3).join(' ')}`));
    });
    // EPIPE when tesseract exits early (bad arguments) surfaces through 'close' with its message.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

import { copyFileSync, mkdtempSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecognizeRequest } from './engine-cli.js';
import { languageFile, installHint } from './languages.js';

const require = createRequire(import.meta.url);

interface TesseractWorker {
  worker?: { ref(): void; unref(): void };
  reinitialize(langs: string, oem?: number): Promise<unknown>;
  setParameters(params: Record<string, string>): Promise<unknown>;
  recognize(image: Buffer, options: Record<string, unknown>, output: Record<string, boolean>): Promise<{ data: { tsv: string | null } }>;
  terminate(): Promise<unknown>;
}
interface TesseractModule {
  createWorker(langs: string, oem: number, options: Record<string, unknown>): Promise<TesseractWorker>;
}

const OEM_LSTM_ONLY = 1;
// Every output tesseract.js can produce, off except TSV (the others cost time per page).
const OUTPUT = { text: false, blocks: false, layoutBlocks: false, hocr: false, tsv: true, box: false, unlv: false, osd: false, pdf: false, imageColor: false, imageGrey: false, imageBinary: false, debug: false };

/**
 * One tesseract.js worker per process, created on first use and reused; jobs run one at a time
 * (parameters like the PSM are per worker). The worker thread keeps the process alive only while
 * a job runs, so a caller that forgets closeOcr() still exits.
 */
let worker: Promise<TesseractWorker> | undefined;
let workerLangs = '';
let langDir: string | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * tesseract.js reads every language from one folder (`langPath`) and, without one, downloads from a
 * CDN and caches into the working directory. Its `{code, data}` form is broken in 7.0.0 (the data
 * is used as the language name), so we gather links to the local files in a private temp folder,
 * and set cacheMethod 'none' so nothing is ever written elsewhere.
 */
function prepareLanguages(codes: readonly string[]): string {
  langDir ??= mkdtempSync(join(tmpdir(), 'groundwork-tessdata-'));
  const missing: string[] = [];
  for (const code of codes) {
    // The name ends in .gz because tesseract.js appends it when gzip is on; it sniffs the gzip magic, so plain files work too.
    const link = join(langDir, `${code}.traineddata.gz`);
    if (existsSync(link)) continue;
    const file = languageFile(code);
    if (!file) {
      missing.push(code);
      continue;
    }
    try {
      symlinkSync(file, link);
    } catch {
      copyFileSync(file, link);
    }
  }
  if (missing.length) throw new Error(`no OCR data for ${missing.join(', ')}: ${installHint(missing)}`);
  return langDir;
}

async function createJsWorker(lang: string, codes: readonly string[]): Promise<TesseractWorker> {
  const dir = prepareLanguages(codes);
  const tesseract = require('tesseract.js') as TesseractModule;
  const created = await tesseract.createWorker(lang, OEM_LSTM_ONLY, {
    langPath: dir,
    cachePath: dir,
    cacheMethod: 'none',
    gzip: true,
    // Without a handler tesseract.js throws worker errors from an event listener, killing the process.
    errorHandler: () => undefined,
    logger: () => undefined,
  });
  created.worker?.unref();
  return created;
}

export function recognizeWithJs(request: RecognizeRequest, codes: readonly string[]): Promise<string> {
  const job = queue.then(() => runJob(request, codes));
  queue = job.catch(() => undefined);
  return job;
}

async function runJob(request: RecognizeRequest, codes: readonly string[]): Promise<string> {
  if (!worker) {
    const pending = createJsWorker(request.lang, codes);
    worker = pending;
    workerLangs = request.lang;
    pending.catch(() => {
      if (worker === pending) worker = undefined;
    });
  }
  const w = await worker;
  w.worker?.ref();
  try {
    if (workerLangs !== request.lang) {
      prepareLanguages(codes);
      await w.reinitialize(request.lang, OEM_LSTM_ONLY);
      workerLangs = request.lang;
    }
    const params: Record<string, string> = { tessedit_pageseg_mode: String(request.psm) };
    // user_defined_dpi '0' means "estimate from the text", Tesseract's default.
    params['user_defined_dpi'] = request.dpi ? String(Math.round(request.dpi)) : '0';
    await w.setParameters(params);
    const result = await w.recognize(Buffer.from(request.image.buffer, request.image.byteOffset, request.image.byteLength), {}, OUTPUT);
    return result.data.tsv ?? '';
  } catch (error) {
    throw new Error(`tesseract.js failed: ${typeof error === 'string' ? error : (error as Error).message}`);
  } finally {
    w.worker?.unref();
  }
}

/** Terminates the worker and removes the language links folder. */
export async function closeJsWorker(): Promise<void> {
  const pending = worker;
  worker = undefined;
  workerLangs = '';
  if (pending) {
    await queue;
    const w = await pending.catch(() => undefined);
    await w?.terminate();
  }
  removeLangDir();
}

function removeLangDir(): void {
  if (langDir) rmSync(langDir, { recursive: true, force: true });
  langDir = undefined;
}

process.once('exit', removeLangDir);

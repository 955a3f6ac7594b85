import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import mammoth from 'mammoth';
import { isGroundworkError, parse } from '../src/index.js';
import { printTable, timeItAsync } from './inputs.js';

/**
 * Per-format parse speed on the shared corpus: `parse()` (detection, parser, document build) over
 * every file of a corpus folder that parses, with `ocr: 'off'` (OCR costs seconds per page and has
 * its own bench, bench/ocr.ts). Files that are rejected (wrong password, bombs, legacy formats,
 * audio without a transcription endpoint, images that have text only through OCR) are left out of
 * the timing and listed. mammoth's plain-text extraction of the same DOCX files is timed in the
 * same run as the peer. pages/s counts the pages of documents that report a page count (PDF pages,
 * slides, sheets, DOCX/ODT page counts saved by the editor) over the whole folder's time.
 */

const corpusDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpus');
const RUNS = 3;
/** adversarial/ holds bombs and broken files (tests of refusal, not a format). */
const NOT_A_FORMAT = new Set(['adversarial']);
/** Ground truth and corpus notes beside the inputs, not inputs. */
const NOT_INPUT = /\.expected\.|^MANIFEST|^README/;

interface Input {
  name: string;
  bytes: Uint8Array;
}

interface FolderResult {
  parsed: Input[];
  pages: number;
  rejected: string[];
}

function folderInputs(folder: string): Input[] {
  const out: Input[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path, `${prefix}${entry}/`);
      else if (!NOT_INPUT.test(entry)) out.push({ name: `${prefix}${entry}`, bytes: readFileSync(path) });
    }
  };
  walk(join(corpusDir, folder), '');
  return out;
}

/** Which inputs parse (timed later) and which are rejected, with the error code. */
async function sortInputs(inputs: readonly Input[]): Promise<FolderResult> {
  const result: FolderResult = { parsed: [], pages: 0, rejected: [] };
  for (const input of inputs) {
    try {
      const doc = await parse(input.bytes, { name: input.name, ocr: 'off' });
      result.parsed.push(input);
      result.pages += doc.pageCount ?? 0;
    } catch (error) {
      result.rejected.push(`${input.name} (${isGroundworkError(error) ? error.code : (error as Error).name})`);
    }
  }
  return result;
}

async function parseAll(inputs: readonly Input[]): Promise<void> {
  for (const input of inputs) await parse(input.bytes, { name: input.name, ocr: 'off' });
}

async function mammothAll(inputs: readonly Input[]): Promise<void> {
  for (const input of inputs) await mammoth.extractRawText({ buffer: Buffer.from(input.bytes) });
}

function megabytes(inputs: readonly Input[]): number {
  return inputs.reduce((sum, input) => sum + input.bytes.length, 0) / 1024 / 1024;
}

export async function main(): Promise<void> {
  const folders = readdirSync(corpusDir)
    .filter((f) => statSync(join(corpusDir, f)).isDirectory() && !NOT_A_FORMAT.has(f))
    .sort();
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  let docx: FolderResult | undefined;
  let docxSeconds = 0;
  for (const folder of folders) {
    const sorted = await sortInputs(folderInputs(folder));
    if (sorted.rejected.length > 0) notes.push(`- ${folder}/: not timed (rejected with ocr 'off'): ${sorted.rejected.join(', ')}`);
    if (sorted.parsed.length === 0) continue;
    const seconds = await timeItAsync(() => parseAll(sorted.parsed), RUNS);
    const mb = megabytes(sorted.parsed);
    rows.push([folder, String(sorted.parsed.length), mb, seconds * 1000, mb / seconds, sorted.parsed.length / seconds, sorted.pages > 0 ? sorted.pages / seconds : '-']);
    if (folder === 'docx') {
      docx = sorted;
      docxSeconds = seconds;
    }
  }
  printTable(`parse() per corpus folder, ocr 'off', median of ${RUNS} runs`, ['folder', 'files', 'MB', 'ms', 'MB/s', 'docs/s', 'pages/s'], rows);
  if (notes.length > 0) console.log(`\n${notes.join('\n')}`);

  if (docx) {
    const peer = await timeItAsync(() => mammothAll(docx.parsed), RUNS);
    const mb = megabytes(docx.parsed);
    printTable(
      `DOCX: parse() vs mammoth 1.13.0 extractRawText, same files, same run, median of ${RUNS}`,
      ['input', 'MB', 'parse() MB/s', 'mammoth MB/s', 'parse() docs/s', 'mammoth docs/s', 'speed-up'],
      [[`corpus docx/ (${docx.parsed.length} files)`, mb, mb / docxSeconds, mb / peer, docx.parsed.length / docxSeconds, docx.parsed.length / peer, peer / docxSeconds]],
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

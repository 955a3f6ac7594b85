import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import mammoth from 'mammoth';
import { docxParser } from '../src/parsers/docx.js';
import { odtParser } from '../src/parsers/odt.js';
import { printTable, timeItAsync } from './inputs.js';

/**
 * Office parsing speed: our DOCX parser beside mammoth (HTML conversion, the common Node choice),
 * measured in the same run on the same bytes; and ODT. Inputs: every DOCX/ODT in the shared corpus
 * (small files, where fixed costs dominate), and a big DOCX made by repeating calibre-demo's body
 * 25 times (tables, lists, notes), as research/dependencies.md measured.
 */

const corpusDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpus');

function corpusFiles(folder: string, ext: string): { name: string; bytes: Uint8Array }[] {
  const dir = join(corpusDir, folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => ({ name: f, bytes: readFileSync(join(dir, f)) }));
}

/** calibre-demo.docx with its body repeated `times` times (the section properties kept once, at the end). */
function bigDocx(times: number): Uint8Array {
  const files = unzipSync(readFileSync(join(corpusDir, 'docx', 'calibre-demo.docx')));
  const xml = strFromU8(files['word/document.xml']!);
  const open = xml.indexOf('<w:body>') + '<w:body>'.length;
  const sect = xml.lastIndexOf('<w:sectPr');
  const body = xml.slice(open, sect);
  files['word/document.xml'] = strToU8(xml.slice(0, open) + body.repeat(times) + xml.slice(sect));
  return zipSync(files);
}

async function ours(bytes: Uint8Array, parser = docxParser): Promise<number> {
  const draft = await parser.parse({ bytes }, {});
  return draft.elements.length;
}

async function viaMammoth(bytes: Uint8Array): Promise<void> {
  await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
}

export async function main(): Promise<void> {
  const docx = corpusFiles('docx', '.docx');
  const odt = corpusFiles('odt', '.odt');
  const big = bigDocx(25);
  const mb = (files: { bytes: Uint8Array }[]): number => files.reduce((s, f) => s + f.bytes.length, 0) / 1024 / 1024;

  const rows: (string | number)[][] = [];
  const measure = async (label: string, files: { bytes: Uint8Array }[], runs: number): Promise<void> => {
    let elements = 0;
    for (const f of files) elements += await ours(f.bytes);
    const tOurs = await timeItAsync(async () => { for (const f of files) await ours(f.bytes); }, runs);
    const tMammoth = await timeItAsync(async () => { for (const f of files) await viaMammoth(f.bytes); }, runs);
    rows.push([label, mb(files), tOurs * 1000, mb(files) / tOurs, elements / tOurs, tMammoth * 1000, mb(files) / tMammoth, tMammoth / tOurs]);
  };
  await measure(`corpus docx/ (${docx.length} files)`, docx, 5);
  await measure('calibre-demo body x25 (1 file)', [{ bytes: big }], 3);
  printTable('DOCX: Groundwork vs mammoth 1.13.0 (convertToHtml), same run', ['input', 'MB', 'ours ms', 'ours MB/s', 'ours elements/s', 'mammoth ms', 'mammoth MB/s', 'speed-up'], rows);

  let odtElements = 0;
  for (const f of odt) odtElements += await ours(f.bytes, odtParser);
  const tOdt = await timeItAsync(async () => { for (const f of odt) await ours(f.bytes, odtParser); }, 5);
  printTable('ODT: Groundwork', ['input', 'MB', 'ms', 'MB/s', 'elements/s'], [[`corpus odt/ (${odt.length} files)`, mb(odt), tOdt * 1000, mb(odt) / tOdt, odtElements / tOdt]]);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

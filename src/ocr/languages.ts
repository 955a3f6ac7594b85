import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export const DEFAULT_OCR_LANG = 'eng+chi_sim';
/** `eng`, `chi_sim`, and the vertical-text models `chi_sim_vert`, `jpn_vert`. */
const LANG_CODE = /^[a-z]{3}(_[a-z]+){0,2}$/i;

/** 'eng+chi_sim' -> ['eng', 'chi_sim']; throws on anything that is not a Tesseract language code. */
export function splitLangs(lang: string): string[] {
  const codes = lang.split('+').map((code) => code.trim()).filter(Boolean);
  if (codes.length === 0) throw new Error('no OCR language given');
  for (const code of codes) if (!LANG_CODE.test(code)) throw new Error(`'${code}' is not a Tesseract language code (e.g. eng, chi_sim, jpn)`);
  return codes;
}

/** Folders holding plain `<lang>.traineddata` files: $GROUNDWORK_TESSDATA, $TESSDATA_PREFIX, Debian's. */
function tessdataDirs(): string[] {
  const dirs: string[] = [];
  for (const value of [process.env['GROUNDWORK_TESSDATA'], process.env['TESSDATA_PREFIX']]) {
    if (value) for (const dir of value.split(':')) dirs.push(dir, join(dir, 'tessdata'));
  }
  dirs.push('/usr/share/tesseract-ocr/5/tessdata', '/usr/share/tesseract-ocr/4.00/tessdata', '/usr/share/tessdata', '/usr/local/share/tessdata');
  return dirs;
}

/**
 * Where tesseract.js can read a language from: the npm package `@tesseract.js-data/<lang>` (LSTM
 * best_int model, gzipped), else a traineddata file in one of the tessdata folders. Undefined when
 * neither exists: the caller reports it, because tesseract.js would otherwise fetch from a CDN.
 */
export function languageFile(code: string): string | undefined {
  try {
    const pkgDir = dirname(require.resolve(`@tesseract.js-data/${code}/package.json`));
    const file = join(pkgDir, '4.0.0_best_int', `${code}.traineddata.gz`);
    if (existsSync(file)) return file;
  } catch {
    // not installed: try the system folders
  }
  for (const dir of tessdataDirs()) {
    const file = join(dir, `${code}.traineddata`);
    if (existsSync(file)) return file;
  }
  return undefined;
}

export function tesseractJsInstalled(): boolean {
  try {
    require.resolve('tesseract.js');
    return true;
  } catch {
    return false;
  }
}

/** The tesseract binary to run: $GROUNDWORK_TESSERACT or `tesseract` on PATH. */
export function tesseractBinary(): string {
  return process.env['GROUNDWORK_TESSERACT'] || 'tesseract';
}

let cliLangs: Set<string> | null | undefined;
/** Languages the tesseract CLI has (`--list-langs`), or null when there is no CLI. Asked once per process. */
export function cliLanguages(): Set<string> | null {
  if (cliLangs !== undefined) return cliLangs;
  const result = spawnSync(tesseractBinary(), ['--list-langs'], { encoding: 'utf8', timeout: 10_000 });
  if (result.status !== 0 || typeof result.stdout !== 'string') {
    cliLangs = null;
  } else {
    cliLangs = new Set(result.stdout.split('\n').slice(1).map((l) => l.trim()).filter(Boolean));
  }
  return cliLangs;
}

/** How to get a missing language, for error messages. */
export function installHint(codes: readonly string[]): string {
  const npm = codes.map((c) => `@tesseract.js-data/${c}`).join(' ');
  const apt = codes.map((c) => `tesseract-ocr-${c.replace(/_/g, '-').toLowerCase()}`).join(' ');
  return `install the language data: \`npm install ${npm}\`, or \`apt-get install ${apt}\` for the tesseract CLI, or put <lang>.traineddata in a folder named by $GROUNDWORK_TESSDATA`;
}

/** Han, kana, Hangul and CJK punctuation, as a regular-expression character-class body. */
export const CJK_CHARS = '\\u2e80-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\u3000-\\u303f';
/** Text with a CJK glyph in it. */
export const CJK_TEXT = new RegExp(`[${CJK_CHARS}]`, 'u');
/** Every CJK glyph of a text (`match(CJK_ALL)?.length` counts them). */
export const CJK_ALL = new RegExp(`[${CJK_CHARS}]`, 'gu');

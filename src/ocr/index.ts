import { GroundworkError } from '../errors.js';
import type { PageRules } from '../layout/rules.js';
import { recognizeWithCli, type RecognizeRequest } from './engine-cli.js';
import { closeJsWorker, recognizeWithJs } from './engine-js.js';
import { CJK_ALL, CJK_CHARS, CJK_TEXT, cliLanguages, DEFAULT_OCR_LANG, installHint, languageFile, splitLangs, tesseractJsInstalled } from './languages.js';
import { estimateTextDirection, rotateByAngle } from './orientation.js';
import { decodeImage, downscale, encodePnm, rotateQuarter, upscale, whitenTints, type Raster } from './raster.js';
import { eraseRules, findRasterRules, scaleRules } from './rulings.js';
import { rereadCells, suspectCells, withoutWords } from './tables.js';
import { median, parseTsv, type TsvPage } from './tsv.js';
import type { OcrBlock, OcrEngineName, OcrOptions, OcrPage, OcrWord } from './types.js';
import { findVerticalColumns, rereadVerticalColumns, verticalLanguage, type VerticalReaders } from './vertical.js';

export type { OcrBlock, OcrBox, OcrEngineName, OcrLine, OcrOptions, OcrPage, OcrWord } from './types.js';
export type { Raster } from './raster.js';
export { decodeImage, imageKind } from './raster.js';
export { ocrPageToElements, ocrBoxToSource } from './elements.js';
export { DEFAULT_OCR_LANG } from './languages.js';

const DEFAULT_PSM = 3;
/** Below this mean word confidence the other orientations are tried. */
const LOW_CONFIDENCE = 75;
/** Deskew only when the lines are clearly tilted; Tesseract copes with a degree or so itself. */
const MIN_DESKEW = 0.8;
/** Images are reduced to about this resolution: more only costs time (research/dependencies.md: 150 dpi already reads as well). */
const TARGET_DPI = 300;
/** Without a known resolution, a side longer than this is reduced (an A4 page at ~400 dpi). */
const MAX_SIDE = 4800;
/** Orientation trials run on a copy whose longer side is at most this. */
const TRIAL_SIDE = 1800;
/** A page with less ink than this fraction of its pixels is blank: no OCR run. */
const BLANK_INK = 0.0005;
/**
 * Text whose lines are shorter than this (pixels, word boxes) and that reads below
 * SMALL_TEXT_CONFIDENCE is read again at twice the size. Measured on a scanned page
 * (pdf-scanned/loremipsum-flat.pdf) reduced step by step: at 9 px the mean confidence fell to 87
 * and 2x brought it back to 95 (token F1 0.95 -> 0.99); at 8 px 63 -> 94; at 11 px (93) and
 * above, enlarging gained next to nothing.
 */
const SMALL_TEXT = 12;
const SMALL_TEXT_CONFIDENCE = 90;
/** Small print is enlarged only while the enlarged image stays within MAX_SIDE. */
const ENLARGE = 2;

/**
 * Table cells are read again as one block of text each (Tesseract's mode 6, all cells of a page
 * stacked into one image).
 */
const CELL_PSM = 6;
/** A vertical text column is read with the `_vert` model as one vertical block (mode 5)... */
const VERTICAL_PSM = 5;
/** ...and, with the horizontal model, as its glyphs laid out on one line (mode 7). */
const LINE_PSM = 7;
/** Chinese, Japanese and Korean models: mixed with a Latin one, they misread a letter as a glyph now and then. */
const CJK_LANG = /^(chi_|jpn|kor)/;
/** One or two CJK glyphs and nothing else. */
const CJK_GLYPHS = new RegExp(`^[${CJK_CHARS}]{1,2}$`, 'u');
const LETTER = /\p{L}/gu;
/** A page whose letters are less than this share CJK is written in its Latin language. */
const CJK_SHARE = 0.05;
/** On such a page, a CJK glyph (or two) alone between Latin words and read below this confidence is a misread speck. */
const STRAY_CONFIDENCE = 80;

/** One reading of the upright image: the words, the rules found on it, the cleaned image read and the enlargement the words were read at. */
interface Reading {
  page: TsvPage;
  rules: PageRules;
  image: Raster;
  enlarged: number;
}

type Availability = { ok: true; engine: OcrEngineName } | { ok: false; reason: string };

/** The engine that will OCR these languages, or why none can. Never downloads anything. */
export function ocrAvailable(lang: string = DEFAULT_OCR_LANG, forced?: OcrOptions['engine']): Availability {
  let codes: string[];
  try {
    codes = splitLangs(lang);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const want = forced ?? engineFromEnv();
  const reasons: string[] = [];
  if (want !== 'tesseract.js') {
    const langs = cliLanguages();
    const missing = langs ? codes.filter((c) => !langs.has(c)) : codes;
    if (langs && missing.length === 0) return { ok: true, engine: 'tesseract-cli' };
    reasons.push(langs ? `the tesseract CLI lacks ${missing.join(', ')}` : 'no tesseract CLI on PATH');
  }
  if (want !== 'cli') {
    if (!tesseractJsInstalled()) {
      reasons.push('tesseract.js is not installed (`npm install tesseract.js`)');
    } else {
      const missing = codes.filter((c) => !languageFile(c));
      if (missing.length === 0) return { ok: true, engine: 'tesseract.js' };
      reasons.push(`tesseract.js has no data for ${missing.join(', ')}`);
      return { ok: false, reason: `OCR for '${lang}' is unavailable: ${reasons.join('; ')}; ${installHint(missing)}` };
    }
  }
  return { ok: false, reason: `OCR for '${lang}' is unavailable: ${reasons.join('; ')}` };
}

function engineFromEnv(): OcrOptions['engine'] {
  const value = process.env['GROUNDWORK_OCR_ENGINE'];
  if (!value) return undefined;
  if (value === 'cli' || value === 'tesseract-cli') return 'cli';
  if (value === 'tesseract.js' || value === 'js') return 'tesseract.js';
  throw new GroundworkError('INVALID_OPTIONS', `GROUNDWORK_OCR_ENGINE must be 'cli' or 'tesseract.js', not '${value}'`);
}

/** OCRs the first page of an image (PNG, JPEG, TIFF, BMP, WebP). Throws UNSUPPORTED when no engine has the languages. */
export async function ocrImage(image: Uint8Array, options: OcrOptions = {}): Promise<OcrPage> {
  const pages = await decodeOrThrow(image);
  return ocrRaster(pages[0]!, options);
}

/** OCRs every page of an image: a multi-page TIFF gives one OcrPage per page. */
export async function ocrImagePages(image: Uint8Array, options: OcrOptions = {}): Promise<OcrPage[]> {
  const pages = await decodeOrThrow(image);
  const results: OcrPage[] = [];
  for (const page of pages) results.push(await ocrRaster(page, options));
  return results;
}

async function decodeOrThrow(image: Uint8Array): Promise<Raster[]> {
  try {
    return await decodeImage(image);
  } catch (error) {
    throw new GroundworkError('CORRUPT', `the image cannot be decoded: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * OCRs a decoded image (e.g. a rendered PDF page). Large images are first reduced to about 300 dpi; tilted text is
 * straightened; table rules are found, the vertical ones painted out and tinted cells whitened
 * before reading; small print that reads poorly is read again enlarged; text that reads poorly is retried in the other orientations (on a
 * reduced copy, to keep it cheap) and the best-reading one is kept. Boxes and `rules` come back in
 * the upright frame at the image's own resolution; `angle` says what rotation was applied.
 */
export async function ocrRaster(source: Raster, options: OcrOptions = {}): Promise<OcrPage> {
  const lang = options.lang ?? DEFAULT_OCR_LANG;
  const available = ocrAvailable(lang, options.engine);
  if (!available.ok) throw new GroundworkError('UNSUPPORTED', available.reason);
  const codes = splitLangs(lang);
  const engine = available.engine;
  const psm = options.psm ?? DEFAULT_PSM;
  const detect = options.detectOrientation ?? true;

  const factor = reductionFactor(source, options.dpi);
  const image = downscale(source, factor);
  const dpi = options.dpi ? options.dpi / factor : undefined;
  const run = async (img: Raster, runDpi: number | undefined, runPsm = psm, runLang = lang): Promise<TsvPage> => {
    const request: RecognizeRequest = { image: encodePnm(img), lang: runLang, psm: runPsm, ...(runDpi && { dpi: runDpi }) };
    return parseTsv(engine === 'tesseract-cli' ? await recognizeWithCli(request) : await recognizeWithJs(request, splitLangs(runLang)));
  };

  // Rules are found on the upright image that is read, so they share the words' frame; erased
  // before reading, so Tesseract does not read them as bars or glue them to the cell text; tinted
  // cells are whitened, so they are read as text rather than skipped as pictures.
  const read = async (img: Raster): Promise<Reading> => {
    const rules = findRasterRules(img);
    const clean = whitenTints(eraseRules(img, rules));
    const page = await run(clean, dpi);
    if (!isSmallPrint(page, clean)) return { page, rules, image: clean, enlarged: 1 };
    const enlarged = await run(upscale(clean, ENLARGE), dpi && dpi * ENLARGE);
    // Some scripts read worse enlarged (small Chinese: confidence 78 -> 51, as more but wrong Latin
    // words): the enlarged reading must be both more confident and score better.
    const better = enlarged.confidence > page.confidence && readingScore(enlarged) > readingScore(page);
    return better ? { page: enlarged, rules, image: clean, enlarged: ENLARGE } : { page, rules, image: clean, enlarged: 1 };
  };

  const direction = detect ? estimateTextDirection(image) : undefined;
  if (direction && direction.ink < BLANK_INK) {
    return finish({ width: image.width, height: image.height, blocks: [], confidence: 0 }, 0, factor, source, engine, lang);
  }
  const candidates = direction?.vertical ? [1, 3, 0] : [0, 2];
  const upright = (turns: number): { img: Raster; angle: number } => {
    const turned = rotateQuarter(image, turns);
    const skew = turns === 0 && direction ? direction.skew : detect ? estimateTextDirection(turned).skew : 0;
    if (Math.abs(skew) < MIN_DESKEW) return { img: turned, angle: turns * 90 };
    return { img: rotateByAngle(turned, -skew), angle: turns * 90 - skew };
  };

  let best = upright(candidates[0]!);
  let reading = await read(best.img);
  if (detect && reading.page.confidence < LOW_CONFIDENCE) {
    // Compare every candidate at the same reduced resolution, so the comparison is fair and cheap.
    const trialFactor = Math.max(1, Math.ceil(Math.max(image.width, image.height) / TRIAL_SIDE));
    let bestScore = -1;
    let bestTurns = candidates[0]!;
    for (const turns of candidates) {
      const trial = upright(turns);
      const scored = trialFactor === 1 && turns === candidates[0] && reading.enlarged === 1 ? reading.page : await run(downscale(trial.img, trialFactor), dpi ? dpi / trialFactor : undefined);
      const score = readingScore(scored);
      if (score > bestScore) {
        bestScore = score;
        bestTurns = turns;
      }
    }
    if (bestTurns !== candidates[0]) {
      best = upright(bestTurns);
      reading = await read(best.img);
    }
  }
  // Vertical CJK text inside an upright page (a picture's vertical text box); a page turned a quarter
  // is a rotated scan, read as such.
  if (detect && Math.round(best.angle / 90) % 4 === 0) {
    reading.page.blocks = await readVerticalText(reading, codes, engine, (img, runPsm, runLang) => run(img, dpi, runPsm, runLang));
  }
  const latin = latinLanguages(codes, reading.page.blocks);
  reading.page.blocks = await rereadTableCells(reading, latin, async (stack) => {
    // The CLI loads its models on every run, so leaving the CJK ones out costs nothing; tesseract.js
    // would reload its worker twice per page.
    const cellLang = latin && engine === 'tesseract-cli' ? latin : lang;
    const page = await run(upscale(stack, reading.enlarged), dpi && dpi * reading.enlarged, CELL_PSM, cellLang);
    if (reading.enlarged !== 1) scaleWords(page.blocks, 1 / reading.enlarged);
    return page;
  });
  if (latin) reading.page.blocks = dropStrayGlyphs(reading.page.blocks);
  return finish(reading.page, best.angle, factor / reading.enlarged, source, engine, lang, scaleRules(reading.rules, factor));
}

/**
 * Ruled-table cells that read poorly (`suspectCells`) read again, each on its own: a multi-line
 * header cell beside one-line cells is otherwise read as lines across the row ("Disability pans
 * Category"). On a Latin page read with a CJK model too, a CJK glyph in a cell is a misread letter.
 */
async function rereadTableCells(reading: Reading, latin: string | undefined, read: (stack: Raster) => Promise<TsvPage>): Promise<OcrBlock[]> {
  const blocks = reading.page.blocks;
  const bodySize = bodyWordSize(blocks);
  const foreign = latin ? (word: OcrWord): boolean => CJK_TEXT.test(word.text) : undefined;
  const cells = suspectCells(blocks, bodySize, scaleRules(reading.rules, reading.enlarged), foreign);
  if (cells.length === 0) return blocks;
  return (await rereadCells(blocks, cells, reading.image, reading.enlarged, bodySize, read)).blocks;
}

/**
 * Columns of vertically stacked CJK glyphs (`findVerticalColumns`) read again: with the language's
 * `_vert` model (mode 5) when the engine has it, and always as one horizontal line of the column's
 * glyphs with the horizontal model; the better reading replaces the column's words when it is
 * clearly better than they are (`rereadVerticalColumns`). Pages without such a column cost one
 * pass over a reduced copy of the ink and no OCR run.
 */
async function readVerticalText(reading: Reading, codes: readonly string[], engine: OcrEngineName, run: (img: Raster, psm: number, lang: string) => Promise<TsvPage>): Promise<OcrBlock[]> {
  const cjk = codes.find((code) => verticalLanguage(code));
  if (!cjk) return reading.page.blocks;
  const columns = findVerticalColumns(reading.image);
  if (columns.length === 0) return reading.page.blocks;
  const vertical = verticalLanguage(cjk)!;
  const hasVertical = engine === 'tesseract-cli' ? (cliLanguages()?.has(vertical) ?? false) : languageFile(vertical) !== undefined;
  // The CLI loads its models on every run; tesseract.js keeps the page's languages for the line rather than reloading twice.
  const lineLang = engine === 'tesseract-cli' ? cjk : codes.join('+');
  const readers: VerticalReaders = {
    ...(hasVertical && { vertical: (crop: Raster) => run(crop, VERTICAL_PSM, vertical) }),
    line: (row) => run(row, LINE_PSM, lineLang),
  };
  const result = await rereadVerticalColumns(reading.page.blocks, reading.image, reading.enlarged, readers, columns);
  return result.blocks;
}

/** The median line height over the words (the page's body text), in the words' pixels. */
function bodyWordSize(blocks: readonly OcrBlock[]): number {
  return median(blocks.flatMap((b) => b.lines.flatMap((l) => l.words.map(() => Math.round(l.size)))));
}

/**
 * The Latin (non-CJK) languages of a set that mixes both, when the page is written in them (under
 * CJK_SHARE of its letters CJK); undefined otherwise.
 */
function latinLanguages(codes: readonly string[], blocks: readonly OcrBlock[]): string | undefined {
  const others = codes.filter((c) => !CJK_LANG.test(c));
  if (others.length === 0 || others.length === codes.length) return undefined;
  let letters = 0;
  let cjk = 0;
  for (const block of blocks) {
    letters += block.text.match(LETTER)?.length ?? 0;
    cjk += block.text.match(CJK_ALL)?.length ?? 0;
  }
  return letters > 0 && cjk < CJK_SHARE * letters ? others.join('+') : undefined;
}

/**
 * Drops CJK words of one or two glyphs read below STRAY_CONFIDENCE with no CJK word beside them:
 * on a Latin page, specks a CJK model made of Latin ink.
 */
export function dropStrayGlyphs(blocks: readonly OcrBlock[]): OcrBlock[] {
  const stray = new Set<OcrWord>();
  for (const block of blocks) {
    for (const line of block.lines) {
      line.words.forEach((word, i) => {
        if (word.conf >= STRAY_CONFIDENCE || !CJK_GLYPHS.test(word.text)) return;
        const before = line.words[i - 1];
        const after = line.words[i + 1];
        if ((before && CJK_TEXT.test(before.text)) || (after && CJK_TEXT.test(after.text))) return;
        stray.add(word);
      });
    }
  }
  if (stray.size === 0) return [...blocks];
  return blocks.map((b) => withoutWords(b, stray)).filter((b): b is OcrBlock => b !== undefined);
}

function scaleWords(blocks: readonly OcrBlock[], factor: number): void {
  for (const block of blocks) {
    scaleBox(block.bbox, factor);
    for (const line of block.lines) {
      scaleBox(line.bbox, factor);
      line.size *= factor;
      for (const word of line.words) scaleBox(word.bbox, factor);
    }
  }
}

/** Text in lines too short for Tesseract to read well, that did read poorly, on an image small enough to enlarge. */
function isSmallPrint(page: TsvPage, image: Raster): boolean {
  if (page.confidence >= SMALL_TEXT_CONFIDENCE || Math.max(image.width, image.height) * ENLARGE > MAX_SIDE) return false;
  const size = textSize(page);
  return size > 0 && size < SMALL_TEXT;
}

/** The line size (word-box height, pixels) that half the page's characters are at or below. */
function textSize(page: TsvPage): number {
  const lines: { size: number; chars: number }[] = [];
  let total = 0;
  for (const block of page.blocks) for (const line of block.lines) {
    lines.push({ size: line.size, chars: line.text.length });
    total += line.text.length;
  }
  lines.sort((a, b) => a.size - b.size);
  let seen = 0;
  for (const line of lines) {
    seen += line.chars;
    if (seen * 2 >= total) return line.size;
  }
  return 0;
}

/** How well a page read: mean confidence weighted by word length, so a few confident specks do not win. */
function readingScore(page: TsvPage): number {
  let weighted = 0;
  let chars = 0;
  for (const block of page.blocks) {
    for (const line of block.lines) {
      for (const word of line.words) {
        const n = Math.min(word.text.length, 12);
        weighted += word.conf * n;
        chars += n;
      }
    }
  }
  // Text that reads badly also tends to be fragmented into few, short words: reward volume gently.
  return chars ? (weighted / chars) * Math.log10(10 + chars) : 0;
}

function reductionFactor(image: Raster, dpi: number | undefined): number {
  if (dpi) return dpi >= TARGET_DPI * 1.5 ? Math.floor(dpi / TARGET_DPI) : 1;
  const side = Math.max(image.width, image.height);
  return side > MAX_SIDE ? Math.ceil(side / MAX_SIDE) : 1;
}

/** Scales boxes back by the reduction (enlargement) factor and fills in the page's engine, frame and rules. */
function finish(page: TsvPage, angle: number, factor: number, source: Raster, engine: OcrEngineName, lang: string, rules?: PageRules): OcrPage {
  if (factor !== 1) scaleWords(page.blocks, factor);
  return {
    width: page.width * factor,
    height: page.height * factor,
    blocks: page.blocks,
    angle: Math.round(angle * 10) / 10,
    engine,
    lang,
    confidence: Math.round(page.confidence * 10) / 10,
    sourceWidth: source.width,
    sourceHeight: source.height,
    ...(rules && { rules }),
  };
}

function scaleBox(box: { x0: number; y0: number; x1: number; y1: number }, factor: number): void {
  box.x0 *= factor;
  box.y0 *= factor;
  box.x1 *= factor;
  box.y1 *= factor;
}

/** Terminates the tesseract.js worker (if one was started) and removes its temp folder. */
export async function closeOcr(): Promise<void> {
  await closeJsWorker();
}

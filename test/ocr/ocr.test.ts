import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, test } from 'vitest';
import { closeOcr, ocrAvailable, ocrBoxToSource, ocrImage, ocrPageToElements, type OcrPage } from '../../src/ocr/index.js';
import { cliLanguages } from '../../src/ocr/languages.js';
import { estimateTextDirection, rotateByAngle } from '../../src/ocr/orientation.js';
import { decodeImage, downscale, encodePnm, rotateQuarter, upscale, type Raster } from '../../src/ocr/raster.js';
import { joinLines, joinWords, parseTsv } from '../../src/ocr/tsv.js';
import { corpus, hasShared } from '../helpers.js';
import { tokenF1 } from '../parsers/similarity.js';

afterAll(closeOcr);

function pngOf(image: Raster): Uint8Array {
  const png = new PNG({ width: image.width, height: image.height });
  for (let i = 0; i < image.width * image.height; i++) {
    const v = image.data[i * image.channels]!;
    png.data[i * 4] = v;
    png.data[i * 4 + 1] = image.data[i * image.channels + (image.channels === 3 ? 1 : 0)]!;
    png.data[i * 4 + 2] = image.data[i * image.channels + (image.channels === 3 ? 2 : 0)]!;
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** A white page with dark horizontal bars standing in for text lines. */
function stripes(width: number, height: number): Raster {
  const data = new Uint8Array(width * height).fill(255);
  for (let y = 20; y + 8 < height - 20; y += 24) for (let dy = 0; dy < 8; dy++) data.fill(0, (y + dy) * width + 20, (y + dy) * width + width - 20);
  return { width, height, channels: 1, data };
}

describe('raster', () => {
  test('PNG decodes to gray, alpha over white; quarter turns round-trip', async () => {
    const png = new PNG({ width: 3, height: 2 });
    png.data.set([0, 0, 0, 255, 255, 255, 255, 255, 10, 10, 10, 0, 50, 50, 50, 255, 100, 100, 100, 255, 200, 200, 200, 255]);
    const [image] = await decodeImage(PNG.sync.write(png));
    expect(image).toMatchObject({ width: 3, height: 2, channels: 1 });
    expect([...image!.data]).toEqual([0, 255, 255, 50, 100, 200]);
    const turned = rotateQuarter(image!, 1);
    expect(turned).toMatchObject({ width: 2, height: 3 });
    // Clockwise: the bottom-left pixel becomes the top-left one.
    expect([...turned.data]).toEqual([50, 0, 100, 255, 200, 255]);
    expect([...rotateQuarter(turned, 3).data]).toEqual([...image!.data]);
    expect([...rotateQuarter(image!, 2).data]).toEqual([200, 100, 50, 255, 255, 0]);
  });

  test('color survives decoding (Tesseract thresholds per channel), and BMP and PNM are read', async () => {
    const png = new PNG({ width: 1, height: 1 });
    png.data.set([200, 100, 0, 255]);
    const [color] = await decodeImage(PNG.sync.write(png));
    expect(color).toMatchObject({ channels: 3, data: new Uint8Array([200, 100, 0]) });
    expect(new TextDecoder().decode(encodePnm(color!).subarray(0, 3))).toBe('P6\n');
    // 2x1 24-bit BMP, bottom-up, rows padded to 4 bytes.
    const bmp = new Uint8Array(54 + 8);
    const view = new DataView(bmp.buffer);
    bmp.set([0x42, 0x4d]);
    view.setUint32(2, bmp.length, true);
    view.setUint32(10, 54, true);
    view.setUint32(14, 40, true);
    view.setInt32(18, 2, true);
    view.setInt32(22, 1, true);
    view.setUint16(26, 1, true);
    view.setUint16(28, 24, true);
    bmp.set([0, 0, 0, 255, 255, 255], 54);
    const [decoded] = await decodeImage(bmp);
    expect([...decoded!.data]).toEqual([0, 255]);
  });

  test('undecodable bytes are refused with the reason', async () => {
    await expect(decodeImage(new TextEncoder().encode('not an image at all'))).rejects.toThrow(/not a PNG, JPEG/);
    await expect(ocrImage(new TextEncoder().encode('not an image at all'))).rejects.toMatchObject({ code: 'CORRUPT' });
  });

  test('upscale interpolates between pixel centres, edges held', () => {
    const image: Raster = { width: 2, height: 1, channels: 1, data: new Uint8Array([0, 200]) };
    const big = upscale(image, 2);
    expect(big).toMatchObject({ width: 4, height: 2, channels: 1 });
    expect([...big.data]).toEqual([0, 50, 150, 200, 0, 50, 150, 200]);
    const rgb = upscale({ width: 1, height: 1, channels: 3, data: new Uint8Array([10, 20, 30]) }, 2);
    expect([...rgb.data]).toEqual([10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30]);
  });

  test('downscale averages boxes', () => {
    const small = downscale({ width: 4, height: 2, channels: 1, data: new Uint8Array([0, 255, 100, 100, 255, 0, 100, 100]) }, 2);
    expect([...small.data]).toEqual([128, 100]);
  });
});

describe('orientation', () => {
  test('finds skew and vertical lines from projection profiles', () => {
    const page = stripes(600, 400);
    expect(estimateTextDirection(page)).toMatchObject({ skew: 0, vertical: false });
    expect(estimateTextDirection(rotateQuarter(page, 1)).vertical).toBe(true);
    const tilted = estimateTextDirection(rotateByAngle(page, 7));
    expect(tilted.vertical).toBe(false);
    expect(Math.abs(tilted.skew - 7)).toBeLessThanOrEqual(0.3);
    expect(estimateTextDirection({ width: 50, height: 50, channels: 1, data: new Uint8Array(2500).fill(255) }).ink).toBe(0);
  });
});

describe('tsv and layout', () => {
  const tsv = [
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
    '1\t1\t0\t0\t0\t0\t0\t0\t1000\t800\t-1\t',
    '5\t1\t1\t1\t1\t1\t100\t50\t200\t40\t95\tOverview',
    '5\t1\t2\t1\t1\t1\t100\t150\t80\t20\t90\tAn',
    '5\t1\t2\t1\t1\t2\t190\t150\t120\t20\t90\texam-',
    '5\t1\t2\t1\t2\t1\t100\t175\t90\t20\t90\tple',
    '5\t1\t2\t1\t2\t2\t200\t175\t90\t20\t80\ttext.',
    '5\t1\t3\t1\t1\t1\t100\t220\t10\t20\t90\t•',
    '5\t1\t3\t1\t1\t2\t120\t220\t60\t20\t90\titem',
    ...[0, 1, 2].flatMap((r) => [
      `5\t1\t4\t1\t${r + 1}\t1\t100\t${300 + r * 30}\t60\t20\t91\tname${r}`,
      `5\t1\t4\t1\t${r + 1}\t2\t400\t${300 + r * 30}\t30\t20\t92\t${r}`,
      `5\t1\t4\t1\t${r + 1}\t3\t700\t${300 + r * 30}\t50\t20\t93\tx${r}`,
    ]),
    '5\t1\t5\t1\t1\t1\t100\t500\t10\t20\t-1\t ',
  ].join('\n');

  test('parses words into paragraphs and lines, hyphenation repaired, CJK joined without spaces', () => {
    const page = parseTsv(tsv);
    expect(page).toMatchObject({ width: 1000, height: 800 });
    expect(page.blocks.map((b) => b.text)).toEqual(['Overview', 'An example text.', '• item', 'name0 0 x0 name1 1 x1 name2 2 x2']);
    expect(page.blocks[1]!.lines[0]!.size).toBe(20);
    expect(joinWords(['中文', '识别', 'OCR', '结果'])).toBe('中文识别 OCR 结果');
    expect(joinWords(['中文', '，', '识别'])).toBe('中文，识别');
    expect(joinWords(['한국어', '문서를', '읽는다'])).toBe('한국어 문서를 읽는다');
    expect(joinLines(['第一行', '第二行'])).toBe('第一行第二行');
    expect(joinLines(['Ballots Incomplete/', 'Terminated'])).toBe('Ballots Incomplete/Terminated');
    expect(joinLines(['either A /', 'B'])).toBe('either A / B');
  });

  test('elements: heading by size, list item, aligned columns as a table, boxes scaled', () => {
    const parsed = parseTsv(tsv);
    const page: OcrPage = { ...parsed, angle: 0, engine: 'tesseract-cli', lang: 'eng', sourceWidth: 1000, sourceHeight: 800 };
    const elements = ocrPageToElements(page, 3, 0.5);
    expect(elements.map((e) => e.kind)).toEqual(['heading', 'paragraph', 'list-item', 'table']);
    expect(elements[0]).toMatchObject({ level: 1, text: 'Overview', page: 3, bbox: { x0: 50, y0: 25, x1: 150, y1: 45 } });
    expect(elements[2]).toMatchObject({ text: 'item', ordered: false });
    expect(elements[3]!.table!.rows.map((r) => r.map((c) => c.text))).toEqual([['name0', '0', 'x0'], ['name1', '1', 'x1'], ['name2', '2', 'x2']]);
  });

  test('two text columns side by side are not a table', () => {
    const rows = [0, 1, 2, 3].flatMap((r) =>
      ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'the', 'lazy', 'dog'].map((w, i) => `5\t1\t1\t1\t${r + 1}\t${i + 1}\t${i < 5 ? 50 + i * 60 : 500 + (i - 5) * 60}\t${100 + r * 30}\t50\t20\t90\t${w}`),
    );
    const parsed = parseTsv(['1\t1\t0\t0\t0\t0\t0\t0\t1000\t800\t-1\t', ...rows].join('\n'));
    const page: OcrPage = { ...parsed, angle: 0, engine: 'tesseract.js', lang: 'eng', sourceWidth: 1000, sourceHeight: 800 };
    expect(ocrPageToElements(page, 1, 1).map((e) => e.kind)).toEqual(['paragraph']);
  });

  test('boxes map back through a quarter turn', () => {
    const page = { angle: 90, width: 200, height: 100, sourceWidth: 100, sourceHeight: 200 } as OcrPage;
    // Upright (after 90 clockwise) top-left corner region comes from the source's bottom-left.
    expect(ocrBoxToSource({ x0: 0, y0: 0, x1: 10, y1: 20 }, page)).toEqual({ x0: 0, y0: 190, x1: 20, y1: 200 });
  });
});

describe('availability', () => {
  test('unknown languages are refused with what to install', async () => {
    const none = ocrAvailable('zzz');
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.reason).toContain('@tesseract.js-data/zzz');
    expect(ocrAvailable('../etc').ok).toBe(false);
    await expect(ocrImage(pngOf(stripes(60, 60)), { lang: 'zzz' })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });

  test('tesseract.js has English and Chinese from npm', () => {
    expect(ocrAvailable('eng+chi_sim', 'tesseract.js')).toEqual({ ok: true, engine: 'tesseract.js' });
  });
});

const engines = (['tesseract.js', 'cli'] as const).filter((e) => e === 'tesseract.js' || cliLanguages()?.has('eng'));
const text = (page: OcrPage): string => page.blocks.map((b) => b.text).join('\n');

describe.skipIf(!hasShared)('corpus images', () => {
  test.each(engines)('%s reads the WebP page: token F1 >= 0.9 against docling ground truth', async (engine) => {
    const page = await ocrImage(readFileSync(corpus('images/webp-test.webp')), { lang: 'eng', engine });
    expect(page.engine).toBe(engine === 'cli' ? 'tesseract-cli' : 'tesseract.js');
    expect(tokenF1(text(page), readFileSync(corpus('images/webp-test.webp.expected.md'), 'utf8')).f1).toBeGreaterThanOrEqual(0.9);
  }, 60_000);

  test('a scan skewed by 10 degrees is straightened and read (tika expectation)', async () => {
    const page = await ocrImage(readFileSync(corpus('images/testRotated+10.png')), { lang: 'eng' });
    expect(Math.abs(page.angle + 10)).toBeLessThanOrEqual(1);
    expect(text(page)).toContain('Its had resolving otherwise she contented therefore');
    expect(page.confidence).toBeGreaterThan(85);
  }, 60_000);

  test('a page turned 90 degrees is turned back and reads as well as upright', async () => {
    const [upright] = await decodeImage(readFileSync(corpus('images/table-multi-row-column-cells.png')));
    const turned = pngOf(rotateQuarter(upright!, 3));
    const page = await ocrImage(turned, { lang: 'eng' });
    expect(page.angle).toBe(90);
    const expected = 'Blind 34.5%, n=1 1199 sec, n=1 Low Vision 98.3% n=2 1716 sec, n=3 Dexterity 98.3%, n=4 1672.1 sec, n=4 Mobility 95.4%, n=3 1416 sec, n=3';
    expect(tokenF1(text(page), expected).recall).toBeGreaterThanOrEqual(0.9);
  }, 90_000);

  test('Simplified Chinese photo is read with chi_sim', async () => {
    const page = await ocrImage(readFileSync(corpus('images/chi_sim_image.jpeg')), { lang: 'chi_sim' });
    // No ground truth in the corpus: two phrases that both engines read identically, and no spaces inside Chinese.
    expect(text(page)).toContain('适用人群');
    expect(text(page)).toContain('肌肤');
    expect(text(page)).not.toMatch(/[\u4e00-\u9fff] [\u4e00-\u9fff]/);
  }, 60_000);
});

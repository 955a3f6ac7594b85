import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import type { Element } from '../../src/document/types.js';
import { parse } from '../../src/index.js';
import { corpus, hasShared } from '../helpers.js';

/** A minimal DOCX: one paragraph, then one inline picture (word/media/<name>) with the given alt text. */
function docxWithPicture(picture: Uint8Array, name: string, alt: string): Uint8Array {
  const drawing =
    '<w:drawing><wp:inline><wp:docPr id="1" name="Picture 1"' + (alt ? ` descr="${alt}"` : '') + '/>' +
    '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:blipFill>' +
    '<a:blip r:embed="rIdPic"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>';
  const document =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ' +
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
    'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>' +
    '<w:p><w:r><w:t>The figure below.</w:t></w:r></w:p>' +
    `<w:p><w:r>${drawing}</w:r></w:p>` +
    '</w:body></w:document>';
  const rels =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    `<Relationship Id="rIdPic" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/${name}"/>` +
    '</Relationships>';
  const packageRels =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
    '</Relationships>';
  const contentTypes =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
    '</Types>';
  return zipSync({
    '[Content_Types].xml': strToU8(contentTypes),
    '_rels/.rels': strToU8(packageRels),
    'word/document.xml': strToU8(document),
    'word/_rels/document.xml.rels': strToU8(rels),
    [`word/media/${name}`]: picture,
  });
}

function images(elements: readonly Element[]): Element[] {
  return elements.filter((el) => el.kind === 'image');
}

/** The first bytes of an EMF record stream: a picture type OCR cannot read. */
const EMF = new Uint8Array([1, 0, 0, 0, 108, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0x45, 0x4d, 0x46]);

describe('embedded pictures without OCR-readable content', () => {
  test("an EMF picture keeps its alt text and is counted, not OCR'd, with ocr 'on'", async () => {
    const doc = await parse(docxWithPicture(EMF, 'image1.emf', 'Org chart'), { name: 'emf.docx', ocr: 'on' });
    const [image] = images(doc.elements);
    expect(image?.alt).toBe('Org chart');
    expect(image?.ocrText).toBeUndefined();
    expect(doc.warnings.join('\n')).toMatch(/not OCR'd/);
  });

  test('a picture without alt text that OCR cannot read is dropped and counted as before', async () => {
    const doc = await parse(docxWithPicture(EMF, 'image1.emf', ''), { name: 'emf.docx', ocr: 'on' });
    expect(images(doc.elements)).toHaveLength(0);
    expect(doc.warnings.join('\n')).toMatch(/1 image\(s\) without alt text were skipped/);
  });

  test("the default (ocr 'auto') neither reads the picture nor warns about OCR", async () => {
    const doc = await parse(docxWithPicture(EMF, 'image1.emf', 'Org chart'), { name: 'emf.docx' });
    expect(images(doc.elements)[0]?.alt).toBe('Org chart');
    expect(doc.warnings.join('\n')).not.toMatch(/OCR/);
  });
});

describe.skipIf(!hasShared)('OCR of embedded pictures (corpus images)', () => {
  test("a DOCX built around images/webp-test.webp gets the picture's words with ocr 'on' only", async () => {
    const picture = new Uint8Array(readFileSync(corpus('images', 'webp-test.webp')));
    const bytes = docxWithPicture(picture, 'image1.webp', '');
    const plain = await parse(bytes, { name: 'webp.docx' });
    expect(images(plain.elements)).toHaveLength(0);
    const ocr = await parse(bytes, { name: 'webp.docx', ocr: 'on' });
    const [image] = images(ocr.elements);
    // docling's ground truth: "Docling bundles PDF document conversion to JSON and Markdown ..."
    expect(image?.ocrText).toMatch(/Docling bundles PDF document conversion/);
    expect(ocr.canonical).toContain('Docling bundles');
  }, 60_000);

  test.each([
    ['docx', 'ocr_test_zh.docx'],
    ['pptx', 'ocr_test_zh.pptx'],
  ])('%s/%s: the embedded JPEG is OCR\'d into ocrText beside its alt text', async (folder, file) => {
    const path = corpus(folder, file);
    const plain = await parse(path);
    expect(images(plain.elements).map((el) => [el.alt, el.ocrText])).toEqual([['ocr_test', undefined]]);
    const ocr = await parse(path, { ocr: 'on' });
    const [image] = images(ocr.elements);
    expect(image?.alt).toBe('ocr_test');
    // MANIFEST: the JPEG shows a horizontal text box '横向文本框' and 'English text'.
    expect(image?.ocrText).toContain('横向文本框');
    expect(image?.ocrText).toContain('English text');
  }, 60_000);

  test('epub/calibre-demo.epub: the img src is resolved against the chapter and OCR\'d', async () => {
    const path = corpus('epub', 'calibre-demo.epub');
    const alt = '165 Inspirational Quotes To Keep You Motivated In Life';
    const plain = await parse(path);
    expect(images(plain.elements).find((el) => el.alt === alt)?.ocrText).toBeUndefined();
    const ocr = await parse(path, { ocr: 'on' });
    const image = images(ocr.elements).find((el) => el.alt === alt);
    expect(image?.ocrText).toMatch(/Be the change that you wish to see in the world/);
  }, 60_000);
});

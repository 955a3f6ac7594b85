import type { ElementDraft } from '../document/types.js';
import { DEFAULT_OCR_LANG, ocrAvailable, ocrImage, ocrPageToElements } from '../ocr/index.js';
import { imageKind } from '../ocr/raster.js';
import type { ParseOptions } from './types.js';

/**
 * OCR of pictures embedded in a package (DOCX, PPTX, EPUB, ODT, ODP). Only with `ocr: 'on'`: each
 * picture costs 2-4 s of OCR (docs/ocr.md), so 'auto' and 'off' keep the alt text alone. Pictures
 * OCR cannot read (EMF, WMF, SVG, GIF) are skipped and counted; a picture whose OCR fails becomes a
 * warning, never a parse failure.
 */

export interface EmbeddedImage {
  element: ElementDraft;
  /** Package path of the picture, also the cache key: a logo repeated on every slide is OCR'd once. */
  path: string;
  /** The picture's bytes, or undefined when the part is missing. */
  read: () => Uint8Array | undefined;
}

/** Sets `ocrText` on the images whose pictures OCR reads. Returns without work unless `options.ocr === 'on'`. */
export async function ocrEmbeddedImages(images: readonly EmbeddedImage[], options: ParseOptions, warnings: string[]): Promise<void> {
  if (options.ocr !== 'on' || images.length === 0) return;
  const lang = options.ocrLang ?? DEFAULT_OCR_LANG;
  const available = ocrAvailable(lang);
  if (!available.ok) {
    warnings.push(`${images.length} embedded picture(s) were not OCR'd: ${available.reason}`);
    return;
  }
  const texts = new Map<string, string | undefined>();
  let unsupported = 0;
  for (const image of images) {
    if (!texts.has(image.path)) texts.set(image.path, await recognize(image, lang, warnings, () => unsupported++));
    const text = texts.get(image.path);
    if (text) image.element.ocrText = text;
  }
  if (unsupported > 0) warnings.push(`${unsupported} embedded picture(s) in a format OCR cannot read (EMF, WMF, SVG, GIF) were not OCR'd`);
}

/** Whether OCR decodes the picture's format (PNG, JPEG, TIFF, BMP, WebP; not GIF or vector formats). */
export function ocrCanRead(bytes: Uint8Array): boolean {
  const kind = imageKind(bytes);
  return kind !== undefined && kind !== 'gif';
}

async function recognize(image: EmbeddedImage, lang: string, warnings: string[], countUnsupported: () => void): Promise<string | undefined> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = image.read();
  } catch (error) {
    warnings.push(`embedded picture '${image.path}' could not be read: ${(error as Error).message}`);
    return undefined;
  }
  if (!bytes) {
    warnings.push(`embedded picture '${image.path}' is missing from the package`);
    return undefined;
  }
  if (!ocrCanRead(bytes)) {
    countUnsupported();
    return undefined;
  }
  try {
    const page = await ocrImage(bytes, { lang });
    const text = ocrPageToElements(page, 1, 1)
      .map((el) => el.text.trim())
      .filter(Boolean)
      .join('\n');
    return text || undefined;
  } catch (error) {
    warnings.push(`OCR of embedded picture '${image.path}' failed: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The image elements to OCR among `images`: those whose element made it into the document (a picture
 * in a note, a title shape or page furniture is not shown, so its OCR would be wasted).
 */
export function shownImages(images: readonly EmbeddedImage[], elements: readonly ElementDraft[]): EmbeddedImage[] {
  const shown = new Set(elements);
  return images.filter((image) => shown.has(image.element));
}

/** After OCR: the elements without the pictures that have neither alt text nor OCR text, and how many were dropped. */
export function dropUnreadPictures(elements: readonly ElementDraft[]): { kept: ElementDraft[]; dropped: number } {
  const kept = elements.filter((el) => el.kind !== 'image' || el.alt || el.ocrText);
  return { kept, dropped: elements.length - kept.length };
}

import { posix } from 'node:path';
import type { ZipArchive } from '../archive/zip.js';
import type { ElementDraft } from '../document/types.js';
import { ocrCanRead, type EmbeddedImage } from './embedded-images.js';

/**
 * Pictures of ODF frames (ODT, ODP) for OCR. A `draw:frame` may hold several `draw:image`s, the
 * same picture in alternative formats, best first (LibreOffice writes an SVG and its PNG
 * fallback); OCR takes the first one it can decode. `xlink:href` is relative to the package root.
 */

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const LEADING_DOT_SLASH = /^(?:\.\/)+/;

/** The package path of a `draw:image` href, or undefined when it points outside the package. */
export function odfPicturePath(href: string): string | undefined {
  if (!href || URL_SCHEME.test(href) || href.startsWith('/') || href.startsWith('#')) return undefined;
  let decoded = href;
  try {
    decoded = decodeURIComponent(href);
  } catch {
    // A stray '%' is a literal character in the name.
  }
  const path = posix.normalize(decoded.replace(LEADING_DOT_SLASH, ''));
  return path.startsWith('../') || path === '..' ? undefined : path;
}

/** The frame's picture to OCR, or undefined when none of its hrefs points into the package. */
export function odfPicture(zip: ZipArchive, element: ElementDraft, hrefs: readonly string[]): EmbeddedImage | undefined {
  const paths = hrefs.map(odfPicturePath).filter((path): path is string => path !== undefined);
  if (paths.length === 0) return undefined;
  return { element, path: paths.join('|'), read: () => firstDecodable(zip, paths) };
}

/**
 * The first alternative OCR can decode; else the first one present, so the caller reports its
 * format; undefined when none is in the package (reported as missing).
 */
function firstDecodable(zip: ZipArchive, paths: readonly string[]): Uint8Array | undefined {
  let first: Uint8Array | undefined;
  for (const path of paths) {
    if (!zip.has(path)) continue;
    const bytes = zip.read(path);
    if (ocrCanRead(bytes)) return bytes;
    first ??= bytes;
  }
  return first;
}

import type { ZipArchive } from '../../archive/zip.js';
import { GroundworkError } from '../../errors.js';
import { parseXmlTree, type XmlNode } from '../xml.js';
import { isMathRoot, mathmlToLatex } from './mathml.js';

/**
 * An ODF formula object: `draw:object xlink:href="./Object 1"` names a sub-document whose
 * `content.xml` is MathML (LibreOffice Math). Returns its LaTeX, or undefined when the object is
 * not a formula (a chart, a spreadsheet) or cannot be read; the caller then treats it as before.
 */
export function odfFormula(zip: ZipArchive, href: string | undefined): string | undefined {
  if (!href || /^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  const dir = href.replace(/^\.\//, '').replace(/\/+$/, '');
  if (!dir || dir.includes('..')) return undefined;
  let xml: string | undefined;
  try {
    xml = zip.readTextIfPresent(`${dir}/content.xml`);
  } catch (error) {
    // A size or ratio limit is the file's verdict, not a formula's: let it stop the parse.
    if (error instanceof GroundworkError && error.code === 'LIMIT_EXCEEDED') throw error;
    return undefined;
  }
  if (!xml || !/<(?:[\w-]+:)?math[\s>]/.test(xml.slice(0, 4096))) return undefined;
  let root: XmlNode;
  try {
    root = parseXmlTree(xml);
  } catch {
    return undefined;
  }
  const math = isMathRoot(root) ? root : root.children.find(isMathRoot);
  if (!math) return undefined;
  const latex = mathmlToLatex(math);
  return latex || undefined;
}

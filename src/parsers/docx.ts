import { ZipArchive } from '../archive/zip.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { DocxWalker, type DocxContext } from './docx-body.js';
import { DocxComments } from './docx-comments.js';
import { DocxNumbering } from './docx-numbering.js';
import { readOfficeProperties } from './ooxml-properties.js';
import { readRelationships, type Relationship } from './ooxml-package.js';
import { parseStyles } from './docx-styles.js';
import { ocrEmbeddedImages, type EmbeddedImage } from './embedded-images.js';
import { chartElements, readChart } from './ooxml-chart.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';

/**
 * DOCX: the WordprocessingML parts read directly (ZipArchive + saxes), 5-20x faster than mammoth
 * (research/dependencies.md, section 3). The main part is found from the package relationships,
 * styles and numbering are resolved first, notes and comments (threaded by commentsExtended.xml)
 * are read before the body so the body walker can place them after the paragraphs that cite them,
 * charts (`c:chart r:id` -> word/charts/chartN.xml) become a caption and a table of their cached
 * values, tracked changes give the final text (or both sides marked, `revisions: 'show'`), and
 * headers/footers become page furniture (headers first, footers last). With `ocr: 'on'` the body's pictures (a:blip r:embed,
 * v:imagedata r:id -> word/media/...) are OCR'd into the image elements' `ocrText`, pictures without
 * alt text included; 'auto' keeps alt text only (OCR costs seconds per picture).
 */

const MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const REL_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';

export const docxParser: ParserDefinition = {
  formats: ['docx'],
  version: '3',
  textual: false,
  parse(input: ParseInput, options: ParseOptions = {}): DocumentDraft | Promise<DocumentDraft> {
    const file = input.name;
    const zip = ZipArchive.open(input.bytes, file !== undefined ? { file } : {});
    const mainPart = findMainPart(zip);
    if (!mainPart || !zip.has(mainPart)) {
      throw new GroundworkError('CORRUPT', 'is not a Word document: the package has no main document part (word/document.xml)', file !== undefined ? { file } : {});
    }
    const rels = readRelationships(zip, mainPart);
    const partOf = (type: string): string | undefined => [...rels.values()].find((r) => r.type === REL_TYPE + type && !r.external)?.target;
    const links = new Map<string, string>();
    for (const [id, rel] of rels) if (rel.type === REL_TYPE + 'hyperlink') links.set(id, rel.target);

    const ctx: DocxContext = {
      styles: parseStyles(readPart(zip, partOf('styles'))),
      numbering: new DocxNumbering(readPart(zip, partOf('numbering'))),
      links,
      footnotes: new Map(),
      endnotes: new Map(),
      revisions: options.revisions ?? 'final',
      hyperlinks: [],
      counters: { footnotes: 0, endnotes: 0, imagesWithoutAlt: 0 },
    };
    for (const [type, map] of [['footnotes', ctx.footnotes], ['endnotes', ctx.endnotes]] as const) {
      const xml = readPart(zip, partOf(type));
      if (xml) for (const note of new DocxWalker(ctx).walk(xml).notes) map.set(note.id, note.text);
    }
    const warnings: string[] = [];
    const headers = furniture(zip, ctx, rels, 'header');
    const footers = furniture(zip, ctx, rels, 'footer');
    const commentsXml = readPart(zip, partOf('comments'));
    if (commentsXml) {
      const extended = [...rels.values()].find((r) => r.type.endsWith('/commentsExtended') && !r.external)?.target;
      ctx.comments = new DocxComments(new DocxWalker(ctx).walk(commentsXml).notes, readPart(zip, extended));
    }
    ctx.chart = (id) => bodyChart(zip, rels, id, warnings);
    const imageRels = options.ocr === 'on' ? new Map<ElementDraft, string>() : undefined;
    if (imageRels) ctx.imageRels = imageRels;
    const body = new DocxWalker(ctx).walk(zip.readText(mainPart)).elements;
    // Comments no reference placed (an anchor lost in editing) are kept, at the end.
    if (ctx.comments) body.push(...ctx.comments.unplaced());
    const { metadata, title, language, pageCount } = readOfficeProperties(zip);
    if (ctx.hyperlinks.length > 0) metadata.hyperlinks = ctx.hyperlinks;
    const firstHeading = body.find((el) => el.kind === 'heading')?.text;
    const docTitle = title ?? firstHeading;
    const draft = (elements: ElementDraft[]): DocumentDraft => {
      if (ctx.counters.imagesWithoutAlt > 0) warnings.push(`${ctx.counters.imagesWithoutAlt} image(s) without alt text were skipped`);
      return {
        format: 'docx',
        mime: MIME,
        ...(docTitle && { title: docTitle }),
        ...(language && { language }),
        ...(pageCount && { pageCount }),
        metadata,
        elements: [...headers, ...elements, ...footers],
        warnings,
      };
    };
    if (!imageRels || imageRels.size === 0) return draft(body);
    return ocrBodyImages(zip, rels, imageRels, options, warnings).then(() => {
      // Pictures without alt text stay only when OCR found text in them.
      const kept = body.filter((el) => el.kind !== 'image' || el.alt || el.ocrText);
      ctx.counters.imagesWithoutAlt += body.length - kept.length;
      return draft(kept);
    });
  },
};

function ocrBodyImages(zip: ZipArchive, rels: Map<string, Relationship>, imageRels: Map<ElementDraft, string>, options: ParseOptions, warnings: string[]): Promise<void> {
  const images: EmbeddedImage[] = [];
  for (const [element, id] of imageRels) {
    const rel = rels.get(id);
    if (!rel || rel.external) continue;
    images.push({ element, path: rel.target, read: () => (zip.has(rel.target) ? zip.read(rel.target) : undefined) });
  }
  return ocrEmbeddedImages(images, options, warnings);
}

/** A chart drawn in the body: its caption and table, or nothing (with a warning) when its part cannot be read. */
function bodyChart(zip: ZipArchive, rels: Map<string, Relationship>, id: string, warnings: string[]): ElementDraft[] {
  const rel = rels.get(id);
  const xml = rel && !rel.external ? zip.readTextIfPresent(rel.target) : undefined;
  if (!xml) {
    warnings.push(`a chart's part (relationship ${id}) is missing from the package; its alt text is kept instead`);
    return [];
  }
  try {
    return chartElements(readChart(xml));
  } catch (error) {
    warnings.push(`chart '${rel!.target}' could not be read (${(error as Error).message}); its alt text is kept instead`);
    return [];
  }
}

/** The main document part from `_rels/.rels` (it is not always `word/document.xml`). */
function findMainPart(zip: ZipArchive): string | undefined {
  const rels = readRelationships(zip, '');
  for (const rel of rels.values()) if (rel.type.endsWith('/officeDocument') && !rel.external) return rel.target;
  return zip.has('word/document.xml') ? 'word/document.xml' : undefined;
}


function readPart(zip: ZipArchive, part: string | undefined): string | undefined {
  return part ? zip.readTextIfPresent(part) : undefined;
}

/** Headers or footers as page furniture: each distinct text once (first-page, even and default variants often repeat). */
function furniture(zip: ZipArchive, ctx: DocxContext, rels: Map<string, Relationship>, type: 'header' | 'footer'): ElementDraft[] {
  const seen = new Set<string>();
  const out: ElementDraft[] = [];
  for (const rel of rels.values()) {
    if (rel.type !== REL_TYPE + type || rel.external) continue;
    const xml = zip.readTextIfPresent(rel.target);
    if (!xml) continue;
    for (const el of new DocxWalker(ctx).walk(xml).elements) {
      const text = el.kind === 'table' && el.table ? el.table.rows.map((row) => row.map((c) => c.text).filter(Boolean).join(' | ')).join('\n') : el.text.trim();
      if (!text || seen.has(text)) continue;
      seen.add(text);
      out.push({ kind: 'page-furniture', text });
    }
  }
  return out;
}

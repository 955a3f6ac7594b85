import { z } from 'zod';
import { GroundworkError } from '../../errors.js';
import { inSection } from '../../retrieval/filter.js';
import { RetrievalOptionsSchema } from '../../retrieval/options.js';
import { resolveSelector, type ResolvedSection } from '../../retrieval/resolve.js';
import type { StoredDocument } from '../../store/types.js';
import { citationLine, citationOf } from '../citations.js';
import { byStart, documentOf, spanText } from '../documents.js';
import { CitationSchema } from '../schemas.js';
import { outlineOf } from './get-outline.js';
import { defineTool } from './tool.js';

/** Without a document named, a section is looked for in every document up to this many. */
export const MAX_SECTION_DOCUMENTS = 100;

export const ReadSectionInput = z.object({
  section: RetrievalOptionsSchema.shape.section.unwrap()
    .describe('the section: its numbering (3.2, 第三章第二节, Appendix B), its heading ("3.2 前提条件", "前提条件") or heading texts joined by > ("第三章 合同履行 > 3.2")'),
  document: z.string().trim().min(1).optional()
    .describe(`the document (id, id prefix or path); may be left out when the library has at most ${MAX_SECTION_DOCUMENTS} documents and only one has the section`),
  maxChars: z.number().int().min(100).max(1_000_000).default(100_000)
    .describe('return at most this many characters of the section\'s text (truncated says when it was cut)'),
}).strict();

export const ReadSectionOutput = z.object({
  docId: z.string(),
  file: z.string().nullable(),
  title: z.string().describe('the section heading'),
  headingPath: z.array(z.string()),
  label: z.string().optional(),
  pageStart: z.number().int().nullable(),
  pageEnd: z.number().int().nullable(),
  text: z.string().describe('the whole section in document order, from its heading to the next heading of its level or above (subsections included)'),
  blockIds: z.array(z.string()).describe('the blocks the section spans, in document order'),
  truncated: z.boolean(),
  citation: CitationSchema,
});

export const readSectionTool = defineTool({
  name: 'read_section',
  title: 'Read a section',
  readOnly: true,
  idempotent: true,
  description: () => 'Read one section of a document whole, in order, with its subsections: by numbering ("3.2", "第三章第二节") or heading ("3.2 前提条件"). Use get_outline to see the headings first; the text is what a search hit inside the section would cite.',
  input: ReadSectionInput,
  output: ReadSectionOutput,
  async run(args, ctx) {
    const docs = await candidateDocuments(ctx.library, args.document);
    const outlines = await Promise.all(docs.map((d) => outlineOf(ctx, d.id)));
    const matches = resolveSelector(args.section, outlines);
    const where = args.document !== undefined ? `document ${args.document}` : `the ${docs.length} document${docs.length === 1 ? '' : 's'}`;
    if (matches.length === 0) throw new GroundworkError('NOT_FOUND', `no heading matches ${JSON.stringify(args.section)} in ${where} (get_outline shows the headings)`);
    if (matches.length > 1) {
      const byId = new Map(docs.map((d) => [d.id, d]));
      const list = matches.slice(0, 10).map((m) => `${byId.get(m.docId)?.paths[0] ?? m.docId}: ${m.headingPath.join(' > ')}`).join('; ');
      throw new GroundworkError('INVALID_OPTIONS', `${matches.length} sections match ${JSON.stringify(args.section)} in ${where}: ${list}${matches.length > 10 ? '; ...' : ''}. Name the document, or more of the heading path (parts joined by " > ")`);
    }
    const section = matches[0]!;
    const doc = docs.find((d) => d.id === section.docId)!;
    const { text, blocks, truncated } = await sectionText(ctx.library, section, args.maxChars);
    const pages = blocks.flatMap((b) => [b.pageStart, b.pageEnd]).filter((p): p is number => p !== null);
    const file = doc.paths[0] ?? null;
    const pageStart = pages.length > 0 ? Math.min(...pages) : null;
    const pageEnd = pages.length > 0 ? Math.max(...pages) : null;
    const citation = citationOf({ docId: doc.id, path: file, headingPath: section.headingPath, pageStart, pageEnd }, blocks[0]?.id ?? '', doc.title);
    const structured = {
      docId: doc.id, file, title: section.title, headingPath: section.headingPath, ...(section.label !== undefined && { label: section.label }),
      pageStart, pageEnd, text, blockIds: blocks.map((b) => b.id), truncated, citation,
    };
    const note = truncated ? `\n\n[cut at ${args.maxChars} characters: raise maxChars, or read on with get_block]` : '';
    return { structured, text: `${citationLine(citation)}\n\n${text}${note}\n` };
  },
});

async function candidateDocuments(library: Parameters<typeof documentOf>[0], ref: string | undefined): Promise<StoredDocument[]> {
  if (ref !== undefined) return [await documentOf(library, ref)];
  const all = await library.documents();
  if (all.length > MAX_SECTION_DOCUMENTS) {
    throw new GroundworkError('INVALID_OPTIONS', `the library has ${all.length} documents: name the document to read a section of (list_documents, or a search hit's docId)`);
  }
  return all;
}

/** The section's text from its heading to its end, from the blocks that span it. */
async function sectionText(library: Parameters<typeof documentOf>[0], section: ResolvedSection, maxChars: number) {
  const scope = section.start !== undefined && section.end !== undefined
    ? { docId: section.docId, headingPath: section.headingPath, start: section.start, end: section.end }
    : { docId: section.docId, headingPath: section.headingPath };
  const blocks = byStart((await library.blocks(section.docId)).filter((b) => inSection(b, scope)));
  const full = spanText(blocks, section.start ?? 0, section.end ?? Number.POSITIVE_INFINITY);
  const truncated = full.length > maxChars;
  // Never half a surrogate pair.
  const cut = truncated && /[\uD800-\uDBFF]/.test(full[maxChars - 1]!) ? maxChars - 1 : maxChars;
  return { text: truncated ? full.slice(0, cut) : full, blocks, truncated };
}

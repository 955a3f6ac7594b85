import { z } from 'zod';
import { outlineFromBlocks, type Outline, type OutlineNode } from '../../retrieval/outline.js';
import { documentUri } from '../citations.js';
import { documentOf } from '../documents.js';
import type { ToolContext } from '../context.js';
import { defineTool } from './tool.js';

export const GetOutlineInput = z.object({
  document: z.string().trim().min(1).describe('the document: id, id prefix or path (list_documents shows them)'),
  maxDepth: z.number().int().min(1).max(20).optional().describe('only headings this deep (1 = the top level)'),
}).strict();

const SectionNode = z.object({
  title: z.string().describe('the heading text'),
  depth: z.number().int().describe('1 for top-level headings, 2 below them, ...'),
  headingPath: z.array(z.string()).describe('heading texts from the top: read_section takes them joined by " > "'),
  label: z.string().optional().describe('the numbering as written (3.2, 第二章, （二）)'),
  page: z.number().int().optional().describe('page of the heading or of the section\'s first block'),
  firstBlock: z.number().int().optional().describe('ordinal of the section\'s first block'),
  lastBlock: z.number().int().optional(),
});

export const GetOutlineOutput = z.object({
  docId: z.string(),
  title: z.string().nullable(),
  file: z.string().nullable(),
  uri: z.string(),
  sections: z.array(SectionNode).describe('every heading, parents before children, in document order'),
});
type Section = z.output<typeof SectionNode>;

export const getOutlineTool = defineTool({
  name: 'get_outline',
  title: 'Show a document\'s outline',
  readOnly: true,
  idempotent: true,
  description: () => 'The heading tree of one document (chapters, sections, clauses with their numbering and pages): to see how a contract or manual is organised before reading a section with read_section.',
  input: GetOutlineInput,
  output: GetOutlineOutput,
  async run(args, ctx) {
    const doc = await documentOf(ctx.library, args.document);
    const outline = await outlineOf(ctx, doc.id);
    const sections: Section[] = [];
    const walk = (nodes: readonly OutlineNode[], depth: number) => {
      if (args.maxDepth !== undefined && depth > args.maxDepth) return;
      for (const node of nodes) {
        sections.push(sectionOf(node, depth));
        walk(node.children, depth + 1);
      }
    };
    walk(outline.roots, 1);
    const file = doc.paths[0] ?? null;
    const head = `Outline of ${file ?? doc.id}${doc.title ? ` (${doc.title})` : ''}: ${sections.length} heading${sections.length === 1 ? '' : 's'}.`;
    const lines = sections.map((s) => `${'  '.repeat(s.depth - 1)}- ${s.title}${s.page !== undefined ? `  (p. ${s.page})` : ''}`);
    return {
      structured: { docId: doc.id, title: doc.title, file, uri: documentUri(doc.id), sections },
      text: `${[head, ...lines].join('\n')}\n`,
    };
  },
});

/** The document's outline: the fetcher's (cached) when it has one, else rebuilt from its blocks. */
export async function outlineOf(ctx: ToolContext, docId: string): Promise<Outline> {
  return (await ctx.sources.fetcher.outline?.(docId)) ?? outlineFromBlocks(docId, await ctx.library.blocks(docId));
}

function sectionOf(node: OutlineNode, depth: number): Section {
  const s: Section = { title: node.title, depth, headingPath: node.path };
  if (node.numbering) s.label = node.numbering.label;
  if (node.page !== undefined) s.page = node.page;
  if (node.firstOrdinal !== undefined) s.firstBlock = node.firstOrdinal;
  if (node.lastOrdinal !== undefined) s.lastBlock = node.lastOrdinal;
  return s;
}

import { z } from 'zod';
import { compileFilter, RetrievalFilterSchema } from '../../retrieval/filter.js';
import { pageLabel } from '../citations.js';
import { documentOutput } from '../citations.js';
import { DocumentOutputSchema } from '../schemas.js';
import { defineTool } from './tool.js';

const filter = RetrievalFilterSchema.shape;

export const ListDocumentsInput = z.object({
  format: filter.format,
  path: filter.path,
  metadata: filter.metadata,
  limit: z.number().int().min(1).max(1000).default(100).describe('at most this many documents'),
  offset: z.number().int().min(0).default(0).describe('skip this many (documents are listed by path)'),
}).strict();

export const ListDocumentsOutput = z.object({
  documents: z.array(DocumentOutputSchema),
  total: z.number().int().describe('documents that pass the filter, before limit and offset'),
});

export const listDocumentsTool = defineTool({
  name: 'list_documents',
  title: 'List documents',
  readOnly: true,
  idempotent: true,
  description: () => 'List the documents in the library (id, title, format, paths, pages, blocks), optionally of some formats or paths; the ids go into search filters, get_outline and read_section.',
  input: ListDocumentsInput,
  output: ListDocumentsOutput,
  async run(args, ctx) {
    const passes = compileFilter({
      ...(args.format !== undefined && { format: args.format }),
      ...(args.path !== undefined && { path: args.path }),
      ...(args.metadata !== undefined && { metadata: args.metadata }),
    });
    const all = (await ctx.library.documents())
      .filter((d) => passes({ docId: d.id, headingPath: [], pageStart: null, pageEnd: null, start: 0, end: 0 }, d))
      .sort((a, b) => (a.paths[0] ?? '').localeCompare(b.paths[0] ?? '') || a.id.localeCompare(b.id));
    const page = all.slice(args.offset, args.offset + args.limit).map(documentOutput);
    const lines = [`${all.length} document${all.length === 1 ? '' : 's'}${page.length < all.length ? `, ${page.length} shown from ${args.offset + 1}` : ''}.`];
    for (const d of page) {
      const pages = d.pageCount !== null ? pageLabel(1, d.pageCount).replace(/^p\. 1$/, '1 page').replace(/^pp\. 1-(\d+)$/, '$1 pages') : '';
      lines.push(`- ${d.paths[0] ?? '(no path)'}  [${d.id.slice(0, 12)}]  ${d.format}${pages ? `, ${pages}` : ''}, ${d.blocks} blocks${d.title ? `: ${d.title}` : ''}`);
    }
    return { structured: { documents: page, total: all.length }, text: `${lines.join('\n')}\n` };
  },
});

import { z } from 'zod';
import { GroundworkError } from '../../errors.js';
import type { Library } from '../../library/library.js';
import { RetrievalOptionsSchema } from '../../retrieval/options.js';
import type { Block } from '../../store/types.js';
import { blockOutput, citationLine, citationOf } from '../citations.js';
import { documentOf } from '../documents.js';
import { BlockOutputSchema, CitationSchema } from '../schemas.js';
import { defineTool } from './tool.js';

export const GetBlockInput = z.object({
  blockId: z.string().trim().min(1).describe('a block id, as search hits cite it'),
  docId: z.string().trim().min(1).optional().describe('its document (id, id prefix or path): the block must be in it'),
  neighbors: RetrievalOptionsSchema.shape.neighbors.describe('also return this many blocks before and after it'),
}).strict();

export const GetBlockOutput = z.object({
  block: BlockOutputSchema,
  before: z.array(BlockOutputSchema).describe('the blocks before it, in document order'),
  after: z.array(BlockOutputSchema).describe('the blocks after it, in document order'),
  citation: CitationSchema,
});

export const getBlockTool = defineTool({
  name: 'get_block',
  title: 'Read a block',
  readOnly: true,
  idempotent: true,
  description: () => 'Read one block (a chunk of a document) by the id a search hit cites, with its citation, and with `neighbors` the blocks around it (to read on past a passage).',
  input: GetBlockInput,
  output: GetBlockOutput,
  async run(args, ctx) {
    const { block, blocks } = await findBlock(ctx.library, args.blockId, args.docId, args.neighbors);
    const doc = await ctx.library.document(block.docId);
    const before = blocks.filter((b) => b.ordinal < block.ordinal && b.ordinal >= block.ordinal - args.neighbors);
    const after = blocks.filter((b) => b.ordinal > block.ordinal && b.ordinal <= block.ordinal + args.neighbors);
    const citation = citationOf({ ...block, path: doc?.paths[0] ?? null }, block.id, doc?.title ?? null);
    const structured = { block: blockOutput(block), before: before.map(blockOutput), after: after.map(blockOutput), citation };
    const text = [
      `${citationLine(citation)}${args.neighbors > 0 ? ` with ${before.length} block(s) before and ${after.length} after` : ''}`,
      '',
      [...before, block, ...after].map((b) => (b === block || args.neighbors === 0 ? b.text : `[block ${b.id}]\n${b.text}`)).join('\n\n'),
    ].join('\n');
    return { structured, text: `${text}\n` };
  },
});

/**
 * The block (looked up by id in the store) and the blocks around it (by ordinal range). With the
 * document named, the block must be in it.
 */
async function findBlock(library: Library, blockId: string, docRef: string | undefined, neighbors: number): Promise<{ block: Block; blocks: Block[] }> {
  const docId = docRef !== undefined ? (await documentOf(library, docRef)).id : undefined;
  const block = await library.block(blockId);
  if (!block || (docId !== undefined && block.docId !== docId)) {
    throw new GroundworkError('NOT_FOUND', `no block with the id ${JSON.stringify(blockId)}${docRef !== undefined ? ` in document ${docRef}` : ''} (search hits cite block ids)`);
  }
  const blocks = neighbors > 0 ? await library.blockRange(block.docId, Math.max(0, block.ordinal - neighbors), block.ordinal + neighbors) : [block];
  return { block, blocks };
}

import type { Block } from '../store/types.js';

export type ExportFormat = 'jsonl' | 'langchain' | 'llamaindex';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['jsonl', 'langchain', 'llamaindex'];

type ExportedBlock = Block & { path: string | null };

function metadataOf(b: ExportedBlock): Record<string, unknown> {
  return {
    source: b.path,
    docId: b.docId,
    blockId: b.id,
    ordinal: b.ordinal,
    kind: b.kind,
    headingPath: b.headingPath,
    pageStart: b.pageStart,
    pageEnd: b.pageEnd,
    start: b.start,
    end: b.end,
    tokens: b.tokens,
    ...(b.speaker !== null && { speaker: b.speaker }),
    ...(b.time !== null && { time: b.time }),
  };
}

/** One block in the chosen shape: our own block, LangChain's `Document`, or LlamaIndex's `TextNode`. */
export function exportBlock(b: ExportedBlock, format: ExportFormat): Record<string, unknown> {
  switch (format) {
    case 'jsonl':
      return { ...b };
    case 'langchain':
      return { pageContent: b.text, metadata: metadataOf(b), id: b.id };
    case 'llamaindex':
      return {
        id_: b.id,
        embedding: null,
        metadata: metadataOf(b),
        excluded_embed_metadata_keys: [],
        excluded_llm_metadata_keys: [],
        // "1" is NodeRelationship.SOURCE, node_type "4" is ObjectType.DOCUMENT.
        relationships: { '1': { node_id: b.docId, node_type: '4', metadata: {}, hash: null, class_name: 'RelatedNodeInfo' } },
        text: b.text,
        mimetype: 'text/plain',
        start_char_idx: b.start,
        end_char_idx: b.end,
        text_template: '{metadata_str}\n\n{content}',
        metadata_template: '{key}: {value}',
        metadata_seperator: '\n',
        class_name: 'TextNode',
      };
  }
}

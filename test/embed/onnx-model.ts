/**
 * A tiny embedding model the tests build themselves: an ONNX graph written byte by byte (a protobuf
 * encoder of the dozen ModelProto fields it needs), a BERT-style WordPiece `tokenizer.json`, and
 * the config files a Hugging Face model folder has. Nothing is downloaded.
 *
 * The graph is an embedding lookup masked by the attention mask:
 *   last_hidden_state[b, s, :] = table[input_ids[b, s], :] * attention_mask[b, s]
 * so mean pooling gives the mean of the rows of the text's tokens, and `expectedVector` computes
 * what the model must answer without running it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// ---------------------------------------------------------------- protobuf, just enough

type Field = Uint8Array;

function varint(value: number | bigint): number[] {
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n; // int64 two's complement (ONNX dims are never negative here)
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A varint field (wire type 0). */
function int(field: number, value: number | bigint): Field {
  return Uint8Array.from([...varint((field << 3) | 0), ...varint(value)]);
}

/** A length-delimited field (wire type 2): bytes, a string or an embedded message. */
function bytes(field: number, value: Uint8Array | string): Field {
  const body = typeof value === 'string' ? new TextEncoder().encode(value) : value;
  return concat([Uint8Array.from([...varint((field << 3) | 2), ...varint(body.length)]), body]);
}

function message(...fields: Field[]): Uint8Array {
  return concat(fields);
}

// ---------------------------------------------------------------- ONNX messages (onnx.proto3 field numbers)

const FLOAT = 1;
const INT64 = 7;

/** TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian). */
function tensor(name: string, dataType: number, dims: readonly number[], raw: Uint8Array): Uint8Array {
  return message(...dims.map((d) => int(1, d)), int(2, dataType), bytes(8, name), bytes(9, raw));
}

/** ValueInfoProto { name = 1, type = 2: TypeProto { tensor_type = 1: { elem_type = 1, shape = 2 } } }. */
function valueInfo(name: string, elemType: number, dims: readonly (number | string)[]): Uint8Array {
  const shape = message(...dims.map((d) => bytes(1, typeof d === 'number' ? int(1, d) : bytes(2, d))));
  return message(bytes(1, name), bytes(2, bytes(1, message(int(1, elemType), bytes(2, shape)))));
}

/** AttributeProto { name = 1, i = 3, type = 20 } (INT = 2). */
function intAttribute(name: string, value: number): Uint8Array {
  return message(bytes(1, name), int(3, value), int(20, 2));
}

/** NodeProto { input = 1, output = 2, name = 3, op_type = 4, attribute = 5 }. */
function node(op: string, inputs: readonly string[], outputs: readonly string[], attributes: readonly Uint8Array[] = []): Uint8Array {
  return message(...inputs.map((i) => bytes(1, i)), ...outputs.map((o) => bytes(2, o)), bytes(3, `${op}_${outputs[0]}`), bytes(4, op), ...attributes.map((a) => bytes(5, a)));
}

/**
 * The ModelProto bytes: ir_version = 1 (8), opset_import = 8 (opset 13), producer_name = 2,
 * graph = 7 { node = 1, name = 2, initializer = 5, input = 11, output = 12 }.
 */
export function embeddingLookupOnnx(table: Float32Array, vocabSize: number, dimensions: number): Uint8Array {
  if (table.length !== vocabSize * dimensions) throw new Error('table size must be vocabSize x dimensions');
  const tableBytes = new Uint8Array(table.buffer, table.byteOffset, table.byteLength);
  const minusOne = new Uint8Array(new BigInt64Array([-1n]).buffer);
  const graph = message(
    bytes(1, node('Gather', ['embeddings', 'input_ids'], ['gathered'], [intAttribute('axis', 0)])),
    bytes(1, node('Cast', ['attention_mask'], ['mask_float'], [intAttribute('to', FLOAT)])),
    bytes(1, node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_column'])),
    bytes(1, node('Mul', ['gathered', 'mask_column'], ['last_hidden_state'])),
    bytes(2, 'groundwork-test-embedding-lookup'),
    bytes(5, tensor('embeddings', FLOAT, [vocabSize, dimensions], tableBytes)),
    bytes(5, tensor('last_axis', INT64, [1], minusOne)),
    bytes(11, valueInfo('input_ids', INT64, ['batch_size', 'sequence_length'])),
    bytes(11, valueInfo('attention_mask', INT64, ['batch_size', 'sequence_length'])),
    bytes(12, valueInfo('last_hidden_state', FLOAT, ['batch_size', 'sequence_length', dimensions])),
  );
  return message(int(1, 8), bytes(2, 'groundwork-tests'), bytes(7, graph), bytes(8, message(bytes(1, ''), int(2, 13))));
}

// ---------------------------------------------------------------- the model folder

/** Special tokens first, then the words and characters the tests use (each once). */
export const TEST_VOCAB: readonly string[] = [...new Set([
  '[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]',
  ...'the a of and to in is for on with budget review board meeting approved quarterly installation guide steps node tests prerequisites contract payment ranking vectors search'.split(' '),
  ...'##s ##ing ##ed'.split(' '),
  ...'合同前提条件第三章节履约双方签字预付款到账设备验收合格'.split(''),
  ...'.,:;!?-()'.split(''),
])];

/** The row of token `id`: deterministic numbers in [-1, 1) from a hash, so every token differs. */
export function tableRow(id: number, dimensions: number): Float32Array {
  const row = new Float32Array(dimensions);
  const digest = createHash('sha256').update(`row:${id}`).digest();
  for (let d = 0; d < dimensions; d++) row[d] = (digest[d % digest.length]! + 31 * Math.floor(d / digest.length)) % 256 / 128 - 1;
  return row;
}

export interface TestModelOptions {
  dimensions?: number;
  /** `model_max_length` in tokenizer_config.json (tokens, [CLS] and [SEP] included). */
  maxLength?: number;
  /** Write sentence-transformers' `1_Pooling/config.json` and `modules.json` with this pooling. */
  sentenceTransformers?: { pooling: 'mean' | 'cls'; normalize: boolean };
  /** Leave a file out, to test the errors. */
  omit?: readonly ('onnx/model.onnx' | 'tokenizer.json' | 'config.json' | 'tokenizer_config.json')[];
}

export interface TestModel {
  dir: string;
  dimensions: number;
  maxLength: number;
  vocab: readonly string[];
  /** Bytes of onnx/model.onnx. */
  onnxBytes: number;
}

/** Writes a model folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx) in a new temp dir. */
export function writeTestModel(options: TestModelOptions = {}): TestModel {
  const dimensions = options.dimensions ?? 8;
  const maxLength = options.maxLength ?? 32;
  const vocab = TEST_VOCAB;
  const dir = mkdtempSync(join(tmpdir(), 'gw-onnx-'));
  const omit = new Set(options.omit ?? []);
  const write = (name: string, content: string | Uint8Array) => {
    if (omit.has(name as never)) return;
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  };

  const table = new Float32Array(vocab.length * dimensions);
  for (let id = 0; id < vocab.length; id++) table.set(tableRow(id, dimensions), id * dimensions);
  const onnx = embeddingLookupOnnx(table, vocab.length, dimensions);
  write('onnx/model.onnx', onnx);

  write('config.json', JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: dimensions, vocab_size: vocab.length, max_position_embeddings: maxLength }, null, 2));
  write('tokenizer_config.json', JSON.stringify({ tokenizer_class: 'BertTokenizer', model_max_length: maxLength, do_lower_case: true, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' }, null, 2));
  write('tokenizer.json', JSON.stringify(bertTokenizerJson(vocab)));
  if (options.sentenceTransformers) {
    const { pooling, normalize } = options.sentenceTransformers;
    write('1_Pooling/config.json', JSON.stringify({ word_embedding_dimension: dimensions, pooling_mode_cls_token: pooling === 'cls', pooling_mode_mean_tokens: pooling === 'mean', pooling_mode_max_tokens: false }));
    write('modules.json', JSON.stringify([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      ...(normalize ? [{ idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' }] : []),
    ]));
  }
  return { dir, dimensions, maxLength, vocab, onnxBytes: onnx.length };
}

/** A BERT WordPiece tokenizer.json (lower-casing normalizer, BERT pre-tokenizer, [CLS] ... [SEP]). */
function bertTokenizerJson(vocab: readonly string[]): unknown {
  const special = (id: number) => ({ id, content: vocab[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [0, 1, 2, 3, 4].map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
  };
}

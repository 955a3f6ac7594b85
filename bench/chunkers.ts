/**
 * Token-sized and sentence chunking: Groundwork's `token` and `sentence` strategies (exact
 * cl100k_base counts) beside the JavaScript peers they replace, on the same English and Chinese
 * inputs: LangChain's TokenTextSplitter, @chonkiejs/core's TokenChunker and SentenceChunker (both
 * given js-tiktoken's cl100k_base, as they ship no BPE of their own), and js-tiktoken's encode
 * alone as the floor every peer pays. 512-token chunks, no overlap.
 *   node --import tsx bench/chunkers.ts
 */
import { SentenceChunker, TokenChunker } from '@chonkiejs/core';
import { TokenTextSplitter } from '@langchain/textsplitters';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';
import { chunkText } from '../src/chunk.js';
import { getTokenizer } from '../src/tokens/index.js';
import { benchText, mb, printTable, timeIt } from './inputs.js';

const CHUNK_SIZE = 512;
const MB1 = 1 << 20;
const MB8 = 8 << 20;
/** chonkie's TokenChunker maps every window back to offsets by joining the prefix: quadratic, so 8 MB is not run. */
const CHONKIE_TOKEN_MAX_BYTES = MB1;

const tiktoken = new Tiktoken(cl100kRanks);
/** js-tiktoken behind the tokenizer shape chonkie calls (countTokens/encode/decode). */
const chonkieTokenizer = {
  countTokens: (text: string) => tiktoken.encode(text).length,
  encode: (text: string) => tiktoken.encode(text),
  decode: (tokens: number[]) => tiktoken.decode(tokens),
  decodeBatch: (batch: number[][]) => batch.map((tokens) => tiktoken.decode(tokens)),
};

/** Seconds of one run (peers that take tens of seconds per pass are timed once, after no warm-up). */
async function once(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

function rate(text: string, seconds: number): number {
  return mb(text) / seconds;
}

export async function main(): Promise<void> {
  const ours = getTokenizer('cl100k_base');
  ours.count('warm up'); // loads the vocabulary outside the timings
  const langchain = new TokenTextSplitter({ encodingName: 'cl100k_base', chunkSize: CHUNK_SIZE, chunkOverlap: 0 });
  // LangChain would download the ranks on first use; hand it the bundled ones (no network).
  (langchain as unknown as { tokenizer: Tiktoken }).tokenizer = tiktoken;
  const chonkieToken = await TokenChunker.create({ tokenizer: chonkieTokenizer as never, chunkSize: CHUNK_SIZE, chunkOverlap: 0 });
  const chonkieSentence = await SentenceChunker.create({ tokenizer: chonkieTokenizer as never, chunkSize: CHUNK_SIZE, chunkOverlap: 0 });

  const tokenRows: (string | number)[][] = [];
  const sentenceRows: (string | number)[][] = [];
  const linear: (string | number)[][] = [];
  for (const lang of ['en', 'zh'] as const) {
    const perSize = new Map<number, { token: number; sentence: number }>();
    for (const bytes of [MB1, MB8]) {
      const text = benchText(lang, bytes);
      const label = `${lang} ${bytes / MB1} MB`;
      let tokenChunks = 0;
      const tToken = timeIt(() => (tokenChunks = chunkText(text, { strategy: 'token', chunkSize: CHUNK_SIZE }).length), 3);
      let sentenceChunks = 0;
      const tSentence = timeIt(() => (sentenceChunks = chunkText(text, { strategy: 'sentence', chunkSize: CHUNK_SIZE }).length), 3);
      perSize.set(bytes, { token: rate(text, tToken), sentence: rate(text, tSentence) });

      const tFloor = await once(() => tiktoken.encode(text));
      let langchainChunks = 0;
      const tLangchain = await once(async () => (langchainChunks = (await langchain.splitText(text)).length));
      const ourToken = rate(text, tToken);
      tokenRows.push([label, 'groundwork token (exact)', ourToken, '1.00', tokenChunks]);
      tokenRows.push([label, 'js-tiktoken encode only (floor)', rate(text, tFloor), `${(ourToken / rate(text, tFloor)).toFixed(1)}x`, '-']);
      tokenRows.push([label, 'LangChain TokenTextSplitter', rate(text, tLangchain), `${(ourToken / rate(text, tLangchain)).toFixed(1)}x`, langchainChunks]);
      if (bytes <= CHONKIE_TOKEN_MAX_BYTES) {
        let chonkieChunks = 0;
        const tChonkie = await once(async () => (chonkieChunks = (await chonkieToken.chunk(text)).length));
        tokenRows.push([label, '@chonkiejs/core TokenChunker', rate(text, tChonkie), `${(ourToken / rate(text, tChonkie)).toFixed(1)}x`, chonkieChunks]);
      } else {
        tokenRows.push([label, '@chonkiejs/core TokenChunker', 'not run (quadratic)', '-', '-']);
      }

      const ourSentence = rate(text, tSentence);
      sentenceRows.push([label, 'groundwork sentence (exact)', ourSentence, '1.00', sentenceChunks]);
      if (bytes === MB1) {
        let chonkieChunks = 0;
        const tChonkie = await once(async () => (chonkieChunks = (await chonkieSentence.chunk(text)).length));
        sentenceRows.push([label, '@chonkiejs/core SentenceChunker', rate(text, tChonkie), `${(ourSentence / rate(text, tChonkie)).toFixed(1)}x`, chonkieChunks]);
      }
    }
    const small = perSize.get(MB1)!;
    const large = perSize.get(MB8)!;
    linear.push([lang, 'token', small.token, large.token, (large.token / small.token).toFixed(2)]);
    linear.push([lang, 'sentence', small.sentence, large.sentence, (large.sentence / small.sentence).toFixed(2)]);
  }
  printTable(`Token chunking, ${CHUNK_SIZE}-token chunks, cl100k_base (MB/s; ratio = groundwork / peer)`, ['input', 'chunker', 'MB/s', 'groundwork is', 'chunks'], tokenRows);
  printTable(`Sentence chunking, ${CHUNK_SIZE}-token chunks, cl100k_base (MB/s; ratio = groundwork / peer)`, ['input', 'chunker', 'MB/s', 'groundwork is', 'chunks'], sentenceRows);
  printTable('Linearity: MB/s at 1 MB and 8 MB (a ratio near 1 or above is linear)', ['lang', 'strategy', '1 MB', '8 MB', '8 MB / 1 MB'], linear);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { recursiveChunker, recursiveSplit } from '../src/chunkers/recursive.js';
import { getTokenizer } from '../src/tokens/index.js';
import { benchText, mb, printTable, timeIt, timeItAsync } from './inputs.js';

/**
 * `recursive` against LangChain.js RecursiveCharacterTextSplitter 1.0.2 on the same 1 MB inputs:
 * MB/s of LangChain's splitText, of our splitter alone (texts and spans), of our chunkText (Chunk
 * objects with offsets; `tokens` is counted on first read), and of chunkText with every chunk's exact
 * token count read, with the ratios and a check that the texts are identical.
 */
export async function main(): Promise<void> {
  const tokenizer = getTokenizer('cl100k_base');
  const configs = [
    { chunkSize: 1000, chunkOverlap: 200 },
    { chunkSize: 500, chunkOverlap: 50 },
  ];
  const rows: (string | number)[][] = [];
  for (const lang of ['en', 'zh'] as const) {
    const text = benchText(lang, 1024 * 1024);
    const size = mb(text);
    for (const config of configs) {
      const options = recursiveChunker.resolveOptions(config);
      const langchain = new RecursiveCharacterTextSplitter(config);
      const reference = await langchain.splitText(text);
      const ours = recursiveSplit(text, options, tokenizer).map((s) => s.text);
      const identical = JSON.stringify(ours) === JSON.stringify(reference);
      const langchainSeconds = await timeItAsync(() => langchain.splitText(text));
      const splitSeconds = timeIt(() => recursiveSplit(text, options, tokenizer), 9);
      const chunkSeconds = timeIt(() => recursiveChunker.chunkText(text, options, tokenizer), 5);
      const countedSeconds = timeIt(() => recursiveChunker.chunkText(text, options, tokenizer).reduce((n, c) => n + c.tokens, 0), 1);
      rows.push([
        lang,
        `${config.chunkSize}/${config.chunkOverlap}`,
        reference.length,
        size / langchainSeconds,
        size / splitSeconds,
        `${(langchainSeconds / splitSeconds).toFixed(1)}x`,
        size / chunkSeconds,
        `${(langchainSeconds / chunkSeconds).toFixed(1)}x`,
        size / countedSeconds,
        `${(langchainSeconds / countedSeconds).toFixed(2)}x`,
        identical ? 'yes' : 'NO',
      ]);
    }
  }
  printTable(
    'recursive vs LangChain RecursiveCharacterTextSplitter (1 MB, chars)',
    ['input', 'size/overlap', 'chunks', 'LangChain MB/s', 'ours split MB/s', 'split ratio', 'ours chunkText MB/s', 'chunkText ratio', 'chunkText + every count read MB/s', 'ratio', 'identical'],
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

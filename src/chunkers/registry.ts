import { chiselChunker } from './chisel.js';
import { qwenChunker } from './qwen.js';
import { recursiveChunker } from './recursive.js';
import { sentenceChunker } from './sentence.js';
import { structureChunker } from './structure.js';
import { tokenChunker } from './token.js';
import { GroundworkError } from '../errors.js';
import type { ChunkerDefinition } from './types.js';

/** Every strategy by name. Adding one = one file in this folder + one line here. */
const chunkers = new Map<string, ChunkerDefinition<any>>(
  [structureChunker, recursiveChunker, chiselChunker, qwenChunker, sentenceChunker, tokenChunker].map((c) => [c.name, c]),
);

export const DEFAULT_STRATEGY = 'structure';

export function getChunker(name: string): ChunkerDefinition<any> {
  const chunker = chunkers.get(name);
  if (!chunker) {
    throw new GroundworkError('INVALID_OPTIONS', `unknown chunking strategy '${name}'; known: ${[...chunkers.keys()].join(', ')}`);
  }
  return chunker;
}

export function listChunkers(): ChunkerDefinition<any>[] {
  return [...chunkers.values()];
}

/** Lets an application add its own strategy. */
export function registerChunker(chunker: ChunkerDefinition<any>): void {
  chunkers.set(chunker.name, chunker);
}

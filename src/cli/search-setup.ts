/**
 * The embedder and reranker of the long-running commands that search (`serve`, `mcp`), taken as
 * `groundwork search` takes them: the --embed-* and --rerank-* flags (src/cli/embed-options.ts),
 * else GROUNDWORK_EMBEDDINGS_* / GROUNDWORK_RERANK_*, else the library's stored settings.
 *
 * The embedder is chosen once at start (not on a server's first vector search, where concurrent
 * requests would each open one): flags that do not work are an error, as in `groundwork search`;
 * an embedder from the environment or the settings that does not work is a warning (keyword search
 * still answers; vector and hybrid searches then say what is wrong).
 */
import { openReranker } from '../embed/config.js';
import type { Library } from '../library/library.js';
import type { PassageReranker } from '../retrieval/types.js';
import { UsageError, type ParsedArgs } from './args.js';
import { embedFlagsFrom, rerankFlagsFrom } from './embed-options.js';
import type { CliIO } from './io.js';

export interface SearchSetup {
  /** Chooses the library's embedder and opens the flags' reranker; prints which search modes the library has. */
  apply(library: Library, io: CliIO, command: string): Promise<{ reranker: PassageReranker | undefined }>;
}

/** Reads the flags (a bad value is a usage error before the library is opened). */
export function searchSetupFrom(args: ParsedArgs): SearchSetup {
  const embedFlags = embedFlagsFrom(args);
  const rerankFlags = rerankFlagsFrom(args);
  return {
    async apply(library, io, command) {
      let reranker: PassageReranker | undefined;
      if (Object.keys(rerankFlags).length > 0) {
        reranker = openReranker({ flags: rerankFlags })?.reranker;
        if (!reranker) throw new UsageError('the --rerank-* flags need --rerank-url');
      }
      const { model } = await library.vectorStats();
      if (Object.keys(embedFlags).length > 0) {
        await library.useEmbedder({ flags: embedFlags, persist: false });
      } else if (model !== null) {
        try {
          await library.useEmbedder({ persist: false });
        } catch (error) {
          io.err(`groundwork: ${command}: warning: the library's vectors (${model}) cannot be searched: ${error instanceof Error ? error.message : String(error)}; searches use bm25\n`);
        }
      }
      const embedder = library.embedder;
      if (model !== null && embedder) io.err(`groundwork: ${command}: searches are hybrid by default (vectors of ${model})\n`);
      else if (model !== null) io.err(`groundwork: ${command}: the library has ${model} vectors but no embedder is configured (--embed-url/--embed-model, GROUNDWORK_EMBEDDINGS_*): searches use bm25\n`);
      return { reranker };
    },
  };
}

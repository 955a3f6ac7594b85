/**
 * A search pool's worker thread (search-pool.ts): opens the library's store read-only from the spec
 * it is given, answers `search` messages with `library.search`, and asks the main thread for query
 * vectors and rerank scores (it holds no embedder, reranker or key).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PassageReranker } from '../retrieval/types.js';
import { retrievalResultJson } from '../retrieval/wire.js';
import { Library, type QueryEmbedding } from './library.js';
import { fromWireError, toWireError, type PoolReply, type PoolRequest, type SearchWorkerData } from './search-pool.js';

const port = parentPort!;
const data = workerData as SearchWorkerData;
const send = (message: PoolReply) => port.postMessage(message);

/** Calls to the main thread waiting for their answer. */
const calls = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
let nextCall = 1;
function ask<T>(message: (call: number) => PoolReply): Promise<T> {
  const call = nextCall++;
  return new Promise<T>((resolve, reject) => {
    calls.set(call, { resolve: resolve as (value: unknown) => void, reject });
    send(message(call));
  });
}

let library: Library;
try {
  library = await Library.open(data.dir, { store: data.spec });
} catch (error) {
  send({ type: 'failed', error: toWireError(error) });
  process.exit(1);
}
// Built in the background (the worker answers meanwhile, ranking with FTS5).
void library.warmSearch().catch(() => undefined);

port.on('message', (message: PoolRequest) => {
  if (message.type === 'answer') {
    const waiting = calls.get(message.call);
    calls.delete(message.call);
    if (message.error) waiting?.reject(fromWireError(message.error));
    else waiting?.resolve(message.value);
  } else if (message.type === 'close') {
    port.close();
    void library.close();
  } else {
    const { id, query, options } = message;
    const embedding: QueryEmbedding | null | undefined = message.embedding && {
      ...message.embedding,
      embed: (text) => ask<Float32Array>((call) => ({ type: 'embed', id, call, query: text })),
    };
    const reranker: PassageReranker | undefined = message.reranker && {
      ...message.reranker,
      rerank: (text, passages) => ask<number[]>((call) => ({ type: 'rerank', id, call, query: text, passages: [...passages] })),
    };
    library.search(query, options, { ...(embedding !== undefined && { queryEmbedding: embedding }), ...(reranker && { reranker }) }).then(
      (result) => send(message.json ? { type: 'json', id, json: JSON.stringify(retrievalResultJson(result)) } : { type: 'result', id, result }),
      (error) => send({ type: 'error', id, error: toWireError(error) }),
    );
  }
});
send({ type: 'ready' });

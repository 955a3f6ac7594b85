/**
 * Embedding throughput against a loopback OpenAI-compatible endpoint (the test fixture,
 * test/embed/fixtures.ts, in a child process, so its work is not counted as the client's): texts
 * per second, requests made and requests per text at batch sizes 1, 16, 64 and 256, with 1 and 4
 * requests in flight, and the throughput as a multiple of batch size 1 at the same concurrency
 * (measured in the same run), so the batching and concurrency gains are visible. A second table
 * holds the batch size at 256 and varies the token budget per request (maxBatchTokens): how many
 * requests the budget costs, and what that does to throughput. Vectors have 384
 * dimensions (bge-small, MiniLM). Two latencies: none (the client's own cost: JSON, batching,
 * checks) and 5 ms per request (a LAN round trip, or a small model's compute), where batching and
 * concurrency pay most. One pass per configuration: wall time, and the client's CPU time per text
 * (this process: batching, token counts, HTTP, JSON, checks), which holds better on a busy
 * machine. The machine's load average is printed with each table.
 */
import os, { loadavg } from 'node:os';
import { OpenAiEmbedder } from '../src/embed/openai.js';
import { countTokens } from '../src/tokens/index.js';
import { spawnEmbeddingServer } from '../test/embed/fixture-process.js';
import { benchText, printTable } from './inputs.js';

const DIMENSIONS = 384;
const BATCHES = [1, 16, 64, 256];
const CONCURRENCY = [1, 4];
/** Tokens per request (maxBatchTokens; 16384 is the default) at batch size 256. */
const TOKEN_BUDGETS = [512, 2048, 8192, 16_384, 65_536];

/** `n` paragraph-sized texts cut from the benchmark text, English and Chinese alternating. */
function texts(n: number): string[] {
  const sources = [benchText('en', 200_000), benchText('zh', 200_000)];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const src = sources[i % 2]!;
    const len = i % 2 === 0 ? 220 + (i % 7) * 30 : 60 + (i % 7) * 10;
    const at = (i * 997) % (src.length - len);
    out.push(src.slice(at, at + len).trim() || `text ${i}`);
  }
  return out;
}

/** The call's result, wall seconds, and this process's CPU milliseconds (user + system). */
async function timed<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  return [value, seconds, (used.user + used.system) / 1000];
}

function availableCores(): number {
  return os.availableParallelism();
}

export async function main(): Promise<void> {
  const server = await spawnEmbeddingServer({ dimensions: DIMENSIONS });
  try {
    for (const [latency, count] of [
      [0, 1024],
      [5, 512],
    ] as const) {
      await server.setLatency(latency);
      const input = texts(count);
      const rows: (string | number)[][] = [];
      // Warm up: tokenizer vocabulary, sockets, JIT.
      await new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'bench', maxInputTokens: 8192 }).embed(input.slice(0, 64));
      await server.requestCount();
      /** Texts per second at batch size 1, per concurrency: the base of the ratio column. */
      const single = new Map<number, number>();
      const row = async (label: string, concurrency: number, e: OpenAiEmbedder, base: number | undefined) => {
        const [vectors, seconds, cpuMs] = await timed(() => e.embed(input));
        if (vectors.length !== input.length || vectors[0]!.length !== DIMENSIONS) throw new Error('bench: wrong answer');
        const requests = await server.requestCount();
        const rate = input.length / seconds;
        return { rate, cells: [label, String(concurrency), String(requests), (requests / input.length).toFixed(4), rate, base === undefined ? '1.00' : rate / base, seconds * 1000, (cpuMs * 1000) / input.length] };
      };
      for (const batch of BATCHES) {
        for (const concurrency of CONCURRENCY) {
          const e = new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'bench', batchSize: batch, concurrency, maxInputTokens: 8192, maxBatchTokens: 1_000_000 });
          const { rate, cells } = await row(String(batch), concurrency, e, single.get(concurrency));
          if (batch === 1) single.set(concurrency, rate);
          rows.push(cells);
        }
      }
      const e = new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'bench', batchSize: 64, concurrency: 4, maxInputTokens: 8192, encodingFormat: 'base64' });
      rows.push((await row('64, base64', 4, e, single.get(4))).cells);
      const meanTokens = Math.round(input.reduce((n, t) => n + countTokens(t), 0) / input.length);
      const where = `${DIMENSIONS} dimensions, ${latency === 0 ? 'no added latency' : `+${latency} ms per request`}; load average ${loadavg()[0]!.toFixed(1)} on ${availableCores()} cores`;
      const header = ['requests', 'requests/text', 'texts/s', '× batch 1', 'wall ms', 'client CPU µs/text'];
      printTable(`${count} texts (mean ${meanTokens} tokens, cl100k_base), ${where}`, ['batch size', 'concurrency', ...header], rows);

      // The token budget per request at batch size 256: a small budget splits batches, costing requests.
      const budgetRows: (string | number)[][] = [];
      for (const maxBatchTokens of TOKEN_BUDGETS) {
        const budgeted = new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'bench', batchSize: 256, concurrency: 4, maxInputTokens: 512, maxBatchTokens });
        budgetRows.push((await row(String(maxBatchTokens), 4, budgeted, single.get(4))).cells);
      }
      printTable(`The same ${count} texts at batch size 256 by token budget per request (maxBatchTokens), ${where}`, ['tokens/request', 'concurrency', ...header], budgetRows);
    }
  } finally {
    await server.stop();
  }
}

/**
 * Embedding throughput against a loopback OpenAI-compatible endpoint (the test fixture,
 * test/embed/fixtures.ts, run in a worker thread so its JSON work does not share the client's
 * thread): texts per second and requests made at batch sizes 1, 16, 64 and 256, with 1 and 4
 * requests in flight, so the batching and concurrency gains are visible. Vectors have 384
 * dimensions (bge-small, MiniLM). Two latencies: none (the client's own cost: JSON, batching,
 * checks) and 5 ms per request (a LAN round trip, or a small model's compute), where batching and
 * concurrency pay most. One pass per configuration: wall time, and the CPU time of the process
 * (client and server together) per text, which holds better on a busy machine. The machine's load
 * average is printed with each table.
 */
import os, { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { OpenAiEmbedder } from '../src/embed/openai.js';
import { countTokens } from '../src/tokens/index.js';
import { benchText, printTable } from './inputs.js';

const DIMENSIONS = 384;
const BATCHES = [1, 16, 64, 256];
const CONCURRENCY = [1, 4];

/** Starts the fixture server in a worker; answers its URL and a way to stop it. */
async function startServerWorker(): Promise<{ url: string; requests(): Promise<number>; setLatency(ms: number): Promise<void>; stop(): Promise<void> }> {
  const fixtures = new URL('../test/embed/fixtures.ts', import.meta.url).href;
  const code = `
    const { parentPort } = require('node:worker_threads');
    // An eval worker has no loader for TypeScript: register tsx's, then load the fixture.
    import('tsx/esm/api').then(({ register }) => (register(), import(${JSON.stringify(fixtures)}))).then(async ({ startEmbeddingServer }) => {
      const server = await startEmbeddingServer({ dimensions: ${DIMENSIONS} });
      parentPort.on('message', async (m) => {
        if (m.type === 'requests') { parentPort.postMessage({ type: 'requests', n: server.requests.length }); server.reset(); }
        if (m.type === 'latency') { server.always(m.ms > 0 ? { delayMs: m.ms } : undefined); parentPort.postMessage({ type: 'latency' }); }
        if (m.type === 'stop') { await server.close(); parentPort.postMessage({ type: 'stopped' }); }
      });
      parentPort.postMessage({ type: 'ready', url: server.url });
    });`;
  const worker = new Worker(code, { eval: true });
  const ask = <T>(message: object, type: string) =>
    new Promise<T>((resolve) => {
      const on = (m: { type: string } & T) => {
        if (m.type !== type) return;
        worker.off('message', on);
        resolve(m);
      };
      worker.on('message', on);
      worker.postMessage(message);
    });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: { type: string; url?: string }) => m.type === 'ready' && resolve(m.url!));
  });
  return {
    url,
    requests: async () => (await ask<{ n: number }>({ type: 'requests' }, 'requests')).n,
    setLatency: async (ms) => void (await ask({ type: 'latency', ms }, 'latency')),
    stop: async () => {
      await ask({ type: 'stop' }, 'stopped');
      await worker.terminate();
    },
  };
}

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

/** The call's result, wall seconds, and process CPU milliseconds (user + system, all threads). */
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
  const server = await startServerWorker();
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
      await server.requests();
      for (const batch of BATCHES) {
        for (const concurrency of CONCURRENCY) {
          const e = new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'bench', batchSize: batch, concurrency, maxInputTokens: 8192, maxBatchTokens: 1_000_000 });
          const [vectors, seconds, cpuMs] = await timed(() => e.embed(input));
          if (vectors.length !== input.length || vectors[0]!.length !== DIMENSIONS) throw new Error('bench: wrong answer');
          rows.push([batch, concurrency, await server.requests(), input.length / seconds, seconds * 1000, (cpuMs * 1000) / input.length]);
        }
      }
      const e = new OpenAiEmbedder({ provider: 'openai', url: server.url, model: 'bench', batchSize: 64, concurrency: 4, maxInputTokens: 8192, encodingFormat: 'base64' });
      const [, seconds, cpuMs] = await timed(() => e.embed(input));
      rows.push(['64, base64', 4, await server.requests(), input.length / seconds, seconds * 1000, (cpuMs * 1000) / input.length]);
      const meanTokens = Math.round(input.reduce((n, t) => n + countTokens(t), 0) / input.length);
      printTable(
        `${count} texts (mean ${meanTokens} tokens, cl100k_base), ${DIMENSIONS} dimensions, ${latency === 0 ? 'no added latency' : `+${latency} ms per request`}; load average ${loadavg()[0]!.toFixed(1)} on ${availableCores()} cores`,
        ['batch size', 'concurrency', 'requests', 'texts/s', 'wall ms', 'CPU µs/text'],
        rows,
      );
    }
  } finally {
    await server.stop();
  }
}

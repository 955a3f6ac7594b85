/**
 * The loopback embeddings server (fixtures.ts) in a child process of its own, for benchmarks (the
 * client's CPU time is then the client's alone) and for tests that run the CLI in another process.
 *
 *   const server = await spawnEmbeddingServer({ dimensions: 384 });
 *   server.url; await server.setLatency(5); await server.requestCount(); await server.stop();
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startEmbeddingServer, type EmbeddingServerOptions } from './fixtures.js';

type Message = { type: 'ready'; url: string } | { type: 'requests'; n: number } | { type: 'latency' } | { type: 'stopped' };

export interface EmbeddingServerProcess {
  url: string;
  /** Requests received since the last call (the count is reset). */
  requestCount(): Promise<number>;
  /** Adds this delay to every answer (0: none). */
  setLatency(ms: number): Promise<void>;
  stop(): Promise<void>;
}

const ARG = '--groundwork-embedding-fixture';

export async function spawnEmbeddingServer(options: EmbeddingServerOptions = {}): Promise<EmbeddingServerProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [ARG, JSON.stringify(options)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T extends Message['type']>(message: object, type: T) =>
    new Promise<Extract<Message, { type: T }>>((resolve, reject) => {
      const on = (m: Message) => {
        if (m.type !== type) return;
        child.off('message', on);
        child.off('exit', onExit);
        resolve(m as Extract<Message, { type: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`the fixture server exited (${code})`));
      child.on('message', on);
      child.once('exit', onExit);
      if (Object.keys(message).length > 0) child.send(message);
    });
  const { url } = await ask({}, 'ready');
  return {
    url,
    requestCount: async () => (await ask({ type: 'requests' }, 'requests')).n,
    setLatency: async (ms) => void (await ask({ type: 'latency', ms }, 'latency')),
    stop: async () => {
      await ask({ type: 'stop' }, 'stopped');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    },
  };
}

// Run as the child: serve until told to stop.
if (process.argv[2] === ARG && process.send) {
  const server = await startEmbeddingServer(JSON.parse(process.argv[3] ?? '{}') as EmbeddingServerOptions);
  process.on('message', async (m: { type: string; ms?: number }) => {
    if (m.type === 'requests') {
      process.send!({ type: 'requests', n: server.requests.length });
      server.reset();
    } else if (m.type === 'latency') {
      server.always(m.ms ? { delayMs: m.ms } : undefined);
      process.send!({ type: 'latency' });
    } else if (m.type === 'stop') {
      await server.close();
      process.send!({ type: 'stopped' }, () => process.exit(0));
    }
  });
  process.send({ type: 'ready', url: server.url });
}

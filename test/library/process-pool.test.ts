import { describe, expect, test } from 'vitest';
import { ProcessPool } from '../../src/library/process-pool.js';
import type { PoolTestTask } from './pool-worker.js';

const ENTRY = new URL('./pool-worker.ts', import.meta.url);

function newPool(limits = { fileTimeoutMs: 5000, fileMemoryMb: 200 }, onAsk?: ConstructorParameters<typeof ProcessPool>[1]['onAsk']) {
  return new ProcessPool<PoolTestTask, { value: number; pid: number }>(ENTRY, { size: 1, limits, ...(onAsk && { onAsk }) });
}

describe('ProcessPool: per-task limits held by killing the worker', () => {
  test('a task over the wall-time limit is TIMEOUT naming the limit; the worker is replaced and the next task runs', async () => {
    const pool = newPool({ fileTimeoutMs: 1500, fileMemoryMb: 200 });
    try {
      const first = await pool.run({ kind: 'echo', value: 1 });
      const spun = await pool.run({ kind: 'spin' });
      expect(spun).toEqual({ ok: false, failure: { code: 'TIMEOUT', message: expect.stringContaining('--file-timeout'), limit: { name: 'fileTimeoutMs', value: 1500, flag: '--file-timeout' } } });
      const next = await pool.run({ kind: 'echo', value: 2 });
      expect(next).toMatchObject({ ok: true, result: { value: 2 } });
      // A new process took the killed one's place.
      expect(next.ok && first.ok && next.result.pid !== first.result.pid).toBe(true);
    } finally {
      await pool.close();
    }
  });

  test('a task over the memory ceiling is LIMIT_EXCEEDED naming fileMemoryMb: JS heap, and WASM memory outside the heap', async () => {
    const pool = newPool({ fileTimeoutMs: 60_000, fileMemoryMb: 200 });
    try {
      for (const kind of ['heap', 'wasm'] as const) {
        const outcome = await pool.run({ kind });
        expect(outcome, kind).toEqual({ ok: false, failure: { code: 'LIMIT_EXCEEDED', message: expect.stringContaining('--file-memory'), limit: { name: 'fileMemoryMb', value: 200, flag: '--file-memory' } } });
        expect(await pool.run({ kind: 'echo', value: 3 })).toMatchObject({ ok: true, result: { value: 3 } });
      }
    } finally {
      await pool.close();
    }
  });

  test('a native crash fails only its own task, as CRASHED (never CORRUPT); an error thrown by the task is its failure, the worker lives on', async () => {
    const pool = newPool();
    try {
      expect(await pool.run({ kind: 'abort' })).toMatchObject({ ok: false, failure: { code: 'CRASHED', message: expect.stringMatching(/crashed \(it exited with SIGABRT\)/) } });
      const thrown = await pool.run({ kind: 'throw' });
      expect(thrown).toEqual({ ok: false, failure: { code: 'CORRUPT', message: 'not a valid file' } });
      const a = await pool.run({ kind: 'echo', value: 4 });
      const b = await pool.run({ kind: 'echo', value: 5 });
      expect(a.ok && b.ok && a.result.pid === b.result.pid).toBe(true);
    } finally {
      await pool.close();
    }
  });

  test('a worker may ask the parent and wait (its turn to write); what it registered is released when the task ends', async () => {
    const released: number[] = [];
    const pool = newPool(undefined, (what, payload, task) => {
      task.release(() => released.push(task.id));
      return what === 'turn' ? Number(payload) * 6 : undefined;
    });
    try {
      expect(await pool.run({ kind: 'ask' })).toMatchObject({ ok: true, result: { value: 42 } });
      expect(released).toHaveLength(1);
    } finally {
      await pool.close();
    }
  });

  test('pieces a task sends ahead of its result (TaskContext.part) reach the caller whole and in order, and only that task\'s', async () => {
    const pool = newPool();
    try {
      const outcome = await pool.run({ kind: 'parts', count: 40, bytes: 100_000 });
      expect(outcome).toMatchObject({ ok: true, result: { value: 40 } });
      if (!outcome.ok) return;
      const parts = outcome.parts as { i: number; bytes: Uint8Array }[];
      expect(parts.map((p) => p.i)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      for (const p of parts) {
        expect(p.bytes.length).toBe(100_000);
        expect(p.bytes.every((b) => b === (p.i & 0xff))).toBe(true);
      }
      const next = await pool.run({ kind: 'echo', value: 5 });
      expect(next).toMatchObject({ ok: true, result: { value: 5 }, parts: [] });
    } finally {
      await pool.close();
    }
  });

  test('a worker that keeps too much memory after its task is retired: the next task runs in a fresh process', async () => {
    const pool = new ProcessPool<PoolTestTask, { value: number; pid: number }>(ENTRY, { size: 1, limits: { fileTimeoutMs: 60_000, fileMemoryMb: 400 }, recycleOverMb: 150 });
    try {
      const small = await pool.run({ kind: 'keep', mb: 1 });
      const same = await pool.run({ kind: 'echo', value: 1 });
      expect(small.ok && same.ok && small.result.pid === same.result.pid).toBe(true);
      const big = await pool.run({ kind: 'keep', mb: 200 });
      const fresh = await pool.run({ kind: 'echo', value: 2 });
      expect(fresh).toMatchObject({ ok: true, result: { value: 2 } });
      expect(big.ok && fresh.ok && big.result.pid !== fresh.result.pid).toBe(true);
      expect(pool.retired).toBe(1);
    } finally {
      await pool.close();
    }
  });

  test('freshOverMb: a task that asks for it starts in a fresh worker when the idle one is over the mark; other tasks keep the worker', async () => {
    // recycleOverMb far above what the worker keeps: only freshOverMb retires it.
    const pool = new ProcessPool<PoolTestTask, { value: number; pid: number }>(ENTRY, { size: 1, limits: { fileTimeoutMs: 60_000, fileMemoryMb: 600 }, recycleOverMb: 500 });
    try {
      const big = await pool.run({ kind: 'keep', mb: 150 });
      const plain = await pool.run({ kind: 'echo', value: 1 });
      expect(big.ok && plain.ok && big.result.pid === plain.result.pid).toBe(true);
      // Under the mark: the same worker.
      const under = await pool.run({ kind: 'echo', value: 2 }, { freshOverMb: 450 });
      expect(under.ok && plain.ok && under.result.pid === plain.result.pid).toBe(true);
      expect(pool.retired).toBe(0);
      const fresh = await pool.run({ kind: 'echo', value: 3 }, { freshOverMb: 100 });
      expect(fresh).toMatchObject({ ok: true, result: { value: 3 } });
      expect(fresh.ok && plain.ok && fresh.result.pid !== plain.result.pid).toBe(true);
      expect(pool.retired).toBe(1);
      // The fresh worker is under the mark: it is kept for the next such task.
      const again = await pool.run({ kind: 'echo', value: 4 }, { freshOverMb: 100 });
      expect(again.ok && fresh.ok && again.result.pid === fresh.result.pid).toBe(true);
      expect(pool.retired).toBe(1);
    } finally {
      await pool.close();
    }
  });

  test('freshOverMb: a task waiting for a busy worker that is over the mark when it is free gets a fresh one', async () => {
    const pool = new ProcessPool<PoolTestTask, { value: number; pid: number }>(ENTRY, { size: 1, limits: { fileTimeoutMs: 60_000, fileMemoryMb: 600 }, recycleOverMb: 500 });
    try {
      const [big, fresh] = await Promise.all([pool.run({ kind: 'keep', mb: 150 }), pool.run({ kind: 'echo', value: 1 }, { freshOverMb: 100 })]);
      expect(fresh).toMatchObject({ ok: true, result: { value: 1 } });
      expect(big.ok && fresh.ok && big.result.pid !== fresh.result.pid).toBe(true);
      expect(pool.retired).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

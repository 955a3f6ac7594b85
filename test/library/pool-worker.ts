import { serveTasks } from '../../src/library/task-host.js';

/**
 * A worker for test/library/process-pool.test.ts: each task does one thing a parser can do to its
 * process (run forever, fill the JS heap, grow WASM memory past the heap limit, crash natively,
 * ask the parent for its turn) so the pool's limits are tested on real process behaviour.
 */
/** The project compiles without the DOM lib, which declares WebAssembly. */
const Wasm = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => { grow(pages: number): number; buffer: ArrayBuffer } } }).WebAssembly;

export type PoolTestTask = { kind: 'echo'; value: number } | { kind: 'spin' } | { kind: 'heap' } | { kind: 'wasm' } | { kind: 'abort' } | { kind: 'ask' } | { kind: 'throw' } | { kind: 'parts'; count: number; bytes: number } | { kind: 'keep'; mb: number };

const kept: Uint8Array[] = [];

serveTasks<PoolTestTask, { value: number; pid: number }>(async (task, ctx) => {
  switch (task.kind) {
    case 'echo':
      return { value: task.value, pid: process.pid };
    case 'spin':
      for (;;);
    case 'heap': {
      const keep: number[][] = [];
      for (;;) keep.push(new Array(1 << 20).fill(1));
    }
    case 'wasm': {
      // Outside the V8 heap, as PDFium's memory is.
      const memory = new Wasm.Memory({ initial: 1, maximum: 65536 });
      for (;;) {
        memory.grow(256);
        new Uint8Array(memory.buffer).fill(1);
      }
    }
    case 'abort':
      process.abort();
    case 'ask':
      return { value: Number(await ctx.ask('turn', 7)), pid: process.pid };
    case 'throw':
      throw new Error('not a valid file');
    case 'keep':
      // Memory kept after the task, as PDFium's WebAssembly memory is (it never shrinks).
      kept.push(new Uint8Array(task.mb << 20).fill(1));
      return { value: task.mb, pid: process.pid };
    case 'parts':
      // Pieces of a result sent ahead of it, each awaited (written to the channel) before the next.
      for (let i = 0; i < task.count; i++) await ctx.part({ i, bytes: new Uint8Array(task.bytes).fill(i & 0xff) });
      return { value: task.count, pid: process.pid };
  }
});
